"""``x[key]`` and ``x[key] = value`` for both flavours: values against NumPy, MXNet 1.x's legacy
rules for ``mx.nd``, the ops each key becomes (traceable, recordable), gradients through
autograd, errors, HybridBlock restrictions and an opt-in check against real MXNet."""

import pathlib
import sys

import numpy
import pytest

import mxlab as mx
from mxlab.base import MXNetError, MXNetIndexError, MXNetTypeError
from mxlab.imperative import STATE

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "oracle"))
from mxnet_oracle import requires_mxnet, run_mxnet  # noqa: E402

BASIC_KEYS = [
    1,
    -1,
    (1, 2),
    (1, 2, 3),
    (-2, -1, 0),
    slice(None),
    slice(1, None),
    slice(None, None, -1),
    (slice(None), slice(0, 3, 2)),
    (Ellipsis, 1),
    (1, Ellipsis),
    (None,),
    (slice(None), None, 1),
    (None, 0, None, slice(None, None, -2)),
    (slice(5, 1, -1), slice(-3, None)),
    (slice(10, 20),),
    (Ellipsis,),
    (),
    (0, slice(None), None),
]
ADVANCED_KEYS = [
    [1, 0],
    ([0, 1], [2, 0]),
    (slice(None), [0, 2, 2]),
    ([[0], [1]], slice(None), [1, 3]),
    (numpy.array([1, 0]),),
    (0, [1, 2], slice(None)),
    (slice(None), [0, 1], [3, 2]),
    (Ellipsis, [0, -1]),
    (None, [1]),
    ([True, False],),
]


def _data():
    return numpy.arange(24, dtype=numpy.float32).reshape(2, 3, 4)


@pytest.mark.parametrize("key", BASIC_KEYS + ADVANCED_KEYS, ids=repr)
def test_np_getitem_matches_numpy(key):
    x = _data()
    numpy.testing.assert_array_equal(mx.np.array(x)[key].asnumpy(), x[key])


@pytest.mark.parametrize("key", BASIC_KEYS, ids=repr)
def test_nd_getitem_legacy_shapes(key):
    """mx.nd: like NumPy, except that a result NumPy would make 0-d has shape (1,) (MXNet 1.x)."""
    x = _data()
    got = mx.nd.array(x)[key]
    expected = x[key]
    assert got.shape == (expected.shape or (1,))
    numpy.testing.assert_array_equal(got.asnumpy().reshape(expected.shape), expected)


def test_nd_integer_key_on_vector_and_float_index_array():
    assert mx.nd.arange(3)[1].shape == (1,)
    assert mx.nd.arange(3)[1].asscalar() == 1.0
    x = mx.nd.array(_data())
    numpy.testing.assert_array_equal(x[mx.nd.array([1, 0])].asnumpy(), _data()[[1, 0]])


def test_mx_array_keys():
    x = mx.np.array(_data())
    idx = mx.np.array([2, 0], dtype="int64")
    numpy.testing.assert_array_equal(x[:, idx].asnumpy(), _data()[:, [2, 0]])
    mask = x > 10
    numpy.testing.assert_array_equal(x[mask].asnumpy(), _data()[_data() > 10])
    row_mask = mx.np.array([False, True])
    numpy.testing.assert_array_equal(x[row_mask].asnumpy(), _data()[[False, True]])
    numpy.testing.assert_array_equal(x[mx.np.array(1, dtype="int64")].asnumpy(), _data()[1])


@pytest.mark.parametrize(
    "key,error",
    [
        (2, "index 2 is out of bounds for axis 0 with size 2"),
        ((0, 3), "out of bounds for axis 1"),
        ((0, 0, 0, 0), "too many indices"),
        ((Ellipsis, Ellipsis), "single ellipsis"),
        ([5], "index 5 is out of bounds"),
        ((0, [1], -5), "out of bounds for axis 2"),
    ],
)
def test_out_of_range_keys(key, error):
    for ns in (mx.np, mx.nd):
        with pytest.raises(MXNetIndexError, match=error):
            ns.array(_data())[key]


def test_float_list_key_is_rejected():
    with pytest.raises(MXNetIndexError, match="integer or boolean"):
        mx.np.array(_data())[[0.5]]


# -- which ops a key becomes -----------------------------------------------------------------------
def _recorded_ops(fn):
    """Names of the ops an imperative call runs (read from the engine's op names via a patched
    invoke)."""
    import mxlab.ndarray.indexing as frontend

    names = []
    original = frontend.invoke

    def spy(op, *args, **kwargs):
        names.append(op.name)
        return original(op, *args, **kwargs)

    frontend.invoke = spy
    try:
        fn()
    finally:
        frontend.invoke = original
    return names


