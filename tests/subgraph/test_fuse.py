"""The ``fuse`` backend: selection, numexpr kernels, fused backward, fallbacks and equality with
the unfused graph (outputs and gradients) on chains, DAGs and inside hybridized blocks."""
import numpy as np
import pytest

import mxlab as mx
from mxlab.graph.graph import Graph
from mxlab.graph.gradient import build_gradient_graph
from mxlab.graph.interpreter import run_graph
from mxlab.graph.node import topo_sort
from mxlab.subgraph import partition
from mxlab.subgraph.backends.fuse import fusable
from mxlab.test_utils import assert_almost_equal


def chain64(x):
    for _ in range(16):
        x = mx.sym.tanh(x * 1.01 + 0.1) - 0.05
    return x


def diamonds(x, count=20):
    """Each value used twice: the expression text must not double per level."""
    for _ in range(count):
        a = mx.sym.sin(x)
        x = a * mx.sym.cos(x) + a
    return x


def _fused_nodes(sym):
    return [n for n in topo_sort(sym._outputs) if n.op is not None and n.op.name == '_fused_op']


def _values_and_grads(sym, values):
    arrays = {k: mx.nd.array(v, dtype=v.dtype) for k, v in values.items()}
    for a in arrays.values():
        a.attach_grad()
    with mx.autograd.record():
        outs = sym.eval(**arrays)
    mx.autograd.backward(outs)
    return [o.asnumpy() for o in outs] + [arrays[k].grad.asnumpy() for k in sorted(arrays)]


def _check_same(sym, values, rtol=1e-5, atol=1e-6):
    fused, _ = partition(sym, 'fuse')
    for got, want in zip(_values_and_grads(fused, values), _values_and_grads(sym, values)):
        assert got.dtype == want.dtype
        assert_almost_equal(got, want, rtol=rtol, atol=atol)
    return fused


@pytest.mark.parametrize("size", [64, 1000])
def test_chain64_one_kernel(size):
    fused = _check_same(chain64(mx.sym.var('x')),
                        {'x': np.random.rand(size).astype('float32')})
    (node,) = _fused_nodes(fused)
    assert len(node.subgraphs[0].get_internals().list_outputs()) == 65
    kernel = node.op.runner.kernel(['float32'])
    assert kernel.runnable and len(kernel.steps) == 1
    assert len(kernel.scalars) == 3 and kernel.scalars[0].dtype == np.float32


def test_dag_is_staged_and_equal():
    fused = _check_same(diamonds(mx.sym.var('x')), {'x': np.random.rand(50).astype('float32')},
                        rtol=1e-4, atol=1e-5)
    (node,) = _fused_nodes(fused)
    program = node.op.runner.program
    assert len(program.stages) > 1
    assert max(len(s.expr) for s in program.stages) < 2000


def test_multiple_outputs_and_broadcasting():
    x, y = mx.sym.var('x'), mx.sym.var('y')
    s = mx.sym.broadcast_add(mx.sym.tanh(x), mx.sym.sin(y))
    sym = mx.sym.Group([mx.sym.exp(s) * 0.5, s - 1])
    values = {'x': np.random.rand(3, 1).astype('float32'),
              'y': np.random.rand(1, 4).astype('float32')}
    fused = _check_same(sym, values)
    assert len(_fused_nodes(fused)) == 1


def test_non_elementwise_ops_split_subgraphs():
    x = mx.sym.var('x')
    y = mx.sym.FullyConnected(mx.sym.tanh(x * 2) + 1, num_hidden=3, name='fc')
    sym = mx.sym.sigmoid(mx.sym.relu(y) * 3)
    fused, part = partition(sym, 'fuse')
    assert len(part.subgraphs) == 2
    assert all(fusable(n) for n in topo_sort(sym._outputs) if n.name in sum(part.subgraphs, []))
    rng = np.random.default_rng(0)
    values = {'x': rng.random((2, 4), dtype='float32'),
              'fc_weight': rng.random((3, 4), dtype='float32'),
              'fc_bias': rng.random(3, dtype='float32')}
    _check_same(sym, values)


def test_backward_is_fused_too():
    fused, _ = partition(chain64(mx.sym.var('x')), 'fuse')
    (node,) = _fused_nodes(fused)
    backward_op = node.op.runner.backward()[0]
    inner = backward_op.runner.sym
    assert _fused_nodes(inner), "the backward subgraph must contain fused kernels"


