"""mx.mod: bucketing shares parameters, checkpoints keep optimizer states, Sequential/Python
modules chain, and misuse raises MXNetErrors that are also the natural Python type."""
import numpy as np
import pytest

import mxlab as mx
from mxlab.base import MXNetError
from mxlab.module import ModuleStateError


def _sym_gen(key):
    data = mx.sym.Variable("data")
    pooled = mx.sym.sum(data, axis=1, keepdims=True)          # (n, key) -> (n, 1)
    fc = mx.sym.FullyConnected(pooled, num_hidden=3, name="fc")
    return mx.sym.SoftmaxOutput(fc, name="softmax"), ("data",), ("softmax_label",)


def _bucket_batch(key, n=4):
    return mx.io.DataBatch(data=[mx.nd.ones((n, key)) * 0.1], label=[mx.nd.array([0, 1, 2, 0])],
                           bucket_key=key, provide_data=[("data", (n, key))],
                           provide_label=[("softmax_label", (n,))])


def test_bucketing_switch_shares_parameters_and_updates():
    mod = mx.mod.BucketingModule(_sym_gen, default_bucket_key=10)
    mod.bind(data_shapes=[("data", (4, 10))], label_shapes=[("softmax_label", (4,))])
    mod.init_params(mx.init.Xavier())
    mod.init_optimizer(optimizer_params={"learning_rate": 1.0})
    before = mod.get_params()[0]["fc_weight"].asnumpy().copy()
    mod.forward_backward(_bucket_batch(5))
    mod.update()
    assert sorted(mod._buckets) == [5, 10] and mod._curr_bucket_key == 5
    small, big = mod._buckets[5]._exec_group.execs[0], mod._buckets[10]._exec_group.execs[0]
    assert mx.test_utils.same_array(small.arg_dict["fc_weight"], big.arg_dict["fc_weight"])
    after = mod.get_params()[0]["fc_weight"].asnumpy()
    assert not np.allclose(after, before)
    mod.forward(_bucket_batch(10), is_train=False)     # the default bucket sees the update
    np.testing.assert_array_equal(big.arg_dict["fc_weight"].asnumpy(), after)
    assert mod._buckets[5]._optimizer is mod._buckets[10]._optimizer


def _fc_module():
    net = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=4, name="fc")
    mod = mx.mod.Module(mx.sym.LinearRegressionOutput(net, name="lro"), label_names=["lro_label"])
    mod.bind(data_shapes=[("data", (6, 3))], label_shapes=[("lro_label", (6, 4))])
    return mod


def _regression_batch(seed):
    rng = np.random.RandomState(seed)
    return mx.io.DataBatch([mx.nd.array(rng.normal(size=(6, 3)))],
                           [mx.nd.array(rng.normal(size=(6, 4)))])


def test_checkpoint_round_trip_keeps_params_and_optimizer_states(tmp_path):
    prefix = str(tmp_path / "reg")
    mod = _fc_module()
    mod.init_params(mx.init.Uniform(0.5))
    opt = {"learning_rate": 0.1, "momentum": 0.9}
    mod.init_optimizer(optimizer_params=opt)
    for seed in range(3):
        mod.forward_backward(_regression_batch(seed))
        mod.update()
    mod.save_checkpoint(prefix, 3, save_optimizer_states=True)
    assert (tmp_path / "reg-0003.states").exists() and (tmp_path / "reg-symbol.json").exists()

    loaded = mx.mod.Module.load(prefix, 3, load_optimizer_states=True, label_names=["lro_label"])
    loaded.bind(data_shapes=[("data", (6, 3))], label_shapes=[("lro_label", (6, 4))])
    loaded.init_optimizer(optimizer_params=opt)
    assert set(loaded._updater.states) == set(mod._updater.states)
    for index, state in mod._updater.states.items():
        np.testing.assert_array_equal(loaded._updater.states[index].asnumpy(), state.asnumpy())
    for m in (mod, loaded):        # the momentum carries on identically
        m.forward_backward(_regression_batch(7))
        m.update()
    for name, value in mod.get_params()[0].items():
        np.testing.assert_array_equal(loaded.get_params()[0][name].asnumpy(), value.asnumpy())


def test_save_and_load_params_round_trip(tmp_path):
    mod = _fc_module()
    mod.init_params(mx.init.Uniform(0.5))
    mod.save_params(str(tmp_path / "p.params"))
    other = _fc_module()
    other.init_params(mx.init.Zero())
    other.load_params(str(tmp_path / "p.params"))
    for name, value in mod.get_params()[0].items():
        np.testing.assert_array_equal(other.get_params()[0][name].asnumpy(), value.asnumpy())


def test_sequential_module_equals_the_joined_symbol():
    first = mx.mod.Module(mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=4,
                                                name="fc1"), label_names=None)
    second = mx.mod.Module(mx.sym.LinearRegressionOutput(
        mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=2, name="fc2"), name="lro"),
        label_names=["lro_label"])
    seq = mx.mod.SequentialModule().add(first).add(second, take_labels=True, auto_wiring=True)
    seq.bind(data_shapes=[("data", (5, 3))], label_shapes=[("lro_label", (5, 2))])
    seq.init_params(mx.init.Uniform(0.5))
    seq.init_optimizer(optimizer_params={"learning_rate": 0.1})
    x, y = mx.nd.ones((5, 3)), mx.nd.zeros((5, 2))
    seq.forward_backward(mx.io.DataBatch([x], [y]))
    args = seq.get_params()[0]
    expected = mx.nd.FullyConnected(mx.nd.FullyConnected(x, args["fc1_weight"], args["fc1_bias"],
                                                         num_hidden=4),
                                    args["fc2_weight"], args["fc2_bias"], num_hidden=2)
    np.testing.assert_allclose(seq.get_outputs()[0].asnumpy(), expected.asnumpy(), rtol=1e-5)
    assert sorted(args) == ["fc1_bias", "fc1_weight", "fc2_bias", "fc2_weight"]
    seq.update()


