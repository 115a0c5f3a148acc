"""``Trainer.load_states`` reads MXNet 1.9.1's pickled ``.states`` as data, never code.

fixtures/mxnet/states/make_states.py trained a Dense(2, in_units=3) one step in MXNet 1.9.1 with
SGD (momentum) and Adam and saved ``Trainer.save_states`` (a pickle of ``{index: NDArray or
tuple}`` and the optimizer object). mxlab reads it through a restricted unpickler: arrays come
from MXNet's binary bytes, the optimizer object is never built (its class must match the
trainer's; its update counters, lr and wd are taken), and any other global raises. MXNet 1.9.1's
Trainer numbers parameters in sorted-name order (bias before weight here), so the mxlab Trainer
is given them in that order; a different order fails the shape check.
"""
import json
import os
import pickle

import numpy
import pytest

import mxlab as mx
from mxlab import autograd, gluon
from mxlab.base import MXNetError

HERE = os.path.dirname(os.path.dirname(__file__))
STATES = os.path.join(HERE, "fixtures", "mxnet", "states")
HOSTILE = os.path.join(HERE, "hostile_files")
EXPECTED = json.load(open(os.path.join(STATES, "expected.json")))
CASES = {"sgd_momentum": "sgd_momentum.states", "adam": "adam.states"}


def _trainer(case, optimizer=None, order="mxnet"):
    """A Dense of the weights MXNet had after its first step and a Trainer like MXNet's."""
    net = gluon.nn.Dense(2, in_units=3)
    net.initialize()
    net.weight.set_data(mx.nd.array(case["weight1"]))
    net.bias.set_data(mx.nd.array(case["bias1"]))
    params = [net.bias, net.weight] if order == "mxnet" else net.collect_params()
    trainer = gluon.Trainer(params, optimizer or case["optimizer"], case["kwargs"])
    return net, trainer


def _values(state):
    if state is None:
        return None
    if isinstance(state, tuple):
        return [_values(s) for s in state]
    return state.asnumpy().tolist()


@pytest.mark.parametrize("name", sorted(CASES))
def test_mxnet_states_load_and_training_continues_as_in_mxnet(name):
    case = EXPECTED["cases"][name]
    net, trainer = _trainer(case)
    trainer.load_states(os.path.join(STATES, CASES[name]))
    states = trainer._updaters[0].states
    assert sorted(states) == [0, 1]
    for index, want in case["states"].items():   # the bytes MXNet wrote: equal float32 values
        assert _values(states[int(index)]) == want
    optimizer = trainer._optimizer
    assert optimizer.num_update == case["num_update"] == 1
    assert optimizer._index_update_count == {0: 1, 1: 1}   # Adam's bias correction uses it
    with autograd.record():
        loss = (net(mx.nd.array(EXPECTED["data"])) ** 2).sum()
    loss.backward()
    trainer.step(len(EXPECTED["data"]))
    numpy.testing.assert_allclose(net.weight.data().asnumpy(), case["weight2"], rtol=1e-5,
                                  atol=1e-7)
    numpy.testing.assert_allclose(net.bias.data().asnumpy(), case["bias2"], rtol=1e-5,
                                  atol=1e-7)


def test_parameter_order_and_optimizer_class_are_checked():
    case = EXPECTED["cases"]["sgd_momentum"]
    _, trainer = _trainer(case, order="mxlab")       # weight first: shapes differ from the file
    with pytest.raises(MXNetError, match="sorted-name order") as info:
        trainer.load_states(os.path.join(STATES, "sgd_momentum.states"))
    assert isinstance(info.value, ValueError) and "sgd_momentum.states" in str(info.value)
    _, trainer = _trainer(case)
    with pytest.raises(ValueError, match="written by a Adam optimizer, this one is SGD"):
        trainer.load_states(os.path.join(STATES, "adam.states"))


