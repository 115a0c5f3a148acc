"""CachedOp: the seed scenarios (static memory, shape switching, recording), re-plan triggers,
the state pool rule, inlining, error texts, inspection, and plans checked by the verifier."""
import gc

import numpy
import pytest

import mxlab as mx
from mxlab.executor import CachedOp
from mxlab.executor.cached_op import HIGHER_ORDER_MSG
from mxlab.graph.verify import verify_plan
from mxlab.symbol.evaluate import evaluate_graph
from mxlab.test_utils import check_numeric_gradient

from executor_helpers import attach, mlp_arrays, mlp_symbol

FLAGS = [{}, {"static_alloc": True}, {"static_alloc": True, "static_shape": True}]


def _imperative(sym):
    names = sym.list_inputs()
    return lambda *arrays: evaluate_graph(sym._outputs, dict(zip(names, arrays)))[0]


def _twice_recorded(fn, arrays):
    """``y = fn(x) + fn(x)`` recorded, backward; the output and the parameter gradients."""
    with mx.autograd.record():
        y = fn(*arrays) + fn(*arrays)
    y.backward()
    return [y.asnumpy()] + [a.grad.asnumpy() for a in arrays[1:]]


def _fresh(sym, batch=4, seed=0):
    arrays = mlp_arrays(sym, batch=batch, seed=seed)
    attach(arrays, names=sym.list_inputs())
    return arrays


def _assert_all_close(got, want):
    assert len(got) == len(want)
    for a, b in zip(got, want):
        numpy.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-5)


@pytest.mark.parametrize("flags", FLAGS, ids=["dynamic", "static_alloc", "static_shape"])
def test_net_plus_net_equal_across_flags(flags):
    sym = mlp_symbol()
    want = _twice_recorded(_imperative(sym), _fresh(sym))
    op = CachedOp(sym, flags)
    _assert_all_close(_twice_recorded(op, _fresh(sym)), want)
    if flags:
        # NOTE: the first call's state is held by its tape node, so the second gets its own.
        assert len(op._states[mx.cpu()]) == 2


@pytest.mark.parametrize("flags", FLAGS, ids=["dynamic", "static_alloc", "static_shape"])
def test_shape_switching(flags):
    sym = mlp_symbol()
    op, reference = CachedOp(sym, flags), _imperative(sym)
    for batch in (4, 2):
        arrays = _fresh(sym, batch=batch)
        numpy.testing.assert_allclose(op(*arrays).asnumpy(), reference(*arrays).asnumpy(),
                                      rtol=1e-5, atol=1e-6)
        _assert_all_close(_twice_recorded(op, arrays), _twice_recorded(reference, arrays))
    triggers = [e.trigger for e in op.replan_log]
    assert triggers[0] == "initial" and "shape" in triggers and "recording" in triggers


def test_recording_without_backward_then_inference():
    sym = mlp_symbol()
    op = CachedOp(sym, {"static_alloc": True})
    arrays = _fresh(sym)
    with mx.autograd.record(True):
        recorded = op(*arrays)
    plain = op(*arrays)
    numpy.testing.assert_allclose(plain.asnumpy(), recorded.asnumpy(), rtol=1e-6)
    numpy.testing.assert_allclose(plain.asnumpy(), _imperative(sym)(*arrays).asnumpy(),
                                  rtol=1e-5, atol=1e-6)


def test_state_pool_reuses_only_unheld_states():
    sym = mlp_symbol()
    op = CachedOp(sym, {"static_alloc": True, "static_shape": True})
    arrays = _fresh(sym)
    for _ in range(3):
        op(*arrays)
    assert len(op._states[mx.cpu()]) == 1
    with mx.autograd.record():
        first = op(*arrays)
        second = op(*arrays)
    states = op._states[mx.cpu()]
    assert len(states) == 2 and all(s.holders == 1 for s in states)
    del first, second
    mx.nd.waitall()   # NOTE: a pushed op holds its arrays (and their tape node) until it ran
    gc.collect()
    assert all(s.holders == 0 for s in states)
    op(*arrays)
    assert len(op._states[mx.cpu()]) == 2


