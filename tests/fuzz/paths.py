"""The differential runner: one :class:`~programs.Program` through every execution path, each
compared with the imperative NaiveEngine answer (forward values, dtypes, shapes and input
gradients).

Per path, three calls: new values, new values again, then the new shape set; after the last one
the first call's outputs are read again (a path that reuses an output buffer it handed out would
change them). Every memory plan the path's CachedOp made is run poisoned by the plan verifier.
"""
import contextlib
import dataclasses
import warnings

import numpy

import mxlab as mx
from mxlab.graph.node import topo_sort
from mxlab.graph.verify import verify_plan

from programs import ProgramBlock

ENGINES = ("NaiveEngine", "ThreadedEngine", "ThreadedEnginePerDevice")


@dataclasses.dataclass(frozen=True)
class Path:
    """How a block runs: hybridize() keyword arguments (None: imperative)."""
    name: str
    hybridize: dict = None


_STATIC = {"static_alloc": True, "static_shape": True}


def standard_paths():
    return [Path("imperative"), Path("hybridize", {}), Path("static", dict(_STATIC))]


def backend_paths(op_names, fuse_static, default_static):
    """``fuse`` and ``default`` with ``op_names``, each dynamic or static."""
    fuse = dict(_STATIC if fuse_static else {}, backend="fuse")
    default = dict(_STATIC if default_static else {}, backend="default",
                   backend_opts={"op_names": sorted(op_names)})
    return [Path(f"fuse{'+static' if fuse_static else ''}", fuse),
            Path(f"default{sorted(op_names)}{'+static' if default_static else ''}", default)]


@contextlib.contextmanager
def engine(kind):
    """Run the body on engine ``kind``, then drain it and restore the previous engine."""
    previous = mx.engine.get_engine()
    mx.engine.set_engine(kind)
    try:
        yield
    finally:
        mx.engine.set_engine(previous)


def make_inputs(program, rng, new_shape=False):
    """Fresh host arrays for the program's distinct inputs (values in [-1, 1], ints in [-3, 3])."""
    shapes = program.new_shapes if new_shape else program.shapes
    if program.floating:
        return [rng.uniform(-1, 1, size=s).astype(program.dtype) for s in shapes]
    return [rng.integers(-3, 4, size=s).astype(program.dtype) for s in shapes]


def head_grads(outputs, rng):
    return [rng.uniform(-1, 1, size=o.shape).astype(o.dtype) for o in outputs]


def _as_list(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


@contextlib.contextmanager
def _unused_inputs_allowed():
    """Programs need not read every input; HybridBlock warns about those."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "The .* input to HybridBlock is not used")
        yield


def call(block, program, hosts, heads_rng):
    """One call: ``(outputs as arrays, host copies, input gradients or None)``."""
    with _unused_inputs_allowed():
        return _call(block, program, hosts, heads_rng)


def _call(block, program, hosts, heads_rng):
    arrays = [mx.np.array(h, dtype=program.dtype) for h in hosts]
    if not program.floating:
        outs = _as_list(block(*[arrays[i] for i in program.feed]))
        return outs, [o.asnumpy() for o in outs], None
    for a in arrays:
        a.attach_grad()
    with mx.autograd.record():
        outs = _as_list(block(*[arrays[i] for i in program.feed]))
    heads = head_grads(outs, heads_rng)
    mx.autograd.backward(outs, [mx.np.array(h, dtype=h.dtype) for h in heads])
    return outs, [o.asnumpy() for o in outs], [a.grad.asnumpy() for a in arrays]


def _tolerance(dtype):
    return {"float32": (2e-4, 2e-5), "float64": (1e-7, 1e-9)}.get(dtype, (0, 0))


def assert_same(got, want, what, dtype):
    """Equal shapes and dtypes, values within the dtype's tolerance (NaN where NaN)."""
    rtol, atol = _tolerance(dtype)
    assert len(got) == len(want), f"{what}: {len(got)} arrays, expected {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape, f"{what}[{i}]: shape {g.shape}, expected {w.shape}"
        assert g.dtype == w.dtype, f"{what}[{i}]: dtype {g.dtype}, expected {w.dtype}"
        numpy.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True,
                                      err_msg=f"{what}[{i}]")


