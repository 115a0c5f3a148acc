"""mx.viz.plot_network / print_summary (MXNet's layout) and the matplotlib charts."""
import os
import subprocess
import sys

import pytest

import mxlab as mx
from mxlab.executor.planning import infer_graph, plan_graph
from mxlab.graph import Graph

CASE = os.path.join(os.path.dirname(__file__), "viz_case.py")


def _net():
    data = mx.sym.var("data")
    c = mx.sym.Convolution(data, kernel=(3, 3), num_filter=4, name="conv1")
    b = mx.sym.BatchNorm(c, name="bn1")
    a = mx.sym.Activation(b, act_type="relu", name="relu1")
    p = mx.sym.Pooling(a, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool1")
    f = mx.sym.Flatten(p, name="flat")
    return mx.sym.FullyConnected(f, num_hidden=10, name="fc1")


def test_plot_network_labels_colours_and_shapes():
    dot = mx.viz.plot_network(_net(), shape={"data": (2, 3, 8, 8)}, dtype={"data": "float32"})
    src = dot.source
    assert 'conv1 [label="Convolution\n3x3/1, 4" fillcolor="#fb8072"' in src
    assert 'pool1 [label="Pooling\nmax, 2x2/2x2" fillcolor="#80b1d3"' in src
    assert "relu1 -> bn1 [label=\"4x6x6(float32)\" arrowtail=open dir=back]" in src
    assert "conv1_weight" not in src
    assert dot.format == "pdf"
    shown = mx.viz.plot_network(_net(), hide_weights=False).source
    assert "conv1 -> conv1_weight" in shown


def test_plot_network_rejects_non_symbol():
    with pytest.raises(mx.MXNetError, match="symbol must be Symbol"):
        mx.viz.plot_network("net")


def test_print_summary_table(capsys):
    mx.viz.print_summary(_net(), shape={"data": (2, 3, 8, 8)})
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("Layer (type)") and len(out[0]) == 120
    row = next(line for line in out if line.startswith("conv1(Convolution)"))
    assert row.split() == ["conv1(Convolution)", "4x6x6", "112", "data"]
    assert out[-2] == "Total params: 490"


def test_charts_draw_plan_and_events():
    g = infer_graph(Graph(mx.sym.tanh(mx.sym.exp(mx.sym.var("x")))._outputs), {"x": (4,)},
                    {"x": "float32"})
    plan = plan_graph(g, "forward").memory_plan
    fig = mx.viz.charts.lifetime_chart(plan)
    assert fig.axes[0].get_ylabel() == "storage id"
    mx.nd.ones((2,)) + 1
    mx.engine.wait_all()
    events = mx.engine.event_log.events()
    gantt = mx.viz.charts.gantt_chart(events)
    assert "events" in gantt.axes[0].get_title()
    assert "src='data:image/png;base64," in mx.viz.charts.figure_html(gantt)


@pytest.mark.oracle
@pytest.mark.skipif(not os.environ.get("MXLAB_MXNET_PYTHON"), reason="MXLAB_MXNET_PYTHON not set")
def test_same_output_as_mxnet():
    mxnet = subprocess.run([os.environ["MXLAB_MXNET_PYTHON"], CASE, "mxnet"], capture_output=True,
                           text=True, check=True).stdout
    root = os.path.dirname(os.path.dirname(os.path.dirname(CASE)))
    env = dict(os.environ, PYTHONPATH=root)
    ours = subprocess.run([sys.executable, CASE, "mxlab"], capture_output=True, text=True,
                          check=True, env=env).stdout
    assert ours.strip() == mxnet.strip()
