"""Block / HybridBlock behaviour: the deferred-compute reference scenarios, hybridized ==
imperative (outputs and gradients) for an MLP, a small CNN and resnet18_v1 under every flag set,
parameter collection, hooks and the block utilities."""
import io
import contextlib

import numpy
import pytest

import mxlab as mx
from mxlab import autograd, gluon
from mxlab.gluon import nn

FLAG_SETS = [{}, {"static_alloc": True}, {"static_alloc": True, "static_shape": True}]
FLAG_IDS = ["dynamic", "static_alloc", "static_alloc+static_shape"]


def run_block(make, inputs, flags=None, seed=0, twice=False):
    """Outputs and parameter gradients of a fresh block (same seed), hybridized with ``flags``
    unless ``flags`` is None; two steps, so the cached path runs after tracing too. ``twice``
    records ``net(x) + net(x)`` (two CachedOp states alive at once)."""
    mx.random.seed(seed)
    net = make()
    net.initialize()
    if flags is not None:
        net.hybridize(**flags)
    for _ in range(2):
        with autograd.record():
            out = net(*inputs) + net(*inputs) if twice else net(*inputs)
            loss = out.sum() if not isinstance(out, (list, tuple)) else sum(o.sum() for o in out)
        loss.backward()
    outs = out if isinstance(out, (list, tuple)) else [out]
    grads = {name: p.grad().asnumpy() for name, p in net.collect_params().items()
             if p.grad_req != "null"}
    return [o.asnumpy() for o in outs], grads, net


def assert_same_run(reference, other, rtol=1e-5, atol=1e-6):
    for a, b in zip(reference[0], other[0]):
        numpy.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
    assert reference[1].keys() == other[1].keys()
    for name in reference[1]:
        numpy.testing.assert_allclose(reference[1][name], other[1][name], rtol=rtol, atol=atol,
                                      err_msg=name)


# -- reference scenarios (test_deferred_compute.py, Gluon part) -----------------------------------
class DenseAndWeight(gluon.HybridBlock):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(units=10, in_units=10)
        self.weight = gluon.Parameter("weight", shape=(10,))

    def forward(self, x):
        assert x.shape[1] == 10
        return self.dense(x) + self.weight.data()


@pytest.mark.parametrize("flags", FLAG_SETS, ids=FLAG_IDS)
def test_gluon2_dense_child_and_own_weight_equal_imperative(flags):
    x = mx.np.random.uniform(size=(4, 10))
    imperative = run_block(DenseAndWeight, [x])
    hybrid = run_block(DenseAndWeight, [x], flags)
    assert_same_run(imperative, hybrid, rtol=0, atol=0)
    assert hybrid[2]._cached_op is not None


class DeferredNoInferShape(gluon.HybridBlock):
    def __init__(self):
        super().__init__()
        self.weight = gluon.Parameter("weight", shape=(-1,), allow_deferred_init=True)

    def forward(self, x):
        return x + self.weight.data()


class DeferredWithInferShape(DeferredNoInferShape):
    def infer_shape(self, x):
        self.weight.shape = (x.shape[1],)


@pytest.mark.parametrize("hybridize", [False, True])
def test_deferred_init_without_infer_shape_raises(hybridize):
    net = DeferredNoInferShape()
    net.initialize()
    if hybridize:
        net.hybridize()
    with pytest.raises(RuntimeError, match="DeferredNoInferShape has parameters with unknown "
                                           r"shape. You need to either specify the shape"):
        net(mx.np.ones((2, 3)))


@pytest.mark.parametrize("hybridize", [False, True])
def test_deferred_init_with_infer_shape(hybridize):
    net = DeferredWithInferShape()
    net.initialize(mx.init.One())
    with pytest.raises(gluon.DeferredInitializationError):
        net.weight.data()
    if hybridize:
        net.hybridize()
    out = net(mx.np.ones((2, 3)))
    assert net.weight.shape == (3,)
    numpy.testing.assert_array_equal(out.asnumpy(), numpy.full((2, 3), 2.0))


class DynamicShape(gluon.HybridBlock):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(units=4, in_units=3)

    def forward(self, x, mask):
        kept = self.dense(x)[mask]   # boolean mask: the length is known only at run time
        return kept * 2, mx.np.flatnonzero(mask)


