"""Shape and index ops: values against NumPy, shape rules against real outputs, gradients by central
differences, MXNet's reshape codes (MXNet's test_reshape table, checked against MXNet 1.9.1) and
errors."""

import pathlib
import sys

import numpy
import pytest

import mxlab as mx
from mxlab.base import MXNetAxisError, MXNetError, MXNetIndexError, MXNetTypeError, MXNetValueError
from mxlab.imperative import invoke
from mxlab.ops.registry import get_op
from mxlab.ops.shape import mx_reshape_shape, npx_reshape_shape

from helpers import check_gradient

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "oracle"))
from mxnet_oracle import requires_mxnet, run_mxnet  # noqa: E402

# (shape, code, reverse, expected) -- expected values printed by MXNet 1.9.1. NOTE: MXNet 1.9.1 also
# accepts
# codes whose result has another size (its size check is compiled out), e.g. (2, -2) reversed on (2,
# 3, 4)
# gives (2, 2, 3, 4); mxlab raises instead (test_reshape_errors_name_the_op).
RESHAPE_TABLE = [
    ((2, 3, 4), (4, 0, 2), False, (4, 3, 2)),
    ((2, 3, 4), (2, 0, 0), False, (2, 3, 4)),
    ((2, 3, 4), (6, 1, -1), False, (6, 1, 4)),
    ((2, 3, 4), (3, -1, 8), False, (3, 1, 8)),
    ((2, 3, 4), (-1,), False, (24,)),
    ((2, 3, 4), (-2,), False, (2, 3, 4)),
    ((2, 3, 4), (2, -2), False, (2, 3, 4)),
    ((2, 3, 4), (-2, 1, 1), False, (2, 3, 4, 1, 1)),
    ((2, 3, 4), (-3, 4), False, (6, 4)),
    ((2, 3, 4, 5), (-3, -3), False, (6, 20)),
    ((2, 3, 4), (0, -3), False, (2, 12)),
    ((2, 3, 4), (-3, -2), False, (6, 4)),
    ((2, 3, 4), (-4, 1, 2, -2), False, (1, 2, 3, 4)),
    ((2, 3, 4), (2, -4, -1, 3, -2), False, (2, 1, 3, 4)),
    ((2, 3, 4), (-1, 0), True, (6, 4)),
    ((10, 5, 4), (-1, 0), True, (50, 4)),
    ((2, 3, 4), (6, 1, -1), True, (6, 1, 4)),
]


def _settle(result):
    """Wait for the kernel: with the threaded engines its errors surface when the result is read."""
    for item in result if isinstance(result, list) else [result]:
        item.wait_to_read()


@pytest.mark.parametrize("shape,code,reverse,expected", RESHAPE_TABLE)
def test_nd_reshape_codes(shape, code, reverse, expected):
    x = mx.nd.arange(numpy.prod(shape)).reshape(shape)
    y = mx.nd.reshape(x, shape=code, reverse=reverse)
    assert y.shape == expected
    assert mx_reshape_shape(shape, code, reverse) == expected
    numpy.testing.assert_array_equal(y.asnumpy().ravel(), x.asnumpy().ravel())


@pytest.mark.parametrize(
    "shape,code,expected",
    [
        ((2, 3, 4), (-2, -1), (2, 12)),
        ((2, 1, 4), (-2, -3, -2), (2, 4)),
        ((2, 3, 4), (-4,), (2, 3, 4)),
        ((2, 3, 4), (-5, -2), (6, 4)),
        ((6, 4), (-6, 2, -1, -2), (2, 3, 4)),
        ((2, 3, 4), (4, -1), (4, 6)),
    ],
)
def test_npx_reshape_codes(shape, code, expected):
    assert npx_reshape_shape(shape, code) == expected
    assert mx.npx.reshape(mx.np.zeros(shape), code).shape == expected


