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
# NOTE: one recorded training step of the model zoo's ResNet-18 (tutorials 03 and 05 compare it
#   with MXNet's published figures)
RESNET18_STEP = """\
from mxlab.gluon.model_zoo import vision
resnet = vision.resnet18_v1()
resnet.initialize()
resnet.hybridize(static_alloc=True)
with mx.autograd.record():
    loss = resnet(mx.np.ones((1, 3, 32, 32))).sum()
loss.backward()
"""

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
    code("print(sym.graph)"),
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
    code("net(mx.np.ones((7, 5)))\n[e.trigger for e in net.cached_op.replan_log]"),
    md("""
## Why hybridize? Measure it

Run imperatively, every op goes through Python dispatch, the engine and a fresh output
allocation. Hybridized, the block runs one pre-planned graph (memory planned once, ops bulked into
segments). A chain of many small ops shows the per-op overhead best:
"""),
    code("""
import time

class Chain(mx.gluon.HybridBlock):
    def forward(self, x):
        for _ in range(50):
            x = mx.np.tanh(x) * 0.9
        return x

def per_call(block, x, repeat=20):
    block(x); mx.engine.wait_all()
    start = time.perf_counter()
    for _ in range(repeat):
        block(x)
    mx.engine.wait_all()
    return (time.perf_counter() - start) / repeat

x = mx.np.ones((8,))
imperative = per_call(Chain(), x)
chain = Chain(); chain.hybridize(static_alloc=True)
hybrid = per_call(chain, x)
print(f"imperative {imperative * 1e3:.2f} ms/call, hybridized {hybrid * 1e3:.2f} ms/call "
      f"({imperative / hybrid:.1f}x)")
""", IGNORE),
    md("""
## Build the idea yourself: a 15-line tracer

Deferred compute is *tracing*: run the Python code once on stand-in values that record each op
instead of computing it, then keep the record as a graph. A toy version with operator
overloading:
"""),
    code("""
class Traced:
    \"\"\"A stand-in value: every op on it appends (op, inputs) to a shared tape.\"\"\"
    def __init__(self, name, tape):
        self.name, self.tape = name, tape
    def _op(self, op, *inputs):
        out = Traced(f"{op}{len(self.tape)}", self.tape)
        self.tape.append((out.name, op, [getattr(i, 'name', i) for i in inputs]))
        return out
    def __mul__(self, other): return self._op('mul', self, other)
    def __add__(self, other): return self._op('add', self, other)
    def tanh(self): return self._op('tanh', self)

tape = []
a = Traced('a', tape)
y = a.tanh() * 2 + a
tape
"""),
    md("""
`mx.dc` does the same on real arrays: `set_variable` marks the inputs, `dc.context()` records,
`get_symbol` returns the graph. The toy's tape and the library's graph list the same ops:
"""),
    code("""
a = mx.np.array([1.0, 2.0])
mx.dc.set_variable(a, mx.sym.var('a').as_np_ndarray())
with mx.dc.context():
    y = mx.np.tanh(a) * 2 + a
graph = mx.dc.get_symbol(y).graph
[n.op.name for n in graph.indexed.nodes if not n.is_variable]
"""),
    md("""
### Exercise

Trace `z = exp(a) * a` with `mx.dc` and store the op names of its graph (variables left out) in
`ops`. The next cell checks your answer.
"""),
    code("""
# your code here (solution given; try it yourself first)
a = mx.np.array([0.5])
mx.dc.set_variable(a, mx.sym.var('a').as_np_ndarray())
with mx.dc.context():
    z = mx.np.exp(a) * a
ops = [n.op.name for n in mx.dc.get_symbol(z).graph.indexed.nodes if not n.is_variable]
"""),
    code("assert ops == ['exp', 'multiply'] or ops == ['exp', 'broadcast_mul'], ops\nops"),
    md("""
## A real model: ResNet-18 from the model zoo

The traced graph of `vision.resnet18_v1()` against the published figures (He et al. 2016,
[*Deep Residual Learning for Image Recognition*](https://arxiv.org/abs/1512.03385), Table 1;
MXNet's [Gluon model zoo](https://mxnet.apache.org/versions/1.9.1/api/python/docs/api/gluon/model_zoo/index.html)):
**11.7 M parameters** and **1.8 GFLOPs** per 224x224 image.
"""),
    code("""
from mxlab.gluon.model_zoo import vision
resnet = vision.resnet18_v1()
resnet.initialize()
resnet.hybridize(static_alloc=True)
resnet(mx.np.ones((1, 3, 32, 32)))     # the counts below do not depend on the image size
params = sum(p.data().size for p in resnet.collect_params().values()
             if p.grad_req != 'null')
graph = resnet.cached_op.forward_graph
convs = [n for n in graph.indexed.nodes if not n.is_variable and n.op.name == 'Convolution']
round(params / 1e6, 2), len(convs)
"""),
    md("""
## MXNet terms and their PyTorch counterparts

| MXNet / mxlab | PyTorch | what it is |
|---|---|---|
| `HybridBlock.hybridize()` | `torch.jit.trace` / `torch.compile` | trace Python into a graph, run the graph |
| deferred compute (`mx.dc`) | tracing (`torch.fx` symbolic trace, `jit.trace`) | record ops on stand-in values |
| `Symbol` | `torch.fx.Graph` / TorchScript graph | the graph as data |
| `CachedOp` | the compiled graph (`torch.compile`'s cached graph module) | planned, reusable executable |
| static alloc / memory plan | CUDA-graph memory pool, inductor buffer reuse | buffers reused by lifetime |
| engine var versions | autograd's tensor version counter | detects a read of a later-overwritten value |
"""),
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
    md("""
### Exercise

The naive figure is what the graph would take with one buffer per entry. Compute it yourself
from `plan.entries` (each has `storage_id` and `nbytes`; inputs and outputs the caller owns
have negative storage ids and do not count) and store it in `naive`.
"""),
    code("""
plan = op.memory_plan('backward')
# your code here (solution given; try it yourself first)
naive = sum(e.nbytes for e in plan.entries if e.storage_id >= 0)
"""),
    code("assert naive == plan.naive_bytes\nnaive, plan.planned_bytes"),
    md("""
## A real model next to MXNet's published figure

MXNet's memory planner and its mirror (recompute) option come from Chen, Xu, Zhang and Guestrin,
[*Training Deep Nets with Sublinear Memory Cost*](https://arxiv.org/abs/1604.06174)
(arXiv:1604.06174, 2016), whose abstract reports reducing *"the memory cost of a 1,000-layer deep
residual network from 48G to 7G"* (about 6.9x) for about 30% more running time. MXNet's design
note [Optimizing Memory Consumption in Deep Learning](https://mxnet.apache.org/versions/1.9.1/api/architecture/note_memory)
explains the in-place and co-share steps used here. The same planning on the model zoo's
ResNet-18 (training graph, batch 1, 32x32 images):
"""),
    code(RESNET18_STEP + """plans = [resnet.cached_op.memory_plan(k) for k in ('full', 'backward')]
naive = sum(p.naive_bytes for p in plans)
planned = sum(p.planned_bytes for p in plans)
r18 = mx.notebook.explore(resnet)                    # its full (training) graph
full = r18.model.replan().planned_bytes
mirrored = r18.model.replan(recompute=True).planned_bytes
print(f"ResNet-18: naive {naive / 1e6:.2f} MB, planned {planned / 1e6:.2f} MB "
      f"({naive / planned:.1f}x); full graph {full / 1e6:.3f} MB, "
      f"with mirror {mirrored / 1e6:.3f} MB ({full / mirrored:.2f}x)")
"""),
    md("""
Sharing alone makes ResNet-18's training step about 3x smaller than one buffer per entry. The mirror saves
far less than the paper's 6.9x: its gain grows like the square root of the depth, and 18 layers
keep few activations to drop. (The paper measured 1,000 layers at ImageNet size on a GPU; these
are a CPU re-make's bytes at batch 1, so compare the ratios, not the sizes.)
"""),
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
    md("""
### Exercise

Which original nodes went into subgraph 0, and which entries cross into it from outside? Read
them off `part` (`part.subgraphs`, `part.inputs`) into `members` and `boundary`.
"""),
    code("""
# your code here (solution given; try it yourself first)
members, boundary = sorted(part.subgraphs[0]), sorted(part.inputs[0])
"""),
    code("assert 'e' in members and 'c' not in members\nmembers, boundary"),
    md("""
## A real model next to MXNet's published figure

MXNet's tutorial [Optimizing Deep Learning Computation Graphs with
TensorRT](https://mxnet.apache.org/versions/1.9.1/api/python/docs/tutorials/performance/backend/tensorrt/tensorrt.html)
partitions the model zoo's ResNet-18 v2 with the Subgraph API. It reports that *"the entire
Resnet graph is supported by TensorRT, and hence the optimized graph would be a single TensorRT
node"*, and that 10,000 inference calls at batch 1x3x224x224 on an RTX 2070 took **17.20 s**
plain and **9.83 s** partitioned, *"a 1.75x speed improvement"* coming from operator fusion
(TensorRT also ran in fp16). Here the same model goes to the `default` backend with every op type
it contains:
"""),
    code("""
from mxlab.gluon.model_zoo import vision

x = mx.nd.ones((1, 3, 64, 64))
plain, parted = vision.resnet18_v2(), vision.resnet18_v2()
for net in (plain, parted):
    net.initialize()
    net(x)                                           # parameters get their shapes
for mine, theirs in zip(plain.collect_params().values(), parted.collect_params().values()):
    theirs.set_data(mine.data())
plain.hybridize(static_alloc=True, static_shape=True)
want = plain(x)
graph = plain.cached_op.symbol.graph
op_types = sorted({n.op.name for n in graph.indexed.nodes if n.op is not None})
parted.optimize_for(x, backend='default', op_names=op_types, static_alloc=True, static_shape=True)
got = parted(x)
ops_after = [n.op.name for n in parted.cached_op.symbol.graph.indexed.nodes if n.op is not None]
assert ops_after == ['_default_subgraph_op']          # one node, as TensorRT's
mx.test_utils.assert_almost_equal(got, want)
sum(n.op is not None for n in graph.indexed.nodes), ops_after
"""),
    code("""
import time

def seconds_per_call(net, repeat=5):
    net(x).wait_to_read()
    start = time.perf_counter()
    for _ in range(repeat):
        net(x).wait_to_read()
    return (time.perf_counter() - start) / repeat

rounds = [(seconds_per_call(plain), seconds_per_call(parted)) for _ in range(3)]
ratio = sorted(a / b for a, b in rounds)[1]
print(f"plain / partitioned (median of 3 rounds): {ratio:.2f}x   MXNet + TensorRT: 1.75x")
""", IGNORE),
    md("""
One node replaces all 69, the answer is unchanged, and the speed is about the same (a ratio near
1.0 here). Partitioning alone moves no arithmetic: the `default` backend runs the subgraph through a
static CachedOp, the same kernels in the same order. TensorRT's 1.75x comes from what its backend
does *inside* the node: Convolution + BatchNorm + Activation fused into one kernel per block,
fp16 arithmetic. A backend is where such work goes: the `fuse` backend (`mx.subgraph`) fuses
chains of elementwise ops, and `extensions/` shows how to register your own.
"""),
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
v0 = a.version
a += 1
a *= 2
mx.engine.wait_all()
a.version - v0, a.asnumpy()
"""),
    code("""
