"""Multi-precision optimizer states by API generation: MXNet 1.x's SGD, NAG and LARS keep
``(momentum, float32 master weight)``, 2.0 ``(master, momentum)``; mxlab picks 1.x's for ``mx.nd``
weights and 2.0's for ``mx.np`` ones (the array-flavour rule). Checked against MXNet 1.9.1."""
import pathlib
import sys

import numpy as np
import pytest

import mxlab as mx

sys.path.insert(0, str(pathlib.Path(__file__).parent.parent / "oracle"))
from mxnet_oracle import assert_same_outputs, requires_mxnet, run_mxlab  # noqa: E402

CODE = """
for name, kwargs in (('sgd', dict(momentum=0.9)), ('nag', dict(momentum=0.9)),
                     ('lars', dict(momentum=0.9, eta=0.01)), ('adam', {})):
    for tag in (name,):
        opt = mx.optimizer.create(name, learning_rate=0.1, wd=0.01, multi_precision=True,
                                  **kwargs)
        w = mx.nd.array(inputs['w'], dtype='float16')
        state = opt.create_state_multi_precision(0, w)
        for step in range(3):
            g = mx.nd.array(inputs['g%d' % step], dtype='float16')
            opt.update_multi_precision(0, w, g, state)
        outputs[tag + '_w'] = w.asnumpy().astype('float32')
        for k, s in enumerate(state):
            parts = s if isinstance(s, tuple) else (s,)
            for j, part in enumerate(parts):
                outputs['%s_s%d_%d' % (tag, k, j)] = part.asnumpy()
                outputs['%s_s%d_%d_dtype' % (tag, k, j)] = np.array(np.dtype(part.dtype).name)
"""


def _inputs():
    rng = np.random.RandomState(3)
    out = {"w": rng.uniform(-1, 1, (4, 5)).astype(np.float32)}
    for step in range(3):
        out[f"g{step}"] = rng.uniform(-1, 1, (4, 5)).astype(np.float32)
    return out


@pytest.mark.parametrize("name", ["sgd", "nag", "lars"])
def test_nd_weights_keep_1x_order_np_weights_2_0s(name):
    opt = mx.optimizer.create(name, momentum=0.9, multi_precision=True)
    w = mx.nd.array([[1.5, -2.0]], dtype="float16")
    mom, master = opt.create_state_multi_precision(0, w)
    assert mom.dtype == master.dtype == np.float32
    assert master.asnumpy().tolist() == [[1.5, -2.0]] and mom.asnumpy().tolist() == [[0, 0]]
    master, mom = opt.create_state_multi_precision(0, mx.np.array(w.asnumpy()))
    assert master.asnumpy().tolist() == [[1.5, -2.0]] and mom.asnumpy().tolist() == [[0, 0]]
    # the other optimizers keep (master, state) in both generations, as MXNet 1.9.1's Adam
    master, (mean, var) = mx.optimizer.Adam(multi_precision=True).create_state_multi_precision(
        0, w)
    assert master.asnumpy().tolist() == [[1.5, -2.0]]


@pytest.mark.parametrize("fused", [True, False])
@pytest.mark.parametrize("aggregate", [0, 4])
def test_both_orders_update_alike(fused, aggregate):
    ins = _inputs()
    results = []
    for flavour in (mx.nd, mx.np):
        opt = mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, multi_precision=True, wd=0.01,
                               use_fused_step=fused, aggregate_num=aggregate)
        w = flavour.array(ins["w"], dtype="float16")
        state = opt.create_state_multi_precision(0, w)
        for step in range(3):
            opt.update_multi_precision([0], [w], [flavour.array(ins[f"g{step}"],
                                                                dtype="float16")], [state])
        master = state[1] if flavour is mx.nd else state[0]
        results.append((w.asnumpy(), master.asnumpy()))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6)
    np.testing.assert_allclose(results[0][1], results[0][0], rtol=1e-2, atol=1e-3)


