"""The gradient pass: values against central differences; sums, zeros, copies, mirroring."""
import numpy
import pytest

from mxlab.base import MXNetNotImplementedError, MXNetValueError
from mxlab.graph.gradient import build_gradient_graph, env_mirror_policy, mirrorable
from mxlab.graph.graph import Graph
from mxlab.graph.interpreter import run_graph, run_planned
from mxlab.graph.node import Node
from mxlab.graph.verify import verify_plan
from mxlab.ops.registry import Op, get_op

from graph_helpers import (apply, mlp, numeric_gradient, planned, random_inputs, two_output_op,
                           var)


def _loss(forward, heads):
    """sum(output_i * head_i): its gradient is what the gradient graph gives for these heads."""
    def loss(inputs):
        return sum(float((y * h).sum()) for y, h in zip(run_graph(forward, inputs), heads))
    return loss


def check_gradient(forward, shapes, xs, **options):
    """Gradient outputs (planned, poisoned run) equal central differences; returns the graph and
    the planned run's outputs."""
    addto = options.pop("addto", False)
    full = planned(build_gradient_graph(forward, xs=xs, **options), shapes, addto=addto)
    inputs = random_inputs(full)
    verify_plan(full, inputs)
    results = run_planned(full, full.attrs["memory_plan"], inputs)
    n_out = full.attrs["num_forward_outputs"]
    # NOTE: a head gradient that reaches no input is not part of the graph (it counts as zero).
    heads = [inputs.get(v.name, 0.0) for v in full.attrs["head_grad_nodes"]]
    forward_inputs = {k: v for k, v in inputs.items() if not k.endswith("_head_grad")}
    for x, got in zip(full.attrs["xs"], results[n_out:]):
        want = numeric_gradient(_loss(forward, heads), forward_inputs, x)
        numpy.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7, err_msg=f"gradient of {x}")
    return full, results


def _names(graph):
    return [n.name for n in graph.indexed.nodes]


def test_small_net_gradients_match_numeric():
    x, w = var("x"), var("w")
    t = apply("tanh", apply("broadcast_mul", x, w, name="mul"), name="t")
    d = apply("broadcast_div", x, apply("exp", w, name="e"), name="d")
    y = apply("broadcast_add", t, d, name="y")
    forward = Graph([y])
    full, _ = check_gradient(forward, {"x": (3, 4), "w": (3, 4)}, ["x", "w"])
    # NOTE: forward nodes are a prefix of the full graph's node ids (CachedOp relies on it).
    n = forward.indexed.num_nodes
    assert [m.node for m in full.indexed.nodes[:n]] == [m.node for m in forward.indexed.nodes]
    assert "y_output_head_grad" in _names(full) and "y_output_id" in _names(full)
    assert full.indexed[full.indexed.node_id(full.attrs["head_grad_nodes"][0]) + 1].op.name == \
        "_identity_with_attr_like_rhs"


def test_broadcasting_and_multi_output_gradients():
    x, b = var("x"), var("b")
    s, d = apply(two_output_op(), apply("broadcast_add", x, b, name="xb"), x, name="sd")
    y = apply("broadcast_mul", apply("sin", s, name="ss"), apply("cos", d, name="cd"), name="y")
    check_gradient(Graph([y, s]), {"x": (2, 3), "b": (1, 3)}, ["x", "b"])


def _fan_out(n):
    """x feeds ``n`` unary ops whose results are added up: x's gradient has ``n`` terms."""
    x = var("x")
    ops = (["sin", "cos", "exp", "tanh"] * n)[:n]
    terms = [apply(op, x, name=f"f{i}") for i, op in enumerate(ops)]
    total = terms[0]
    for i, term in enumerate(terms[1:]):
        total = apply("broadcast_add", total, term, name=f"add{i}")
    return Graph([total])


def test_sum_below_the_cap_is_one_element_wise_sum():
    full, _ = check_gradient(_fan_out(5), {"x": (4,)}, ["x"])
    sums = [n for n in full.indexed.nodes if n.name == "sum_grad"]
    assert len(sums) == 1 and sums[0].op.name == "ElementWiseSum" and len(sums[0].inputs) == 5


