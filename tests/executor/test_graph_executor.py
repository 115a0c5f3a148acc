"""GraphExecutor through Symbol.bind / simple_bind: results against autograd, grad_req, head
gradients, bucketing, monitor, partial_forward, sum-cap / add-to, reshape, debug_str, hook."""
import sys
import types

import numpy
import pytest

import mxlab as mx
from mxlab.executor.graph_executor import HEAD_GRAD_MSG
from mxlab.test_utils import check_numeric_gradient

from executor_helpers import mlp_arrays, mlp_symbol


def _autograd_reference(sym, arrays, head):
    """Output and gradients of every argument but the data, by imperative autograd."""
    names = sym.list_inputs()
    copies = [mx.nd.array(a.asnumpy()) for a in arrays]
    for c in copies[1:]:
        c.attach_grad()
    from mxlab.symbol.evaluate import evaluate_graph
    with mx.autograd.record():
        y = evaluate_graph(sym._outputs, dict(zip(names, copies)))[0]
    y.backward(head)
    return y.asnumpy(), [c.grad.asnumpy() for c in copies[1:]]


def _bound_mlp(grad_req="write"):
    sym = mlp_symbol()
    arrays = mlp_arrays(sym)
    names = sym.list_arguments()
    grads = {n: mx.nd.zeros(a.shape) for n, a in zip(names, arrays) if n != "data"}
    return sym, arrays, sym.bind(mx.cpu(), dict(zip(names, arrays)), args_grad=grads,
                                 grad_req=grad_req)


def test_bind_forward_backward_match_autograd():
    sym, arrays, ex = _bound_mlp()
    head = mx.nd.array(numpy.linspace(-1, 1, 16).reshape(4, 4))
    want_out, want_grads = _autograd_reference(sym, arrays, head)
    out = ex.forward(is_train=True)
    assert out is ex.outputs and list(ex.output_dict) == sym.list_outputs()
    numpy.testing.assert_allclose(out[0].asnumpy(), want_out, rtol=1e-5, atol=1e-6)
    ex.backward(head)
    for name, want in zip(sym.list_arguments()[1:], want_grads):
        numpy.testing.assert_allclose(ex.grad_dict[name].asnumpy(), want, rtol=1e-4, atol=1e-6)
    assert ex.grad_dict["data"] is None and ex.grad_arrays[0] is None


def test_bound_gradients_match_central_differences():
    sym = mlp_symbol((3, 2))
    location = [a.asnumpy().astype("float64") for a in mlp_arrays(sym, batch=2, features=3)]
    check_numeric_gradient(sym, location, dtype=numpy.float64, rtol=1e-5, atol=1e-7)
    check_numeric_gradient(sym, location, dtype=numpy.float64, rtol=1e-5, atol=1e-7,
                           grad_nodes={"fc0_weight": "add", "fc1_bias": "write"})


def test_grad_req_add_accumulates_and_null_skips():
    sym, arrays, ex = _bound_mlp({"fc0_weight": "add", "fc1_weight": "write"})
    head = mx.nd.ones((4, 4))
    for _ in range(2):
        ex.forward(is_train=True)
        ex.backward([head])
    _, want = _autograd_reference(sym, arrays, head)
    numpy.testing.assert_allclose(ex.grad_dict["fc0_weight"].asnumpy(), 2 * want[0], rtol=1e-4,
                                  atol=1e-6)
    numpy.testing.assert_allclose(ex.grad_dict["fc1_weight"].asnumpy(), want[2], rtol=1e-4,
                                  atol=1e-6)
    assert ex.grad_dict["fc0_bias"] is None and ex.grad_dict["fc1_bias"] is None


def test_head_gradient_required():
    _, _, ex = _bound_mlp()
    ex.forward(is_train=True)
    with pytest.raises(mx.MXNetError) as info:
        ex.backward()
    assert str(info.value) == HEAD_GRAD_MSG


def test_simple_bind_allocates_zeroed_arrays():
    sym = mlp_symbol()
    ex = sym.simple_bind(mx.cpu(), grad_req="write", type_dict={"data": "float64"},
                         data=(3, 5))
    assert ex.arg_dict["data"].dtype == numpy.float64
    assert ex.arg_dict["fc0_weight"].shape == (8, 5)
    assert all(float(abs(a).sum().asscalar()) == 0 for a in ex.arg_arrays + ex.grad_arrays)
    assert ex.outputs[0].shape == (3, 4)
    ex.copy_params_from({"fc0_bias": mx.nd.ones((8,))})
    numpy.testing.assert_allclose(ex.arg_dict["fc0_bias"].asnumpy(), numpy.ones(8))
    with pytest.raises(mx.MXNetError, match='Find name "nope" that is not in the arguments'):
        ex.copy_params_from({"nope": mx.nd.ones((1,))})
    ex.copy_params_from({"nope": mx.nd.ones((1,))}, allow_extra_params=True)


