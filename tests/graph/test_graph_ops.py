"""The ops the graph passes insert (ElementWiseSum, _grad_add, _identity_with_attr_like_rhs,
_zeros), and gradients of gradient graphs (rules built from those ops differentiate again)."""
import numpy
import pytest

from mxlab.base import MXNetValueError
from mxlab.graph.gradient import build_gradient_graph
from mxlab.graph.graph import Graph
from mxlab.graph.interpreter import run_graph
from mxlab.ops.registry import get_op

from graph_helpers import apply, planned, random_inputs, var


def _forward(name, inputs, outs=None, **attrs):
    op = get_op(name)
    return op.forward(numpy, inputs, op.parse_attrs(attrs), outs)


def test_element_wise_sum_and_its_in_place_form():
    a, b, c = (numpy.arange(4.0) * k for k in (1, 2, 3))
    numpy.testing.assert_array_equal(_forward("add_n", [a, b, c], num_args=3)[0], a * 6)
    alias = a.copy()
    _forward("ElementWiseSum", [alias, b, c], [alias], num_args=3)
    numpy.testing.assert_array_equal(alias, a * 6)
    assert get_op("ElementWiseSum").inplace == ((0, 0),)
    with pytest.raises(MXNetValueError, match="num_args.*must be >= 1"):
        get_op("add_n").parse_attrs({"num_args": 0})


def test_grad_add_identity_like_rhs_and_zeros():
    a, b = numpy.ones((2, 3)), numpy.full((2, 3), 2.0)
    numpy.testing.assert_array_equal(_forward("_grad_add", [a, b])[0], a + b)
    like = get_op("_identity_with_attr_like_rhs")
    assert like.infer_shapes({}, [None, (2, 3)]) == ([(2, 3), (2, 3)], [(2, 3)])
    assert like.infer_types({}, [None, "float16"]) == (["float16", "float16"], ["float16"])
    assert like.ignore_inputs == (1,)
    out = _forward("_identity_with_attr_like_rhs", [a, b])[0]
    assert out is not a and numpy.array_equal(out, a)
    zeros = _forward("_zeros", [], shape=(2, 2), dtype="int32")[0]
    assert zeros.dtype == numpy.int32 and not zeros.any()


def test_sum_ops_differentiate_to_their_head_gradient():
    x, y, z = var("x"), var("y"), var("z")
    total = apply("ElementWiseSum", x, y, z, name="s", num_args=3)
    full = planned(build_gradient_graph(Graph([apply("_grad_add", total, x, name="p")])),
                   {"x": (3,), "y": (3,), "z": (3,)})
    inputs = random_inputs(full)
    head = inputs["p_output_head_grad"]
    grads = run_graph(full, inputs)[1:]
    for got, factor in zip(grads, (2, 1, 1)):
        numpy.testing.assert_allclose(got, factor * head)


def test_gradient_of_a_gradient_graph():
    x = var("x")
    cube = apply("broadcast_mul", apply("broadcast_mul", x, x, name="sq"), x, name="cube")
    first = build_gradient_graph(Graph([cube]), xs=["x"])
    second = build_gradient_graph(Graph([first.outputs[1]]), xs=["x"])
    full = planned(second, {"x": (4,)})
    inputs = random_inputs(full)
    heads = [inputs[n] for n in inputs if n.endswith("_head_grad")]
    assert len(heads) == 2
    # NOTE: d/dx (h1 * 3 x^2) contracted with h2 is 6 x h1 h2.
    want = 6 * inputs["x"] * heads[0] * heads[1]
    numpy.testing.assert_allclose(run_graph(full, inputs)[-1], want, rtol=1e-12)