def test_python_loss_module_sends_its_gradient_back():
    loss = mx.mod.PythonLossModule(grad_func=lambda scores, labels: scores - labels)
    loss.bind(data_shapes=[("data", (2, 3))], label_shapes=[("softmax_label", (2, 3))])
    scores = mx.nd.array([[1, 2, 3], [4, 5, 6]])
    loss.forward(mx.io.DataBatch([scores], [mx.nd.ones((2, 3))]), is_train=True)
    loss.backward()
    np.testing.assert_array_equal(loss.get_input_grads()[0].asnumpy(), scores.asnumpy() - 1)
    assert loss.output_shapes == [("pyloss_output", (2, 3))]


# -- errors ------------------------------------------------------------------------------------
def test_forward_before_bind_is_a_module_state_error():
    mod = mx.mod.Module(mx.sym.Variable("data") * 2, label_names=None)
    with pytest.raises(ModuleStateError, match="forward: call bind"):
        mod.forward(mx.io.DataBatch([mx.nd.ones((1, 2))]))
    assert issubclass(ModuleStateError, (MXNetError, AssertionError, RuntimeError))


def test_update_before_init_optimizer_names_the_missing_step():
    mod = _fc_module()
    mod.init_params()
    with pytest.raises(ModuleStateError, match="init_optimizer"):
        mod.update()


def test_wrong_data_shape_names_are_a_value_error_naming_them():
    mod = mx.mod.Module(mx.sym.Variable("data") * 2, label_names=None)
    with pytest.raises(ValueError, match="data_shapes.*'image'") as info:
        mod.bind(data_shapes=[("image", (1, 2))])
    assert isinstance(info.value, MXNetError) and not mod.binded


def test_unknown_data_name_at_construction_lists_candidates():
    with pytest.raises(ValueError, match="'image' is not found"):
        mx.mod.Module(mx.sym.Variable("data") * 2, data_names=["image"], label_names=None)


def test_an_array_as_shape_is_a_type_error():
    mod = mx.mod.Module(mx.sym.Variable("data") * 2, label_names=None)
    with pytest.raises(TypeError, match="shape of 'data' must be a tuple of ints"):
        mod.bind(data_shapes=[("data", mx.nd.array([10, 10]))])


def test_set_params_missing_and_extra_names():
    mod = _fc_module()
    mod.init_params()
    with pytest.raises(RuntimeError, match="fc_bias is not presented"):
        mod.set_params({"fc_weight": mx.nd.zeros((4, 3))}, {})
    extra = {"fc_weight": mx.nd.zeros((4, 3)), "fc_bias": mx.nd.zeros((4,)),
             "extra": mx.nd.zeros((1,))}
    with pytest.raises(ValueError, match='"extra"'):   # MXNet checks extras on this path only
        mod.set_params(extra, {}, allow_missing=True)
    mod.set_params(extra, {}, allow_missing=True, allow_extra=True)
    assert (mod.get_params()[0]["fc_weight"].asnumpy() == 0).all()


def test_csr_batches_train_like_dense_ones():
    dense = np.random.RandomState(0).binomial(1, 0.3, size=(8, 5)).astype(np.float32)
    label = mx.nd.ones((8, 1))
    results = []
    for data in (mx.nd.array(dense).tostype("csr"), mx.nd.array(dense)):
        it = mx.io.NDArrayIter(data, {"label": label}, batch_size=4, last_batch_handle="discard")
        batch = next(iter(it))
        assert batch.data[0].stype == data.stype
        v = mx.sym.var("v", shape=(5, 1), stype="row_sparse", init=mx.init.One())
        net = mx.sym.LinearRegressionOutput(mx.sym.dot(mx.sym.var("data"), v),
                                            label=mx.sym.var("label"), name="out")
        mod = mx.mod.Module(net, label_names=["label"])
        mod.bind(it.provide_data, it.provide_label)
        mod.init_params()
        assert mod._arg_params["v"].stype == "row_sparse"    # as declared, as MXNet
        mod.init_optimizer(optimizer_params={"learning_rate": 0.1})
        for batch in it:
            mod.forward_backward(batch)
            mod.update()
        results.append(mod.get_params()[0]["v"].asnumpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-6)
    with pytest.raises(NotImplementedError, match="discard"):
        mx.io.NDArrayIter(mx.nd.array(dense).tostype("csr"), batch_size=4)


def test_states_of_a_kvstore_updater_keyed_by_name_round_trip(tmp_path):
    """Two devices update on the kvstore, whose updater keys states by parameter name: the
    restricted states reader takes names as well as indices (MXNet 1.9.1's test_save_load)."""
    prefix = str(tmp_path / "kv")
    sym = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=5)
    mod = mx.mod.Module(sym, ("data",), label_names=None, context=[mx.cpu(0), mx.cpu(1)])
    mod.bind(data_shapes=[("data", (4, 3))])
    mod.init_params()
    mod.init_optimizer(optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    mod.update()
    mod.save_checkpoint(prefix, 0, save_optimizer_states=True)
    saved = mod._kvstore._updater.states
    assert saved and all(isinstance(key, str) for key in saved)
    loaded = mx.mod.Module.load(prefix, 0, load_optimizer_states=True, data_names=("data",),
                                label_names=None)
    loaded.bind(data_shapes=[("data", (4, 3))])
    loaded.init_optimizer(optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    assert set(loaded._updater.states) == set(saved)
    for key, state in saved.items():
        np.testing.assert_array_equal(loaded._updater.states[key].asnumpy(), state.asnumpy())
