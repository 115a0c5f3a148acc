"""Build the tutorial notebooks from the cell lists below and execute them (outputs stored).

Usage: ``python notebooks/build.py [name ...]`` (default: all). Each notebook is written with
nbformat and executed in place with nbclient, so ``pytest --nbval notebooks/`` compares against
fresh outputs. Cells tagged ``nbval-ignore-output`` show widgets or timings.
"""
import os
import sys

import nbformat
from nbclient import NotebookClient

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
IGNORE = "nbval-ignore-output"


def md(text):
    return ("md", text.strip(), ())


def code(text, *tags):
    return ("code", text.strip(), tags)


SETUP = code("import mxlab as mx\n%load_ext mxlab")

NOTEBOOKS = {}

NOTEBOOKS["00_quick_tour"] = [
    md("""
# mxlab in five minutes

mxlab re-makes MXNet's execution core in Python on NumPy, with MXNet's API
(`import mxlab as mx`). Every internal artefact — traced graph, memory plan, bulk segments,
engine events — is a plain Python object, and the notebook layer draws them.
"""),
    SETUP,
    code("a = mx.np.arange(6).reshape(2, 3)\nb = mx.np.ones((2, 3))\na * b + 1"),
    md("""
## Hybridize a cell

`%%hybridize` traces the cell with deferred compute, builds a CachedOp, runs it, binds `f(a, b)`
and the outputs, and opens the graph explorer. Click a node to see its shapes, storage and
segment; switch views with the buttons.
"""),
    code("%%hybridize --static-alloc --name f\nc = mx.np.tanh(a) * b + a", IGNORE),
    code("f(a, b)"),
    code("f.cached_op.memory_plan('forward')"),
    md("## MXNet's visualization API"),
    code("""
net = mx.sym.var('data')
net = mx.sym.FullyConnected(net, num_hidden=16, name='fc1')
net = mx.sym.Activation(net, act_type='relu', name='relu1')
net = mx.sym.FullyConnected(net, num_hidden=4, name='fc2')
mx.viz.print_summary(net, shape={'data': (1, 8)})
"""),
    code("mx.viz.plot_network(net, shape={'data': (1, 8)})"),
    md("The explorer opens on any Symbol too (give shapes to see its memory plan):"),
    code("ex = mx.notebook.explore(net, shapes={'data': (1, 8)})\nex", IGNORE),
    code("ex.model.select('fc1')['outputs'][0]['shape']"),
]

NOTEBOOKS["01_ndarray_and_autograd"] = [
    md("""
# Arrays and autograd

`mx.np` follows NumPy; `mx.nd` keeps MXNet's legacy semantics. `autograd.record()` tapes the
ops so `backward()` can fill `x.grad`.
"""),
    SETUP,
    code("x = mx.np.array([[1.0, 2.0], [3.0, 4.0]])\nx.shape, x.dtype"),
    code("(x @ x.T).asnumpy()"),
    code("""
x.attach_grad()
with mx.autograd.record():
    y = (x * x).sum()
y.backward()
x.grad
"""),
    md("The gradient of $\\sum x^2$ is $2x$. Higher-order gradients work as well:"),
    code("""
z = mx.np.array([0.5])
z.attach_grad()
with mx.autograd.record():
    g = mx.autograd.grad(mx.np.sin(z), [z], create_graph=True)[0]
g.backward()
float(g), float(z.grad)
"""),
]

NOTEBOOKS["02_deferred_compute_and_hybridize"] = [
    md("""
# Deferred compute and hybridize

Under `mx.dc.context()` ops are recorded as graph nodes (shapes known, data lazy);
`get_symbol` turns the record into a Symbol. `HybridBlock.hybridize()` does exactly this on the
block's `forward`, then runs the graph as a CachedOp.
"""),
    SETUP,
    code("""
a = mx.np.array([0.0, 1.0, 2.0])
mx.dc.set_variable(a, mx.sym.var('a').as_np_ndarray())
with mx.dc.context():
    b = mx.np.exp(a) * 2 + 1
sym = mx.dc.get_symbol(b)
sym.list_arguments(), b.shape
"""),
    code("print(mx.graph.Graph(sym._outputs))"),
    code("""
class Net(mx.gluon.HybridBlock):
    def __init__(self):
        super().__init__()
        self.dense0 = mx.gluon.nn.Dense(8)
        self.dense1 = mx.gluon.nn.Dense(2)

    def forward(self, x):
        return self.dense1(mx.npx.relu(self.dense0(x)))

net = Net()
net.initialize()
net.hybridize(static_alloc=True)
out = net(mx.np.ones((4, 5)))
out.shape
"""),
    md("The explorer opens on the block: parameters are grouped by block prefix."),
    code("mx.notebook.explore(net)", IGNORE),
    md("A new input shape re-plans the CachedOp; the log says why:"),
    code("net(mx.np.ones((7, 5)))\n[e.trigger for e in net._cached_op.replan_log]"),
]

