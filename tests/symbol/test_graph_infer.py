"""mxlab.graph.infer: the shape/dtype inference passes behind ``Symbol.infer_shape`` and the
executors."""

import pytest

import mxlab as mx
from mxlab.base import MXNetError
from mxlab.graph import infer
from mxlab.graph.node import Entry, Node
from mxlab.ops import registry
from mxlab.ops.registry import Op


@pytest.fixture
def fixed_op():
    """A test op whose rule always claims input and output shape (3,) and dtype float64."""
    op = registry.register(
        Op(
            name="_test_infer_fixed",
            compute=lambda xp, inputs, attrs: inputs[0],
            infer_shape=lambda attrs, s: ([(3,)], [(3,)]),
            infer_type=lambda attrs, d: (["float64"], ["float64"]),
            hidden=True,
        )
    )
    yield op
    registry.unregister(op.name)


def test_results_cover_every_output_and_accept_several_key_kinds():
    bn = mx.sym.BatchNorm(mx.sym.var("x"), name="bn")
    node = bn._outputs[0].node
    by_name = infer.infer_shapes(bn._outputs, {"x": (2, 3)})
    x_node = node.inputs[0].node
    assert by_name == infer.infer_shapes(bn._outputs, {x_node: (2, 3)})
    assert by_name == infer.infer_shapes(bn._outputs, {(x_node, 0): (2, 3)})
    assert [by_name[(node, i)] for i in range(3)] == [(2, 3), (3,), (3,)]  # invisible outputs too
    assert by_name[(node.inputs[3].node, 0)] == (3,)  # filled backwards into aux


def test_sweeps_repeat_until_nothing_changes():
    w = mx.sym.var("w")
    fc = mx.sym.FullyConnected(mx.sym.var("data"), weight=w, num_hidden=4, name="fc")
    group = mx.sym.Group([w * 2, fc])  # w * 2 comes first in DFS order, w is known only after fc
    assert group.infer_shape(data=(5, 7))[1] == [(4, 7), (5, 4)]


def test_conflicts_raise_mxnet_texts(fixed_op):
    x = mx.sym.var("x")
    y = mx.sym.Symbol([Entry(Node(fixed_op, "fx", {}, [x._outputs[0]]))])
    with pytest.raises(
        MXNetError,
        match=r"Error in operator fx: Shape inconsistent, Provided = \[4\], "
        r"inferred shape=\[3\]",
    ):
        infer.infer_shapes(y._outputs, {"x": (4,)})
    with pytest.raises(
        MXNetError,
        match=r"Error in operator fx: Incompatible attr in node fx at 0-th output: "
        r"expected \[5\], got \[3\]",
    ):
        infer.infer_shapes(y._outputs, {(y._outputs[0].node, 0): (5,)})
    with pytest.raises(
        MXNetError,
        match="Error in operator fx: Type inconsistent, Provided = float16, "
        "inferred type=float64",
    ):
        infer.infer_types(y._outputs, {"x": "float16"})
    assert infer.infer_types(y._outputs)[(y._outputs[0].node, 0)] == "float64"


def test_op_errors_are_prefixed_with_the_node():
    z = mx.sym.broadcast_add(mx.sym.var("a"), mx.sym.var("b"), name="plus")
    with pytest.raises(MXNetError, match="Error in operator plus: .*broadcast"):
        infer.infer_shapes(z._outputs, {"a": (2, 3), "b": (4, 3)})


def test_variable_hints_and_user_forms():
    x = mx.sym.var("x", shape=(0, 3), dtype="int32")
    shapes = infer.infer_shapes(x._outputs, np_shape=False)
    assert shapes[(x._outputs[0].node, 0)] == (None, 3)
    assert infer.infer_types(x._outputs)[(x._outputs[0].node, 0)] == "int32"
    assert infer.shape_from_user((2, 0), np_shape=False) == (2, None)
    assert infer.shape_from_user((), np_shape=False) is None
    assert infer.shape_from_user((), np_shape=True) == ()
    assert infer.shape_from_user((2, -1, 0), np_shape=True) == (2, None, 0)
    assert infer.shape_to_user((2, None), np_shape=False) == (2, 0)
    assert infer.shape_to_user((2, None), np_shape=True) == (2, -1)
    assert (
        infer.shape_to_user(None, np_shape=False) == ()
        and infer.shape_to_user(None, np_shape=True) is None
    )
    assert infer.DTYPE_TO_CODE["float16"] == 2 and infer.CODE_TO_DTYPE[6] == "int64"


def test_unknown_argument_messages():
    items = [(f"a{i}", None) for i in range(12)]
    message = infer.unknown_shapes_message(items[:2])
    assert message == (
        "InferShape pass cannot decide shapes for the following arguments (0s means unknown "
        "dimensions). Please consider providing them as inputs:\na0: None, a1: None, "
    )
    assert infer.unknown_shapes_message(items).endswith("a9: None, ...")
    assert infer.unknown_types_message([("w", None)]).startswith(
        "InferType pass cannot decide dtypes"
    )
