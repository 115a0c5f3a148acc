"""The array class: conversion, properties, devices and copies, casts, detach, engine versions,
printing, and the differences between legacy ``mx.nd.NDArray`` and ``mx.np.ndarray``."""

import numpy
import pytest

import mxlab as mx
from mxlab.base import MXNetError, MXNetTypeError, MXNetValueError


@pytest.fixture(params=["nd", "np"])
def ns(request):
    return getattr(mx, request.param)


def test_asnumpy_is_a_copy(ns):
    x = ns.array([[1, 2], [3, 4]])
    host = x.asnumpy()
    host[0, 0] = 100
    assert x.asnumpy()[0, 0] == 1
    assert isinstance(host, numpy.ndarray) and host.dtype == numpy.float32


def test_shape_size_ndim_len_and_T(ns):
    x = ns.array(numpy.arange(24).reshape(2, 3, 4))
    assert x.shape == (2, 3, 4) and x.size == 24 and x.ndim == 3 and len(x) == 2
    assert x.T.shape == (4, 3, 2)
    numpy.testing.assert_array_equal(x.T.asnumpy(), numpy.arange(24).reshape(2, 3, 4).T)


def test_dtype_flavours():
    assert mx.nd.ones((2,)).dtype is numpy.float32  # nd: the scalar type, as MXNet 1.x
    assert mx.np.ones((2,)).dtype == numpy.dtype("float32")  # np: a numpy dtype
    # NOTE: mx.nd.array takes float32 unless told (MXNet 1.x and 2.0); mx.np keeps NumPy's dtype
    assert mx.nd.array(numpy.array([1, 2], dtype=numpy.int64)).dtype is numpy.float32
    assert mx.nd.array(numpy.array([1, 2]), dtype="int64").dtype is numpy.int64
    assert mx.np.array(numpy.array([1, 2], dtype=numpy.int64)).dtype == numpy.int64
    assert mx.np.array([1, 2]).dtype == numpy.float32  # Python data: MXNet's default float32
    assert mx.np.array([True, False]).dtype == numpy.bool_


def test_comparison_dtypes_differ_by_flavour():
    a = mx.nd.array([1, 2])
    assert (a == a).dtype is numpy.float32
    b = mx.np.array([1, 2])
    assert (b == b).dtype == numpy.bool_


def test_devices_copyto_and_as_in_context(ns):
    x = ns.array([1.0, 2.0])
    assert x.device == mx.cpu(0) and x.ctx == mx.cpu(0) and x.context == mx.cpu(0)
    y = x.as_in_context(mx.cpu(1))
    assert y.device == mx.cpu(1) and y.asnumpy().tolist() == [1.0, 2.0]
    assert x.as_in_context(mx.cpu(0)) is x
    z = x.copyto(mx.cpu(1))
    assert z.device == mx.cpu(1) and z is not x
    back = y.as_in_context(mx.cpu(0))
    assert back.device == mx.cpu(0) and back.asnumpy().tolist() == [1.0, 2.0]


def test_copyto_array_target_and_errors(ns):
    x = ns.array([1.0, 2.0])
    target = ns.zeros((2,), ctx=mx.cpu(1))
    before = target.version
    assert x.copyto(target) is target
    assert (
        target.asnumpy().tolist() == [1.0, 2.0]
        and target.version > before
        and target.device == mx.cpu(1)
    )
    with pytest.raises(MXNetValueError, match="copyto: shape mismatch"):
        x.copyto(ns.zeros((3,)))
    with pytest.raises(MXNetTypeError, match="copyto: target"):
        x.copyto("cpu")


def test_mixed_device_inputs_raise(ns):
    with pytest.raises(MXNetValueError, match="same device"):
        ns.array([1.0]) + ns.array([1.0]).as_in_context(mx.cpu(1))


def test_astype_and_copy(ns):
    x = ns.array([1.5, -2.5])
    y = x.astype("int32")
    assert numpy.dtype(y.dtype) == numpy.int32 and y.asnumpy().tolist() == [1, -2]
    assert x.astype("float32", copy=False) is x
    c = x.copy()
    c[0] = 9
    assert x.asnumpy()[0] == 1.5 and c.asnumpy()[0] == 9