def test_sum_at_the_cap_is_a_grad_add_chain_in_reverse_forward_order():
    full, chain_results = check_gradient(_fan_out(9), {"x": (4,)}, ["x"])
    names = _names(full)
    chain_names = [n for n in names if n.startswith("sum_grad_")]
    assert chain_names[:8] == [f"sum_grad_{i}" for i in range(1, 9)]
    assert "sum_grad_final" in names and "sum_grad" not in names
    idx = full.indexed
    adds = [idx[idx.node_id(n.node)] for n in idx.nodes if n.name.startswith("sum_grad_") and
            n.name != "sum_grad_final"]
    # NOTE: each addend's producer waits for the running sum (a control dependency).
    for add in adds[1:]:
        producer = idx[idx.node_of_entry(add.inputs[1])]
        assert idx.node_of_entry(add.inputs[0]) in producer.control_deps
    _, sum_results = check_gradient(_fan_out(9), {"x": (4,)}, ["x"], sum_cap=100)
    numpy.testing.assert_allclose(chain_results[1], sum_results[1], rtol=1e-12)


def test_addto_variant_skips_plus_nodes_and_gives_the_same_gradient():
    full, results = check_gradient(_fan_out(9), {"x": (4,)}, ["x"], addto=True)
    plan = full.attrs["memory_plan"]
    assert len(plan.skipped_nodes) >= 4
    assert all(full.indexed[n].op.name == "_grad_add" for n in plan.skipped_nodes)
    assert sum(e.addto for e in plan.entries) == len(plan.skipped_nodes)
    assert {e.request for e in plan.entries if e.addto} == {"add"}
    _, plain = check_gradient(_fan_out(9), {"x": (4,)}, ["x"])
    numpy.testing.assert_allclose(results[1], plain[1], rtol=1e-12)


def test_unused_input_gets_a_zero_gradient():
    x, unused = var("x"), var("unused")
    g = Graph([apply("exp", x, name="e"), apply("zeros_like", unused, name="z")])
    full, results = check_gradient(g, {"x": (3,), "unused": (2,)}, ["x", "unused"])
    assert full.outputs[-1].node.name == "zeros" and full.outputs[-1].node.op.name == "zeros_like"
    numpy.testing.assert_array_equal(results[-1], numpy.zeros(2))


def test_zero_terms_are_dropped_from_sums():
    x = var("x")
    zeros = apply("zeros_like", x, name="z")
    g = Graph([apply("broadcast_add", apply("exp", x, name="e"), zeros, name="y")])
    full = build_gradient_graph(g, xs=["x"])
    assert "sum_grad" not in _names(full)


def test_two_arguments_sharing_one_gradient_entry_get_a_copy():
    g = Graph([apply("exp", var("x"), name="e")])
    full, results = check_gradient(g, {"x": (3,)}, ["x", "x"])
    assert full.outputs[-1].node.op.name == "_copy" and full.outputs[-1].node.name == "x_grad_copy"
    numpy.testing.assert_array_equal(results[1], results[2])


def test_explicit_head_gradients_and_default_xs_skip_aux_states():
    mutating = Op(name="_test_scale_state", compute=lambda xp, ins, attrs: ins[0] * 2.0,
                  num_inputs=2, input_names=("data", "state"), mutate_inputs=(1,),
                  infer_shape=lambda a, s: [s[0]], gradient=lambda node, g: [g[0], None])
    y = apply(mutating, var("data"), var("state"), name="u")
    head = var("my_head")
    full = build_gradient_graph(Graph([y]), head_grads=[head])
    assert full.attrs["xs"] == ["data"] and full.attrs["head_grad_nodes"] == []
    assert full.outputs[1].node is head.node