def test_graph_gradient_pass_through_fused_graph():
    sym = diamonds(mx.sym.var('x'), count=3)
    fused, _ = partition(sym, 'fuse')
    x = np.linspace(-1, 1, 8).astype('float32')
    results = []
    for s in (sym, fused):
        graph = build_gradient_graph(Graph(list(s._outputs)), xs=['x'])
        names = [graph.indexed[n].name for n in graph.indexed.input_nodes]
        results.append(run_graph(graph, {n: x if n == 'x' else np.ones_like(x) for n in names}))
    for got, want in zip(*results):
        assert_almost_equal(got, want, rtol=1e-4, atol=1e-5)


def test_float16_falls_back_to_op_by_op():
    sym = mx.sym.tanh(mx.sym.var('x') * 2) + 1
    fused, _ = partition(sym, 'fuse')
    (node,) = _fused_nodes(fused)
    assert not node.op.runner.kernel(['float16']).runnable
    x = mx.nd.array(np.random.rand(5), dtype='float16')
    got, want = fused.eval(x=x)[0], sym.eval(x=x)[0]
    assert got.dtype == np.float16
    assert_almost_equal(got.asnumpy(), want.asnumpy())


def test_min_size_option():
    sym = mx.sym.tanh(mx.sym.var('x'))
    assert partition(sym, 'fuse')[1].subgraphs == []
    assert len(partition(sym, 'fuse', min_size=1)[1].subgraphs) == 1


class _Chain(mx.gluon.HybridBlock):
    def forward(self, x):
        for _ in range(4):
            x = mx.np.tanh(x * 1.01 + 0.1) - 0.05
        return x


def test_hybridized_block_with_fuse_backend():
    mx.npx.set_np()
    data = np.random.rand(16).astype('float32')
    results = []
    for backend in (None, 'fuse'):
        net = _Chain()
        net.hybridize(backend=backend)
        x = mx.np.array(data)
        x.attach_grad()
        with mx.autograd.record():
            y = net(x)
        y.backward()
        results.append((y.asnumpy(), x.grad.asnumpy()))
    assert mx.subgraph.last_partition().backend == 'fuse'
    for got, want in zip(*results):
        assert_almost_equal(got, want, rtol=1e-5, atol=1e-6)


def test_resnet18_with_fuse_backend():
    vision = pytest.importorskip("mxlab.gluon.model_zoo.vision")
    mx.npx.set_np()
    x = mx.np.array(np.random.rand(1, 3, 32, 32).astype('float32'))
    net = vision.resnet18_v1(classes=10)
    net.initialize()
    want = net(x).asnumpy()
    net.hybridize(backend='fuse')
    got = net(x).asnumpy()
    part = mx.subgraph.last_partition()
    assert part.backend == 'fuse' and part.subgraphs, "residual add + relu must be fused"
    assert_almost_equal(got, want, rtol=1e-4, atol=1e-5)


@pytest.mark.gpu
def test_cupy_kernel():
    cupy = pytest.importorskip("cupy")
    if mx.num_gpus() == 0:
        pytest.skip("no GPU")
    sym = chain64(mx.sym.var('x'))
    fused, _ = partition(sym, 'fuse')
    data = np.random.rand(1000).astype('float32')
    x = mx.nd.array(data, ctx=mx.gpu(0))
    got = fused.eval(x=x)[0].asnumpy()
    (node,) = _fused_nodes(fused)
    assert node.op.runner.kernel(['float32'], cupy).runnable
    assert_almost_equal(got, sym.eval(x=mx.nd.array(data))[0].asnumpy(), rtol=1e-4, atol=1e-5)


def test_large_inputs_are_tuned_once():
    sym = chain64(mx.sym.var('x'))
    fused = _check_same(sym, {'x': np.random.rand(1 << 16).astype('float32')})
    (node,) = _fused_nodes(fused)
    choices = node.op.runner.choices
    assert len(choices) == 1 and next(iter(choices.values())) in ("numexpr", "ufunc", "ops")
    # the choice is shown on the fused node, where the explorer lists attributes
    assert node.attrs["kernel"] == f"2^16+ elements: {next(iter(choices.values()))}"
    x = mx.nd.array(np.random.rand(1 << 16).astype('float32'))
    assert_almost_equal(fused.eval(x=x)[0].asnumpy(), sym.eval(x=x)[0].asnumpy(), rtol=1e-5,
                        atol=1e-6)
    assert len(choices) == 1