def test_reshape_errors_name_the_op():
    with pytest.raises(MXNetValueError, match="Reshape"):
        _settle(mx.nd.reshape(mx.nd.zeros((2, 3)), shape=(4, 2)))
    with pytest.raises(MXNetValueError, match="_np_reshape"):
        _settle(mx.np.reshape(mx.np.zeros((2, 3)), (4, -1)))
    with pytest.raises(MXNetValueError, match="cannot reshape array of shape"):
        _settle(mx.nd.reshape(mx.nd.zeros((2, 3, 4)), shape=(2, -2), reverse=True))
    with pytest.raises(MXNetValueError, match="only one dim"):
        _settle(mx.nd.reshape(mx.nd.zeros((2, 3)), shape=(-1, -1)))
    with pytest.raises(MXNetValueError, match="unknown attribute 'shap'"):
        _settle(mx.nd.reshape(mx.nd.zeros((2, 3)), shap=(6,)))


def test_np_and_nd_reshape_methods():
    x = mx.np.arange(6)
    assert x.reshape(2, 3).shape == (2, 3)
    assert x.reshape((3, -1)).shape == (3, 2)
    assert mx.nd.arange(6).reshape((0, -1)).shape == (6, 1)  # nd codes: 0 copies the dim
    assert mx.nd.arange(24).reshape((2, 3, 4)).reshape(-3, 0).shape == (6, 4)


# -- one table drives value, shape-rule and gradient checks ----------------------------------------
CASES = [
    # (op, input shapes, attrs, numpy reference of output 0)
    ("transpose", [(2, 3, 4)], {}, lambda x: x.T),
    ("transpose", [(2, 3, 4)], {"axes": (1, 0, 2)}, lambda x: x.transpose(1, 0, 2)),
    ("expand_dims", [(2, 3)], {"axis": -1}, lambda x: x[..., None]),
    ("squeeze", [(2, 1, 3, 1)], {}, lambda x: x.squeeze()),
    ("squeeze", [(2, 1, 3, 1)], {"axis": (1,)}, lambda x: x.squeeze(1)),
    ("Flatten", [(2, 3, 4)], {}, lambda x: x.reshape(2, 12)),
    ("Reshape", [(2, 3, 4)], {"shape": (-3, -2)}, lambda x: x.reshape(6, 4)),
    ("_np_reshape", [(2, 3, 4)], {"newshape": (4, -1)}, lambda x: x.reshape(4, -1)),
    ("_npx_reshape", [(2, 3, 4)], {"newshape": (-2, -1)}, lambda x: x.reshape(2, 12)),
    ("SwapAxis", [(2, 3, 4)], {"dim1": 0, "dim2": 2}, lambda x: x.swapaxes(0, 2)),
    ("_npi_swapaxes", [(2, 3, 4)], {"axis1": -1, "axis2": 1}, lambda x: x.swapaxes(-1, 1)),
    (
        "_np_moveaxis",
        [(2, 3, 4)],
        {"source": 0, "destination": -1},
        lambda x: numpy.moveaxis(x, 0, -1),
    ),
    ("tile", [(2, 3)], {"reps": (2, 1, 2)}, lambda x: numpy.tile(x, (2, 1, 2))),
    ("repeat", [(2, 3)], {"repeats": 2, "axis": 1}, lambda x: numpy.repeat(x, 2, axis=1)),
    ("repeat", [(2, 3)], {"repeats": 3}, lambda x: numpy.repeat(x, 3)),
    ("broadcast_to", [(3, 1)], {"shape": (2, 3, 4)}, lambda x: numpy.broadcast_to(x, (2, 3, 4))),
    ("broadcast_to", [(3, 1)], {"shape": (0, 4)}, lambda x: numpy.broadcast_to(x, (3, 4))),
    (
        "broadcast_axis",
        [(1, 3, 1)],
        {"axis": (0, 2), "size": (2, 4)},
        lambda x: numpy.broadcast_to(x, (2, 3, 4)),
    ),
    ("reverse", [(2, 3)], {"axis": 1}, lambda x: x[:, ::-1]),
    ("_npi_flip", [(2, 3)], {}, lambda x: x[::-1, ::-1]),
    ("Concat", [(2, 3), (2, 1)], {"num_args": 2}, lambda x, y: numpy.concatenate([x, y], 1)),
    ("_npi_concatenate", [(2, 3), (1, 3)], {"num_args": 2}, lambda x, y: numpy.concatenate([x, y])),
    (
        "_npi_concatenate",
        [(2, 3), (4,)],
        {"num_args": 2, "axis": None},
        lambda x, y: numpy.concatenate([x, y], axis=None),
    ),
    ("stack", [(2, 3), (2, 3)], {"num_args": 2, "axis": -1}, lambda x, y: numpy.stack([x, y], -1)),
    ("SliceChannel", [(2, 6)], {"num_outputs": 3}, lambda x: numpy.split(x, 3, axis=1)[0]),
    ("SliceChannel", [(3, 2)], {"num_outputs": 3, "axis": 0, "squeeze_axis": True}, lambda x: x[0]),
    ("_npi_split", [(6, 2)], {"sections": 3}, lambda x: numpy.split(x, 3)[0]),
    (
        "_npi_array_split",
        [(5, 2)],
        {"indices": (0, 1, 3)},
        lambda x: numpy.array_split(x, [1, 3])[0],
    ),
    (
        "slice",
        [(4, 5)],
        {"begin": (1, None), "end": (None, -1), "step": (2, -2)},
        lambda x: x[1::2, :-1:-2],
    ),
    ("slice", [(4, 5)], {"begin": (3,), "end": (0,), "step": (-1,)}, lambda x: x[3:0:-1]),
    ("slice_axis", [(4, 5)], {"axis": -1, "begin": 1, "end": -1}, lambda x: x[:, 1:-1]),
    ("clip", [(3, 4)], {"a_min": -0.3, "a_max": 0.4}, lambda x: numpy.clip(x, -0.3, 0.4)),
    ("diag", [(4,)], {"k": 1}, lambda x: numpy.diag(x, 1)),
    ("diag", [(3, 4)], {"k": -1}, lambda x: numpy.diag(x, -1)),
    ("diag", [(2, 3, 4)], {"axis1": 1, "axis2": 2}, lambda x: numpy.diagonal(x, 0, 1, 2)),
    ("sort", [(3, 4)], {"axis": 0}, lambda x: numpy.sort(x, 0)),
    ("sort", [(3, 4)], {"is_ascend": False}, lambda x: -numpy.sort(-x, -1)),
    ("sort", [(3, 4)], {"axis": None}, lambda x: numpy.sort(x, None)),
    ("topk", [(3, 5)], {"k": 2, "ret_typ": "value"}, lambda x: -numpy.sort(-x, -1)[:, :2]),
    (
        "topk",
        [(3, 5)],
        {"k": 2, "ret_typ": "value", "axis": 0, "is_ascend": True},
        lambda x: numpy.sort(x, 0)[:2],
    ),
    ("reshape_like", [(2, 6), (3, 4)], {}, lambda x, y: x.reshape(3, 4)),
]