def test_non_differentiable_op_is_named():
    opaque = Op(name="_test_opaque", compute=lambda xp, ins, attrs: ins[0])
    g = Graph([apply(opaque, var("x"), name="o")])
    with pytest.raises(MXNetNotImplementedError, match="_test_opaque is non-differentiable.*'o'"):
        build_gradient_graph(g, xs=["x"])
    with pytest.raises(MXNetValueError, match="'nope' is not an input"):
        build_gradient_graph(g, xs=["nope"])


def _tanh_chain(n, force=()):
    x = var("x")
    for i in range(n):
        x = apply("tanh", x, name=f"t{i}")
        if i in force:
            x.node.extra["__force_mirroring__"] = "True"
    return Graph([x])


def test_env_mirror_recomputes_cheap_nodes(monkeypatch):
    monkeypatch.setenv("MXNET_BACKWARD_DO_MIRROR", "1")
    full, _ = check_gradient(_tanh_chain(4), {"x": (5,)}, ["x"])
    assert full.attrs["mirrored"] == ["t0", "t1", "t2", "t3"]
    mirror = next(n for n in full.indexed.nodes if n.name == "t1_mirror")
    assert mirror.node.extra["__mirror_of__"] == "t1"
    assert full.indexed.entry_label(mirror.inputs[0]) == "t0_mirror[0]"


def test_force_mirroring_attribute_without_env(monkeypatch):
    monkeypatch.delenv("MXNET_BACKWARD_DO_MIRROR", raising=False)
    full, _ = check_gradient(_tanh_chain(4, force=(2,)), {"x": (5,)}, ["x"])
    assert full.attrs["mirrored"] == ["t2"]


def test_mirror_policy_never_picks_random_or_excluded_ops(monkeypatch):
    monkeypatch.setenv("MXNET_BACKWARD_DO_MIRROR", "1")
    policy = env_mirror_policy()
    random_op = Op(name="Dropout", compute=lambda xp, ins, attrs: ins[0], is_random=True)
    fc = Op(name="MyDense", compute=lambda xp, ins, attrs: ins[0], never_mirror=True)
    forced = Node(random_op, "drop", {}, [], extra={"__force_mirroring__": "True"})
    assert not mirrorable(forced) and not policy(forced)
    assert not policy(Node(fc, "fc", {}, []))
    assert policy(Node(get_op("tanh"), "t", {}, []))
    assert get_op("FullyConnected").never_mirror and get_op("Convolution").never_mirror
    assert policy(Node(fc, "fc", {}, [], extra={"__force_mirroring__": "true"}))


def test_mlp_gradients_match_numeric_with_and_without_recompute():
    forward = mlp(3, 4)
    params = [f"fc{i}_{p}" for i in range(3) for p in ("weight", "bias")]
    _, plain = check_gradient(forward, {"data": (2, 5)}, params)
    mirror = [f"fc{i}" for i in range(3)] + ["tanh0", "tanh1"]
    full, recomputed = check_gradient(forward, {"data": (2, 5)}, params, mirror=mirror)
    assert sorted(full.attrs["mirrored"]) == sorted(mirror)
    for a, b in zip(plain, recomputed):
        numpy.testing.assert_allclose(a, b, rtol=1e-12)


def test_gradient_with_respect_to_an_intermediate_entry():
    x = var("x")
    t = apply("tanh", x, name="t")
    y = apply("broadcast_mul", apply("exp", t, name="e"), t, name="y")
    full = planned(build_gradient_graph(Graph([y]), xs=[t, "x"]), {"x": (5,)})
    inputs = random_inputs(full)
    head = inputs["y_output_head_grad"]
    tv = numpy.tanh(inputs["x"])
    d_t = head * (numpy.exp(tv) * tv + numpy.exp(tv))
    got_t, got_x = run_planned(full, full.attrs["memory_plan"], inputs)[1:]
    numpy.testing.assert_allclose(got_t, d_t, rtol=1e-12)
    numpy.testing.assert_allclose(got_x, d_t * (1 - tv ** 2), rtol=1e-12)
    with pytest.raises(MXNetValueError, match="1 head gradients for 2 outputs"):
        build_gradient_graph(Graph([y, t]), head_grads=[var("h")])