events = mx.engine.event_log.events()
[(e.name, len(e.reads), len(e.writes)) for e in events]
"""),
    md("""
Why does `a += 1` log `reads=()`? The op reads *and* writes `a`; MXNet's engine lists a var
that an op writes only among its mutable vars (it drops it from the read set), because a write
already orders the op after every earlier read and write of that var:
"""),
    code("[(e.name, e.reads, e.writes) for e in events if e.name.endswith('_scalar')]"),
    md("""
## Overlap and a write waiting on a read (ThreadedEngine)

The default NaiveEngine runs every op at once on the calling thread. The ThreadedEngine runs ops
on worker threads as soon as their vars allow: two products that share no var may overlap, and
`a += 1` (a write of `a`) always waits until `dot(a, a)` has read `a`:
"""),
    code("""
mx.engine.set_engine('ThreadedEngine')
mx.engine.event_log.clear()
a = mx.nd.random.uniform(shape=(500, 500))
b = mx.nd.random.uniform(shape=(500, 500))
c = mx.nd.dot(a, a)          # reads a
d = mx.nd.dot(b, b)          # independent: may run at the same time on another thread
a += 1                       # writes a: must wait for dot(a, a)
mx.engine.wait_all()
events = mx.engine.event_log.events()
dot_a = next(e for e in events if e.name == 'dot' and e.reads[0][0] == a._var.id)
dot_b = next(e for e in events if e.name == 'dot' and e is not dot_a)
write_a = next(e for e in events if e.name == '_plus_scalar')
# guaranteed: the products share no var, and the write of a starts after dot(a, a) ended
vars_a, vars_b = ({var for var, _ in e.reads + e.writes} for e in (dot_a, dot_b))
vars_a.isdisjoint(vars_b), write_a.start >= dot_a.end
"""),
    md("""