def test_replan_triggers():
    sym = mlp_symbol()
    op = CachedOp(sym, {"static_alloc": True, "static_shape": True, "data_indices": [0],
                        "param_indices": [1, 2, 3, 4]})
    arrays = _fresh(sym)
    op(*arrays)
    op(*arrays)
    op(*(_fresh(sym, batch=3)))
    # NOTE: a recorded call holds its state until its pushed ops ran (threaded engines), and the
    #   states a call finds free decide which plan it re-uses: wait for each.
    with mx.autograd.record():
        op(*arrays)
    mx.nd.waitall()
    arrays_half = mlp_arrays(sym)
    arrays_half[1].attach_grad()
    with mx.autograd.record():
        op(*arrays_half)
    mx.nd.waitall()
    op(*arrays)
    op(*([arrays[0]] + [a.copy() for a in arrays[1:]]))
    op(*[a.astype("float64") for a in arrays])
    triggers = [e.trigger for e in op.replan_log]
    assert triggers == ["initial", "shape", "recording", "initial", "grad_req", "recording",
                        "shape", "param_identity", "dtype"]
    assert op.replan_log[1].detail == "data: (4, 5) -> (3, 5)"
    assert all(e.time > 0 for e in op.replan_log)


def test_inline_limit_inlines_small_graphs():
    x = mx.sym.var("x")
    sym = mx.sym.tanh(x * 2)
    a = mx.nd.array([0.5, -1.0])
    a.attach_grad()
    for flags, expect in (({}, "tanh"), ({"inline_limit": 0}, "_CachedOp"),
                          ({"static_alloc": True}, "_CachedOp")):
        op = CachedOp(sym, flags)
        with mx.autograd.record():
            y = op(a)
        assert y._ag.node.op.name == expect
        y.backward()
        want = 2 * (1 - numpy.tanh(2 * a.asnumpy()) ** 2)
        numpy.testing.assert_allclose(a.grad.asnumpy(), want, rtol=1e-5)


@pytest.mark.parametrize("flags", FLAGS, ids=["dynamic", "static_alloc", "static_shape"])
def test_gradient_matches_central_differences(flags):
    sym = mlp_symbol((3,))
    op = CachedOp(sym, dict(flags, inline_limit=0))
    location = [a.asnumpy().astype("float64") for a in mlp_arrays(sym, batch=2, features=3)]
    check_numeric_gradient(lambda *arrays: op(*arrays), location, dtype=numpy.float64,
                           rtol=1e-5, atol=1e-7)


def test_error_texts():
    x, w = mx.sym.var("x"), mx.sym.var("w")
    op = CachedOp(mx.sym.exp(x * w), {"static_alloc": True})
    with pytest.raises(mx.MXNetError) as info:
        op(mx.nd.ones((2,), ctx=mx.cpu(0)), mx.nd.ones((2,), ctx=mx.cpu(1)))
    assert str(info.value) == ("CachedOp requires all inputs to live on the same context. But x "
                               "is on cpu(0) while w is on cpu(1)")
    a, b = mx.nd.ones((2,)), mx.nd.ones((2,))
    a.attach_grad()
    with mx.autograd.record():
        y = op(a, b)
        with pytest.raises(mx.MXNetError) as info:
            mx.autograd.grad(y, [a], create_graph=True)
    assert str(info.value) == HIGHER_ORDER_MSG
    # NOTE: MXNet 2.0 runs a graph without inputs (1.9.1 refused to build it)
    no_inputs = CachedOp(mx.sym.zeros((2,)), {"static_alloc": True, "static_shape": True})
    assert no_inputs(None, default_device=mx.cpu()).asnumpy().tolist() == [0, 0]
    with pytest.raises(mx.MXNetError, match="static_shape=True requires static_alloc"):
        CachedOp(x, {"static_shape": True})
    with pytest.raises(mx.MXNetError, match="unknown flag 'stattic_alloc'"):
        CachedOp(x, [("stattic_alloc", "true")])