def test_forward_kwargs_and_errors():
    x = mx.sym.var("x")
    ex = (x * 2).simple_bind(mx.cpu(), grad_req="null", x=(2,))
    numpy.testing.assert_allclose(ex.forward(x=mx.nd.array([1, 2]))[0].asnumpy(), [2, 4])
    numpy.testing.assert_allclose(ex.forward(x=numpy.array([3, 4]))[0].asnumpy(), [6, 8])
    with pytest.raises(mx.MXNetError, match="Unknown argument y"):
        ex.forward(y=mx.nd.ones((2,)))
    with pytest.raises(mx.MXNetError, match=r"Shape not match! Argument x, need: \(2,\)"):
        ex.forward(x=mx.nd.ones((3,)))
    with pytest.raises(mx.MXNetError, match="key `x` is missing in `args`"):
        (x * 2).bind(mx.cpu(), {})


def test_bucketing_shared_buffer():
    sym = mlp_symbol()
    buffer = {}
    big = sym.simple_bind(mx.cpu(), shared_buffer=buffer, data=(6, 5))
    names = [n for n in sym.list_arguments() if n != "data"]
    small = sym.simple_bind(mx.cpu(), shared_buffer=buffer, shared_exec=big,
                            shared_arg_names=names, data=(2, 5))
    assert all(small.arg_dict[n] is big.arg_dict[n] for n in names)
    # NOTE: the smaller bucket's planned blocks are the larger one's (best fit, no new memory).
    assert {id(b) for b in small._frame.blocks["joint"]} <= {id(b) for b in
                                                             big._frame.blocks["joint"]}
    small.arg_dict["data"][:] = 7
    assert float(big.arg_dict["data"].asnumpy()[0, 0]) == 7.0
    with pytest.warns(UserWarning) as record:
        sym.simple_bind(mx.cpu(), shared_buffer=buffer, shared_exec=big,
                        shared_arg_names=names, data=(8, 5))
    assert str(record[0].message) == (
        "Bucketing: data data has a shape [8,5], which is larger than already allocated shape "
        "[6,5]. Need to re-allocate. Consider putting default bucket key to be the bucket taking "
        "the largest input for better memory sharing.")
    assert buffer["data"].shape == (8, 5)


def test_monitor_callback_names():
    sym, arrays, ex = _bound_mlp()
    seen = []
    ex.set_monitor_callback(lambda name, arr: seen.append((name, arr.shape)))
    ex.forward()
    mx.nd.waitall()   # NOTE: the callback runs inside the pushed ops (as MXNet's)
    nodes = [n.name for n in ex.graph.indexed.nodes[:ex._num_forward_nodes]
             if not n.is_variable]
    assert [name for name, _ in seen] == [f"{n}_output" for n in nodes]
    assert seen[0][1] == (4, 8)
    seen.clear()
    ex.set_monitor_callback(lambda name, arr: seen.append(name), monitor_all=True)
    ex.forward()
    mx.nd.waitall()
    assert seen[:7] == ["data", "fc0_data", "fc0_weight", "fc0_weight", "fc0_bias", "fc0_bias",
                        "fc0_output"]


def test_partial_forward_steps():
    sym, arrays, ex = _bound_mlp()
    want = ex.forward()[0].asnumpy()
    ex.outputs[0][:] = 0
    total = ex._num_forward_nodes
    lefts = [ex.partial_forward(False, step) for step in range(total)]
    assert lefts == list(range(total - 1, -1, -1))
    assert ex.partial_forward(False, total) == 0
    numpy.testing.assert_allclose(ex.outputs[0].asnumpy(), want)


@pytest.mark.parametrize("cap", ["2", "100"])
def test_sum_cap_variants_equal_gradients(cap, monkeypatch):
    monkeypatch.setenv("MXNET_EXEC_INPLACE_GRAD_SUM_CAP", cap)
    x = mx.sym.var("x")
    y = x * 1.0
    for k in range(2, 7):
        y = y + mx.sym.sin(x * float(k))
    value = numpy.array([0.3, -0.7], "float32")
    ex = y.bind(mx.cpu(), {"x": mx.nd.array(value)}, args_grad={"x": mx.nd.zeros((2,))})
    ex.forward(is_train=True)
    ex.backward(mx.nd.ones((2,)))
    want = 1 + sum(k * numpy.cos(k * value) for k in range(2, 7))
    numpy.testing.assert_allclose(ex.grad_dict["x"].asnumpy(), want, rtol=1e-5)
    names = [n.op.name for n in ex.graph.indexed.nodes if not n.is_variable]
    plan = ex.memory_plan
    if cap == "2":
        assert "_grad_add" in names and plan.skipped_nodes
        assert any(e.addto for e in plan.entries)
    else:
        assert "ElementWiseSum" in names and not plan.skipped_nodes