def test_pinned_values():
    out = run_mxlab(CODE, _inputs())
    assert str(out["sgd_s0_0_dtype"]) == "float32"
    np.testing.assert_allclose(out["sgd_s1_0"], out["sgd_w"], rtol=1e-2, atol=1e-3)   # master
    np.testing.assert_allclose(out["adam_s0_0"], out["adam_w"], rtol=1e-2, atol=1e-3)


@pytest.mark.oracle
@requires_mxnet
def test_matches_mxnet_1_9_1():
    assert_same_outputs(CODE, _inputs(), rtol=1e-4, atol=1e-5)


def _fp16_trainer():
    net = mx.gluon.nn.Dense(3, in_units=4)
    net.initialize()
    net.cast("float16")
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9,
                                                             "multi_precision": True})
    with mx.autograd.record():
        loss = net(mx.nd.ones((2, 4), dtype="float16")).sum()
    loss.backward()
    trainer.step(2)
    return trainer


def test_trainer_states_written_before_the_1x_order_load_into_the_right_slots(tmp_path):
    """A Trainer .states file without ``mp_order`` (written when every state was (master, mom))
    loads with its momentum as the momentum, not swapped with the master weight."""
    import json
    from mxlab.ndarray import serialization
    trainer = _fp16_trainer()
    states = trainer._updaters[0].states
    mom, master = (a.asnumpy() for a in states[0])       # mx.nd weights: (momentum, master)
    assert master.dtype == np.float32 and not np.allclose(mom, master)
    path = str(tmp_path / "t.states")
    trainer.save_states(path)
    # the same file as an older mxlab wrote it: no "mp_order", (master, momentum) arrays
    arrays = serialization.load(path)
    scalars = json.loads(bytes(arrays["__trainer_scalars__"].asnumpy().tolist()).decode())
    del scalars["mp_order"]
    arrays["__trainer_scalars__"] = mx.nd.array(
        np.frombuffer(json.dumps(scalars).encode(), dtype=np.uint8), dtype="uint8")
    arrays["0:0"], arrays["0:1"] = arrays["0:1"], arrays["0:0"]
    serialization.save(path, arrays)
    for written in (path, str(tmp_path / "new.states")):
        if written != path:
            trainer.save_states(written)
        fresh = _fp16_trainer()
        fresh.load_states(written)
        got_mom, got_master = (a.asnumpy() for a in fresh._updaters[0].states[0])
        np.testing.assert_array_equal(got_mom, mom)
        np.testing.assert_array_equal(got_master, master)


def test_updater_states_pickled_before_the_1x_order_are_reordered_at_first_use():
    """Module/kvstore ``.states`` pickles without the order marker hold (master, momentum); the
    updater puts them in the weight's order when it first uses them."""
    import pickle
    opt = mx.optimizer.create("sgd", learning_rate=0.1, momentum=0.9, multi_precision=True)
    updater = mx.optimizer.get_updater(opt)
    w = mx.nd.array(np.ones((2, 3)), dtype="float16")
    updater(0, mx.nd.array(np.full((2, 3), 0.5), dtype="float16"), w)
    mom, master = (a.asnumpy() for a in updater.states[0])
    old = pickle.loads(updater.get_states())                # a dict of NumPy states
    del old["__mp_order__"]
    old[0] = (old[0][1], old[0][0])                         # as an older mxlab pickled it
    for blob in (pickle.dumps(old), updater.get_states()):
        fresh = mx.optimizer.get_updater(
            mx.optimizer.create("sgd", learning_rate=0.0, momentum=1.0, multi_precision=True))
        fresh.set_states(blob)
        w2 = w.copy()
        fresh(0, mx.nd.zeros((2, 3), dtype="float16"), w2)   # lr 0: momentum kept, master kept
        got_mom, got_master = (a.asnumpy() for a in fresh.states[0])
        np.testing.assert_allclose(got_mom, mom)
        np.testing.assert_allclose(got_master, master + mom)