def test_keys_become_registered_ops():
    x = mx.np.array(_data())
    assert _recorded_ops(lambda: x[1, ::2, None]) == ["slice", "squeeze", "expand_dims"]
    assert _recorded_ops(lambda: x[:, :]) == []              # a view (see the view tests)
    with mx.autograd.record():
        assert _recorded_ops(lambda: x[:, :]) == ["_copy"]   # recorded: an op for the tape
    assert _recorded_ops(lambda: x[x > 3]) == ["_contrib_boolean_mask"]
    assert _recorded_ops(lambda: x[[0, 1], 1]) == ["_index_get"]
    assert _recorded_ops(lambda: x.__setitem__((0, slice(1, 3)), 1.0)) == ["_slice_assign_scalar"]


# -- setitem ---------------------------------------------------------------------------------------
SET_CASES = [
    (1, 5.0),
    ((0, 1), -1.0),
    ((slice(None), 1), numpy.array([7.0, 8.0, 9.0, 10.0])),
    ((Ellipsis, 0), 2),
    ((slice(None, None, -1), slice(1, 3)), numpy.arange(16, dtype=numpy.float32).reshape(2, 2, 4)),
    ((0,), numpy.ones((1, 3, 4))),
    ((slice(None), None, 0), numpy.array([[1.0, 2.0, 3.0, 4.0]])),
    (([0, 1], [2, 0]), numpy.array([[10.0], [20.0]])),
    ((slice(None), [0, 2]), 3.0),
    ([1], numpy.zeros((3, 4))),
    ((0, slice(None), [1, 3]), numpy.array([[1.0], [2.0]])),
]


@pytest.mark.parametrize("flavour", ["np", "nd"])
@pytest.mark.parametrize("key,value", SET_CASES, ids=repr)
def test_setitem_matches_numpy(flavour, key, value):
    expected = _data()
    expected[key] = value
    ns = getattr(mx, flavour)
    x = ns.array(_data())
    before = x.version
    x[key] = ns.array(value) if isinstance(value, numpy.ndarray) else value
    numpy.testing.assert_array_equal(x.asnumpy(), expected)
    assert x.version > before


def test_setitem_boolean_mask_and_lists():
    expected = _data()
    expected[expected > 20] = 0
    x = mx.np.array(_data())
    x[x > 20] = 0
    numpy.testing.assert_array_equal(x.asnumpy(), expected)
    x[0] = [[1, 2, 3, 4]] * 3
    assert x.asnumpy()[0].tolist() == [[1, 2, 3, 4]] * 3


def test_setitem_keeps_dtype_and_broadcast_errors():
    x = mx.np.zeros((2, 3), dtype="int32")
    x[0] = 2.7
    assert x.dtype == numpy.int32 and x.asnumpy()[0].tolist() == [2, 2, 2]
    with pytest.raises(MXNetError, match="cannot assign|could not be broadcast|shape"):
        x[0] = mx.np.ones((2,), dtype="int32")


def test_setitem_value_on_other_device_is_copied():
    x = mx.np.zeros((2, 2))
    x[1] = mx.np.ones((2,), device=mx.cpu(1))
    assert x.asnumpy().tolist() == [[0, 0], [1, 1]] and x.device == mx.cpu(0)


# -- autograd --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "key",
    [
        (1, slice(None, None, -1)),
        (slice(None), None, 2),
        ([1, 1, 0], 2),
        (slice(None), [0, 2], [1, 1]),
    ],
    ids=repr,
)
def test_getitem_gradient(key):
    data = numpy.random.uniform(size=(2, 3, 4))
    x = mx.np.array(data)
    x.attach_grad()
    with mx.autograd.record():
        y = x[key]
        head = mx.np.array(numpy.random.uniform(size=y.shape))
        loss = y * head
    loss.backward()
    expected = numpy.zeros_like(data)
    numpy.add.at(expected, key, head.asnumpy())
    numpy.testing.assert_allclose(x.grad.asnumpy(), expected, rtol=1e-6)


def test_boolean_mask_gradient():
    x = mx.np.array([[1.0, -2.0], [-3.0, 4.0]])
    x.attach_grad()
    with mx.autograd.record():
        y = x[x > 0] * 3
    y.backward()
    assert x.grad.asnumpy().tolist() == [[3, 0], [0, 3]]


def test_setitem_on_recorded_array_is_rejected():
    x = mx.np.ones((2, 2))
    x.attach_grad()
    with mx.autograd.record():
        y = x * 2
        with pytest.raises(MXNetError, match="Inplace operations"):
            y[0] = 1.0


@pytest.mark.parametrize("flavour", ["nd", "np"])
def test_setitem_of_a_recorded_value_is_refused_as_in_mxnet(flavour):
    """MXNet's RecordOp gives every input an entry, so writing a recorded value into an array
    (``x[i] = y``, ``x += y``) is an in-place write on the tape: NotImplementedError (its
    test_ndarray::test_setitem_autograd). Outside recording the write is plain."""
    ns = getattr(mx, flavour)
    w = ns.array([1.0, 2.0])
    w.attach_grad()
    with mx.autograd.record():
        buf = ns.zeros((3, 2))
        with pytest.raises(NotImplementedError, match="Inplace operations"):
            buf[1] = w * 5
        with pytest.raises(NotImplementedError, match="Inplace operations"):
            buf += w
    buf[1] = w * 5
    assert buf.asnumpy().tolist() == [[0.0, 0.0], [5.0, 10.0], [0.0, 0.0]]