def test_dynamic_shape_outputs_with_backward():
    x = mx.np.random.uniform(size=(5, 3))
    mask = mx.np.array(numpy.arange(20).reshape(5, 4) % 3 == 0)
    imperative = run_block(DynamicShape, [x, mask])
    hybrid = run_block(DynamicShape, [x, mask], {})
    assert hybrid[0][0].shape == (7,)
    numpy.testing.assert_array_equal(hybrid[0][1], [0, 3, 6, 9, 12, 15, 18])
    assert_same_run(imperative, hybrid)


def test_all_args_none_is_value_error():
    class Nothing(gluon.HybridBlock):
        def forward(self, x):
            return mx.np.ones((2,))

    net = Nothing()
    net.hybridize()
    with pytest.raises(ValueError, match="In HybridBlock, there must be one NDArray in the "
                                         "input"):   # MXNet 2.0's HybridBlock.__call__
        net(None)


def test_symbolblock_inside_gluon2_trace_is_runtime_error():
    data = mx.sym.var("data")
    inner = gluon.SymbolBlock(mx.sym.relu(data), data)

    class Outer(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            self.inner = inner

        def forward(self, x):
            return self.inner(x)

    net = Outer()
    net.hybridize()
    with pytest.raises(RuntimeError, match="Calling a SymbolBlock from within HybridBlock is "
                                           "not yet supported in Gluon 2."):
        net(mx.np.ones((2,)))


# -- hybridized == imperative for the three model kinds -----------------------------------------
def make_mlp():
    net = nn.HybridSequential()
    net.add(nn.Dense(8, activation="relu"), nn.Dense(8, activation="tanh"), nn.Dense(3))
    return net


def make_cnn():
    net = nn.HybridSequential()
    net.add(nn.Conv2D(4, 3, padding=1), nn.BatchNorm(), nn.Activation("relu"), nn.MaxPool2D(2),
            nn.Conv2D(6, 3, strides=2), nn.GlobalAvgPool2D(), nn.Flatten(), nn.Dense(5))
    return net


def make_resnet():
    return gluon.model_zoo.vision.resnet18_v1(classes=4, thumbnail=True)


@pytest.mark.parametrize("flags", FLAG_SETS, ids=FLAG_IDS)
def test_mlp_hybridized_equals_imperative(flags):
    x = mx.nd.random.uniform(shape=(4, 6))
    hybrid = run_block(make_mlp, [x], flags)
    assert_same_run(run_block(make_mlp, [x]), hybrid)
    net, smaller = hybrid[2], mx.nd.random.uniform(shape=(2, 6))
    switched = net(smaller).asnumpy()   # a new batch size after tracing
    net.hybridize(False)
    numpy.testing.assert_allclose(switched, net(smaller).asnumpy(), rtol=1e-6)
    assert repr(net[0]) == "Dense(6 -> 8, relu)"


@pytest.mark.parametrize("flags", FLAG_SETS, ids=FLAG_IDS)
def test_cnn_hybridized_equals_imperative(flags):
    x = mx.nd.random.uniform(shape=(2, 3, 8, 8))
    imperative = run_block(make_cnn, [x])
    hybrid = run_block(make_cnn, [x], flags)
    assert_same_run(imperative, hybrid, rtol=1e-4, atol=1e-5)
    # NOTE: BatchNorm's running statistics are updated (twice) on both paths alike.
    bn_ref, bn_hyb = imperative[2][1], hybrid[2][1]
    numpy.testing.assert_allclose(bn_ref.running_mean.data().asnumpy(),
                                  bn_hyb.running_mean.data().asnumpy(), rtol=1e-5, atol=1e-6)
    assert abs(bn_hyb.running_mean.data().asnumpy()).sum() > 0


@pytest.fixture(scope="module")
def resnet_reference():
    """The imperative resnet run, computed once for the three flag sets."""
    mx.random.seed(1)
    x = mx.nd.random.uniform(shape=(1, 3, 16, 16))
    return x, run_block(make_resnet, [x], twice=True)


@pytest.mark.parametrize("flags", FLAG_SETS, ids=FLAG_IDS)
def test_resnet18_v1_hybridized_equals_imperative(flags, resnet_reference):
    x, imperative = resnet_reference
    hybrid = run_block(make_resnet, [x], flags, twice=True)
    assert imperative[0][0].shape == (1, 4)
    assert_same_run(imperative, hybrid, rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("flags", FLAG_SETS, ids=FLAG_IDS)
def test_batch_switching_and_recording_without_backward(flags):
    mx.random.seed(0)
    net = make_cnn()
    net.initialize()
    net.hybridize(**flags)
    big, small = (mx.nd.random.uniform(shape=(n, 3, 8, 8)) for n in (4, 2))
    assert net(big).shape == (4, 5)
    with autograd.record():
        loss = net(big).sum()
    loss.backward()
    assert net(small).shape == (2, 5)
    with autograd.record():
        net(small)                     # recorded, never differentiated
    plain = net(small).asnumpy()
    net.hybridize(False)
    numpy.testing.assert_allclose(plain, net(small).asnumpy(), rtol=1e-5, atol=1e-6)


def test_unused_inputs_and_parameters_warn():
    class Partial(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            self.used = nn.Dense(2, in_units=3)
            self.unused = gluon.Parameter("spare", shape=(2,))

        def forward(self, x, y):
            return self.used(x)

    net = Partial()
    net.initialize()
    net.hybridize()
    with pytest.warns(UserWarning) as record:
        net(mx.np.ones((1, 3)), mx.np.ones((1,)))
    messages = [str(w.message) for w in record]
    assert ("The 1-th input to HybridBlock is not used by any computation. Is this intended?"
            in messages)
    assert "Parameter spare is not used by any computation. Is this intended?" in messages


def test_hybridize_passes_flags_to_children():
    net = make_mlp()
    net.hybridize(static_alloc=True, inline_limit=5)
    for child in net._children.values():
        assert child._active
        assert child._flags["static_alloc"] and child._flags["inline_limit"] == 5
    net.hybridize(False)
    assert not any(child._active for child in net._children.values())


# -- Gluon 1 style -------------------------------------------------------------------------------
class Gluon1Linear(gluon.HybridBlock):
    """hybrid_forward with its own deferred weight (shape found by symbolic inference)."""

    def __init__(self):
        super().__init__()
        self.weight = gluon.Parameter("weight", shape=(3, 0), allow_deferred_init=True)
        self.act = nn.Activation("tanh")

    def hybrid_forward(self, F, x, weight):
        return self.act(F.FullyConnected(x, weight, num_hidden=3, no_bias=True)) * 2


@pytest.mark.parametrize("flags", [None, {}], ids=["imperative", "hybridized"])
def test_gluon1_hybrid_forward_with_deferred_param(flags):
    x = mx.nd.random.uniform(shape=(2, 5))
    out, grads, net = run_block(Gluon1Linear, [x], flags)
    assert net.weight.shape == (3, 5)
    w = net.weight.data().asnumpy()
    expected = 2 * numpy.tanh(x.asnumpy() @ w.T)
    numpy.testing.assert_allclose(out[0], expected, rtol=1e-5, atol=1e-6)
    grad = (2 * (1 - numpy.tanh(x.asnumpy() @ w.T) ** 2)).T @ x.asnumpy()
    numpy.testing.assert_allclose(grads["weight"], grad, rtol=1e-4, atol=1e-6)


def test_gluon1_block_called_with_symbols_builds_a_graph():
    net = Gluon1Linear()
    out = net(mx.sym.var("data"))
    assert isinstance(out, mx.sym.Symbol)
    assert out.list_arguments() == ["data", net.weight.var().name]


# -- parameters and utilities --------------------------------------------------------------------
def test_collect_params_structured_names_and_select():
    net = make_mlp()
    assert list(net.collect_params()) == ["0.weight", "0.bias", "1.weight", "1.bias",
                                          "2.weight", "2.bias"]
    assert list(net.collect_params(".*weight")) == ["0.weight", "1.weight", "2.weight"]
    assert list(net.collect_params("1\\..*")) == ["1.weight", "1.bias"]


def test_attribute_type_change_is_refused():
    net = make_mlp()
    net.child = nn.Dense(2)
    with pytest.raises(TypeError, match="Changing attribute type for child"):
        net.child = 3


def test_forward_hooks_run_and_detach():
    net = nn.Dense(2, in_units=3)
    net.initialize()
    calls = []
    pre = net.register_forward_pre_hook(lambda block, args: calls.append(("pre", len(args))))
    post = net.register_forward_hook(lambda block, args, out: calls.append(("post", out.shape)))
    net(mx.nd.ones((1, 3)))
    assert calls == [("pre", 1), ("post", (1, 2))]
    pre.detach()
    with post:
        net(mx.nd.ones((1, 3)))
    net(mx.nd.ones((1, 3)))
    assert calls == [("pre", 1), ("post", (1, 2)), ("post", (1, 2))]


def test_apply_cast_zero_grad():
    net = make_mlp()
    net.initialize()
    seen = []
    net.apply(lambda block: seen.append(type(block).__name__))
    assert seen[-1] == "HybridSequential" and seen.count("Dense") == 3
    x = mx.nd.ones((2, 4))
    with autograd.record():
        net(x).sum().backward()
    assert abs(net[2].weight.grad().asnumpy()).sum() > 0
    net.zero_grad()
    assert all(abs(p.grad().asnumpy()).sum() == 0 for p in net.collect_params().values())
    net.cast("float64")
    assert net[0].weight.data().dtype == numpy.float64
    assert net(x.astype("float64")).dtype == numpy.float64


def test_share_parameters():
    a, b = make_mlp(), make_mlp()
    a.initialize()
    a(mx.nd.ones((1, 4)))
    b.share_parameters(a.collect_params())
    assert b[0].weight is a[0].weight
    numpy.testing.assert_array_equal(a(mx.nd.ones((1, 4))).asnumpy(),
                                     b(mx.nd.ones((1, 4))).asnumpy())
    with pytest.warns(UserWarning, match="Parameter name extra is not in the current model"):
        b.share_parameters({"extra": a[0].weight})


def test_summary_prints_shapes_and_counts():
    net = make_mlp()
    net.initialize()
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        net.summary(mx.nd.ones((2, 4)))
    text = buffer.getvalue()
    assert "Dense-" in text and "(2, 8)" in text and "(2, 3)" in text
    assert f"Total params: {4 * 8 + 8 + 8 * 8 + 8 + 8 * 3 + 3}" in text


def test_infer_shape_sets_deferred_shapes():
    net = make_cnn()
    net.initialize()
    net(mx.nd.ones((1, 3, 8, 8)))
    assert net[0].weight.shape == (4, 3, 3, 3)
    assert net[1].gamma.shape == (4,)
    assert net[7].weight.shape == (5, 6)


def test_parameter_access_errors():
    param = gluon.Parameter("w", shape=(2,))
    with pytest.raises(RuntimeError, match="has not been initialized"):
        param.data()
    param.initialize(init=mx.init.Zero())
    frozen = gluon.Parameter("f", shape=(2,), grad_req="null")
    frozen.initialize()
    with pytest.raises(RuntimeError, match="because grad_req='null'"):
        frozen.grad()
    with pytest.raises(ValueError, match="incompatible"):
        param.shape = (3,)
    param.set_data(mx.nd.array([1.0, 2.0]))
    numpy.testing.assert_array_equal(param.data().asnumpy(), [1.0, 2.0])
    assert param.list_ctx() == [mx.cpu()]


def test_constant_parameter_keeps_value_and_has_no_grad():
    class WithConst(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            self.const = gluon.Constant([1.0, 2.0, 3.0])

        def forward(self, x):
            return x * self.const.data()

    net = WithConst()
    net.initialize()
    numpy.testing.assert_array_equal(net(mx.np.ones((3,))).asnumpy(), [1.0, 2.0, 3.0])
    assert net.const.grad_req == "null"


class Elementwise(gluon.HybridBlock):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, in_units=3)

    def forward(self, x):
        return mx.np.tanh(self.dense(x) * 2 + 1) - x.sum()


def test_optimize_for_partitions_and_keeps_results():
    x = mx.np.random.uniform(size=(2, 3))
    reference = run_block(Elementwise, [x])
    mx.random.seed(0)
    net = Elementwise()
    net.initialize()
    net.optimize_for(x, backend="fuse")
    assert net._active and net._backend == "fuse" and net._cached_op is not None
    with autograd.record():
        out = net(x)
        loss = out.sum()
    loss.backward()
    numpy.testing.assert_allclose(out.asnumpy(), reference[0][0], rtol=1e-6)
    numpy.testing.assert_allclose(net.dense.weight.grad().asnumpy(),
                                  reference[1]["dense.weight"], rtol=1e-5)
    with pytest.raises(mx.MXNetError):
        net.optimize_for(x, backend="no-such-backend")


def test_collect_params_prints_like_a_dict_in_gluon2():
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(10, in_units=5, use_bias=False))
    line = str(net.collect_params()).splitlines()[0]
    assert line.startswith("{") and "0.weight" in line and "(10, 5)" in line


def test_adding_a_child_after_hybridizing_retraces_and_symbolblock_prints_like_mxnet():
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(10, flatten=False))
    net.hybridize()
    net.initialize()
    assert net(mx.np.ones((2, 3, 5))).shape == (2, 3, 10)
    net.add(mx.gluon.nn.Flatten())
    assert net(mx.np.ones((2, 3, 5))).shape == (2, 30)
    x = mx.sym.var("data")
    block = mx.gluon.SymbolBlock(mx.sym.FullyConnected(x, num_hidden=3, name="fc"), x)
    assert str(block).splitlines() == ["SymbolBlock(", "<Symbol fc> : 1 -> 1", ")"]


def test_unregistered_block_containers_and_hybrid_only_sequentials_warn():
    class Listed(mx.gluon.Block):
        def __init__(self):
            super().__init__()
            self.layers = [mx.gluon.nn.Dense(2), mx.gluon.nn.Dense(3)]

    with pytest.warns(UserWarning, match="Listed.layers. is an unregistered container"):
        Listed().collect_params()
    seq = mx.gluon.nn.Sequential()
    seq.add(mx.gluon.nn.Dense(2))
    with pytest.warns(UserWarning, match="Consider using HybridSequential"):
        seq.hybridize()


def test_summary_takes_nested_inputs_and_refuses_hybridized_blocks(capsys):
    """An RNN layer's summary with its begin state (a list), as MXNet's test_summary calls it;
    a hybridized block asserts, naming it."""
    lstm = gluon.rnn.LSTM(30)
    lstm.initialize()
    lstm.summary(mx.np.ones((8, 4, 5)), lstm.begin_state(4))
    assert "(8, 4, 5)" in capsys.readouterr().out
    lstm.hybridize()
    with pytest.raises(AssertionError, match='"LSTM" must not be hybridized'):
        lstm.summary(mx.np.ones((8, 4, 5)), lstm.begin_state(4))


def test_share_parameters_takes_a_gluon1_params_dict():
    """``Dense.share_parameters(embedding.params)`` ties the weight and keeps Dense's own bias
    (Gluon 1's prefixed dict used to create a shapeless 'embedding0_bias')."""
    embedding = gluon.nn.Embedding(40, 30)
    dense = gluon.nn.Dense(40, flatten=False).share_parameters(embedding.params)
    assert dense.weight is embedding.weight
    assert (dense.bias.name, dense.bias.shape) == ("bias", (40,))


def test_numpy_mode_block_outputs_must_be_np_arrays():
    # MXNet: a block called in NumPy mode may not return mx.nd arrays (TypeError), hybridized or not
    @mx.util.use_np
    class Mixed(mx.gluon.HybridBlock):
        def forward(self, x):
            return x.as_nd_ndarray() * 2, x * 3

    net = Mixed()
    with pytest.raises(TypeError, match="must be of type `mxnet.numpy.ndarray`"):
        net(mx.np.ones((2, 3)))
    net.hybridize()
    with pytest.raises(TypeError):
        net(mx.np.ones((2, 3)))
    out = mx.gluon.nn.Dense(2, in_units=3)
    out.initialize()
    assert isinstance(out(mx.nd.ones((1, 3))), mx.nd.NDArray)   # NOTE: legacy mode: no check


def test_block_called_without_inputs_gives_itself_as_a_weakref_would():
    # MXNet 2.0 code derefs Block._children entries (`c()(x)`, test_gluon_save); 1.x code reads
    # them as the blocks; both work when a block that needs inputs returns itself when called bare
    class Twice(gluon.Block):
        def forward(self, x):
            return x * 2

    class Chain(gluon.Block):
        def __init__(self):
            super().__init__()
            self.a, self.b = Twice(), gluon.nn.Dense(3, in_units=4)

        def forward(self, x):
            for child in self._children.values():
                x = child()(x)
            return x

    net = Chain()
    net.initialize()
    assert list(net._children.values())[0] is net.a and net.a() is net.a and net.b() is net.b
    x = mx.np.ones((2, 4))
    expected = net.b.weight.data().asnumpy() @ (2 * numpy.ones(4)) + net.b.bias.data().asnumpy()
    numpy.testing.assert_allclose(net(x).asnumpy(), numpy.tile(expected, (2, 1)), rtol=1e-5)
    bare = gluon.Block()
    assert bare() is bare

    class Constant(gluon.Block):   # a forward without inputs still runs
        def forward(self):
            return mx.np.ones((2,))

    assert Constant()().shape == (2,)