NOTEBOOKS["03_cachedop_and_memory_planning"] = [
    md("""
# CachedOp and memory planning

A CachedOp plans three graphs as MXNet does: `forward` (inference), `full` (forward part of
the gradient graph, run while recording) and `backward`. Each plan gives every entry a storage
block; entries whose lifetimes do not overlap share a block.
"""),
    SETUP,
    code("""
x = mx.sym.var('x')
y = x
for i in range(6):
    y = mx.sym.tanh(y, name=f't{i}')
op = mx.executor.CachedOp(y, {'static_alloc': True})
data = mx.nd.ones((256,))
data.attach_grad()
with mx.autograd.record():
    out = op(data)
out.backward()
op(data)                      # an inference call plans the forward graph
sorted(op.info()['plans'])
"""),
    code("print(op.memory_plan('forward').to_text(op.forward_graph))"),
    code("op.memory_plan('backward').summary()"),
    md("""
Planner knobs as a what-if. `match_range` bounds how different in size two entries may be to
share a block; `match_range=0` turns sharing off. In the `full` graph (the forward pass while
recording) every tanh output is kept for the backward pass, so nothing can share and the knob
changes nothing:
"""),
    code("""
ex = mx.notebook.explore(op, kind='full')
ex.model.replan(match_range=16).planned_bytes, ex.model.replan(match_range=0).planned_bytes
"""),
    md("""
The backward graph's gradients die as soon as the next one is computed, so they can share -
unless `match_range=0` forbids it:
"""),
    code("""
ex.model.set_kind('backward')
shared = ex.model.replan(match_range=16).planned_bytes
alone = ex.model.replan(match_range=0).planned_bytes
assert alone > shared
shared, alone
"""),
    md("The explorer shows the knob in force (match range 0) and a reset button:"),
    code("ex.model.set_view('memory')\nex", IGNORE),
    code("[(s.names, s.reason) for s in op.segments('backward')][:3]"),
]

NOTEBOOKS["04_subgraph_partitioning"] = [
    md("""
# Subgraph partitioning

A backend selects parts of a graph; each part becomes one subgraph node. The `Partition`
object says which node went where, the boundary entries and any exclusions.
"""),
    SETUP,
    code("""
x = mx.sym.var('data')
e = mx.sym.exp(x, name='e')
y = mx.sym.cos(e, name='c') + mx.sym.sin(e, name='s')
sym, part = mx.subgraph.partition(y, 'default', op_names=['exp', 'sin', 'elemwise_add'])
print(part)
"""),
    code("part.subgraphs, sym.list_inputs() == y.list_inputs()"),
    md("The Partitions view draws each subgraph as a coloured cluster, boundary edges in red:"),
    code("ex = mx.notebook.explore(y, partition=part)\nex.model.set_view('partitions')\nex",
         IGNORE),
    code("ex.model.select('s')['subgraph']"),
]

NOTEBOOKS["05_engine_and_variable_versions"] = [
    md("""
# The engine and variable versions

Every array has an engine variable; each write bumps its version. The engine log records every
op with the `(var, version)` pairs it read and wrote, the thread and the times.
"""),
    SETUP,
    code("""
mx.engine.event_log.clear()
a = mx.nd.ones((3,))
v0 = a._var.version
a += 1
a *= 2
mx.engine.wait_all()
a._var.version - v0, a.asnumpy()
"""),
    code("""
events = mx.engine.event_log.events()
[(e.name, len(e.reads), len(e.writes)) for e in events]
"""),
    md("`%mx_engine on` shows a live view (Gantt per thread, versions over time) refreshed after "
       "every cell:"),
    code("%mx_engine on", IGNORE),
    code("b = mx.nd.ones((3,)) * 3\nb.asnumpy()"),
    code("%mx_engine off"),
]

