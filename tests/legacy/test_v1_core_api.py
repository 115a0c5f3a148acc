"""MXNet 1.x core API pieces MXNet 1.9.1's own unittests use: mx.contrib.autograd, the
test_utils names, 1.x optimizer/compare_optimizer forms, Executor.reshape sharing, nd.load's
np-shape rule, thread-local class attributes, CSVIter, the profiler's pause, runtime features."""
import json
import threading

import numpy as np
import pytest

import mxlab as mx
from mxlab.contrib import autograd as cag


# -- mx.contrib.autograd ---------------------------------------------------------------------------
def test_contrib_autograd_grad_and_loss_gives_gradients_and_value():
    x = mx.nd.array([1.0, 2.0, 3.0])
    y = mx.nd.array([4.0, 5.0, 6.0])
    grads, loss = cag.grad_and_loss(lambda a, b: a * b + a)(x, y)
    np.testing.assert_allclose(loss.asnumpy(), [5, 12, 21])
    np.testing.assert_allclose(grads[0].asnumpy(), [5, 6, 7])
    np.testing.assert_allclose(grads[1].asnumpy(), [1, 2, 3])
    only_y = cag.grad(lambda a, b: a * b, argnum=1)(x, y)
    assert len(only_y) == 1
    np.testing.assert_allclose(only_y[0].asnumpy(), [1, 2, 3])


def test_contrib_train_section_sets_recording_and_training_together():
    assert not mx.autograd.is_recording()
    with cag.train_section():
        assert mx.autograd.is_recording() and mx.autograd.is_training()
        with cag.test_section():
            assert not mx.autograd.is_recording() and not mx.autograd.is_training()
        assert mx.autograd.is_recording()
    assert not mx.autograd.is_recording() and not mx.autograd.is_training()


def test_contrib_backward_with_out_grads_and_marked_variables():
    x = mx.nd.array([1.0, 2.0])
    gx = mx.nd.zeros((2,))
    cag.mark_variables([x], [gx])
    with cag.train_section():
        z = x * x
    cag.backward([z], [mx.nd.array([10.0, 1.0])])
    np.testing.assert_allclose(gx.asnumpy(), [20, 4])
    with pytest.raises(AssertionError, match="list or tuple"):
        cag.backward(z)


# -- test_utils names of MXNet 1.9.1 ------------------------------------------------------------
def test_v1_test_utils_names():
    from mxlab import test_utils as tu
    assert tu.is_aarch64_run() in (True, False)
    np.testing.assert_array_equal(tu.get_identity_mat_batch(3).asnumpy(), [np.eye(3)] * 2)
    assert tu.Context is mx.Context and tu.array is mx.nd.array
    x, y = tu.rand_coord_2d(0, 2, 5, 6)
    assert 0 <= x < 2 and y == 5
    real = mx.io.NDArrayIter(np.arange(8, dtype=np.float32).reshape(4, 2), batch_size=2)
    dummy = tu.DummyIter(real)
    first, second = next(dummy), next(dummy)
    assert first is second and dummy.batch_size == 2
    np.testing.assert_array_equal(first.data[0].asnumpy(), [[0, 1], [2, 3]])


class _V1Adagrad(mx.optimizer.Optimizer):
    """An MXNet 1.x optimizer subclass: ``update`` takes one index/weight/grad/state."""

    def create_state(self, index, weight):
        assert weight.ndim == 2    # NOTE: one tensor, not a list
        return mx.nd.zeros((weight.shape[0], 1))

    def update(self, index, weight, grad, state):
        assert isinstance(index, int)
        self._update_count(index)
        state[:] += mx.nd.mean(mx.nd.square(grad), axis=1, keepdims=True)
        weight[:] -= self._get_lr(index) * grad / mx.nd.sqrt(state + 1e-5)


def test_v1_optimizer_subclass_gets_one_parameter_and_compare_optimizer_takes_one_shape():
    opt = _V1Adagrad(learning_rate=0.5)
    w, g = mx.nd.ones((2, 3)), mx.nd.full((2, 3), 2.0)
    state = opt.create_state_multi_precision(0, w)
    opt.update_multi_precision(0, w, g, state)
    np.testing.assert_allclose(state.asnumpy(), [[4], [4]])
    np.testing.assert_allclose(w.asnumpy(), 1 - 0.5 * 2 / np.sqrt(4 + 1e-5), rtol=1e-6)
    mx.test_utils.compare_optimizer(_V1Adagrad(learning_rate=0.1),
                                    mx.optimizer.contrib.GroupAdaGrad(learning_rate=0.1),
                                    (3, 4), np.float32, compare_states=False)