def _inputs(shapes, seed=0):
    rng = numpy.random.default_rng(seed)
    return [rng.uniform(-1, 1, size=s) for s in shapes]


def _ids(cases):
    return [f"{c[0]}-{i}" for i, c in enumerate(cases)]


@pytest.mark.parametrize("op_name,shapes,attrs,reference", CASES, ids=_ids(CASES))
def test_values_and_shape_rule(op_name, shapes, attrs, reference):
    op = get_op(op_name)
    data = [x.astype(numpy.float32) for x in _inputs(shapes)]
    parsed = op.parse_attrs(attrs)
    outs = invoke(op, [mx.np.array(x) for x in data], parsed)
    numpy.testing.assert_allclose(outs[0].asnumpy(), reference(*data), rtol=1e-6)
    assert outs[0].dtype == numpy.float32
    in_shapes, out_shapes = op.infer_shapes(parsed, shapes)
    assert [tuple(o.shape) for o in outs] == [tuple(s) for s in out_shapes]
    _, unknown = op.infer_shapes(parsed, [None] * len(shapes))
    assert all(s is None for s in unknown)


@pytest.mark.parametrize("op_name,shapes,attrs,reference", CASES, ids=_ids(CASES))
def test_gradient(op_name, shapes, attrs, reference):
    wrt = [0] if op_name == "reshape_like" else None  # NOTE: rhs only gives a shape
    check_gradient(op_name, _inputs(shapes, seed=1), attrs, wrt=wrt)