# -- deferred compute (HybridBlock) restrictions ---------------------------------------------------
@pytest.fixture
def deferred():
    STATE.deferred = True
    yield
    STATE.deferred = False


@pytest.mark.parametrize(
    "key,message",
    [
        (numpy.array([0, 1]), "Indexing with a numpy array is not supported in HybridBlock."),
        ([0, 1], "Advanced indexing is not supported in HybridBlock."),
        ((slice(None), [0]), "Advanced indexing is not supported in HybridBlock."),
    ],
)
def test_hybrid_rejects_advanced_keys(deferred, key, message):
    x = mx.np.zeros((2, 3))
    with pytest.raises(MXNetTypeError) as info:
        x[key]
    assert str(info.value) == message
    with pytest.raises(MXNetTypeError):
        x[key] = 1.0


def test_traced_getitem_records_ops():
    x = mx.np.array(_data())
    mx.dc.set_variable(x, mx.sym.var("x"))
    with mx.dc.context():
        y = x[1, :, None, ::2]
        z = x[x > 5]
    numpy.testing.assert_array_equal(y.asnumpy(), _data()[1, :, None, ::2])
    numpy.testing.assert_array_equal(z.asnumpy(), _data()[_data() > 5])
    text = mx.dc.get_symbol([y]).debug_str()
    assert all(f"Op:{name}" in text for name in ("slice", "squeeze", "expand_dims")), text


# -- the oracle: real MXNet 1.9.1 (opt-in) ---------------------------------------------------------
ORACLE_KEYS = [
    "1",
    "-1",
    "(1, 2)",
    "(1, 2, 3)",
    "(slice(None), None, 1)",
    "(slice(None, None, -1), 0)",
    "(Ellipsis, 1)",
    "(slice(1, None), slice(0, 3, 2))",
]


@requires_mxnet
def test_nd_getitem_against_mxnet():
    code = "x = mx.nd.array(inputs['x'])\n" + "".join(
        f"outputs['k{i}'] = x[{k}].asnumpy()\n" for i, k in enumerate(ORACLE_KEYS)
    )
    expected = run_mxnet(code, {"x": _data()})
    x = mx.nd.array(_data())
    for i, key in enumerate(ORACLE_KEYS):
        got = x[eval(key)].asnumpy()
        assert got.shape == expected[f"k{i}"].shape, key
        numpy.testing.assert_array_equal(got, expected[f"k{i}"])


# -- views -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("flavour", ["nd", "np"])
def test_leading_int_and_slice_keys_are_views_as_in_mxnet(flavour):
    """``x[0][1] = 5`` writes into ``x`` (MXNet's basic indexing shares memory); the view shares
    the engine var, so reads and writes through either stay ordered."""
    ns = getattr(mx, flavour)
    x = ns.zeros((3, 4))
    x[0][1] = 5
    x[1:3][0][:] = 7
    assert x.asnumpy().tolist() == [[0, 5, 0, 0], [7, 7, 7, 7], [0, 0, 0, 0]]
    row = x[-1]
    x[:] = 9
    assert (row.asnumpy() == 9).all() and row._var is x._var
    assert mx.nd.arange(5)[2].shape == (1,) and mx.np.arange(5)[2].shape == ()
    with pytest.raises(IndexError):
        x[3]


def test_recorded_indexing_is_an_op_and_gets_its_gradient():
    x = mx.nd.ones((2, 3))
    x.attach_grad()
    with mx.autograd.record():
        y = (x[0] * 2).sum()
    y.backward()
    assert x.grad.asnumpy().tolist() == [[2, 2, 2], [0, 0, 0]]


def test_setitem_value_has_the_none_axes_of_the_key():
    # NumPy and MXNet 1.9.1: the value broadcasts against arr[key], None axes included
    ref = numpy.zeros((4, 3, 5), dtype="float32")
    arr = mx.nd.array(ref)
    key = (slice(None, 2), Ellipsis, None, 0)
    value = numpy.arange(6, dtype="float32").reshape(2, 3, 1)
    ref[key] = value
    arr[key] = mx.nd.array(value)
    assert numpy.array_equal(arr.asnumpy(), ref)
    with pytest.raises(MXNetError, match=r"region of shape \(2, 3, 1\)"):
        arr[key] = mx.nd.ones((2, 3, 2))


@pytest.mark.parametrize("key, shared", [
    ((slice(0, 1), slice(2, 3)), 25), ((0, slice(1, 3)), 50), ((1, 2), 25),
    ((slice(0, 1), slice(None), slice(1, 4)), 0), ((slice(None, None, 2),), 0),
])
def test_contiguous_basic_keys_give_views_as_mxnet(key, shared):
    # MXNet 1.9.1: writing through x[key] changes x exactly when the selection is contiguous
    x = mx.nd.zeros((5, 5, 5, 5))
    x[key][:] = 1
    assert x.sum().asscalar() == shared
    assert mx.nd.NDArray._basic_indexing_slice_is_contiguous(key, x.shape) == (shared > 0)