def test_detach_shares_data_and_drops_history():
    x = mx.np.array([1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = x * 2
    d = y.detach()
    assert d._ag is None and d._dc is None
    assert d.asnumpy().tolist() == [2.0, 4.0] and d.version == y.version


def test_version_counts_writes(ns):
    x = ns.zeros((3,))
    x.wait_to_read()
    v0 = x.version
    x[:] = 1
    x[0] = 2
    x += 1
    x.wait_to_read()  # NOTE: version counts completed writes (the threaded engine runs them later)
    assert x.version == v0 + 3 and x.asnumpy().tolist() == [3, 2, 2]


def test_nd_repr_matches_mxnet():
    text = repr(mx.nd.array([[0, 1, 2], [3, 4, 5]]))
    assert text == "\n[[0. 1. 2.]\n [3. 4. 5.]]\n<NDArray 2x3 @cpu(0)>"
    assert repr(mx.nd.ones((2,), ctx=mx.cpu(1))).endswith("<NDArray 2 @cpu(1)>")


def test_np_repr_and_str():
    assert repr(mx.np.array([1, 2], dtype="float16")) == "array([1., 2.], dtype=float16)"
    assert str(mx.np.ones((2,))) == "[1. 1.]"


def test_np_repr_dtype_rules_match_mxnet():
    # NOTE: printed by MXNet 1.9.1 under npx.set_np().
    assert repr(mx.np.arange(3)) == "array([0., 1., 2.])"
    assert repr(mx.np.array([1, 2], dtype="int64")) == "array([1, 2], dtype=int64)"
    assert repr(mx.np.array(2.5)) == "array(2.5)"
    assert repr(mx.np.array([True, False])) == "array([ True, False])"


def test_zero_dim_results_by_flavour():
    x = mx.np.array([[1.0, 2.0], [3.0, 4.0]])
    assert x[1, 1].shape == () and float(x[1, 1]) == 4.0
    y = mx.nd.array([[1.0, 2.0], [3.0, 4.0]])
    assert y[1, 1].shape == (1,) and y[1, 1].asscalar() == 4.0


def test_scalar_conversions_and_bool(ns):
    one = ns.array([3.0])
    assert float(one) == 3.0 and int(one) == 3 and bool(one) and one.item() == 3.0
    assert ns.array([[1.0, 2.0]]).tolist() == [[1.0, 2.0]]
    with pytest.raises(MXNetValueError, match="ambiguous"):
        bool(ns.array([1.0, 2.0]))
    with pytest.raises(MXNetValueError, match="asscalar"):
        ns.array([1.0, 2.0]).asscalar()


def test_flavour_views_share_data():
    a = mx.nd.array([1.0, 2.0])
    b = a.as_np_ndarray()
    assert isinstance(b, mx.np.ndarray) and b._var is a._var
    assert type(b.as_nd_ndarray()) is mx.nd.NDArray
    b[0] = 7
    assert a.asnumpy()[0] == 7


def test_iteration_and_numpy_interop(ns):
    x = ns.array(numpy.arange(6).reshape(3, 2))
    rows = [r.asnumpy().tolist() for r in x]
    assert rows == [[0, 1], [2, 3], [4, 5]]
    assert numpy.asarray(x).shape == (3, 2)
    with pytest.raises(MXNetError):
        len(mx.np.array(1.0))


def test_np_index_takes_only_0d_integer_arrays():
    import operator
    assert operator.index(mx.np.array(3, dtype="int32")) == 3
    for bad in (mx.np.ones((1,), dtype="int32"), mx.np.ones((1, 2), dtype="int32"),
                mx.np.array(1.0)):
        with pytest.raises(TypeError, match="integer scalar arrays"):
            operator.index(bad)


def test_np_copy_builds_only_c_order():
    x = mx.np.array([2, 3, 4], dtype="int32")
    assert x.copy(order="C").asnumpy().tolist() == [2, 3, 4]
    with pytest.raises(NotImplementedError, match="order 'F'"):
        x.copy(order="F")