def test_reshape_like_ranges():
    x, y = mx.np.zeros((2, 6)), mx.np.zeros((3, 2, 3))
    out = mx.npx.reshape_like(x, y, lhs_begin=1, lhs_end=None, rhs_begin=1, rhs_end=None)
    assert out.shape == (2, 2, 3)
    check_gradient(
        "reshape_like", _inputs([(2, 6), (3, 2, 3)]), {"lhs_begin": 1, "rhs_begin": 1}, wrt=[0]
    )


@pytest.mark.parametrize(
    "op_name,attrs",
    [
        ("_backward_tile", {"reps": (2, 1, 2)}),
        ("_backward_repeat", {"repeats": 2, "axis": 1}),
        ("_backward_slice", {"begin": (1, None), "end": (None, -1), "step": (2, -2)}),
        ("_backward_clip", {"a_min": -0.3, "a_max": 0.4}),
    ],
)
def test_backward_ops_are_differentiable(op_name, attrs):
    """Gradient-of-gradient: the backward ops have gradient rules of their own (checked w.r.t. the
    gradient)."""
    forward = {
        "_backward_tile": "tile",
        "_backward_repeat": "repeat",
        "_backward_slice": "slice",
        "_backward_clip": "clip",
    }[op_name]
    x = _inputs([(2, 3) if forward in ("tile", "repeat") else (4, 5)])[0]
    g = invoke(get_op(forward), [mx.np.array(x)], get_op(forward).parse_attrs(attrs))[0].asnumpy()
    check_gradient(op_name, [numpy.random.uniform(-1, 1, g.shape), x], attrs, wrt=[0])


# -- gathers and index ops -------------------------------------------------------------------------
@pytest.mark.parametrize("mode,expected", [("clip", [4, 0, 1]), ("wrap", [2, 4, 1])])
def test_take_modes(mode, expected):
    out = mx.nd.take(mx.nd.arange(5), mx.nd.array([7, -1, 1]), mode=mode)
    assert out.asnumpy().tolist() == expected


def test_take_axis_and_gradient_with_repeats():
    a = numpy.random.uniform(size=(3, 4))
    out = mx.np.take(mx.np.array(a), mx.np.array([[0, 2], [2, 2]], dtype="int64"), axis=1)
    numpy.testing.assert_allclose(
        out.asnumpy(), numpy.take(a.astype(numpy.float32), [[0, 2], [2, 2]], axis=1)
    )
    check_gradient("take", [a, numpy.array([[0, 2], [2, 2]])], {"axis": 1}, wrt=[0])
    check_gradient("take", [a, numpy.array([5, -1])], {"axis": 0, "mode": "wrap"}, wrt=[0])
    with pytest.raises(MXNetIndexError, match="take"):
        _settle(mx.np.take(mx.np.array(a), mx.np.array([3], dtype="int64"), axis=0, mode="raise"))


def test_pick():
    data = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    out = mx.nd.pick(mx.nd.array(data), mx.nd.array([0, 2]))
    assert out.asnumpy().tolist() == [0.0, 5.0]
    assert mx.nd.pick(mx.nd.array(data), mx.nd.array([0, 2]), keepdims=True).shape == (2, 1)
    assert mx.nd.pick(mx.nd.array(data), mx.nd.array([1, 0, 1]), axis=0).asnumpy().tolist() == [
        3.0,
        1.0,
        5.0,
    ]
    check_gradient("pick", [numpy.random.uniform(size=(2, 3)), numpy.array([0, 2])], {}, wrt=[0])
    check_gradient(
        "pick", [numpy.random.uniform(size=(2, 3)), numpy.array([1, 0, 9])], {"axis": 0}, wrt=[0]
    )


def test_one_hot():
    out = mx.nd.one_hot(mx.nd.array([1, 0, 2]), 3, on_value=5, off_value=-1, dtype="int32")
    assert out.dtype == numpy.int32
    assert out.asnumpy().tolist() == [[-1, 5, -1], [5, -1, -1], [-1, -1, 5]]
    op = get_op("one_hot")
    assert op.infer_shapes(op.parse_attrs({"depth": 4}), [(2, 3)])[1] == [(2, 3, 4)]
    assert op.infer_types(op.parse_attrs({"depth": 4, "dtype": "int8"}), ["float32"])[1] == ["int8"]


