"""mx.np called as MXNet 1.9.1's tests call it: ``np.sort(a, axis, kind)``, mean's gradient dtype,
``np.random.multivariate_normal``, ``np.random.choice`` and ``nan_to_num(copy=False)`` inside a
hybridized block; oracle tests compare values with MXNet 1.9.1."""
import pathlib
import sys

import numpy as onp
import pytest

import mxlab as mx
from mxlab.base import MXNetError
from mxlab.gluon import HybridBlock

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "oracle"))
from mxnet_oracle import requires_mxnet, run_mxlab, run_mxnet  # noqa: E402


@pytest.fixture(autouse=True)
def _np_mode():
    mx.npx.set_np()
    yield
    mx.npx.reset_np()


class _Call(HybridBlock):
    def __init__(self, fn):
        super().__init__()
        self._fn = fn

    def forward(self, *args):
        return self._fn(*args)


@pytest.mark.parametrize("hybridize", [False, True])
def test_sort_takes_a_sort_kind_where_2_0_has_descending(hybridize):
    x = mx.np.array([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
    block = _Call(lambda a: mx.np.sort(a, -1, "quicksort"))
    if hybridize:
        block.hybridize()
    onp.testing.assert_array_equal(block(x).asnumpy(), onp.sort(x.asnumpy(), -1))
    assert mx.np.sort(x, 1, True).asnumpy().tolist() == [[3, 2, 1], [5, 4, 0]]
    assert mx.np.argsort(x, 0, "mergesort").asnumpy().tolist() == [[1, 0, 0], [0, 1, 1]]
    with pytest.raises(MXNetError, match="descending"):
        mx.np.sort(x, -1, "bogosort")


@pytest.mark.parametrize("itype", ["float32", "float64"])
def test_mean_gradient_divides_in_the_input_dtype(itype):
    """mean(x, dtype=float16) of a float32 x: MXNet casts the head to float32, then divides,
    so the gradient is 1/3 in float32, not 1/3 rounded to float16."""
    x = mx.np.ones((1, 3), dtype=itype)
    x.attach_grad()
    with mx.autograd.record():
        y = x.mean(axis=1, dtype="float16")
    y.backward()
    assert x.grad.dtype == onp.dtype(itype)
    onp.testing.assert_array_equal(x.grad.asnumpy(), onp.ones((1, 3), itype) / 3)


@pytest.mark.parametrize("hybridize", [False, True])
def test_multivariate_normal_shapes_and_moments(hybridize):
    block = _Call(lambda m, c: mx.np.random.multivariate_normal(m, c, (2, 3)))
    if hybridize:
        block.hybridize()
    out = block(mx.np.zeros((4, 2)), mx.np.array([[1.0, 0.0], [0.0, 4.0]]))
    assert out.shape == (2, 3, 4, 2)
    mx.random.seed(3)
    cov = onp.array([[1.0, 0.6], [0.6, 2.0]])
    draws = mx.np.random.multivariate_normal(mx.np.array([1.0, -2.0]), mx.np.array(cov),
                                             size=40000).asnumpy()
    onp.testing.assert_allclose(draws.mean(axis=0), [1.0, -2.0], atol=0.05)
    onp.testing.assert_allclose(onp.cov(draws.T), cov, atol=0.06)
    with pytest.raises(MXNetError, match="cov"):
        mx.np.random.multivariate_normal(mx.np.zeros(3), mx.np.eye(2)).wait_to_read()


def test_choice_in_a_hybridized_block_follows_the_weights():
    weights = mx.np.array([0.1, 0.0, 0.6, 0.3], dtype="float16")
    picks = _Call(lambda a, p: mx.np.random.choice(a, 20000, True, p))
    picks.hybridize()
    got = picks(mx.np.arange(4) * 10, weights).asnumpy()
    freq = onp.bincount(got.astype(int) // 10, minlength=4) / got.size
    onp.testing.assert_allclose(freq, [0.1, 0.0, 0.6, 0.3], atol=0.02)
    unique = _Call(lambda a: mx.np.random.choice(a, size=(2, 3), replace=False))
    unique.hybridize()
    drawn = unique(mx.np.arange(6)).asnumpy()
    assert drawn.shape == (2, 3) and len(set(drawn.ravel().tolist())) == 6


def test_choice_normalises_float16_weights():
    out = mx.np.random.choice(5, size=100, p=mx.np.array([0.1, 0.2, 0.3, 0.2, 0.2],
                                                         dtype="float16"))
    assert out.shape == (100,) and int(out.max()) <= 4


def test_nan_to_num_without_copy_in_a_hybridized_block_gives_a_new_output():
    block = _Call(lambda a: mx.np.nan_to_num(a, False))
    block.hybridize()
    x = mx.np.array([onp.nan, onp.inf, 1.0])
    out = block(x)
    assert out.asnumpy().tolist() == [0.0, onp.finfo(onp.float32).max, 1.0]
    y = mx.np.array([onp.nan, 2.0])
    assert mx.np.nan_to_num(y, copy=False) is y and y.asnumpy().tolist() == [0.0, 2.0]


ORACLE_CODE = """
mx.npx.set_np()
x = mx.np.array(inputs['x'])
outputs['sort'] = mx.np.sort(x, 1, 'quicksort').asnumpy()
outputs['argsort'] = mx.np.argsort(x, 0).asnumpy()
for itype in ('float16', 'float32', 'float64'):
    for dtype in ('float16', 'float32', 'float64'):
        a = x.astype(itype)
        a.attach_grad()
        with mx.autograd.record():
            y = a.mean(axis=1, dtype=dtype)
        y.backward()
        outputs['mean_grad_%s_%s' % (itype, dtype)] = a.grad.asnumpy()
"""


@pytest.mark.oracle
@requires_mxnet
def test_np_forms_against_mxnet():
    inputs = {"x": onp.random.default_rng(5).uniform(-1, 1, (3, 7)).astype(onp.float32)}
    expected = run_mxnet(ORACLE_CODE, inputs)
    mx.npx.reset_np()
    got = run_mxlab(ORACLE_CODE, inputs)
    for key, value in expected.items():
        assert got[key].dtype == value.dtype, key
        onp.testing.assert_array_equal(got[key], value, err_msg=key)


@pytest.mark.parametrize("flavour", ["nd", "np"])
def test_take_raise_mode_rejects_negative_indices(flavour):
    """MXNet (1.9.1 and 2.0) checks raise-mode indices against [0, n): -1 raises, not wraps."""
    mod = getattr(mx, flavour)
    x = mod.arange(3)
    assert mod.take(x, mod.array([2, 0], dtype="int64"), mode="raise").asnumpy().tolist() == \
        [2, 0]
    for bad in ([-1], [3]):
        with pytest.raises(MXNetError, match="out of range"):
            mod.take(x, mod.array(bad, dtype="int64"), mode="raise").wait_to_read()


TAKE_ORACLE_CODE = """
out = []
for flavour in ('nd', 'np'):
    if flavour == 'np':
        mx.npx.set_np()
    mod = getattr(mx, flavour)
    for idx in ([-1], [-3], [2], [3]):
        try:
            mod.take(mod.arange(3), mod.array(idx, dtype='int64'), mode='raise').asnumpy()
            out.append(1)
        except mx.base.MXNetError:
            out.append(0)
outputs['accepted'] = np.array(out)
"""


@pytest.mark.oracle
@requires_mxnet
def test_take_raise_mode_against_mxnet():
    expected = run_mxnet(TAKE_ORACLE_CODE, {})
    mx.npx.reset_np()
    got = run_mxlab(TAKE_ORACLE_CODE, {})
    onp.testing.assert_array_equal(got["accepted"], expected["accepted"])