NOTEBOOKS["06_op_state_cache"] = [
    md("""
# The op-state cache

Ops with costly per-shape setup (Convolution, Pooling, BatchNorm) keep a plan per signature
(op, attributes, shapes, dtypes, device). Repeated calls hit the cache.
"""),
    SETUP,
    code("""
mx.op_cache.clear()
x = mx.nd.ones((1, 2, 8, 8))
w = mx.nd.ones((4, 2, 3, 3))
for _ in range(3):
    y = mx.nd.Convolution(x, w, kernel=(3, 3), num_filter=4, no_bias=True)
stats = mx.op_cache.info()['Convolution']
stats.misses, stats.hits
"""),
    code("""
y = mx.nd.Convolution(mx.nd.ones((1, 2, 10, 10)), w, kernel=(3, 3), num_filter=4, no_bias=True)
mx.op_cache.info()['Convolution'].misses
"""),
]

NOTEBOOKS["07_training_a_cnn_with_gluon"] = [
    md("""
# Training a small CNN with Gluon

Synthetic data (no downloads): class 1 images have a bright square, class 0 do not.
"""),
    SETUP,
    code("""
import numpy

rng = numpy.random.default_rng(0)
labels = rng.integers(0, 2, size=64)
images = rng.normal(0, 0.1, size=(64, 1, 8, 8)).astype('float32')
images[labels == 1, :, 2:6, 2:6] += 1.0
X, Y = mx.np.array(images), mx.np.array(labels.astype('float32'))
"""),
    code("""
net = mx.gluon.nn.HybridSequential()
net.add(mx.gluon.nn.Conv2D(4, kernel_size=3, activation='relu'),
        mx.gluon.nn.MaxPool2D(2),
        mx.gluon.nn.Dense(2))
net.initialize(mx.init.Xavier())
net.hybridize(static_alloc=True)
loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.5})
"""),
    code("""
losses = []
for epoch in range(15):
    with mx.autograd.record():
        loss = loss_fn(net(X), Y).mean()
    loss.backward()
    trainer.step(1)
    losses.append(float(loss))
print(f"epoch 1 loss {losses[0]:.3f} -> epoch 15 loss {losses[-1]:.3f}")
""", IGNORE),
    md("The loss per epoch (one full-batch SGD step each):"),
    code("""
import matplotlib.pyplot as plt
plt.figure(figsize=(5, 2.5))
plt.plot(range(1, 16), losses, marker='o')
plt.xlabel('epoch'); plt.ylabel('mean cross-entropy'); plt.title('training loss')
plt.show()
""", IGNORE),
    code("losses[-1] < losses[0] / 2"),
    code("accuracy = float((net(X).argmax(axis=1) == Y).mean())\naccuracy > 0.9"),
    code("mx.notebook.explore(net)", IGNORE),
]


def build(name):
    cells = []
    for kind, text, tags in NOTEBOOKS[name]:
        maker = nbformat.v4.new_markdown_cell if kind == "md" else nbformat.v4.new_code_cell
        cell = maker(text)
        if tags:
            cell.metadata["tags"] = list(tags)
        cells.append(cell)
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    env_path = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = ROOT + (os.pathsep + env_path if env_path else "")
    NotebookClient(nb, timeout=120, kernel_name="python3", store_widget_state=False,
                   resources={"metadata": {"path": HERE}}).execute()
    path = os.path.join(HERE, f"{name}.ipynb")
    nbformat.write(nb, path)
    return path


if __name__ == "__main__":
    failed = []
    for notebook in sys.argv[1:] or NOTEBOOKS:
        try:
            print("built", build(notebook))
        except Exception as exc:  # noqa: BLE001  (report every notebook, then fail)
            failed.append(notebook)
            print(f"FAILED {notebook}: {str(exc)[-2000:]}")
    sys.exit(1 if failed else 0)
