"""mx.mod.Module: training steps equal the executor steps done by hand; fit lowers the loss;
data parallel over several CPU contexts equals one context; predict/score/iter_predict."""
import numpy as np
import pytest

import mxlab as mx

BATCH, FEATURES, CLASSES = 8, 5, 3


def _mlp():
    data = mx.sym.Variable("data")
    hidden = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=6, name="fc1"),
                               act_type="relu", name="relu1")
    out = mx.sym.FullyConnected(hidden, num_hidden=CLASSES, name="fc2")
    return mx.sym.SoftmaxOutput(out, name="softmax")


def _params(seed=0):
    rng = np.random.RandomState(seed)
    shapes = {"fc1_weight": (6, FEATURES), "fc1_bias": (6,), "fc2_weight": (CLASSES, 6),
              "fc2_bias": (CLASSES,)}
    return {k: rng.uniform(-0.5, 0.5, s).astype(np.float32) for k, s in shapes.items()}


def _data(n=32, seed=1):
    rng = np.random.RandomState(seed)
    x = rng.normal(size=(n, FEATURES)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.float32) + (x[:, 1] > 1).astype(np.float32)
    return x, y


def _module(context=None, params=None):
    mod = mx.mod.Module(_mlp(), context=context or mx.cpu())
    mod.bind(data_shapes=[("data", (BATCH, FEATURES))],
             label_shapes=[("softmax_label", (BATCH,))])
    mod.init_params(arg_params={k: mx.nd.array(v) for k, v in (params or _params()).items()})
    return mod


def _batch(x, y):
    return mx.io.DataBatch(data=[mx.nd.array(x)], label=[mx.nd.array(y)])


def test_forward_backward_update_equal_the_executor_steps_by_hand():
    x, y = _data(BATCH)
    params, lr = _params(), 0.5
    mod = _module()
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": lr})
    mod.forward(_batch(x, y), is_train=True)
    mod.backward()
    mod.update()

    ex = _mlp().simple_bind(mx.cpu(), data=(BATCH, FEATURES), softmax_label=(BATCH,))
    for name, value in params.items():
        ex.arg_dict[name][:] = value
    ex.arg_dict["data"][:] = x
    ex.arg_dict["softmax_label"][:] = y
    probs = ex.forward(is_train=True)[0].asnumpy()
    ex.backward()
    np.testing.assert_allclose(mod.get_outputs()[0].asnumpy(), probs, rtol=1e-6)
    arg_params, _ = mod.get_params()
    for name, value in params.items():
        expected = value - lr / BATCH * ex.grad_dict[name].asnumpy()   # rescale_grad 1/batch
        np.testing.assert_allclose(arg_params[name].asnumpy(), expected, rtol=1e-5, atol=1e-6)


def test_fit_lowers_the_training_loss():
    x, y = _data(64)
    train = mx.io.NDArrayIter(x, y, batch_size=BATCH)
    before = _module().score(train, mx.metric.CrossEntropy())[0][1]
    train.reset()   # NOTE: score leaves the iterator at its end; fit only resets after an epoch
    mod = mx.mod.Module(_mlp())
    epochs = []
    mod.fit(train, num_epoch=15, optimizer="sgd",
            optimizer_params={"learning_rate": 0.5, "momentum": 0.9},
            arg_params={k: mx.nd.array(v) for k, v in _params().items()},
            epoch_end_callback=lambda epoch, sym, arg, aux: epochs.append(epoch))
    after = mod.score(train, mx.metric.CrossEntropy())[0][1]
    assert epochs == list(range(15))
    assert after < 0.5 * before


@pytest.mark.parametrize("update_on_kvstore", ["1", "0"])
def test_two_cpu_contexts_train_like_one(monkeypatch, update_on_kvstore):
    monkeypatch.setenv("MXNET_UPDATE_ON_KVSTORE", update_on_kvstore)
    x, y = _data(BATCH)
    results = []
    for context in ([mx.cpu(0)], [mx.cpu(0), mx.cpu(1)]):
        mod = _module(context)
        mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.3})
        for _ in range(3):
            mod.forward_backward(_batch(x, y))
            mod.update()
        assert len(mod._exec_group.execs) == len(context)
        results.append((mod.get_params()[0], mod.get_outputs()[0].asnumpy()))
    (one, out_one), (two, out_two) = results
    np.testing.assert_allclose(out_one, out_two, rtol=1e-5)
    for name in one:
        np.testing.assert_allclose(one[name].asnumpy(), two[name].asnumpy(), rtol=1e-5,
                                   atol=1e-6)


def test_predict_iter_predict_and_score_cut_the_padding():
    x, y = _data(20)
    mod = _module()
    it = mx.io.NDArrayIter(x, y, batch_size=BATCH)   # 20 = 8 + 8 + 4 (+4 padding)
    pred = mod.predict(it)
    assert pred.shape == (20, CLASSES)
    np.testing.assert_allclose(pred.asnumpy().sum(axis=1), 1.0, rtol=1e-5)
    pads = [batch.pad for _, _, batch in mod.iter_predict(it)]
    assert pads == [0, 0, 4]
    (name, acc), = mod.score(it, "acc")
    # NOTE: as MXNet, score counts the padding (the last batch repeats samples 0-3)
    hits = pred.asnumpy().argmax(axis=1) == y
    expected = np.concatenate([hits, hits[:4]]).mean()
    assert name == "accuracy" and acc == pytest.approx(expected)


def test_forward_with_a_new_batch_size_reshapes():
    mod = _module()
    x, y = _data(3)
    mod.forward(_batch(x, y), is_train=False)
    assert mod.get_outputs()[0].shape == (3, CLASSES)
    assert mod.data_shapes[0].shape == (3, FEATURES)
    assert mod.output_shapes == [("softmax_output", (3, CLASSES))]


def test_inputs_need_grad_gives_data_gradients():
    data = mx.sym.Variable("data")
    mod = mx.mod.Module(data * 3, label_names=None, context=[mx.cpu(0), mx.cpu(1)])
    mod.bind(data_shapes=[("data", (4, 2))], inputs_need_grad=True)
    mod.init_params()
    mod.forward(mx.io.DataBatch([mx.nd.ones((4, 2))]), is_train=True)
    mod.backward([mx.nd.ones((4, 2))])
    grad = mod.get_input_grads()[0]
    assert grad.shape == (4, 2) and (grad.asnumpy() == 3).all()
    assert [g.shape for g in mod.get_input_grads(merge_multi_context=False)[0]] == [(2, 2)] * 2
