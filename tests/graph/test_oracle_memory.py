"""Opt-in oracle: planned bytes of an MLP training graph against real MXNet's executor.

Runs only when MXLAB_MXNET_PYTHON names a Python with MXNet 1.9.1 (called in a subprocess). MXNet
1.9.1's tanh backward keeps the FullyConnected output as well as the tanh output, so its figure is
about twice ours. The test pins ours at the stored activations (one per layer but the last, an
external output) plus two backward temporaries, and checks it never exceeds MXNet's figure
(1 MB = one activation here).
"""
import importlib.util
import os
import pathlib
import re
import subprocess

import pytest

pytestmark = [pytest.mark.oracle, pytest.mark.skipif(
    not os.environ.get("MXLAB_MXNET_PYTHON"), reason="set MXLAB_MXNET_PYTHON to real MXNet 1.9.1")]

_ORACLE = """
import sys
import mxnet as mx
depth, hidden, batch = map(int, sys.argv[1:4])
x = mx.sym.var("data")
for i in range(depth):
    x = mx.sym.FullyConnected(x, num_hidden=hidden, name=f"fc{i}")
    x = mx.sym.Activation(x, act_type="tanh", name=f"tanh{i}")
reqs = {n: ("null" if n == "data" else "write") for n in x.list_arguments()}
ex = x.simple_bind(mx.cpu(), grad_req=reqs, data=(batch, hidden))
print(ex.debug_str())
"""


def _benchmark_module():
    path = pathlib.Path(__file__).parents[2] / "benchmarks" / "memory_plan.py"
    spec = importlib.util.spec_from_file_location("memory_plan_benchmark", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_planned_bytes_do_not_exceed_mxnet():
    planned_training_graph = _benchmark_module().planned_training_graph
    depth, hidden, batch = 8, 512, 512
    result = subprocess.run([os.environ["MXLAB_MXNET_PYTHON"], "-c", _ORACLE, str(depth),
                             str(hidden), str(batch)], capture_output=True, text=True, timeout=300,
                            check=True, env=dict(os.environ, MXNET_SUBGRAPH_BACKEND="NONE"))
    mxnet_mb = int(re.search(r"Total (\d+) MB allocated", result.stdout).group(1))
    plan = planned_training_graph(depth, hidden, batch, recompute=False).attrs["memory_plan"]
    ours_mb = plan.planned_bytes >> 20
    assert ours_mb == (depth - 1) + 2
    assert ours_mb <= mxnet_mb