def traced_op_names(program):
    """The registry op names of the program's traced graph (for the default backend's lists)."""
    block = ProgramBlock(program)
    block.hybridize()
    hosts = make_inputs(program, numpy.random.default_rng(0))
    with _unused_inputs_allowed():
        block(*[mx.np.array(hosts[i], dtype=program.dtype) for i in program.feed])
    graph = block._cached_graph[1]
    return sorted({n.op.name for n in topo_sort(graph._outputs) if n.op is not None})


def verify_plans(block, hosts, program):
    """The plan verifier's static and poisoned-buffer checks on the block's forward plan."""
    cached_op = block._cached_op
    if cached_op is None or "forward" not in cached_op._plans:
        return
    planned = cached_op._plans["forward"]
    shapes = dict(zip(cached_op.input_names, (s for s, _ in planned.key[0])))
    by_name = _inputs_by_name(block, program, hosts)
    if any(by_name[n].shape != shapes[n] for n in by_name):
        return   # NOTE: the plan is for another shape set than these values
    verify_plan(planned.graph, by_name, planned.memory_plan)


def _inputs_by_name(block, program, hosts):
    args = [hosts[i] for i in program.feed]
    names = block._cached_op.input_names
    return {name: args[ref] for name, (is_data, ref) in zip(names, block._cached_op_args)
            if is_data}


def run_path(program, path, seed, reference):
    """Three calls through ``path`` compared with ``reference`` (per call: outputs, grads); then
    the first call's outputs read again."""
    block = ProgramBlock(program)
    if path.hybridize is not None:
        block.hybridize(**path.hybridize)
    rng = numpy.random.default_rng(seed)
    first = None
    for k, (hosts, want_outs, want_grads) in enumerate(reference):
        outs, got_outs, got_grads = call(block, program, hosts, rng)
        assert_same(got_outs, want_outs, f"{path.name} call {k} outputs", program.dtype)
        if want_grads is not None:
            assert_same(got_grads, want_grads, f"{path.name} call {k} input grads",
                        program.dtype)
        if path.hybridize is not None:
            verify_plans(block, hosts, program)
        first = first or outs
    assert_same([o.asnumpy() for o in first], reference[0][1],
                f"{path.name}: first outputs re-read after later calls", program.dtype)


def reference_runs(program, seed):
    """The imperative NaiveEngine answers of the three calls: (inputs, outputs, grads) each."""
    rng = numpy.random.default_rng(seed)
    calls = [make_inputs(program, rng), make_inputs(program, rng),
             make_inputs(program, rng, new_shape=True)]
    heads_rng = numpy.random.default_rng(seed)
    block = ProgramBlock(program)
    runs = []
    with engine("NaiveEngine"):
        for hosts in calls:
            _, outs, grads = call(block, program, hosts, heads_rng)
            runs.append((hosts, outs, grads))
    return runs


INPLACE_ERROR = "modified in place after it was recorded"


def run_inplace_write(program, path, seed, reference, written):
    """The first call through ``path`` with distinct input ``written`` changed in place between
    record and backward: the backward must refuse it or (the written array being none that the
    path's gradient reads) give the reference's gradients -- never different ones."""
    block = ProgramBlock(program)
    if path.hybridize is not None:
        block.hybridize(**path.hybridize)
    hosts, _, want_grads = reference[0]
    rng = numpy.random.default_rng(seed)
    arrays = [mx.np.array(h, dtype=program.dtype) for h in hosts]
    for a in arrays:
        a.attach_grad()
    with _unused_inputs_allowed(), mx.autograd.record():
        outs = _as_list(block(*[arrays[i] for i in program.feed]))
    heads = [mx.np.array(h, dtype=h.dtype) for h in head_grads(outs, rng)]
    arrays[written] += 1
    try:
        mx.autograd.backward(outs, heads)
    except mx.base.MXNetRuntimeError as error:
        assert INPLACE_ERROR in str(error), f"{path.name}: {error}"
        return True
    assert_same([a.grad.asnumpy() for a in arrays], want_grads,
                f"{path.name}: input grads with input {written} written after record",
                program.dtype)
    return False