def test_updater_and_kvstore_read_mxnet_states(tmp_path):
    """The same reader serves Updater.set_states and kvstore/Module load_optimizer_states."""
    case = EXPECTED["cases"]["adam"]
    updater = mx.optimizer.get_updater(mx.optimizer.Adam(learning_rate=0.5))
    updater.set_states(open(os.path.join(STATES, "adam.states"), "rb").read())
    assert _values(updater.states[0]) == case["states"]["0"]
    assert updater.optimizer.num_update == 1 and updater.optimizer.lr == 0.01
    kv = mx.kv.create("local")
    kv.set_optimizer(mx.optimizer.SGD(momentum=0.9))
    kv.load_optimizer_states(os.path.join(STATES, "sgd_momentum.states"))
    assert _values(kv._updater.states[1]) == EXPECTED["cases"]["sgd_momentum"]["states"]["1"]


def test_mxlab_states_files_still_load(tmp_path):
    net, trainer = _trainer(EXPECTED["cases"]["adam"], order="mxlab")
    with autograd.record():
        loss = net(mx.nd.ones((1, 3))).sum()
    loss.backward()
    trainer.step(1)
    trainer.save_states(tmp_path / "own.states")             # mxlab's NDArray-file format
    _, fresh = _trainer(EXPECTED["cases"]["adam"], order="mxlab")
    fresh.load_states(tmp_path / "own.states")
    assert _values(fresh._updaters[0].states[0]) == _values(trainer._updaters[0].states[0])
    updater = trainer._updaters[0]
    for dump in (False, True):                               # mxlab's pickles (NumPy arrays)
        again = mx.optimizer.get_updater(mx.optimizer.Adam())
        again.set_states(updater.get_states(dump_optimizer=dump))
        assert _values(again.states[1]) == _values(updater.states[1])
    blob = pickle.dumps({0: numpy.ones((2, 2), numpy.float32).T}, protocol=5)   # _frombuffer
    again.set_states(blob)
    assert again.states[0].asnumpy().tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_hostile_states_pickle_raises_without_running(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = os.path.join(HOSTILE, "states_os_system.states")
    _, trainer = _trainer(EXPECTED["cases"]["sgd_momentum"])
    with pytest.raises(MXNetError, match="refusing to load os.system") as info:
        trainer.load_states(path)
    assert isinstance(info.value, ValueError) and path in str(info.value)
    updater = mx.optimizer.get_updater(mx.optimizer.SGD())
    with pytest.raises(ValueError, match="refusing to load os.system"):
        updater.set_states(open(path, "rb").read())
    kv = mx.kv.create("local")
    kv.set_optimizer(mx.optimizer.SGD())
    with pytest.raises(ValueError, match=f"{path}: refusing to load os.system"):
        kv.load_optimizer_states(path)
    assert os.listdir(tmp_path) == []     # the marker file was never made


@pytest.mark.parametrize("payload, match", [
    (numpy.array([1, None], dtype=object), "NumPy array of dtype dtype.'O'"),
    ({(1, 2): None}, r"\(1, 2\) is not a parameter index"),
    (["not", "a", "dict"], "holds a list, not a dict"),
    ({0: "text"}, "state is str"),
])
def test_other_unexpected_content_is_refused(payload, match):
    updater = mx.optimizer.get_updater(mx.optimizer.SGD())
    blob = pickle.dumps({0: payload} if isinstance(payload, numpy.ndarray) else payload)
    with pytest.raises(ValueError, match=match):
        updater.set_states(blob)


def test_builtins_eval_and_garbled_pickles_are_refused():
    updater = mx.optimizer.get_updater(mx.optimizer.SGD())
    evil = b"\x80\x04cbuiltins\neval\nX\x04\x00\x00\x001+1\x85R."
    with pytest.raises(ValueError, match="refusing to load builtins.eval"):
        updater.set_states(evil)
    good = open(os.path.join(STATES, "adam.states"), "rb").read()
    with pytest.raises(ValueError, match="not a readable optimizer states pickle"):
        updater.set_states(good[:100])