def test_reshape_shares_and_checks():
    sym = mlp_symbol()
    ex = sym.simple_bind(mx.cpu(), data=(4, 5))
    small = ex.reshape(data=(2, 5))
    assert small.arg_dict["fc0_weight"] is ex.arg_dict["fc0_weight"]
    small.arg_dict["data"][:] = 3
    assert float(ex.arg_dict["data"].asnumpy()[1, 4]) == 3.0
    assert small.forward()[0].shape == (2, 4)
    with pytest.raises(mx.MXNetError, match="New shape of arg:data larger than original"):
        ex.reshape(data=(8, 5))
    assert ex.reshape(allow_up_sizing=True, data=(8, 5)).outputs[0].shape == (8, 4)


def test_debug_str_ends_with_totals():
    sym = mx.sym.var("data")
    for i in range(3):
        sym = mx.sym.tanh(mx.sym.FullyConnected(sym, num_hidden=512, name=f"fc{i}"))
    ex = sym.simple_bind(mx.cpu(), data=(512, 512))
    text = ex.debug_str()
    assert text.startswith(sym.debug_str())
    lines = text.splitlines()
    assert lines[-2] == f"Total {ex.allocated_bytes >> 20} MB allocated"
    assert ex.allocated_bytes >> 20 >= 1
    assert lines[-1] == "Total 11 TempSpace resource requested"


def test_subgraph_backend_hook_is_read_at_every_bind(monkeypatch):
    calls = []
    fake = types.ModuleType("mxlab.subgraph")
    fake.maybe_partition = lambda symbol, backend: calls.append(backend) or symbol
    monkeypatch.setitem(sys.modules, "mxlab.subgraph", fake)
    x = mx.sym.var("x")
    (x + 1).simple_bind(mx.cpu(), x=(2,))
    monkeypatch.setenv("MXNET_SUBGRAPH_BACKEND", "fake")
    (x + 1).simple_bind(mx.cpu(), x=(2,))
    (x + 1).bind(mx.cpu(), {"x": mx.nd.ones((2,))})
    assert calls == ["fake", "fake"]


def test_grad_req_forms_and_aux_arrays():
    sym = mx.sym.BatchNorm(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc"),
                           name="bn")
    ex = sym.simple_bind(mx.cpu(), grad_req=["null", "write", "add", "write", "null"],
                         data=(4, 2))
    assert [g is None for g in ex.grad_arrays] == [True, False, False, False, True]
    assert list(ex.aux_dict) == ["bn_moving_mean", "bn_moving_var"]
    assert ex.aux_arrays[1].shape == (3,)
    ex.arg_dict["data"][:] = mx.nd.array(numpy.arange(8, dtype="float32").reshape(4, 2))
    ex.arg_dict["fc_weight"][:] = 1
    ex.forward(is_train=True)
    assert float(ex.aux_dict["bn_moving_mean"].asnumpy()[0]) != 0
    with pytest.raises(mx.MXNetError, match="grad_req for argument 'data' must be one of"):
        sym.simple_bind(mx.cpu(), grad_req="inplace", data=(4, 2))
    with pytest.raises(mx.MXNetError, match="grad_req has 2 items for 5 arguments"):
        sym.simple_bind(mx.cpu(), grad_req=["write", "null"], data=(4, 2))


def test_group_listing_one_entry_several_times_fills_every_output():
    data = mx.sym.var("data")
    twice = mx.sym.exp(data)
    executor = mx.sym.Group([twice, twice, twice]).simple_bind(mx.cpu(), data=(2,))
    outputs = executor.forward(data=mx.nd.array([1.0, 2.0]))
    for out in outputs:
        numpy.testing.assert_allclose(out.asnumpy(), numpy.exp([1.0, 2.0]), rtol=1e-6)


def test_simple_bind_keeps_a_variables_declared_dtype():
    """Without type_dict every argument is float32 unless its variable declares a dtype (MXNet's
    simple_bind; test_operator::test_cast)."""
    x = mx.sym.Variable("x", dtype=numpy.int32)
    out = mx.sym.Group([mx.sym.Cast(x, dtype=numpy.float16), mx.sym.Variable("b") * 2])
    exe = out._simple_bind(ctx=mx.cpu(), x=(2, 3), b=(2, 3))
    assert exe.arg_dict["x"].dtype == numpy.int32
    assert exe.arg_dict["b"].dtype == numpy.float32
    # ``a + b`` of symbols is elemwise_add: one dtype for both, so float16 + float32 is refused
    with pytest.raises(mx.MXNetError, match="float16"):
        (mx.sym.Cast(x, dtype=numpy.float16) + mx.sym.Variable("b"))._simple_bind(
            ctx=mx.cpu(), x=(2, 3), b=(2, 3))
