"""``mx.np.linalg.norm``, ``vector_norm`` and ``matrix_norm`` in the forms MXNet's numpy tests use:
``'inf'``/``'-inf'`` spelled as strings, ``vector_norm`` over a tuple of axes (merged into one),
and ``matrix_norm`` refusing anything but two axes."""
import functools

import numpy
import pytest

import mxlab as mx
from mxlab.base import MXNetValueError

X = numpy.random.RandomState(3).uniform(-2, 2, (2, 3, 4))


@pytest.mark.parametrize("ord_, axis", [("inf", 1), ("-inf", (1, 0)), ("inf", (0, 2)),
                                        ("-inf", 2)])
def test_norm_reads_inf_strings(ord_, axis):
    got = mx.np.linalg.norm(mx.np.array(X, dtype="float64"), ord=ord_, axis=axis)
    numpy.testing.assert_allclose(got.asnumpy(), numpy.linalg.norm(X, float(ord_), axis),
                                  rtol=1e-12)


def test_norm_inf_string_gradient_matches_float_inf():
    grads = []
    for ord_ in ("inf", numpy.inf):
        a = mx.np.array(X, dtype="float64")
        a.attach_grad()
        with mx.autograd.record():
            mx.np.linalg.norm(a, ord=ord_, axis=(0, 2)).sum().backward()
        grads.append(a.grad.asnumpy())
    numpy.testing.assert_array_equal(grads[0], grads[1])
    assert numpy.abs(grads[0]).sum() > 0


def _merged(x, axis):
    rest = tuple(i for i in range(x.ndim) if i not in axis)
    size = functools.reduce(lambda p, a: p * x.shape[a], axis, 1)
    return numpy.transpose(x, axis + rest).reshape((size,) + tuple(x.shape[i] for i in rest))


@pytest.mark.parametrize("axis, keepdims", [((2, 0), False), ((0, 1, 2), False), ((1, 2), True)])
def test_vector_norm_merges_tuple_axes(axis, keepdims):
    got = mx.np.linalg.vector_norm(mx.np.array(X), ord=3, axis=axis, keepdims=keepdims)
    want = numpy.linalg.norm(_merged(X, axis), ord=3, axis=0, keepdims=keepdims)
    assert got.shape == want.shape
    numpy.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5)


def test_vector_norm_axis_none_flattens():
    got = mx.np.linalg.vector_norm(mx.np.array(X), axis=None, keepdims=True)
    assert got.shape == (1,)
    numpy.testing.assert_allclose(got.asnumpy(), [numpy.linalg.norm(X.ravel())], rtol=1e-5)


@pytest.mark.parametrize("axis", [None, 1, (0, 1, 2)])
def test_matrix_norm_needs_two_axes(axis):
    with pytest.raises(ValueError, match="matrix_norm") as info:
        mx.np.linalg.matrix_norm(mx.np.array(X), "fro", axis)
    assert isinstance(info.value, MXNetValueError)
