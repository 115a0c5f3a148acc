"""Regression tests for path divergences (issue 12): every execution path of a HybridBlock gives the
imperative answer, values and input gradients."""
import numpy
import pytest

import mxlab as mx
from mxlab.gluon import nn


def _run(block, inputs):
    """Forward value and input gradients of ``block`` (output summed for the head gradient)."""
    inputs = [x.copy() for x in inputs]
    for x in inputs:
        x.attach_grad()
    with mx.autograd.record():
        out = block(*inputs)
    out.backward()
    return out.asnumpy(), [x.grad.asnumpy() for x in inputs]


def _assert_paths_agree(make_block, inputs, **hybridize):
    want_out, want_grads = _run(make_block(), inputs)
    block = make_block()
    block.hybridize(**hybridize)
    got_out, got_grads = _run(block, inputs)
    numpy.testing.assert_allclose(got_out, want_out, rtol=1e-5)
    assert got_out.shape == want_out.shape
    for got, want in zip(got_grads, want_grads):
        numpy.testing.assert_allclose(got, want, rtol=1e-5)


class _DotSum(mx.gluon.HybridBlock):
    def forward(self, a, b, c):
        n = -a
        return mx.np.dot(n, b) + mx.np.sum(n * c * c)


@pytest.mark.parametrize("static", [False, True])
def test_partitioned_block_keeps_input_order(static):
    """Partitioning reorders the graph's inputs; the block must feed the CachedOp in its order."""
    inputs = [mx.np.array([1., 1.]), mx.np.array([2., 3.]), mx.np.array([10., 100.])]
    _assert_paths_agree(_DotSum, inputs, backend="fuse", static_alloc=static, static_shape=static)
    block = _DotSum()
    block.hybridize(backend="fuse")
    assert float(block(*inputs)) == -10105.0


def test_optimize_for_keeps_input_order():
    block = _DotSum()
    inputs = [mx.np.array([1., 1.]), mx.np.array([2., 3.]), mx.np.array([10., 100.])]
    block.optimize_for(*inputs, backend="default", backend_opts={"op_names": ["negative", "dot"]})
    assert float(block(*inputs)) == -10105.0


class _Residual(mx.gluon.HybridBlock):
    def forward(self, x):
        y = mx.np.tanh(x)
        return y.reshape(-1) + y


def test_fuse_residual_is_not_a_cycle():
    """A non-fusable op between fusable ops sharing a value used to raise a false cycle error."""
    _assert_paths_agree(_Residual, [mx.np.array([0.5, -1.0, 2.0])], backend="fuse")


class _ConvBNResidual(mx.gluon.HybridBlock):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(4, 3, padding=1, in_channels=4)
        self.bn = nn.BatchNorm(in_channels=4)
        self.initialize(mx.init.Xavier())

    def forward(self, x):
        y = mx.npx.relu(x)
        return mx.npx.relu(self.bn(self.conv(y)) + y)


def test_fuse_conv_bn_residual_block():
    mx.random.seed(0)
    x = mx.np.random.uniform(-1, 1, size=(2, 4, 5, 5))
    block = _ConvBNResidual()
    want = block(x)
    block.hybridize(backend="fuse")
    numpy.testing.assert_allclose(block(x).asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-6)


class _Transpose(mx.gluon.HybridBlock):
    def forward(self, x):
        return mx.np.transpose(x) * 2


@pytest.mark.parametrize("hybridize", [False, True])
def test_zero_dim_transpose_keeps_shape(hybridize):
    """NumPy (and MXNet's np) transpose a 0-d array to 0-d; ascontiguousarray made it (1,)."""
    block = _Transpose()
    if hybridize:
        block.hybridize()
    x = mx.np.array(3.0)
    assert block(x).shape == ()
    assert x.T.shape == () and x.transpose().shape == ()


def test_zero_dim_dropout_keeps_shape():
    with mx.autograd.record(train_mode=True):
        assert mx.npx.dropout(mx.np.array(3.0), p=0.5).shape == ()


class _EmptyBroadcast(mx.gluon.HybridBlock):
    def forward(self, x, y):
        s = x + y
        return -mx.npx.relu(s), s


@pytest.mark.parametrize("static", [False, True])
def test_fuse_broadcasts_size_zero_arrays(static):
    """Found by the fuzzer: numexpr gave (3, 0) for (3, 0) + (1, 3, 0); gradients then failed."""
    inputs = [mx.np.zeros((3, 0)), mx.np.zeros((1, 3, 0))]
    block = _EmptyBroadcast()
    block.hybridize(backend="fuse", static_alloc=static, static_shape=static)
    for x in inputs:
        x.attach_grad()
    with mx.autograd.record():
        outs = block(*inputs)
    mx.autograd.backward(list(outs))
    assert [o.shape for o in outs] == [(1, 3, 0), (1, 3, 0)]
    assert [x.grad.shape for x in inputs] == [(3, 0), (1, 3, 0)]


@pytest.mark.parametrize("engine_kind", ["NaiveEngine", "ThreadedEngine"])
def test_inplace_write_after_record_is_refused(engine_kind):
    """``multiply``'s gradient reads both inputs: writing either makes every path's backward
    refuse; ``tanh``'s reads only its output, so writing its input changes no gradient."""
    from paths import engine, reference_runs, run_inplace_write, standard_paths
    from programs import Program, Step
    product = Program("float32", [(2, 3), (2, 3)], [(3,), (3,)], [0, 1],
                      [Step("multiply", (0, 1))], [2])
    unary = Program("float32", [(2, 3)], [(3,)], [0], [Step("tanh", (0,))], [1])
    with engine(engine_kind):
        for program, refused in ((product, True), (unary, False)):
            reference = reference_runs(program, 7)
            for path in standard_paths():
                for written in range(len(program.shapes)):
                    assert run_inplace_write(program, path, 7, reference, written) is refused, \
                        (path.name, written)
