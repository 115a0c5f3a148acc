"""Fused optimizer steps (Adam, RMSProp, Ftrl, FTML, Signum, LAMB, GroupAdaGrad through
MXNet's update kernels, one engine push per step but LAMB's): five updates of three parameters
equal what MXNet 1.9.1 computed (fixtures/mxnet191/fused_optimizer_steps.json, made by
make_fused_optimizer_fixture.py) and, bit for bit (LAMB: to float32 rounding), what the composed
rule (``use_fused_step=False``) gives; sparse gradients, user ``update`` overrides and the
threaded engine keep working."""
import json
import os
import pathlib
import subprocess

import numpy
import pytest

import mxlab as mx
from mxlab.optimizer import fused

FIXTURES = pathlib.Path(__file__).parent / "fixtures" / "mxnet191"
TABLE = json.loads((FIXTURES / "fused_optimizer_steps.json").read_text())
IDS = [f"{c[0]}-{i}" for i, c in enumerate(TABLE["cases"])]


def _train(name, kwargs, dtype, fused_step=True, table=TABLE):
    kwargs = dict(kwargs, **table["common"], use_fused_step=fused_step)
    if "lr_scheduler" in kwargs:
        kwargs["lr_scheduler"] = mx.lr_scheduler.FactorScheduler(
            step=2, factor=kwargs["lr_scheduler"], base_lr=kwargs["learning_rate"])
    updater = mx.optimizer.get_updater(mx.optimizer.create(name, **kwargs))
    weights = [mx.nd.array(w, dtype=dtype) for w in table["weights"]]
    indices = list(range(len(weights)))
    for step in table["grads"]:
        updater(indices, [mx.nd.array(g, dtype=dtype) for g in step], weights)
    return [w.asnumpy() for w in weights]


@pytest.mark.parametrize("name,kwargs,dtype,expected", TABLE["cases"], ids=IDS)
def test_fused_steps_equal_mxnet_191(name, kwargs, dtype, expected):
    tol = {"rtol": 1e-5, "atol": 1e-6} if dtype == "float32" else {"rtol": 2e-3, "atol": 2e-3}
    for got, want in zip(_train(name, kwargs, dtype), expected):
        assert got.dtype == dtype
        numpy.testing.assert_allclose(got.astype("float32"), want, **tol, err_msg=name)


@pytest.mark.parametrize("name,kwargs,dtype,expected", TABLE["cases"], ids=IDS)
def test_fused_steps_equal_the_composed_rule_bit_for_bit(name, kwargs, dtype, expected):
    for got, want in zip(_train(name, kwargs, dtype), _train(name, kwargs, dtype, False)):
        if name == "lamb":   # NOTE: the trust ratio: a float32 array vs the rule's host double
            numpy.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7, err_msg=name)
        else:
            numpy.testing.assert_array_equal(got, want, err_msg=name)


@pytest.mark.parametrize("name", ["adam", "rmsprop", "ftrl", "ftml", "signum"])
def test_a_step_is_one_engine_push(name, monkeypatch):
    pushes = []
    monkeypatch.setattr(fused, "invoke_updates", lambda runs: pushes.append(len(runs)) or
                        mx.imperative.invoke_updates(runs))
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(8, activation="relu", in_units=5), mx.gluon.nn.Dense(3, in_units=8))
    net.initialize()
    trainer = mx.gluon.Trainer(net.collect_params(), name)
    x = mx.nd.ones((2, 5))
    before = [p.data().asnumpy() for p in net.collect_params().values()]
    for _ in range(2):
        with mx.autograd.record():
            loss = net(x).sum()
        loss.backward()
        trainer.step(2)
    assert pushes == [4, 4]
    after = [p.data().asnumpy() for p in net.collect_params().values()]
    assert all((a != b).any() for a, b in zip(after, before))


def test_the_threaded_engine_gives_the_naive_engines_values():
    name, kwargs, dtype, _ = TABLE["cases"][5]   # centered RMSProp: three states per parameter
    naive = _train(name, kwargs, dtype)
    previous = mx.engine.get_engine()
    mx.engine.set_engine("ThreadedEngine")
    try:
        threaded = _train(name, kwargs, dtype)
    finally:
        mx.engine.set_engine(previous)
    for got, want in zip(threaded, naive):
        numpy.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name,kwargs", [("adam", {"lazy_update": True}), ("ftrl", {})])
