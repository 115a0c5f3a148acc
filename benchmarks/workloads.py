"""The workloads: each ``run_<name>(opts)`` returns a list of :class:`~benchmarks.timing.Row`.

mxlab, NumPy, PyTorch and JAX candidates of one case are timed interleaved in this process; real
MXNet runs in its own venv through :mod:`benchmarks.mxnet_worker` when ``MXLAB_MXNET_PYTHON`` is
set, its candidates taking part in the same rounds; the engine comparison runs in a subprocess
with single-threaded BLAS (:mod:`benchmarks.engine_worker`).
"""
import contextlib
import dataclasses
import importlib.util
import os

from . import models, peers
from .timing import (NOT_BUILT, Candidate, RemoteWorker, Row, Unavailable, python_worker,
                     run_json_subprocess, time_interleaved, why_missing)

__all__ = ["WORKLOADS", "Options"]

MB = 1 << 20
MXNET_ENV = "MXLAB_MXNET_PYTHON"
AUTOTUNE_ENV = "MXNET_CUDNN_AUTOTUNE_DEFAULT"
SINGLE_THREAD_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
                     "MXNET_CPU_WORKER_NTHREADS": "2"}


@dataclasses.dataclass
class Options:
    """Run options: ``repeats`` timed calls per candidate (medians), ``quick`` for smaller cases,
    ``only``: run just the implementations whose name contains one of these strings."""
    repeats: int = 15
    quick: bool = False
    only: tuple = ()

    def selects(self, impl):
        return not self.only or any(part in impl for part in self.only)


def _time(workload, case, cands, opts, mxnet_arg=None, **kwargs):
    """:func:`time_interleaved` on the candidates ``opts`` selects; with ``mxnet_arg``, real
    MXNet's candidates of ``workload`` (:mod:`benchmarks.mxnet_worker`) join every round."""
    cands = [c for c in cands if opts.selects(c.impl)]
    repeats = kwargs.pop("repeats", opts.repeats)
    remote, rows = _mxnet_worker(workload, case, opts, mxnet_arg)
    try:
        return time_interleaved(workload, case, cands, repeats, remote=remote, **kwargs) + rows
    except Unavailable as exc:
        failed = [Row(workload, case, "mxnet", note=str(exc))]
        return time_interleaved(workload, case, cands, repeats, **kwargs) + failed
    finally:
        if remote is not None:
            remote.close()


def _mxnet_worker(workload, case, opts, arg):
    """(a :class:`RemoteWorker` running real MXNet, or None; rows saying why there is none)."""
    if arg is None or not opts.selects("mxnet"):
        return None, []
    python = os.environ.get(MXNET_ENV)
    if not python:
        return None, [Row(workload, case, "mxnet", note=f"n/a (set {MXNET_ENV})")]
    argv = [python, "-m", "benchmarks.mxnet_worker", "serve"]
    return RemoteWorker(argv, {"workload": workload, "arg": arg}), []


def _mx():
    import mxlab
    return mxlab


def _mxlab_modes(make, modes=models.MODES):
    return [Candidate(f"mxlab {mode}", lambda mode=mode: make(_mx(), mode)) for mode in modes]


def run_mlp(opts):
    """784-256-128-10 MLP, batch 64: forward + backward + SGD step, float32."""
    case = f"batch {models.MLP_BATCH}"
    cands = [Candidate("numpy naive", peers.mlp_numpy_naive),
             Candidate("numpy prealloc", peers.mlp_numpy_prealloc),
             Candidate("torch eager", peers.mlp_torch),
             Candidate("jax jit", peers.mlp_jax),
             Candidate("mxlab nd ops", lambda: models.mlp_nd_step(_mx()))]
    cands += _mxlab_modes(models.mlp_gluon_step)
    return _time("mlp", case, cands, opts, mxnet_arg=0, number=2)


def _fused_kernel(size):
    """The numexpr kernel of the fused chain called directly (:mod:`benchmarks.fuse_chain`): the
    fuse row minus the framework around it."""
    from .fuse_chain import _fused_kernel as fused_kernel
    return fused_kernel(size)


def run_chain64(opts):
    """64 elementwise ops (``x*1.01; x+0.1; tanh; x-0.05`` x 16) on a (64,) and a (1e6,) vector."""
    rows = []
    for size in (64,) if opts.quick else (64, 1_000_000):
        case = f"({size},)"
        cands = [Candidate("numpy naive", lambda size=size: peers.chain_numpy_naive(size)),
                 Candidate("numpy prealloc", lambda size=size: peers.chain_numpy_prealloc(size)),
                 Candidate("torch eager", lambda size=size: peers.chain_torch(size)),
                 Candidate("jax jit", lambda size=size: peers.chain_jax(size)),
                 Candidate("mxlab imperative", lambda size=size: models.chain_nd_step(_mx(), size)),
                 Candidate("mxlab imperative, log on",
                           lambda size=size: models.with_event_log(
                               _mx(), models.chain_nd_step(_mx(), size), True))]
        cands += _mxlab_modes(lambda mx, mode, size=size: models.chain_gluon_step(mx, size, mode),
                              models.MODES[1:])
        cands.append(Candidate("mxlab fuse kernel alone", lambda size=size: _fused_kernel(size)))
        if size > 64:   # NOTE: the fuse target's floor on NumPy kernels (see the README)
            cands.append(Candidate("numpy tanh only",
                                   lambda size=size: peers.chain_numpy_tanh_only(size)))
        number = 5 if size == 64 else 1
        rows += _time("chain64", case, cands, opts, mxnet_arg=size, number=number)
    return rows