def test_compare_optimizer_v1_multi_tensor_form():
    shapes = [(3, 4), (5,)]
    mx.test_utils.compare_optimizer(mx.optimizer.SGD(learning_rate=0.1),
                                    mx.optimizer.SGD(learning_rate=0.1), shapes, np.float32,
                                    ntensors=len(shapes))
    with pytest.raises(AssertionError):
        mx.test_utils.compare_optimizer(mx.optimizer.SGD(learning_rate=0.1),
                                        mx.optimizer.SGD(learning_rate=0.2), shapes, np.float32,
                                        ntensors=len(shapes))


# -- executors and files --------------------------------------------------------------------------
def test_executor_reshape_outputs_share_the_old_outputs_memory():
    y = mx.sym.FullyConnected(mx.sym.Variable("x"), num_hidden=4)
    exe = y.simple_bind(mx.cpu(), x=(5, 4), grad_req="null")
    exe.arg_arrays[0][:] = 1
    exe.arg_arrays[1][:] = mx.nd.ones((4, 4))
    exe.arg_arrays[2][:] = 0
    small = exe.reshape(x=(3, 4))
    small.forward(is_train=False)
    np.testing.assert_array_equal(small.outputs[0].asnumpy(), np.full((3, 4), 4.0))
    np.testing.assert_array_equal(exe.outputs[0].asnumpy()[:3], np.full((3, 4), 4.0))
    big = exe.reshape(allow_up_sizing=True, x=(6, 4))
    big.arg_arrays[0][:] = 0
    assert (exe.arg_arrays[0].asnumpy() == 1).all() and (big.arg_arrays[1].asnumpy() == 1).all()


def test_nd_load_follows_the_np_shape_rule_of_mxnet_1x(tmp_path):
    legacy, numpy_shaped = str(tmp_path / "legacy"), str(tmp_path / "np")
    mx.nd.save(legacy, [mx.nd.ones((2, 3))])
    with mx.np_shape(True):
        mx.nd.save(numpy_shaped, [mx.nd.ones((2, 3)), mx.nd.ones(())])
        assert mx.nd.load(numpy_shaped)[1].shape == ()
        with pytest.raises(mx.MXNetError, match="not saved in np shape semantics"):
            mx.nd.load(legacy)
    with pytest.raises(mx.MXNetError, match="was saved in np shape semantics"):
        mx.nd.load(numpy_shaped)
    with open(numpy_shaped, "rb") as handle:
        with pytest.raises(mx.MXNetError, match="was saved in np shape semantics"):
            mx.nd.load_frombuffer(handle.read())
    previous = mx.set_np_shape(True)   # NOTE: global np shape (MXNet's GlobalOn) reads both
    try:
        assert mx.nd.load(legacy)[0].shape == (2, 3)
    finally:
        mx.set_np_shape(previous)


def test_csv_iter_getdata_is_one_array_and_ints_are_exact(tmp_path):
    data, label = tmp_path / "d.csv", tmp_path / "l.csv"
    data.write_text("\n".join(",".join(["200000001"] * 4) for _ in range(6)) + "\n")
    label.write_text("\n".join(str(i) for i in range(6)) + "\n")
    it = mx.io.CSVIter(data_csv=str(data), data_shape=(2, 2), label_csv=str(label),
                       batch_size=3, dtype="int32")
    labels = []
    for batch in it:
        assert isinstance(batch.data, list)
        current = it.getdata()
        assert isinstance(current, mx.nd.NDArray) and current.dtype == np.int32
        assert (current.asnumpy() == 200000001).all()
        labels.append(it.getlabel().asnumpy())
    np.testing.assert_array_equal(np.concatenate(labels), np.arange(6))