def test_where_legacy_row_condition_and_gradient():
    out = mx.nd.where(mx.nd.array([1, 0]), mx.nd.ones((2, 3)), mx.nd.zeros((2, 3)))
    assert out.asnumpy().tolist() == [[1, 1, 1], [0, 0, 0]]
    cond = (numpy.random.uniform(size=(3, 4)) > 0.5).astype(numpy.float64)
    check_gradient(
        "where",
        [cond, numpy.random.uniform(size=(3, 4)), numpy.random.uniform(size=(1, 4))],
        {},
        wrt=[1, 2],
    )


def test_np_where_scalars_and_single_argument():
    x = mx.np.array([[1.0, -2.0], [3.0, -4.0]])
    numpy.testing.assert_array_equal(mx.np.where(x > 0, x, 0).asnumpy(), [[1, 0], [3, 0]])
    numpy.testing.assert_array_equal(mx.np.where(x > 0, 1.0, x).asnumpy(), [[1, -2], [1, -4]])
    rows, cols = mx.np.where(x > 0)
    assert rows.asnumpy().tolist() == [0, 1] and cols.asnumpy().tolist() == [0, 0]


def test_sort_argsort_topk_dtypes_and_outputs():
    x = numpy.array([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]], dtype=numpy.float32)
    assert mx.nd.argsort(mx.nd.array(x)).dtype == numpy.float32  # MXNet 1.x: float32 indices
    assert mx.np.argsort(mx.np.array(x)).dtype == numpy.int64
    assert mx.np.argsort(mx.np.array(x)).asnumpy().tolist() == numpy.argsort(x).tolist()
    value, index = mx.nd.topk(mx.nd.array(x), k=2, ret_typ="both")
    assert value.asnumpy().tolist() == [[3, 2], [5, 4]] and index.asnumpy().tolist() == [
        [0, 2],
        [1, 2],
    ]
    mask = mx.nd.topk(mx.nd.array(x), k=1, ret_typ="mask")
    assert mask.asnumpy().tolist() == [[1, 0, 0], [0, 1, 0]]
    assert mx.nd.topk(mx.nd.array(x), k=1).asnumpy().tolist() == [[0], [1]]
    op = get_op("topk")
    attrs = op.parse_attrs({"k": 2, "ret_typ": "both", "axis": 0})
    assert op.infer_shapes(attrs, [(4, 3)])[1] == [(2, 3), (2, 3)]


@pytest.mark.parametrize("sections", [3, (3, 5, 6), [2], (0, 9)])
def test_np_split_pieces_match_numpy(sections):
    x = numpy.arange(9.0, dtype=numpy.float32)
    got = mx.np.split(mx.np.array(x), sections)
    want = numpy.split(x, sections)
    assert [p.asnumpy().tolist() for p in got] == [p.tolist() for p in want]
    got = mx.np.array_split(mx.np.array(x), 4 if sections == 3 else sections)
    want = numpy.array_split(x, 4 if sections == 3 else sections)
    assert [p.asnumpy().tolist() for p in got] == [p.tolist() for p in want]


def test_np_take_flattens_without_axis_and_stacking_helpers():
    x = mx.np.arange(12).reshape(3, 4)
    assert mx.np.take(x, mx.np.array([1, 5], dtype="int64")).asnumpy().tolist() == [1, 5]
    assert mx.np.take(x, mx.np.array([1], dtype="int64"), axis=1).shape == (3, 1)
    a, b = mx.np.arange(3), mx.np.arange(3)
    assert mx.np.vstack([a, b]).shape == (2, 3) and mx.np.hstack([a, b]).shape == (6,)
    assert mx.np.hstack([x, x]).shape == (3, 8)