def test_stage_functions_match_numexpr():
    """The GPU path turns the same stage texts into Python functions of ufuncs: checked here with
    NumPy, on every kind of template the selection can meet."""
    from mxlab.subgraph.backends.fuse import stage_function

    x = mx.sym.var('x')
    y = mx.sym.relu(mx.sym.sigmoid(x * 3) - 0.5) + mx.sym.abs(mx.sym.arctan(x)) / 2
    fused, _ = partition(mx.sym.Group([diamonds(y, 3), mx.sym.softsign(y)]), 'fuse')
    (node,) = _fused_nodes(fused)
    runner = node.op.runner
    inputs = [np.linspace(-2, 2, 9).astype('float32')] * len(runner.input_nodes)
    kernel = runner.kernel(['float32'] * len(inputs))
    slots = {f"v{i}": a for i, a in enumerate(inputs)}
    slots.update({f"s{k}": a for k, a in enumerate(kernel.scalars)})
    for stage in runner.program.stages:
        slots[stage.target] = stage_function(stage, np)(*[slots[n] for n in stage.names])
    for got, want in zip([slots[t] for t in runner.program.outputs], kernel.run(inputs)):
        assert_almost_equal(np.asarray(got, dtype='float32'), want, rtol=1e-5, atol=1e-6)


def _kernels_of(sym, dtype):
    fused, _ = partition(sym, 'fuse')
    return [node.op.runner.kernel([dtype] * len(node.op.runner.input_nodes))
            for node in _fused_nodes(fused)]


@pytest.mark.parametrize("size", [9, 40_000])  # one chunk, several chunks with a short last one
def test_ufunc_program_matches_numexpr(size):
    """The in-place ufunc program computes what the numexpr kernel computes, on every kind of
    template (activations, comparisons, scalars, reversed scalars) and shared stages."""
    x = mx.sym.var('x')
    y = mx.sym.relu(mx.sym.sigmoid(x * 3) - 0.5) + mx.sym.abs(mx.sym.arctan(x)) / 2
    y = (y > 0.3) * (1 - y) + (x >= 0) * mx.sym.tanh(x) / mx.sym.exp(-y)
    kernels = _kernels_of(mx.sym.Group([diamonds(y, 3), mx.sym.softsign(y)]), 'float32')
    assert kernels
    for kernel in kernels:
        assert kernel.ufunc is not None and len(kernel.ufunc.stages) == len(kernel.steps)
        inputs = [np.linspace(-2, 2, size).astype('float32')] * len(kernel.in_dtypes)
        for got, want in zip(kernel.run_ufunc(inputs), kernel.run(inputs)):
            assert got.dtype == want.dtype and got.shape == want.shape
            assert_almost_equal(got, want, rtol=1e-5, atol=1e-6)


def test_ufunc_program_broadcasts_and_keeps_dtypes():
    a, b = mx.sym.var('a'), mx.sym.var('b')
    (kernel,) = _kernels_of(mx.sym.broadcast_mul(a + 1, b) - 2, 'float64')
    inputs = [np.arange(6.0).reshape(2, 3), np.array([[1.0], [2.0]])]
    (got,) = kernel.run_ufunc(inputs)
    assert got.dtype == np.float64
    assert_almost_equal(got, (inputs[0] + 1) * inputs[1] - 2)


def test_ufunc_program_is_bitwise_numpy_for_chain64():
    """One ufunc per op, in op order: the same floats as op-by-op NumPy."""
    (kernel,) = _kernels_of(chain64(mx.sym.var('x')), 'float32')
    data = np.linspace(-1, 1, 50_000, dtype='float32')
    want = data
    for _ in range(16):
        want = np.tanh(want * np.float32(1.01) + np.float32(0.1)) - np.float32(0.05)
    np.testing.assert_array_equal(kernel.run_ufunc([data])[0], want)


def test_integer_chain_through_abs_wraps_like_the_ops_do():
    """numexpr computes abs of int32 in float64, so the squares after it did not wrap around and
    the cast back gave INT_MIN (found by the slow fuzzer): such kernels now run op by op."""
    x = mx.sym.var("x")
    y = mx.sym.square(mx.sym.square(mx.sym.abs(mx.sym.negative(x))))
    values = mx.nd.array(np.array([1000, 60000, -7, 123456], dtype="int32"), dtype="int32")
    want = y.eval(x=values)[0].asnumpy()
    got = y.optimize_for("fuse").eval(x=values)[0].asnumpy()
    assert want.dtype == got.dtype == np.int32
    np.testing.assert_array_equal(got, want)