def test_row_sparse_gradients_update_their_rows_only(name, kwargs):
    w0 = numpy.arange(12, dtype="float32").reshape(4, 3) / 10
    rows = numpy.ones((2, 3), dtype="float32")
    grad = mx.nd.sparse.row_sparse_array((rows, [0, 2]), shape=(4, 3))
    results = []
    for fused_step in (True, False):
        opt = mx.optimizer.create(name, learning_rate=0.1, wd=0.1, use_fused_step=fused_step,
                                  **kwargs)
        weight = mx.nd.array(w0)
        opt.update(0, weight, grad, opt.create_state(0, weight))
        results.append(weight.asnumpy())
    numpy.testing.assert_array_equal(results[0], results[1])
    numpy.testing.assert_array_equal(results[0][[1, 3]], w0[[1, 3]])
    assert (results[0][[0, 2]] != w0[[0, 2]]).all()


def test_a_user_update_override_still_gets_one_parameter_per_call():
    calls = []

    class Logged(mx.optimizer.Adam):
        def update(self, index, weight, grad, state):
            calls.append(index)
            super().update(index, weight, grad, state)

    updater = mx.optimizer.get_updater(Logged(learning_rate=0.1))
    weights = [mx.nd.ones((2,)), mx.nd.ones((3,))]
    updater([0, 1], [mx.nd.ones((2,)), mx.nd.ones((3,))], weights)
    assert [numpy.ravel(i).tolist() for i in calls] == [[0], [1]]   # MXNet 2 passes [index]
    numpy.testing.assert_allclose(weights[1].asnumpy(), [0.9] * 3, rtol=1e-5)


def test_adamw_keeps_its_decoupled_decay_under_use_fused_step():
    name, kwargs = "adamw", {"learning_rate": 0.05, "epsilon": 1e-8}
    fused_w = _train(name, kwargs, "float32")
    composed = _train(name, kwargs, "float32", False)
    for got, want in zip(fused_w, composed):
        numpy.testing.assert_array_equal(got, want)


@pytest.mark.oracle
@pytest.mark.skipif(not os.environ.get("MXLAB_MXNET_PYTHON"),
                    reason="oracle test: set MXLAB_MXNET_PYTHON to a python with mxnet==1.9.1")
def test_oracle_mxnet_191_still_gives_the_fixture(tmp_path):
    out = tmp_path / "steps.json"
    subprocess.run([os.environ["MXLAB_MXNET_PYTHON"],
                    str(FIXTURES / "make_fused_optimizer_fixture.py"), str(out)],
                   check=True, capture_output=True, text=True, timeout=300)
    table = json.loads(out.read_text())
    for (name, kwargs, stype, expected), case in zip(table["group_cases"], TABLE["group_cases"]):
        assert case[:3] == [name, kwargs, stype]
        for got, want in zip(_train_group(name, kwargs, stype, table=table), expected):
            numpy.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    for (name, kwargs, dtype, expected), case in zip(table["cases"], TABLE["cases"]):
        assert case[:3] == [name, kwargs, dtype]
        for got, want in zip(_train(name, kwargs, dtype, table=table), expected):
            tol = 1e-5 if dtype == "float32" else 2e-3
            numpy.testing.assert_allclose(got.astype("float32"), want, rtol=tol, atol=tol)


def _train_group(name, kwargs, stype, fused_step=True, table=TABLE):
    opt = mx.optimizer.create(name, **dict(table["common"], **kwargs), use_fused_step=fused_step)
    updater = mx.optimizer.get_updater(opt)
    weights = [mx.nd.array(w) for w in table["group_weights"]]
    for step in table["group_grads"]:
        grads = []
        for g in step:
            g = numpy.array(g, dtype="float32")
            g[1::2] = 0
            grads.append(mx.nd.array(g).tostype(stype))
        updater(list(range(len(weights))), grads, weights)
    return [w.asnumpy() for w in weights]


@pytest.mark.parametrize("name,kwargs,stype,expected", TABLE["group_cases"],
                         ids=[c[2] for c in TABLE["group_cases"]])
def test_group_adagrad_equals_mxnet_191_either_way(name, kwargs, stype, expected):
    fused_w = _train_group(name, kwargs, stype)
    for got, want in zip(fused_w, expected):
        numpy.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    for got, want in zip(fused_w, _train_group(name, kwargs, stype, False)):
        numpy.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_group_adagrad_refuses_weight_decay_and_non_matrices():
    opt = mx.optimizer.contrib.GroupAdaGrad(wd=0.1)
    weight = mx.nd.ones((2, 2))
    with pytest.raises(ValueError, match="Weight decay is not supported for GroupAdaGrad"):
        opt.update(0, weight, mx.nd.ones((2, 2)), opt.create_state(0, weight))
    with pytest.raises(ValueError, match="must be 2-D"):
        opt.create_state(1, mx.nd.ones((3,)))