CNN_CASES = {"cnn": (8, 64), "cnn224": (32, 224)}


def _run_cnn(workload, opts, warmup, repeats):
    from .torch_resnet import resnet_torch_step
    batch, size = CNN_CASES[workload]
    case = f"batch {batch}, 3x{size}x{size}"
    cands = _mxlab_modes(lambda mx, mode: models.resnet_step(mx, mode, batch, size))
    cands.append(Candidate("torch eager", lambda: resnet_torch_step(batch, size)))
    return _time(workload, case, cands, opts, mxnet_arg=[batch, size], repeats=repeats,
                 warmup=warmup)


def run_cnn(opts):
    """resnet18_v1 at batch 8, 3x64x64: forward + backward."""
    return _run_cnn("cnn", opts, 1, max(3, opts.repeats // 3))


def run_cnn224(opts):
    """resnet18_v1 at batch 32, 3x224x224: forward + backward (long: one warm-up, two repeats)."""
    return _run_cnn("cnn224", opts, 1, 2)


def _mxnet_plan_bytes(graph):
    python = os.environ.get(MXNET_ENV)
    if not python:
        raise Unavailable(f"n/a (set {MXNET_ENV})")
    out = run_json_subprocess([python, "-m", "benchmarks.mxnet_worker", "memory", graph])
    return out["mb"] * MB


def _memory_row(case, impl, plan_bytes):
    """A memory row from ``plan_bytes()`` (planned intermediate bytes), or n/a saying why not."""
    try:
        return Row("memory", case, impl, plan_bytes() / MB, unit="MB")
    except Exception as exc:  # noqa: BLE001 - shown in the table instead of stopping the run
        return Row("memory", case, impl, unit="MB", note=why_missing(exc))


def _chain_plan_bytes(depth, recompute):
    from .memory_plan import planned_training_graph
    size = models.MEMORY_CHAIN
    graph = planned_training_graph(depth, size["hidden"], size["batch"], recompute)
    return graph.attrs["memory_plan"].planned_bytes


def _resnet_plan_bytes(recompute):
    """Planned bytes of resnet18_v1's training graph at ``MEMORY_RESNET_SHAPE`` (Gluon model
    zoo)."""
    mx = _mx()
    gluon = models.require_gluon(mx, "model_zoo.vision.resnet18_v1")
    from mxlab.graph import Graph, apply_pass, build_gradient_graph, plan_sublinear
    net = gluon.model_zoo.vision.resnet18_v1()
    net.initialize()
    net.hybridize()
    # NOTE: the traced graph of Gluon's named stage ``_get_graph`` (a tiny batch: only the graph
    #   is kept; shapes are inferred again at batch 32 below).
    (data,), symbol = net._get_graph(mx.nd.zeros((1,) + models.MEMORY_RESNET_SHAPE[1:]))
    forward = Graph(list(symbol._outputs))

    def infer(graph):
        shapes = {data.name: models.MEMORY_RESNET_SHAPE}
        graph = apply_pass(graph, "infer_shape", shapes=shapes, strict=True)
        names = [graph.indexed[n].name for n in graph.indexed.input_nodes]
        return apply_pass(graph, "infer_type", dtypes=dict.fromkeys(names, "float32"), strict=True)
    forward = infer(forward)
    index = forward.indexed
    params = [index[n].name for n in index.input_nodes
              if index[n].name != data.name and n not in index.mutable_input_nodes]
    mirror = plan_sublinear(forward).mirrored if recompute else ()
    full = infer(build_gradient_graph(forward, xs=params, mirror=mirror))
    full = apply_pass(full, "plan_memory", external_outputs=True)
    return full.attrs["memory_plan"].planned_bytes


def run_memory(opts):
    """Planned intermediate MB of two training graphs, with and without sublinear recompute."""
    size = models.MEMORY_CHAIN
    depth = 10 if opts.quick else size["depth"]
    chain = f"chain {depth}xFC{size['hidden']}+tanh b{size['batch']}"
    rows = [_memory_row(chain, "mxlab", lambda: _chain_plan_bytes(depth, False)),
            _memory_row(chain, "mxlab recompute", lambda: _chain_plan_bytes(depth, True))]
    if opts.quick:
        return rows
    batch, _, height, width = models.MEMORY_RESNET_SHAPE
    resnet = f"resnet18 b{batch} {height}x{width}"
    return rows + [_memory_row(chain, "mxnet", lambda: _mxnet_plan_bytes("chain")),
                   _memory_row(resnet, "mxlab", lambda: _resnet_plan_bytes(False)),
                   _memory_row(resnet, "mxlab recompute", lambda: _resnet_plan_bytes(True)),
                   _memory_row(resnet, "mxnet", lambda: _mxnet_plan_bytes("resnet18"))]


def run_engine(opts):
    """Two independent chains of 512x512 matmuls, NaiveEngine vs ThreadedEngine (1-thread BLAS)."""
    length = 2 if opts.quick else 8
    case = f"2 x {length} matmuls 512^2"
    try:
        out = run_json_subprocess(python_worker("engine_worker", opts.repeats, length),
                                  env=SINGLE_THREAD_ENV)
    except Unavailable as exc:
        return [Row("engine", case, kind, note=str(exc))
                for kind in ("NaiveEngine", "ThreadedEngine")]
    return [Row(**row) for row in out["rows"]]


def _op_cache_step(enabled, autotune):
    """One step of :mod:`benchmarks.op_cache`'s CNN, cache on or off, with the conv autotune switch
    (``MXNET_CUDNN_AUTOTUNE_DEFAULT``, read per call) set to ``autotune`` during the step."""
    mx = _mx()
    if importlib.util.find_spec("benchmarks.op_cache") is None or not hasattr(mx, "op_cache"):
        raise Unavailable(NOT_BUILT)
    import numpy
    from . import op_cache as bench
    x = mx.nd.array(numpy.random.default_rng(1).standard_normal((8, 3, 32, 32)))
    params, aux = bench.make_model(mx.cpu())
    switch = mx.op_cache.enable if enabled else mx.op_cache.disable

    def step():
        with _env(AUTOTUNE_ENV, autotune), switch():
            bench.step(x, params, aux)
    return step


@contextlib.contextmanager
def _env(name, value):
    """Set environment variable ``name`` to ``value`` inside the block."""
    saved = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if saved is None:
            del os.environ[name]
        else:
            os.environ[name] = saved


def run_op_cache(opts):
    """Small CNN forward+backward (conv-BN-conv-pool, 8x3x32x32), op-plan cache on vs off."""
    rows = []
    for autotune in ("1", "0"):
        cands = [Candidate("cache on", lambda a=autotune: _op_cache_step(True, a)),
                 Candidate("cache off", lambda a=autotune: _op_cache_step(False, a))]
        # NOTE: with autotune on, every uncached conv call times its candidate algorithms (seconds)
        repeats = max(3, opts.repeats // 3) if autotune == "1" else opts.repeats
        rows += _time("op-cache", f"small CNN 8x3x32x32, autotune={autotune}", cands, opts,
                      repeats=repeats, warmup=1)
    return rows


def _mpiexec(workers, *args):
    """argv running ``benchmarks.dist_worker`` under ``mpiexec -n workers`` (Unavailable without
    mpi4py/mpich: ``pip install 'mxlab[dist]'``)."""
    import shutil
    import sys

    if importlib.util.find_spec("mpi4py") is None:
        raise Unavailable("n/a (mpi4py not installed)")
    here = os.path.dirname(sys.executable)
    mpiexec = shutil.which("mpiexec", path=here) or shutil.which("mpiexec")
    if mpiexec is None:
        raise Unavailable("n/a (no mpiexec: pip install mpich)")
    return [mpiexec, "-n", str(workers), *python_worker("dist_worker", *args)]


def run_dist(opts):
    """Data parallel on MPI: an MLP step, 2 workers vs 1 process on the same global batch; the
    gradients' allreduce by kv.pushpull vs mpi4py's Allreduce of the same buffers."""
    batch = 64 if opts.quick else 256
    rows = []
    jobs = [(1, "step", batch), (2, "step", batch), (2, "allreduce")]
    for workers, mode, *rest in jobs:
        try:
            out = run_json_subprocess(_mpiexec(workers, mode, opts.repeats, *rest),
                                      env=SINGLE_THREAD_ENV)
            rows += [Row(**row) for row in out["rows"]]
        except Unavailable as exc:
            rows.append(Row("dist", f"{mode} ({workers} workers)", "mxlab", note=str(exc)))
    return rows


def run_planning(opts):
    """Planning time (gradient, infer, plan_memory, segments) at 1k, 10k, 100k nodes."""
    from .scaling import run_planning as planning
    return planning(opts)


def run_overhead(opts):
    """Per-call cost against batch size: a static MLP forward vs the same NumPy forward."""
    from .scaling import OVERHEAD_BATCHES, overhead_candidates
    rows = []
    for batch in OVERHEAD_BATCHES[:2] if opts.quick else OVERHEAD_BATCHES:
        case = f"batch {batch}"
        timed = _time("overhead", case, overhead_candidates(batch), opts, number=5)
        values = {row.impl: row.value for row in timed}
        if all(values.get(k) for k in ("mxlab static forward", "numpy forward")):
            extra = values["mxlab static forward"] - values["numpy forward"]
            timed.append(Row("overhead", case, "mxlab minus numpy", extra))
        rows += timed
    return rows


WORKLOADS = {"mlp": run_mlp, "chain64": run_chain64, "cnn": run_cnn, "cnn224": run_cnn224,
             "memory": run_memory, "planning": run_planning, "overhead": run_overhead,
             "engine": run_engine, "op-cache": run_op_cache, "dist": run_dist}
