"""AdaDelta, Adamax, Nadam, Ftrl, FTML, Signum, DCASGD, LAMB and LARS: three updates each equal
what MXNet 1.9.1 computed (fixtures/mxnet191/optimizer_steps.json, made by
make_optimizer_fixture.py); SGLD by its statistics."""
import json
import pathlib

import numpy
import pytest

import mxlab as mx

TABLE = json.loads((pathlib.Path(__file__).parent / "fixtures" / "mxnet191"
                    / "optimizer_steps.json").read_text())


@pytest.mark.parametrize("name,kwargs,steps", TABLE["cases"],
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(TABLE["cases"])])
def test_three_updates_equal_mxnet_191(name, kwargs, steps):
    opt = mx.optimizer.create(name, **kwargs, **TABLE["common"])
    weight = mx.nd.array(TABLE["w0"])
    state = opt.create_state(0, weight)
    for grad, want in zip(TABLE["grads"], steps):
        opt.update(0, weight, mx.nd.array(grad), state)
        numpy.testing.assert_allclose(weight.asnumpy(), want, rtol=2e-5, atol=2e-6,
                                      err_msg=f"{name} {kwargs}")


def test_sgld_moves_by_half_a_gradient_step_plus_gaussian_noise():
    mx.random.seed(7)
    opt = mx.optimizer.create("sgld", learning_rate=0.04)
    weight = mx.nd.zeros((20000,))
    opt.update(0, weight, mx.nd.ones((20000,)), None)
    values = weight.asnumpy()
    assert abs(values.mean() - (-0.02)) < 0.01 and abs(values.std() - 0.2) < 0.01


def test_lars_skips_biases_and_norm_scales():
    opt = mx.optimizer.create("lars", learning_rate=0.1, eta=0.5, param_idx2name={0: "fc_bias"})
    weight = mx.nd.array([1.0, 2.0])
    opt.update(0, weight, mx.nd.array([1.0, 1.0]), None)
    numpy.testing.assert_allclose(weight.asnumpy(), [0.9, 1.9], rtol=1e-6)


def test_new_optimizers_train_through_the_trainer():
    net = mx.gluon.nn.Dense(1, in_units=2)
    net.initialize(mx.init.Constant(0.5))
    x, y = mx.nd.array([[1.0, 2.0], [3.0, 4.0]]), mx.nd.array([[1.0], [2.0]])
    for name in ("adadelta", "adamax", "nadam", "ftml", "lamb"):
        trainer = mx.gluon.Trainer(net.collect_params(), name)
        losses = []
        for _ in range(5):
            with mx.autograd.record():
                loss = ((net(x) - y) ** 2).mean()
            loss.backward()
            trainer.step(2)
            losses.append(float(loss.asscalar()))
        assert losses[-1] < losses[0], name