def test_gather_nd_and_scatter_nd():
    data = numpy.arange(12, dtype=numpy.float32).reshape(3, 4)
    indices = numpy.array([[0, 2, 2], [1, 3, 3]])
    got = mx.nd.gather_nd(mx.nd.array(data), mx.nd.array(indices))
    assert got.asnumpy().tolist() == [1.0, 11.0, 11.0]
    assert mx.nd.gather_nd(mx.nd.array(data), mx.nd.array([[2, 0]])).shape == (2, 4)
    out = mx.nd.scatter_nd(mx.nd.array([5.0, 6.0]), mx.nd.array([[0, 2], [1, 3]]), shape=(3, 4))
    assert out.asnumpy()[0, 1] == 5.0 and out.asnumpy()[2, 3] == 6.0 and out.asnumpy().sum() == 11.0
    check_gradient("gather_nd", [numpy.random.uniform(size=(3, 4)), indices], wrt=[0])
    check_gradient(
        "scatter_nd",
        [numpy.random.uniform(size=(2,)), numpy.array([[0, 2], [1, 3]])],
        {"shape": (3, 4)},
        wrt=[0],
    )
    with pytest.raises(MXNetIndexError, match="gather_nd"):
        _settle(mx.nd.gather_nd(mx.nd.array(data), mx.nd.zeros((3, 1))))


def test_nonzero_is_dynamic():
    x = mx.np.array([[0.0, 1.0], [2.0, 0.0]])
    rows, cols = mx.np.nonzero(x)
    assert rows.asnumpy().tolist() == [0, 1] and cols.asnumpy().tolist() == [1, 0]
    assert mx.np.flatnonzero(x).asnumpy().tolist() == [1, 2]
    op = get_op("_npi_nonzero")
    assert op.dynamic_shape and op.infer_shapes({}, [(2, 2)])[1] == [(None, 2)]


# -- namespaces and method forms -------------------------------------------------------------------
METHOD_NAMES = [
    "reshape",
    "transpose",
    "cast",
    "flatten",
    "expand_dims",
    "squeeze",
    "clip",
    "tile",
    "repeat",
    "split",
    "take",
    "pick",
    "one_hot",
    "broadcast_to",
    "broadcast_like",
    "reshape_like",
    "slice_axis",
    "slice",
    "swapaxes",
    "dot",
    "sort",
    "argsort",
    "topk",
    "nonzero",
    "flip",
    "diag",
    "moveaxis",
    "copy",
    "_getitem",
    "_setitem",
    "matmul",
]


@pytest.mark.parametrize("name", METHOD_NAMES)
def test_delegated_names_exist_in_both_namespaces(name):
    assert callable(getattr(mx.nd, name)) and callable(getattr(mx.np, name))


def test_nd_squeeze_never_gives_0d():
    assert mx.nd.squeeze(mx.nd.zeros((1, 1))).shape == (1,)  # MXNet 1.9.1 prints (1,)
    assert mx.nd.zeros((1, 3, 1)).squeeze().shape == (3,)
    assert mx.np.squeeze(mx.np.zeros((1, 1))).shape == ()


def test_method_forms():
    x = mx.np.arange(6).reshape(2, 3)
    assert x.flatten().shape == (6,)  # NumPy: 1-D
    assert mx.nd.arange(6).reshape((2, 3, 1)).flatten().shape == (2, 3)  # MXNet: (N, -1)
    assert x.expand_dims(0).shape == (1, 2, 3) and x.swapaxes(0, 1).shape == (3, 2)
    assert [p.shape for p in x.split(3, axis=1)] == [(2, 1)] * 3
    assert [p.shape for p in mx.nd.zeros((2, 6)).split(num_outputs=2)] == [(2, 3)] * 2
    assert x.clip(1, 3).asnumpy().tolist() == [[1, 1, 2], [3, 3, 3]]
    assert (
        x.astype("int32").dtype == numpy.int32
        and x.copy().asnumpy().tolist() == x.asnumpy().tolist()
    )
    assert (
        x.T.shape == (3, 2) and x.transpose().shape == (3, 2) and x.moveaxis(0, 1).shape == (3, 2)
    )
    assert mx.np.concatenate([x, x], axis=1).shape == (2, 6) and mx.np.stack([x, x], 1).shape == (
        2,
        2,
        3,
    )
    assert mx.nd.concat(mx.nd.zeros((2, 1)), mx.nd.zeros((2, 2)), dim=1).shape == (2, 3)


