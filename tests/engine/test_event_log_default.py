"""Where the engine event log keeps events by default: in IPython shells (the notebook layer reads
it), not in plain scripts (a record per op would only cost time), unless MXLAB_EVENT_LOG says."""
import ast
import os
import subprocess
import sys

import pytest

import mxlab as mx
from mxlab.base import MXNetValueError
from mxlab.engine.log import EventLog, default_enabled

_PROBE = ("import mxlab as mx; a = mx.nd.ones((2,)); b = a + 1; mx.nd.waitall(); "
          "print(mx.engine.event_log.enabled, len(mx.engine.event_log))")


def _run(code, env_value):
    env = {k: v for k, v in os.environ.items() if k != "MXLAB_EVENT_LOG"}
    if env_value is not None:
        env["MXLAB_EVENT_LOG"] = env_value
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    return done.returncode, done.stdout.strip(), done.stderr


def test_a_script_keeps_no_events_by_default():
    rc, out, err = _run(_PROBE, None)
    assert rc == 0, err
    assert out == "False 0"


@pytest.mark.parametrize("value, expected", [("1", "True"), ("on", "True"), ("0", "False")])
def test_the_environment_variable_decides(value, expected):
    rc, out, err = _run(_PROBE, value)
    assert rc == 0, err
    assert out.split()[0] == expected
    assert (int(out.split()[1]) > 0) == (expected == "True")


def test_an_ipython_shell_turns_it_on():
    code = ("from IPython.testing.globalipapp import start_ipython; start_ipython(); " + _PROBE)
    rc, out, err = _run(code, None)
    assert rc == 0, err
    assert out.splitlines()[-1].startswith("True ")


def test_a_bad_value_names_the_variable(monkeypatch):
    monkeypatch.setenv("MXLAB_EVENT_LOG", "maybe")
    with pytest.raises(MXNetValueError, match="MXLAB_EVENT_LOG") as info:
        default_enabled()
    assert isinstance(info.value, ValueError)


def test_reading_an_empty_log_that_is_off_warns():
    log = EventLog(enabled=False)
    with pytest.warns(RuntimeWarning, match="event log is off"):
        assert log.events() == []


def test_an_explorer_turns_the_log_on(monkeypatch):
    from mxlab.notebook.explorer import ExplorerModel
    from mxlab.notebook.sources import Source
    monkeypatch.setattr(mx.engine.event_log, "enabled", False)
    x = mx.sym.var("x")
    ExplorerModel(Source(mx.sym.tanh(x)))
    assert mx.engine.event_log.enabled


_TRAIN = """
import numpy, mxlab as mx
from mxlab import gluon
mx.engine.set_engine("{engine}")
numpy.random.seed(0)
net = gluon.nn.HybridSequential()
net.add(gluon.nn.Dense(8, activation="relu"), gluon.nn.Dense(3))
net.initialize(mx.init.Xavier())
net.hybridize(static_alloc=True, static_shape=True)
trainer = gluon.Trainer(net.collect_params(), "sgd", {{"learning_rate": 0.1}})
loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
x = mx.nd.array(numpy.random.rand(4, 5)); y = mx.nd.array([0, 1, 2, 1])
for _ in range(3):
    with mx.autograd.record():
        loss = loss_fn(net(x), y)
    loss.backward()
    trainer.step(4)
chain = mx.nd.array([0.5, -0.25])
for _ in range(8):
    chain = mx.nd.tanh(chain * 1.01 + 0.1) - 0.05
print(repr(numpy.concatenate([p.data().asnumpy().ravel() for p in net.collect_params().values()]
                             + [chain.asnumpy()]).tolist()))
"""


@pytest.mark.parametrize("engine", ["NaiveEngine", "ThreadedEngine"])
def test_training_gives_the_same_values_with_the_log_off(engine):
    """The unlogged engine paths (the script default) against the logged ones, value for value."""
    outputs = {}
    for value in ("0", "1"):
        rc, out, err = _run(_TRAIN.format(engine=engine), value)
        assert rc == 0, err
        outputs[value] = out
    assert outputs["0"] == outputs["1"]
    assert len(ast.literal_eval(outputs["0"])) > 50