# -- thread-local class attributes --------------------------------------------------------------
def test_default_ctx_attrscope_and_namemanager_class_attributes_are_per_thread():
    seen = {}

    def other():
        seen["ctx"] = mx.Context.default_ctx
        seen["attr"] = mx.AttrScope.current._attr
        seen["names"] = mx.name.NameManager.current

    saved = (mx.Context.default_ctx, mx.AttrScope.current, mx.name.NameManager.current)
    try:
        mx.Context.default_ctx = mx.cpu(3)
        mx.AttrScope.current = mx.AttrScope(group="a")
        manager = mx.name.NameManager()
        mx.name.NameManager.current = manager
        assert mx.nd.zeros((1,)).context == mx.cpu(3)
        assert mx.sym.var("v").attr("group") == "a"
        assert mx.name.NameManager.current is manager
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    finally:
        mx.Context.default_ctx, mx.AttrScope.current, mx.name.NameManager.current = saved
    assert seen["ctx"] == mx.cpu(0) and seen["attr"] == {} and seen["names"] is not manager


# -- runtime, profiler, random, compat -------------------------------------------------------------
def test_features_list_mxnet_1_9_names():
    features = mx.runtime.Features()
    assert len(features) >= 30
    assert {"MKLDNN", "CUDA_RTC", "CAFFE", "CXX14", "ONEDNN"} <= set(features)
    assert features.is_enabled("PROFILER") and not features.is_enabled("MKLDNN")


def test_profiler_run_after_pause_and_stop_records_again(tmp_path):
    profiler = mx.profiler
    profiler.set_config(filename=str(tmp_path / "p.json"), aggregate_stats=True,
                        profile_imperative=True)
    profiler.set_state("run")
    profiler.pause()
    profiler.set_state("stop")
    profiler.set_state("run")
    profiler.dumps(reset=True)
    mx.nd.sqrt(mx.nd.ones((2, 2))).wait_to_read()
    stats = json.loads(profiler.dumps(format="json"))
    profiler.set_state("stop")
    profiler._PROFILER.output_pending = False   # no trace file at exit
    assert stats["Time"]["operator"]["sqrt"]["Count"] == 1


def test_mx_random_has_mxnet_1x_samplers():
    mx.random.seed(3)
    draws = mx.random.poisson(lam=4, shape=(1000,)).asnumpy()
    assert abs(draws.mean() - 4) < 0.5 and (draws == np.round(draws)).all()
    assert mx.random.exponential(scale=2, shape=(3,)).shape == (3,)


def test_compat_cachedop_symbol_runs_a_json_subgraph():
    from mxlab.compat.internal import symbol_internal
    a, b = mx.sym.var("a"), mx.sym.var("b")
    inner = (a * b).tojson()
    y = symbol_internal._CachedOp(mx.sym.var("a"), mx.sym.var("b"), subgraph=inner) * 2
    out = y.eval(a=mx.nd.array([1.0, 2.0]), b=mx.nd.array([3.0, 4.0]))[0]
    np.testing.assert_array_equal(out.asnumpy(), [6, 16])


def test_hybridized_v1_cond_names_its_subgraphs_and_reshape_to_0d():
    from collections import defaultdict

    class Block(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, data):
            return F.contrib.cond(data > 0.5, then_func=lambda: data * 2,
                                  else_func=lambda: data * 3, name="v1_cond")

    saved = mx.AttrScope._subgraph_names
    mx.AttrScope._subgraph_names = defaultdict(int)
    try:
        block = Block()
        block.initialize()
        mx.nd.contrib.cond(mx.nd.ones((1,)), lambda: 1, lambda: 0, name="v1_cond")
        assert dict(mx.AttrScope._subgraph_names) == {}   # NOTE: imperative: no names
        block.hybridize()
        out = block(mx.nd.ones((1,)))
        names = dict(mx.AttrScope._subgraph_names)
    finally:
        mx.AttrScope._subgraph_names = saved
    np.testing.assert_array_equal(out.asnumpy(), [2])
    assert names == {"v1_cond_pred": 1, "v1_cond_then": 1, "v1_cond_else": 1}
    assert mx.nd.ones((1, 1)).reshape(()).shape == ()
    with pytest.raises(mx.MXNetError, match="shape"):
        mx.nd.ones((2,)).reshape(()).wait_to_read()   # NOTE: a ThreadedEngine raises at the wait
