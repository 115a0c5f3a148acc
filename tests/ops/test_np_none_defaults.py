"""Arguments MXNet's frontends read ``None`` for: ``npx.slice(step=None)``, ``np.eye(M=None)``
(NumPy's ``M=0`` is zero columns, ``mx.nd.eye``'s is N), ``np.arange(step=None)`` and
``astype(None)`` (the default float dtype)."""
import numpy
import pytest
from helpers import assert_same_results, requires_oracle, run_both

import mxlab as mx


def test_npx_slice_step_none():
    x = mx.np.arange(24).reshape(2, 3, 4)
    got = mx.npx.slice(x, begin=(0, 1), end=(2, 3), step=None)
    numpy.testing.assert_array_equal(got.asnumpy(), numpy.arange(24).reshape(2, 3, 4)[0:2, 1:3])


@pytest.mark.parametrize("m, cols", [(None, 4), (0, 0), (2, 2)])
def test_np_eye_columns(m, cols):
    got = mx.np.eye(4, M=m, k=1)
    assert got.shape == (4, cols)
    numpy.testing.assert_array_equal(got.asnumpy(), numpy.eye(4, m, k=1))


ORACLE_EYE = """
outputs['np0'] = mx.np.eye(3, M=0).asnumpy()
outputs['npnone'] = mx.np.eye(3, M=None, k=-1).asnumpy()
outputs['nd0'] = mx.nd.eye(3, M=0).asnumpy()
"""


@requires_oracle
def test_eye_columns_match_mxnet():
    assert_same_results(*run_both(ORACLE_EYE, {}))


def test_np_arange_step_none():
    numpy.testing.assert_array_equal(mx.np.arange(2, 7, None).asnumpy(), numpy.arange(2, 7.0))


def test_astype_none_is_the_default_float():
    x = mx.np.array([1, 2], dtype="int32")
    assert x.astype(None).dtype == numpy.float32
    mx.npx.set_np(dtype=True)
    try:
        assert x.astype(None).dtype == numpy.float64
    finally:
        mx.npx.set_np(dtype=False)