Whether the two products actually ran on two threads at once depends on the scheduler (on a
busy machine one worker may take both), so the next cell's answer varies from run to run:
"""),
    code("len({e.thread for e in events}) > 1", IGNORE),
    md("""
### Exercise

From `events`, find the pairs of ops that ran at the same time on different threads (their
`[start, end]` intervals intersect) and store them as a set of name pairs in `overlapping`.
"""),
    code("""
# your code here (solution given; try it yourself first)
overlapping = {(e.name, f.name) for e in events for f in events
               if e.thread != f.thread and e.start < f.end and f.start < e.end}
"""),
    code("""
from mxlab.notebook.replay import ReplayModel
expected = {(s['name'], o) for s in ReplayModel(events).steps for o in s['overlap']}
assert overlapping == expected, (overlapping, expected)
len(overlapping) > 0
""", IGNORE),
    md("""
## Replay the engine step by step

`mx.notebook.replay()` steps through the recorded events in push order (press play or drag the
slider): each step says what the op read and wrote (`v<var>@<version>`, versions before and
after), which buffers are live and which ops overlapped it on other threads. Given a CachedOp or
block, it highlights the running node on its graph.
"""),
    code("mx.notebook.replay(events=events)", IGNORE),
    code("threaded = mx.engine.set_engine('NaiveEngine')   # back to the default"),
    md("`%mx_engine on` shows a live view (Gantt per thread, versions over time) refreshed after "
       "every cell:"),
    code("%mx_engine on", IGNORE),
    code("b = mx.nd.ones((3,)) * 3\nb.asnumpy()"),
    code("%mx_engine off"),
    md("""
