"""Runs a workload under real MXNet 1.9.1, in MXNet's own venv, answering in JSON lines.

MXNet needs Python 3.10 and numpy < 1.24, so it never shares a process with mxlab: the runner
calls ``$MXLAB_MXNET_PYTHON -m benchmarks.mxnet_worker <task> [args]`` from the repository root.
Make such a venv with::

    python3.10 -m venv /some/venv
    /some/venv/bin/pip install mxnet==1.9.1 'numpy<1.24'
    export MXLAB_MXNET_PYTHON=/some/venv/bin/python

Tasks: ``serve`` (the worker side of :class:`benchmarks.timing.RemoteWorker`: sets up the MXNet
candidates of a workload -- mlp, chain64 (``arg`` = vector size) or cnn -- and times one round of
them per request, so the runner interleaves them with its own) and ``memory <graph>``
(``chain`` or ``resnet18``; planned MB of the training graph, from the executor's
"Total <n> MB allocated").
"""
import json
import re
import sys

import mxnet as mx

from . import models
from .timing import Candidate, serve

def _modes(make):
    return [Candidate(f"mxnet {mode}", lambda mode=mode: make(mode)) for mode in models.MODES[:3]]


def _candidates(workload, arg):
    if workload == "mlp":
        return ([Candidate("mxnet nd ops", lambda: models.mlp_nd_step(mx))]
                + _modes(lambda mode: models.mlp_gluon_step(mx, mode)))
    if workload == "chain64":
        return ([Candidate("mxnet imperative", lambda: models.chain_nd_step(mx, arg))]
                + _modes(lambda mode: models.chain_gluon_step(mx, arg, mode))[1:])
    if workload in ("cnn", "cnn224"):
        return _modes(lambda mode: models.resnet_step(mx, mode, *arg))
    raise SystemExit(f"unknown workload {workload!r}")


def _training_symbol(graph):
    if graph == "chain":
        x, size = mx.sym.var("data"), models.MEMORY_CHAIN
        for i in range(size["depth"]):
            x = mx.sym.tanh(mx.sym.FullyConnected(x, num_hidden=size["hidden"], name=f"fc{i}"))
        return x, (size["batch"], size["hidden"])
    net = mx.gluon.model_zoo.vision.resnet18_v1()
    return net(mx.sym.var("data")), models.MEMORY_RESNET_SHAPE


def planned_mb(graph):
    """MB the executor plans for the intermediates of ``graph``'s forward+backward graph."""
    sym, shape = _training_symbol(graph)
    grad_req = {name: "null" if name == "data" else "write" for name in sym.list_arguments()}
    exe = sym.simple_bind(mx.cpu(), grad_req=grad_req, data=shape)
    return float(re.findall(r"Total (\d+) MB allocated", exe.debug_str())[-1])


def main(argv):
    if argv[0] == "memory":
        print(json.dumps({"mb": planned_mb(argv[1])}))
    else:
        serve(lambda request: _candidates(request["workload"], request["arg"]))


if __name__ == "__main__":
    main(sys.argv[1:])