# -- errors ----------------------------------------------------------------------------------------
def test_bad_axis_names_op_and_argument():
    with pytest.raises(MXNetAxisError, match="expand_dims: axis 3"):
        _settle(mx.np.expand_dims(mx.np.zeros((2,)), 3))
    with pytest.raises(MXNetAxisError, match="squeeze"):
        _settle(mx.np.squeeze(mx.np.zeros((2, 1)), axis=4))
    with pytest.raises(MXNetValueError, match="squeeze: cannot select an axis"):
        _settle(mx.np.squeeze(mx.np.zeros((2, 1)), axis=0))
    with pytest.raises(MXNetValueError, match="transpose: axes"):
        _settle(mx.np.transpose(mx.np.zeros((2, 1)), (0, 1, 2)))
    with pytest.raises(MXNetAxisError, match="swapaxes: axis2"):
        _settle(mx.np.swapaxes(mx.np.zeros((2, 1)), 0, 5))


def test_bad_shapes_and_attributes():
    with pytest.raises(MXNetValueError, match="Concat: input 1 has shape"):
        _settle(mx.nd.concat(mx.nd.zeros((2, 3)), mx.nd.zeros((3, 3)), dim=1))
    with pytest.raises(MXNetValueError, match="SliceChannel: axis 1 of size 5"):
        _settle(mx.nd.split(mx.nd.zeros((2, 5)), num_outputs=2))
    with pytest.raises(
        MXNetValueError, match="_npi_split: array split does not result in an equal division"
    ):
        _settle(mx.np.split(mx.np.zeros((5,)), 2))
    with pytest.raises(MXNetValueError, match="broadcast_to"):
        _settle(mx.np.broadcast_to(mx.np.zeros((2, 3)), (4, 3)))
    with pytest.raises(MXNetTypeError, match="tile: attribute 'reps' expects shape"):
        _settle(mx.np.tile(mx.np.zeros((2,)), "x"))
    with pytest.raises(MXNetValueError, match="required attribute 'num_outputs'"):
        _settle(mx.nd.split(mx.nd.zeros((2, 4))))
    with pytest.raises(MXNetValueError, match="take: attribute 'mode' must be one of"):
        _settle(mx.nd.take(mx.nd.zeros((2,)), mx.nd.zeros((1,)), mode="nearest"))
    with pytest.raises(MXNetError, match="slice"):
        _settle(mx.nd.slice(mx.nd.zeros((2, 3)), begin=(0, 0, 0), end=(1, 1, 1)))


def test_stack_fills_unknown_input_shapes():
    op = get_op("stack")
    attrs = op.parse_attrs({"num_args": 3, "axis": 1})
    assert op.infer_shapes(attrs, [None, (2, 3), None]) == ([(2, 3)] * 3, [(2, 3, 3)])


def test_infer_shape_errors_before_running():
    op = get_op("Concat")
    with pytest.raises(MXNetValueError, match="Concat"):
        op.infer_shapes(op.parse_attrs({"num_args": 2, "dim": 0}), [(2, 3), (2, 4)])


# -- the oracle: real MXNet 1.9.1 (opt-in, see tests/oracle/mxnet_oracle.py) --------------------
ORACLE_CALLS = [
    "mx.nd.reshape(x, shape=(-4, 1, 2, -2))",
    "mx.nd.reshape(x, shape=(0, -1), reverse=True)",
    "mx.nd.transpose(x, axes=(2, 0, 1))",
    "mx.nd.slice(x, begin=(1, None, 0), end=(None, 3, None), step=(1, -1, 2))",
    "mx.nd.slice_axis(x, axis=-1, begin=1, end=3)",
    "mx.nd.take(x, mx.nd.array([[3, -1]]), axis=2)",
    "mx.nd.take(x, mx.nd.array([5, -1]), axis=1, mode='wrap')",
    "mx.nd.pick(x, mx.nd.array([[0, 1, 3]] * 2), axis=2)",
    "mx.nd.one_hot(mx.nd.array([1, 0, 2]), 4)",
    "mx.nd.topk(x, k=2, ret_typ='indices')",
    "mx.nd.topk(x, k=2, axis=1, ret_typ='value', is_ascend=True)",
    "mx.nd.sort(x, axis=0, is_ascend=False)",
    "mx.nd.argsort(x, axis=1)",
    "mx.nd.tile(x, reps=(2, 1))",
    "mx.nd.repeat(x, repeats=2, axis=-1)",
    "mx.nd.flip(x, axis=(0, 2))",
    "mx.nd.broadcast_axis(x[:, :1], axis=1, size=4)",
    "mx.nd.concat(x, x, dim=2)",
    "mx.nd.stack(x, x, axis=1)",
    "mx.nd.split(x, num_outputs=3, axis=1)[1]",
    "mx.nd.clip(x, 3, 17)",
    "mx.nd.where(x > 10, x, -x)",
    "mx.nd.dot(x, mx.nd.ones((4, 2)))",
    "mx.nd.batch_dot(x, x, transpose_b=True)",
    "mx.nd.diag(x[0], k=1)",
    "mx.nd.swapaxes(x, 0, 2)",
    "mx.nd.arange(0, 6, 2, repeat=2)",
    "mx.nd.expand_dims(x, axis=-2)",
    "mx.nd.Flatten(x)",
    "mx.nd.gather_nd(x, mx.nd.array([[1, 0], [2, 1]]))",
]


