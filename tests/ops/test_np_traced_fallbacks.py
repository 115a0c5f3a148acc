"""``mx.np`` fallbacks (NumPy's own functions on the data) inside hybridized blocks: traced as one
``_npi_fallback`` node each, so the cached graph recomputes them on new data; MXNet's sorted
array-API set functions; ``tril``/``triu`` of a vector."""
import numpy
import pytest
from helpers import FnBlock, assert_same_results, requires_oracle, run_both

import mxlab as mx


def _hybrid(fn):
    block = FnBlock(fn)
    block.hybridize()
    return block


def test_unique_all_is_traced_and_recomputed_on_new_data():
    block = _hybrid(mx.np.unique_all)
    for data in ([3.0, 1.0, 3.0, 2.0], [5.0, 5.0, 4.0, 1.0, 1.0, 9.0]):
        got = block(mx.np.array(data))
        want = numpy.unique(numpy.array(data, dtype="float32"), return_index=True,
                            return_inverse=True, return_counts=True)
        assert len(got) == 4
        for g, w in zip(got, want):
            assert g.shape == w.shape
            numpy.testing.assert_array_equal(g.asnumpy(), w)
    assert block._cached_op is not None


def test_fallback_without_array_inputs_is_a_graph_node():
    block = _hybrid(lambda x: (x, mx.np.tril_indices(3, k=-1)))
    for _ in range(2):
        x, (rows, cols) = block(mx.np.ones(2))
        numpy.testing.assert_array_equal(rows.asnumpy(), numpy.tril_indices(3, k=-1)[0])
        numpy.testing.assert_array_equal(cols.asnumpy(), numpy.tril_indices(3, k=-1)[1])


def test_fallback_result_feeds_traced_ops():
    block = _hybrid(lambda x: x + mx.np.tri(3, 4, 1, "float32"))
    for value in (0.0, 2.0):
        got = block(mx.np.array(value))
        numpy.testing.assert_array_equal(got.asnumpy(), value + numpy.tri(3, 4, 1))


def test_median_in_a_hybridized_block():
    block = _hybrid(lambda x: mx.np.median(x, axis=1))
    data = numpy.random.RandomState(0).uniform(size=(3, 5)).astype("float32")
    got = block(mx.np.array(data))
    numpy.testing.assert_allclose(got.asnumpy(), numpy.median(data, axis=1), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["int32", "float32"])
def test_unique_values_sorted(dtype):
    data = numpy.array([7, -1, 3, 7, -4, 3, 1], dtype=dtype)
    got = mx.np.unique_values(mx.np.array(data, dtype=dtype))
    numpy.testing.assert_array_equal(got.asnumpy(), numpy.unique(data))
    inverse = mx.np.unique_inverse(mx.np.array(data, dtype=dtype))
    numpy.testing.assert_array_equal(inverse.values.asnumpy()[inverse.inverse_indices.asnumpy()],
                                     data)


@pytest.mark.parametrize("name, k", [("tril", 0), ("tril", 2), ("triu", 1), ("triu", -1)])
def test_tril_triu_of_a_vector(name, k):
    data = numpy.array([1.0, 2.0, 3.0])
    x = mx.np.array(data)
    x.attach_grad()
    with mx.autograd.record():
        y = getattr(mx.np, name)(x, k)
    y.backward()
    numpy.testing.assert_array_equal(y.asnumpy(), getattr(numpy, name)(data, k))
    mask = getattr(numpy, name)(numpy.ones((3, 3)), k)
    numpy.testing.assert_array_equal(x.grad.asnumpy(), mask.sum(axis=0))


ORACLE_MOD = """
a, b = mx.np.array(inputs['a'], dtype='int32'), mx.np.array(inputs['b'], dtype='int32')
a.attach_grad(); b.attach_grad()
with mx.autograd.record():
    y = mx.np.mod(a, b)
y.backward()
outputs['y'], outputs['ga'], outputs['gb'] = y.asnumpy(), a.grad.asnumpy(), b.grad.asnumpy()
"""


@requires_oracle
def test_integer_mod_gradient_is_zero_as_in_mxnet():
    inputs = {"a": numpy.array([[7, -7], [5, 9]]), "b": numpy.array([2, -3])}
    assert_same_results(*run_both(ORACLE_MOD, inputs))


def test_integer_mod_and_fmod_have_no_gradient():
    for fn in (mx.np.mod, mx.np.fmod):
        a = mx.np.array([7, -7, 5], dtype="int32")
        b = mx.np.array([2, 2, -3], dtype="int32")
        a.attach_grad()
        b.attach_grad()
        with mx.autograd.record():
            y = fn(a, b)
        y.backward()
        assert y.dtype == numpy.int32
        numpy.testing.assert_array_equal(y.asnumpy(), getattr(numpy, fn.__name__)(
            numpy.array([7, -7, 5]), numpy.array([2, 2, -3])))
        assert not a.grad.asnumpy().any() and not b.grad.asnumpy().any()