## A real model next to MXNet's published figure

MXNet runs a training graph in *bulk segments*: runs of ops pushed to the engine as one item.
Its documentation gives the bound: `MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN` is *"the maximum number of
nodes in the subgraph executed in bulk during training"*, **default 15**
([MXNet environment variables, "Execution Options"](https://mxnet.apache.org/versions/1.9.1/api/faq/env_var)).
The model zoo's ResNet-18, one recorded training step:
"""),
    code("import collections\n" + RESNET18_STEP + """segments = list(resnet.cached_op.segments('full')) + list(resnet.cached_op.segments('backward'))
sizes = [len(s.names) for s in segments]
assert max(sizes) <= 15                              # MXNet's documented default bound
len(segments), max(sizes), collections.Counter(s.reason for s in segments).most_common(3)
"""),
    md("""
No segment reaches MXNet's 15: a segment also ends where the bound is not the limit (the
reasons above), so a convolutional network's segments stay shorter than the default allows.
"""),
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
    md("""
## How costly is the setup? Time a miss against a hit

A miss builds the per-signature state; a hit reuses it. Clearing
the cache before each call forces misses:
"""),
    code("""
import time

def conv_time(clear, repeat=30):
    x = mx.nd.ones((1, 8, 32, 32))
    w = mx.nd.ones((8, 8, 3, 3))
    mx.nd.Convolution(x, w, kernel=(3, 3), num_filter=8, no_bias=True).wait_to_read()
    start = time.perf_counter()
    for _ in range(repeat):
        if clear:
            mx.op_cache.clear()
        mx.nd.Convolution(x, w, kernel=(3, 3), num_filter=8, no_bias=True).wait_to_read()
    return (time.perf_counter() - start) / repeat

miss, hit = conv_time(clear=True), conv_time(clear=False)
print(f"miss {miss * 1e3:.2f} ms, hit {hit * 1e3:.2f} ms per call")
""", IGNORE),
    md("""
### Exercise

A cache key holds the op, its attributes, shapes, dtypes and device. Predict how many *new*
misses these three calls cause, store it in `predicted`, then run the check.
"""),
    code("""
mx.op_cache.clear()
x8, x9 = mx.nd.ones((1, 2, 8, 8)), mx.nd.ones((1, 2, 9, 9))
w = mx.nd.ones((4, 2, 3, 3))
calls = [(x8, (3, 3)), (x8, (3, 3)), (x9, (3, 3))]
predicted = 2          # your answer
"""),
    code("""
for data, kernel in calls:
    mx.nd.Convolution(data, w, kernel=kernel, num_filter=4, no_bias=True)
assert mx.op_cache.info()['Convolution'].misses == predicted
predicted
"""),
    md("""
## A real model next to MXNet's published figure

The cache was MXNet's fix ([PR #10116](https://github.com/apache/mxnet/pull/10116)) for a
regression ([issue #9874](https://github.com/apache/mxnet/issues/9874)): after a refactor, cuDNN
convolution state was rebuilt on every call, and ResNet-50 training on 8 V100 GPUs fell from
**5,971 to 5,740** samples/s on synthetic data (about 4%). The PR's own measurement read
**5,034** samples/s without its changes, **5,201** with them, against **5,252** before the
refactor. Here is the model zoo's ResNet-18, trained imperatively so every Convolution, BatchNorm
and Pooling call consults the cache:
"""),
    code("""
import os
from mxlab.gluon.model_zoo import vision

resnet = vision.resnet18_v1()
resnet.initialize()
images = mx.nd.ones((2, 3, 32, 32))

def train_step():
    with mx.autograd.record():
        loss = resnet(images).sum()
    loss.backward()
    mx.nd.waitall()

train_step()                    # the first step builds one entry per signature
mx.op_cache.reset_stats()
train_step()                    # the second finds them all
info = mx.op_cache.info()
assert info.hit_rate == 1.0 and info['Convolution'].misses == 0
info
"""),
    code("""
def seconds_per_step(cached, repeat=2):
    with mx.op_cache.enable() if cached else mx.op_cache.disable():
        start = time.perf_counter()
        for _ in range(repeat):
            train_step()
    return (time.perf_counter() - start) / repeat

on, off = seconds_per_step(True), seconds_per_step(False)
autotune = os.environ.get('MXNET_CUDNN_AUTOTUNE_DEFAULT', '1')
print(f"ResNet-18 step: cache on {on * 1e3:.0f} ms, off {off * 1e3:.0f} ms "
      f"({off / on:.1f}x slower off; conv autotune {autotune})")
""", IGNORE),
    md("""
The loss here is far larger than MXNet's 4%. MXNet's rebuilt state was a few cuDNN descriptors,
microseconds against milliseconds of GPU kernels; here a miss re-plans the convolution in Python
and, with `MXNET_CUDNN_AUTOTUNE_DEFAULT` on (the default), times the candidate algorithms again,
on every call. The cache matters the more, the costlier a plan is next to the kernel it plans.
Try it: set `os.environ['MXNET_CUDNN_AUTOTUNE_DEFAULT'] = '0'` and run the timing again.
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

NOTEBOOKS["09_onnx_migration"] = [
    md("""
# Leaving MXNet: checkpoints to ONNX

MXNet is retired, but its checkpoints (`-symbol.json` + `.params`) need not be. mxlab loads
them, shows what is inside, and `mx.onnx.export_model` (MXNet 1.9's signature) writes them as
standard ONNX files that onnxruntime, TensorRT, OpenVINO or PyTorch can take. This notebook
walks the path end to end on a checkpoint written by real MXNet 1.9.1, then times a ResNet-18
both ways. Export and import need `pip install 'mxlab[onnx]'` (onnxruntime to run the file).
"""),
    SETUP,
    md("## 1. Load the MXNet checkpoint"),
    code("""
import pathlib, tempfile, time
import numpy as np
import onnx, onnxruntime as ort

fixture = pathlib.Path('../tests/gluon/fixtures/mxnet191')   # written by MXNet 1.9.1
prefix = str(fixture / 'net')
sym = mx.sym.load(prefix + '-symbol.json')
params = mx.nd.load(prefix + '-0000.params')
sym.list_arguments(), sym.list_auxiliary_states()
"""),
    code("mx.viz.print_summary(sym, shape={'data': (2, 2, 6, 6)})"),
    md("""
## 2. Look inside with the explorer

Shapes, the memory plan and each node's attributes: click a node, or script the same state.
"""),
    code("ex = mx.notebook.explore(sym, shapes={'data': (2, 2, 6, 6)})\nex", IGNORE),
    code("""
bn = ex.model.select('hybridsequential0_batchnorm0_fwd')
bn['op'], bn['outputs'][0]['shape']
"""),
    md("""
## 3. Export to ONNX

The same call as in MXNet 1.9 (paths or objects). `dynamic=True` leaves the batch axis open.
"""),
    code("""
tmp = pathlib.Path(tempfile.mkdtemp())
path = mx.onnx.export_model(prefix + '-symbol.json', prefix + '-0000.params', [(2, 2, 6, 6)],
                            np.float32, str(tmp / 'net.onnx'), dynamic=True)
model = onnx.load(path)
onnx.checker.check_model(model)
[(n.op_type, n.name) for n in model.graph.node]
"""),
    code("[d.dim_param or d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]"),
    md("""
## 4. Run it in onnxruntime and compare

`io.npz` holds an input and the output MXNet 1.9.1 computed for it.
"""),
    code("""
io = np.load(fixture / 'io.npz')
session = ort.InferenceSession(path, providers=['CPUExecutionProvider'])
onnx_out = session.run(None, {'data': io['x']})[0]
block = mx.gluon.SymbolBlock.imports(prefix + '-symbol.json', ['data'], prefix + '-0000.params')
mxlab_out = block(mx.nd.array(io['x'])).asnumpy()
print('onnxruntime vs MXNet 1.9.1 within 1e-5:', np.abs(onnx_out - io['y']).max() < 1e-5)
print('onnxruntime vs mxlab       within 1e-5:', np.abs(onnx_out - mxlab_out).max() < 1e-5)
"""),
    md("""
## 5. ONNX back into mxlab

`mx.onnx.import_model` gives a Symbol and parameters (MXNet's `mx.contrib.onnx` names work
too), so every explorer view works on an ONNX file as well.
"""),
    code("""
imported, arg_params, aux_params = mx.onnx.import_model(path)
again = imported.eval(mx.cpu(), data=mx.nd.array(io['x']), **arg_params, **aux_params)[0]
bool(np.abs(again.asnumpy() - io['y']).max() < 1e-5), sorted(aux_params)
"""),
    code("mx.notebook.explore(imported, shapes={'data': (4, 2, 6, 6)})", IGNORE),
    md("""
## 6. Time both: ResNet-18

A model-zoo ResNet-18 saved as a checkpoint, exported, and run at batch 8 (32x32 images) in
mxlab and in onnxruntime. mxlab is built to be watched; onnxruntime is built to serve.
"""),
    code("""
net = mx.gluon.model_zoo.vision.resnet18_v1(classes=10)
net.initialize(mx.init.Xavier())
net.hybridize()
x = np.random.default_rng(0).uniform(size=(8, 3, 32, 32)).astype('float32')
expected = net(mx.np.array(x)).asnumpy()
checkpoint = net.export(str(tmp / 'resnet18'))      # the -symbol.json / .params pair
start = time.perf_counter()
path18 = mx.onnx.export_model(*checkpoint, [(8, 3, 32, 32)], np.float32,
                              str(tmp / 'resnet18.onnx'), dynamic=True)
export_s = time.perf_counter() - start
session18 = ort.InferenceSession(path18, providers=['CPUExecutionProvider'])
bool(np.abs(session18.run(None, {'data': x})[0] - expected).max() < 1e-5)
"""),
    code("""
def best_ms(run, repeat=5):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return 1000 * min(times)

mxlab_ms = best_ms(lambda: net(mx.np.array(x)).asnumpy())
onnx_ms = best_ms(lambda: session18.run(None, {'data': x}))
print(f'export {export_s:.2f} s; per batch of 8: mxlab {mxlab_ms:.1f} ms, '
      f'onnxruntime {onnx_ms:.1f} ms ({mxlab_ms / onnx_ms:.0f}x)')
""", IGNORE),
]


NOTEBOOKS["08_data_parallel_mpi"] = [
    md("""
# Data-parallel training on MPI

`kvstore='dist_sync'` trains one model in several processes: each worker computes the gradients
of its slice of the batch, the store sums them over the workers with an MPI allreduce
(mpi4py, `pip install 'mxlab[dist]'`), and every worker applies the same update, so the replicas
stay identical. The script is launched the standard way:

```
mpiexec -n 2 python notebooks/data_parallel_train.py --steps 20 --batch 256
```

Here the notebook drives `mpiexec` in a subprocess, once with 1 process and once with 2, on the
same global batch of 256, under the threaded engine (`MXNET_ENGINE_TYPE=ThreadedEngine`).
"""),
    SETUP,
    code("""
import json, os, shutil, subprocess, sys, tempfile
import numpy

MPIEXEC = shutil.which('mpiexec', path=os.path.dirname(sys.executable)) or shutil.which('mpiexec')
SCRIPT = os.path.abspath('data_parallel_train.py')

def launch(workers, steps=12, batch=256):
    \"\"\"Run the script under `mpiexec -n workers`; rank 0's record (times, losses, events).\"\"\"
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'run.json')
        env = dict(os.environ, MXNET_ENGINE_TYPE='ThreadedEngine', OPENBLAS_NUM_THREADS='1')
        command = [MPIEXEC, '-n', str(workers), sys.executable, SCRIPT,
                   '--steps', str(steps), '--batch', str(batch), '--json', out]
        subprocess.run(command, env=env, check=True, timeout=300, capture_output=True)
        with open(out) as fin:
            return json.load(fin)

runs = {workers: launch(workers) for workers in (1, 2)}
"""),
    md("""
## Same learning, one or two processes

With `dist_sync` the Trainer rescales the summed gradient by `1 / (batch_size * num_workers)`,
so two workers on 128 samples each take exactly the step one process takes on all 256:
"""),
    code("""
numpy.allclose(runs[1]['loss'], runs[2]['loss'], rtol=1e-4), round(runs[2]['loss'][-1], 3)
"""),
    md("""
## Scaling on this machine

Median seconds per step (a small shared machine: the two workers compete for the same cores,
so do not expect 2x here; on separate cores or machines the compute halves while the allreduce
adds the transfer of the gradients):
"""),
    code("""
{workers: round(float(numpy.median(run['step_s'][2:])), 4) for workers, run in runs.items()}
""", IGNORE),
    md("""
## The engine view of one step

Each allreduce is an engine op (`kv_allreduce:<key>`, one colour in the chart) that writes its
gradient and the communicator's var. The Trainer pushes them last layer first, the order backward
produces the gradients, so an allreduce can run while backward of the earlier layers is still
going; the communicator's var keeps every MPI call in push order on every rank. Rank 0's last
step:
"""),
    code("""
events = [mx.engine.EngineEvent(**e) for e in runs[2]['events']]
[e.name for e in sorted(events, key=lambda e: e.push_seq) if e.name.startswith('kv_')]
"""),
    code("""
from IPython.display import HTML
from mxlab.viz.charts import figure_html, gantt_chart
HTML(figure_html(gantt_chart(events, title='rank 0, one data-parallel step')))
""", IGNORE),
    md("How much of the allreduce time ran while the gradient computation was still going:"),
    code("""
first_kv = min(e.push_seq for e in events if e.name.startswith('kv_'))
compute_end = max(e.end for e in events
                  if e.push_seq < first_kv and not e.name.startswith('_copy'))
allreduce = [e for e in events if e.name.startswith('kv_allreduce')]
overlapped = sum(max(0.0, min(e.end, compute_end) - e.start) for e in allreduce)
round(overlapped / sum(e.duration for e in allreduce), 2)
""", IGNORE),
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