def test_flags_as_pairs_and_strings():
    op = CachedOp(mlp_symbol(), [("static_alloc", "true"), ("forward_bulk_size", "2"),
                                 ("data_indices", "[0]"), ("param_indices", "[1,2,3,4]")])
    assert op.config.static_alloc and op.config.forward_bulk_size == 2
    assert op.config.param_indices == (1, 2, 3, 4)
    with pytest.raises(mx.MXNetError, match="must together cover the 5 inputs"):
        CachedOp(mlp_symbol(), {"data_indices": [0], "param_indices": [1]})


def test_inspection_api():
    sym = mlp_symbol()
    op = CachedOp(sym, {"static_alloc": True, "static_shape": True, "forward_bulk_size": 2})
    op.time_nodes = True
    arrays = _fresh(sym)
    with pytest.raises(mx.MXNetError, match="no 'forward' plan yet"):
        op.memory_plan("forward")
    op(*arrays)
    plan = op.memory_plan("forward")
    row = plan.rows()[-1]
    assert {"node", "index", "shape", "dtype", "nbytes", "storage_id", "inplace_source",
            "request", "live"} <= set(row)
    assert [s.reason for s in op.segments("forward")] == ["end_of_graph"]
    idx = op.forward_graph.indexed
    mx.nd.waitall()   # NOTE: the times are taken when the pushed segments run
    assert set(op.last_run_times) == {n.name for n in idx.nodes if not n.is_variable}
    assert all(t > 0 for t in op.last_run_times.values())
    with mx.autograd.record():
        y = op(*arrays)
    y.backward()
    # NOTE: recording, a segment ends at a variable (fc1_weight) and before a node touching an
    #   output entry.
    assert [(len(s.nodes), s.reason) for s in op.segments("full")] == [
        (2, "variable"), (1, "excluded_entry"), (1, "end_of_forward")]
    assert op.full_graph.attrs["num_forward_outputs"] == 1
    assert op.memory_plan("backward").entries[0].storage_id == -2
    info = op.info()
    assert set(info["plans"]) == {"forward", "full", "backward"} and info["replans"] == 3


def test_out_writes_into_given_array():
    op = CachedOp(mx.sym.var("x") * 3, {"static_alloc": True, "static_shape": True})
    out = mx.nd.zeros((2,))
    result = op(mx.nd.ones((2,)), out=out)
    assert result is out
    numpy.testing.assert_allclose(out.asnumpy(), [3.0, 3.0])


def test_dynamic_path_reuses_pool_blocks():
    sym = mlp_symbol()
    op = CachedOp(sym)
    arrays = _fresh(sym)
    first = op(*arrays).asnumpy()
    allocated = op._pools[mx.cpu()].allocated_bytes
    for _ in range(3):
        numpy.testing.assert_allclose(op(*arrays).asnumpy(), first)
    assert op._pools[mx.cpu()].allocated_bytes == allocated > 0


def test_recompute_same_gradients():
    sym = mx.sym.var("data")
    for i in range(6):
        sym = mx.sym.tanh(mx.sym.FullyConnected(sym, num_hidden=4, name=f"fc{i}"))
    want = _twice_recorded(CachedOp(sym), _fresh(sym, batch=3))
    op = CachedOp(sym, {"recompute": True, "static_alloc": True})
    _assert_all_close(_twice_recorded(op, _fresh(sym, batch=3)), want)
    assert op.full_graph.attrs["mirrored"]