@requires_mxnet
def test_nd_ops_against_mxnet():
    code = "x = mx.nd.array(inputs['x'])\n" + "".join(
        f"outputs['c{i}'] = ({call}).asnumpy()\n" for i, call in enumerate(ORACLE_CALLS)
    )
    data = numpy.random.default_rng(3).permutation(24).astype(numpy.float32).reshape(2, 3, 4)
    expected = run_mxnet(code, {"x": data})
    x = mx.nd.array(data)
    for i, call in enumerate(ORACLE_CALLS):
        got = eval(call, {"mx": mx, "x": x}).asnumpy()
        numpy.testing.assert_allclose(got, expected[f"c{i}"], rtol=1e-6, err_msg=call)
        assert got.dtype == expected[f"c{i}"].dtype, call


def test_reshape_like_negative_axis_ranges_count_from_the_end():
    """MXNet reads lhs_begin=-2, lhs_end=-1 as the second-last axis (not modulo ndim + 1)."""
    out = mx.nd.reshape_like(mx.nd.ones((16, 768)), mx.nd.ones((8, 2)), lhs_begin=-2,
                             lhs_end=-1, rhs_begin=0)
    assert out.shape == (8, 2, 768)
    with pytest.raises(ValueError, match="axis range"):
        mx.nd.reshape_like(mx.nd.ones((4, 3)), mx.nd.ones((2, 2)), lhs_begin=-5).wait_to_read()


def test_numpy_where_broadcasts_a_1d_condition_over_columns_and_legacy_picks_rows():
    """mx.np.where is NumPy's (broadcasting); MXNet 1.x's where takes a 1-D condition per row."""
    cond = numpy.array([1, 0, 1], dtype="float32")
    x, y = numpy.arange(9.0).reshape(3, 3), -numpy.arange(9.0).reshape(3, 3)
    got_np = mx.np.where(mx.np.array(cond), mx.np.array(x), mx.np.array(y)).asnumpy()
    numpy.testing.assert_array_equal(got_np, numpy.where(cond.astype(bool), x, y))
    got_nd = mx.nd.where(mx.nd.array(cond), mx.nd.array(x), mx.nd.array(y)).asnumpy()
    numpy.testing.assert_array_equal(got_nd, numpy.where(cond.astype(bool)[:, None], x, y))
    with pytest.raises(mx.base.MXNetValueError, match="selects rows"):
        mx.nd.where(mx.nd.array([1, 0]), mx.nd.ones((3, 2)), mx.nd.zeros((3, 2))).wait_to_read()
    with pytest.raises(mx.base.MXNetValueError, match="must equal"):
        mx.nd.where(mx.nd.ones((3, 1)), mx.nd.ones((3, 3)), mx.nd.zeros((3, 3))).wait_to_read()


def test_numpy_where_gradients_reduce_over_broadcast_axes():
    cond = mx.np.array([[1.0], [0.0]])
    x, y = mx.np.ones((2, 3)), mx.np.ones((3,))
    x.attach_grad()
    y.attach_grad()
    with mx.autograd.record():
        out = mx.np.where(cond, x * 2, y * 3)
    out.backward()
    numpy.testing.assert_array_equal(x.grad.asnumpy(), [[2, 2, 2], [0, 0, 0]])
    numpy.testing.assert_array_equal(y.grad.asnumpy(), [3, 3, 3])
