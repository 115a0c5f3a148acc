"""How cost grows: planning time against graph size, and per-call overhead against batch size.

Planning (the ``planning`` workload): a training graph of ``FullyConnected + tanh`` layers (the
:mod:`benchmarks.memory_plan` network, narrow so that only the graph's size matters) at about 1k,
10k and 100k nodes, timed pass by pass -- gradient (``build_gradient_graph``), infer
(``infer_shape`` + ``infer_type``), ``plan_memory`` and ``plan_segments`` -- plus their total
and the total per node (flat when planning is linear). A ``budget`` row of 1 s lets the targets
block check that a 10k-node graph plans in under a second.

Overhead (the ``overhead`` workload): a static hybridized 784-256-128-10 MLP's forward against
the same forward in hand-written NumPy at batch 1 to 1024; the difference is mxlab's per-call
cost, which stays flat as the batch grows.
"""
import time

import numpy

from . import models
from .timing import Candidate, Row

__all__ = ["NODE_COUNTS", "run_planning", "overhead_candidates", "OVERHEAD_BATCHES"]

NODE_COUNTS = (1_000, 10_000, 100_000)
OVERHEAD_BATCHES = (1, 16, 256, 1024)
BUDGET_MS = 1000.0
_WIDTH = 16


def _time_passes(depth):
    """Milliseconds per planning pass on the ``depth``-layer training graph; its node count."""
    from mxlab.graph import apply_pass
    from mxlab.graph.gradient import build_gradient_graph

    from .memory_plan import infer, mlp
    forward = infer(mlp(depth, _WIDTH), 4, _WIDTH)
    idx = forward.indexed
    params = [idx[n].name for n in idx.input_nodes if idx[n].name != "data"]
    times = {}
    start = time.perf_counter()
    full = build_gradient_graph(forward, xs=params)
    times["gradient"] = time.perf_counter() - start
    start = time.perf_counter()
    full = infer(full, 4, _WIDTH)
    times["infer"] = time.perf_counter() - start
    start = time.perf_counter()
    full = apply_pass(full, "plan_memory", external_outputs=True)
    times["plan_memory"] = time.perf_counter() - start
    start = time.perf_counter()
    apply_pass(full, "plan_segments")
    times["segments"] = time.perf_counter() - start
    return {k: v * 1e3 for k, v in times.items()}, full.indexed.num_nodes


def run_planning(opts):
    """Planning time (ms) of each pass on training graphs of ~1k, 10k and 100k nodes."""
    rows = []
    counts = NODE_COUNTS[:2] if opts.quick else NODE_COUNTS
    _, probe = _time_passes(10)     # nodes of a 10-layer training graph, to size the others
    for count in counts:
        depth = max(1, round(count * 10 / probe))
        best = None
        for _ in range(1 if count > 10_000 else 3):   # best of a few: the machine is shared
            times, nodes = _time_passes(depth)
            if best is None or sum(times.values()) < sum(best.values()):
                best = times
        case = f"{count // 1000}k nodes ({nodes})"
        rows += [Row("planning", case, name, value, unit="ms") for name, value in best.items()]
        total = sum(best.values())
        rows += [Row("planning", case, "total", total, unit="ms"),
                 Row("planning", case, "total per 1k nodes", total / nodes * 1e3, unit="ms"),
                 Row("planning", case, "budget", BUDGET_MS, unit="ms")]
    return rows


def _numpy_mlp_forward(batch):
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal((batch, models.MLP_SIZES[0])).astype("float32")
    params = [(rng.standard_normal((o, i)) / i ** 0.5).astype("float32")
              for i, o in zip(models.MLP_SIZES, models.MLP_SIZES[1:])]

    def step():
        h = x
        for i, w in enumerate(params):
            h = h @ w.T
            if i + 1 < len(params):
                h = numpy.maximum(h, 0)
        return h
    return step


def _mxlab_mlp_forward(batch):
    import mxlab as mx
    gluon = models.require_gluon(mx, "nn.Dense")
    net = gluon.nn.HybridSequential()
    for size in models.MLP_SIZES[1:-1]:
        net.add(gluon.nn.Dense(size, activation="relu", use_bias=False))
    net.add(gluon.nn.Dense(models.MLP_SIZES[-1], use_bias=False))
    net.initialize()
    net.hybridize(static_alloc=True, static_shape=True)
    data = numpy.random.default_rng(0).standard_normal((batch, models.MLP_SIZES[0]))
    x = mx.nd.array(data.astype("float32"))

    def step():
        net(x).wait_to_read()
    return step


def overhead_candidates(batch):
    """The MLP forward in mxlab (static) and in NumPy at ``batch``."""
    return [Candidate("numpy forward", lambda: _numpy_mlp_forward(batch)),
            Candidate("mxlab static forward", lambda: _mxlab_mlp_forward(batch))]