@pytest.mark.parametrize("kind", ["forward", "backward"])
def test_plans_pass_the_poisoned_verifier(kind):
    sym = mlp_symbol()
    op = CachedOp(sym)
    arrays = _fresh(sym)
    with mx.autograd.record():
        y = op(*arrays)
    y.backward()
    op(*arrays)
    graph = op.forward_graph if kind == "forward" else op.backward_graph
    idx = graph.indexed
    inputs = dict(zip(sym.list_inputs(), [a.asnumpy() for a in arrays]))
    for nid in idx.input_nodes:
        if idx[nid].name.endswith("_head_grad"):
            inputs[idx[nid].name] = numpy.ones(graph.attrs["shape"][idx.node_row_ptr[nid]],
                                               "float32")
    assert verify_plan(graph, inputs, op.memory_plan(kind)) == []


def test_recording_without_gradient_inputs_runs_as_inference():
    sym = mlp_symbol()
    op = CachedOp(sym, {"static_alloc": True})
    arrays = mlp_arrays(sym)
    with mx.autograd.record():
        y = op(*arrays)
    assert y._ag is None and "full" not in op.info()["plans"]


def test_auxiliary_states_are_updated_not_differentiated():
    sym = mx.sym.BatchNorm(mx.sym.var("data"), name="bn")
    op = CachedOp(sym, {"static_alloc": True, "static_shape": True})
    rng = numpy.random.default_rng(1)
    data = mx.nd.array(rng.standard_normal((6, 3)).astype("float32"))
    gamma, beta = mx.nd.ones((3,)), mx.nd.zeros((3,))
    mean, var = mx.nd.zeros((3,)), mx.nd.ones((3,))
    for a in (data, gamma, beta):
        a.attach_grad()
    with mx.autograd.record():
        y = op(data, gamma, beta, mean, var)
    y.backward()
    momentum = 0.9
    want_mean = (1 - momentum) * data.asnumpy().mean(axis=0)
    numpy.testing.assert_allclose(mean.asnumpy(), want_mean, rtol=1e-4, atol=1e-6)
    assert op.full_graph.attrs["xs"] == ["data", "bn_gamma", "bn_beta"]
    # NOTE: the sum of a batch-normalised output does not depend on the data.
    numpy.testing.assert_allclose(data.grad.asnumpy(), 0, atol=1e-5)


@pytest.mark.parametrize("flags", FLAGS, ids=["dynamic", "static_alloc", "static_shape"])
def test_group_outputs_partial_use_and_np_flavour(flags):
    x, w = mx.sym.var("x"), mx.sym.var("w")
    op = CachedOp(mx.sym.Group([mx.sym.exp(x * w), mx.sym.sin(x), x]), dict(flags, inline_limit=0))
    a, b = mx.nd.array([0.1, 0.2]), mx.nd.array([1.0, 2.0])
    a.attach_grad()
    b.attach_grad()
    with mx.autograd.record():
        first, _, same = op(a, b)
        loss = first * 2
    loss.backward()
    assert same is a
    expected = numpy.exp(a.asnumpy() * b.asnumpy())
    numpy.testing.assert_allclose(a.grad.asnumpy(), 2 * expected * b.asnumpy(), rtol=1e-6)
    numpy.testing.assert_allclose(b.grad.asnumpy(), 2 * expected * a.asnumpy(), rtol=1e-6)
    outputs = op(mx.np.array([0.1, 0.2]), mx.np.array([1.0, 2.0]))
    assert type(outputs[0]) is mx.np.ndarray
    numpy.testing.assert_allclose(outputs[1].asnumpy(), numpy.sin([0.1, 0.2]), rtol=1e-6)


@pytest.mark.parametrize("flags", [{}, {"static_alloc": True, "static_shape": True}])
def test_an_output_listed_twice_is_computed_once_and_returned_twice(flags):
    data = mx.sym.var("data")
    twice = mx.sym.exp(data)
    op = CachedOp(mx.sym.Group([twice, twice]), flags)
    for _ in range(2):
        first, second = op(mx.nd.array([0.0, 1.0]))
        numpy.testing.assert_allclose(first.asnumpy(), numpy.exp([0.0, 1.0]), rtol=1e-6)
        assert second is first
