"""The planned runtime shared by CachedOp and GraphExecutor: buffers, frames, compiled programs.

A :class:`Frame` holds the value of every entry of one planned graph run (``slots``, a list by
entry id): views into pool blocks for planned entries, the data of the caller's arrays for
external entries (``arrays``: inputs, head gradients, outputs, gradient arrays). A
:class:`Program` compiles a node range of a planned graph once: per node a kernel callable, per
bulk segment one engine push with its read and write vars. :meth:`Program.bind` turns it into a
list of :class:`BoundSegment` (kernels bound to a frame's buffers: a call is then a tight loop of
``ufunc(..., out)`` calls), and :meth:`BoundSegment.push` pushes one segment to the engine.

Kernels are bound three ways (see :func:`~mxlab.executor.kernels.bind_kernel`): a NumPy ufunc called
with positional ``out`` when the op is a plain float ufunc (``Op.ufunc``: scalar arithmetic,
``tanh``, ...), the op's ``compute_into``, or :func:`~mxlab.ops.registry.run_kernel` with the write
requests. Kernels whose inputs or outputs are not fixed views (graph inputs and outputs, dynamic
shapes) read the frame's slots at call time instead. Kernels of ops that take an op context are
called with the :class:`~mxlab.ops.context.OpContext` fixed when their segment is pushed.

Example
-------
>>> import numpy
>>> pool = BufferPool(numpy)
>>> block = pool.request(64)
>>> pool.release(block)
>>> pool.request(48) is block
True
"""
import bisect
import dataclasses
import functools
import threading
import time

import numpy

from .. import engine as _engine
from ..engine.naive import run_unlogged
from ..engine.var import Var
from ..graph.memory import EXTERNAL_STORAGE
from ..imperative import STATE
from ..ops.context import op_context
from ..ops.registry import OpReq, run_kernel
from .kernels import bind_kernel, direct_ufunc, kernel_caller  # noqa: F401 - bind_kernel re-exported

__all__ = ["ReplanEvent", "BufferPool", "Frame", "Program", "BoundSegment", "bind_kernel",
           "release_frame"]



@dataclasses.dataclass(frozen=True)
class ReplanEvent:
    """One re-plan: ``trigger`` ("initial", "shape", "dtype", "recording", "grad_req",
    "param_identity", "flags"), a human ``detail`` and the ``time`` (``time.time()``)."""
    trigger: str
    detail: str
    time: float

    @classmethod
    def now(cls, trigger, detail):
        return cls(trigger, detail, time.time())


class BufferPool:
    """Byte blocks of one device, reused best-fit (the smallest free block of at least the size).

    The dynamic path takes a frame's blocks from here each call and gives them back when the
    frame dies, so steady-state calls allocate nothing. Under a threaded engine blocks come back
    from the worker running a frame's release op, hence the lock.
    """

    def __init__(self, xp):
        self.xp = xp
        self.free = []     # sorted (nbytes, sequence, block)
        self._sequence = 0
        self._lock = threading.Lock()
        self.allocated_bytes = 0

    def request(self, nbytes):
        """A uint8 block of at least ``nbytes`` (a pooled one when one fits)."""
        with self._lock:
            position = bisect.bisect_left(self.free, (nbytes,))
            if position < len(self.free):
                return self.free.pop(position)[2]
            self.allocated_bytes += nbytes
        return self.xp.empty(max(nbytes, 1), dtype=numpy.uint8)

    def release(self, block):
        with self._lock:
            self._sequence += 1
            bisect.insort(self.free, (block.nbytes, self._sequence, block))

    def release_all(self, blocks):
        for block in blocks:
            self.release(block)


def _view(block, entry):
    return block[:entry.nbytes].view(entry.dtype).reshape(entry.shape)


class Frame:
    """Entry values of one planned graph run.

    Attributes
    ----------
    slots : list
        xp array per entry id (None until produced or bound).
    arrays : dict of int -> NDArray
        External entries bound to the caller's arrays (their data is read or written at run time).
    stable : set of int
        Entry ids whose slot is a fixed view into this frame's blocks.
    blocks : dict of str -> list
        The pool blocks per plan name, with one engine :class:`~mxlab.engine.Var` per block.
    """

    def __init__(self, num_entries, device, ordered=False):
        self.slots = [None] * num_entries
        self.arrays = {}
        self.stable = set()
        self.blocks = {}
        self.block_vars = {}
        self.entry_vars = {}
        # NOTE: eid -> var of the caller's array an earlier run bound there (a recorded forward's
        #   inputs and outputs); a later run reading that slot (backward) declares a read of it,
        #   so an in-place write (the optimizer's update) waits for the read.
        self.saved_vars = {}
        self.device = device
        # NOTE: with ``ordered`` every segment run on this frame writes this var, so a later push
        #   (backward reading the forward's saved inputs from the slots) waits for earlier ones.
        self.sync_var = Var("frame") if ordered else None
        self.bound_backward = None   # CachedOp: (key, bound backward kernels) of a reused frame

    def unbind_arrays(self):
        """Forget the caller's arrays once pushed (the pushes hold them), keeping the entry ids: a
        kept frame must not keep outputs, and through them their tape node, alive."""
        arrays = self.arrays
        for eid in arrays:
            arrays[eid] = None

    def allocate(self, name, plan, node_range, idx, pool=None, shared=None, blocks=None):
        """Give every entry produced in ``node_range`` with a pool storage id its view.

        Blocks are ``blocks`` when given, else come from ``pool`` (released back with
        :meth:`release`), else from ``shared`` (another executor's blocks, best fit), else are
        new.
        """
        if blocks is None:
            blocks = take_blocks(plan, self.device.xp, pool, shared)
        self.blocks[name] = blocks
        block_vars = [Var(f"{name}:block{i}") for i in range(len(blocks))]
        self.block_vars[name] = block_vars
        start, stop = idx.node_row_ptr[node_range[0]], idx.node_row_ptr[node_range[1]]
        for eid in range(start, stop):
            entry = plan.entries[eid]
            if entry.storage_id >= 0 and not entry.is_variable:
                self.slots[eid] = _view(blocks[entry.storage_id], entry)
                self.stable.add(eid)
                self.entry_vars[eid] = block_vars[entry.storage_id]
        return blocks

    def release(self, name, pool):
        """Return plan ``name``'s blocks to ``pool``."""
        blocks = self.blocks.pop(name, None)
        if blocks is not None:
            pool.release_all(blocks)


def take_blocks(plan, xp, pool=None, shared=None):
    """One byte block per storage block of ``plan`` (see :meth:`Frame.allocate`)."""
    spare = sorted(shared or (), key=lambda b: b.nbytes)
    return [_take_block(b.nbytes, pool, spare, xp) for b in plan.blocks]


def _take_block(nbytes, pool, spare, xp):
    for i, block in enumerate(spare):
        if block.nbytes >= nbytes:
            return spare.pop(i)
    if pool is not None:
        return pool.request(nbytes)
    return xp.empty(max(nbytes, 1), dtype=numpy.uint8)


@dataclasses.dataclass
class NodeStep:
    """One op node of a program: entry ids, write requests, dtypes."""
    nid: int
    name: str
    op: object
    attrs: dict
    ins: list
    outs: list
    reqs: list
    dtypes: list
    fresh: bool     # some output has no planned buffer (dynamic shape): the op allocates
    callers: dict = dataclasses.field(default_factory=dict)  # xp -> kernel_caller result

    def caller(self, xp):
        """:func:`kernel_caller` for this node on ``xp`` (decided once per program)."""
        found = self.callers.get(xp)
        if found is None:
            found = self.callers[xp] = kernel_caller(self.op, xp, self.attrs, self.reqs,
                                                     self.dtypes, len(self.ins))
        return found


def _slot_kernel(step, frame, xp):
    """A kernel reading the frame's slots when called (entries that are not fixed views); kernels
    of ops taking an op context take it as their argument."""
    slots = frame.slots
    op, attrs, ins, outs = step.op, step.attrs, step.ins, step.outs
    if step.fresh:
        def call(ctx=None):
            results = run_kernel(op, xp, [slots[e] for e in ins], attrs, ctx=ctx)
            for eid, value in zip(outs, results):
                slots[eid] = value
        return call
    direct = _slot_ufunc(step, slots, xp)
    if direct is not None:
        return direct
    fn, arrange = step.caller(xp)
    if op.takes_ctx:
        return lambda ctx: fn(*arrange([slots[e] for e in ins], [slots[e] for e in outs]), ctx)

    def call():
        fn(*arrange([slots[e] for e in ins], [slots[e] for e in outs]))
    return call


def _slot_ufunc(step, slots, xp):
    """A slot-reading kernel for a one-ufunc op (the program's first and last ops, which read
    the graph's inputs and write its outputs), indexing the slots directly; or None."""
    found = direct_ufunc(step.op, xp, step.attrs, step.reqs, step.dtypes, len(step.ins))
    if found is None or len(step.ins) > 2:
        return None
    fn, scalar, first = found
    (out,) = step.outs
    if scalar is None:
        if len(step.ins) == 1:
            (a,) = step.ins
            return lambda: fn(slots[a], slots[out])
        a, b = step.ins
        return lambda: fn(slots[a], slots[b], slots[out])
    (a,) = step.ins
    if first:
        return lambda: fn(scalar, slots[a], slots[out])
    return lambda: fn(slots[a], scalar, slots[out])


class BoundSegment:
    """One bulk segment bound to a frame: kernels, external entries, engine vars.

    ``ext_reads`` are the external entry ids it reads (``mutated``: those it writes in place,
    auxiliary states); ``ext_writes`` ``(eid, shape, dtype)`` the external entries it writes into
    the caller's arrays, ``fresh`` those whose array the op makes (dynamic shape). :meth:`push`
    takes the caller's arrays from the frame at push time, so the frame need not keep them.
    """

    # NOTE: it keeps the frame's slots, arrays and saved vars, not the frame: a frame caches its
    #   bound backward segments, and a frame <-> segment cycle would keep a garbage CachedOp's
    #   buffers until a full collection.
    __slots__ = ("name", "kernels", "steps", "ext_reads", "ext_writes", "write_eids",
                 "block_reads", "write_base", "slots", "arrays", "saved_vars", "xp", "mutated",
                 "fresh", "times", "takes_ctx", "saved_reads", "__weakref__")

    def __init__(self, name, kernels, steps, ext_reads, ext_writes, block_reads, block_writes,
                 frame, resource_vars, mutated):
        self.name, self.kernels, self.steps = name, kernels, steps
        self.slots, self.arrays, self.saved_vars = frame.slots, frame.arrays, frame.saved_vars
        self.ext_reads, self.mutated = ext_reads, mutated
        self.ext_writes = [(e, shape, dtype) for e, shape, dtype, fresh in ext_writes if not fresh]
        self.fresh = [e for e, _, _, fresh in ext_writes if fresh]
        self.write_eids = [w[0] for w in self.ext_writes] + self.fresh
        self.block_reads = list(block_reads)
        self.saved_reads = [e for e in dict.fromkeys(e for step in steps if step is not None
                                                   for e in step.ins)
                            if e not in frame.arrays and e in frame.saved_vars]
        self.write_base = list(block_writes) + list(resource_vars)
        self.xp = frame.device.xp
        self.times = None
        # NOTE: per kernel, whether it is called with the op context (None: no kernel is).
        takes = [step is not None and step.op.takes_ctx for step in steps]
        self.takes_ctx = takes if any(takes) else None

    def push(self, ctx=None):
        """Push with the caller's arrays bound in the frame; ``ctx`` is the op context of the
        run (default: from ``autograd.is_training()`` now)."""
        arrays = self.arrays
        self.push_arrays([arrays[e] for e in self.ext_reads], [arrays[e] for e in self.write_eids],
                         ctx)

    def push_arrays(self, reads, writes, ctx=None):
        """Push with the arrays of ``ext_reads`` and ``write_eids`` given in that order."""
        write_vars = self.write_base + [arr._var for arr in writes]
        if self.mutated:
            read_vars = list(self.block_reads)
            for eid, arr in zip(self.ext_reads, reads):
                (write_vars if eid in self.mutated else read_vars).append(arr._var)
        else:
            read_vars = self.block_reads + [arr._var for arr in reads]
        if self.saved_reads:
            saved = self.saved_vars
            read_vars = read_vars + [saved[e] for e in self.saved_reads]
        task = functools.partial(self.run, reads, writes)
        if self.takes_ctx is not None:   # NOTE: the mode is fixed now, not when a worker runs it
            task = functools.partial(task, ctx or op_context(STATE.training))
        _engine.push(task, read_vars, write_vars, self.name)

    @property
    def runs_inline(self):
        """Whether :meth:`run_inline` may stand in for :meth:`push_arrays` on the naive engine:
        no input written in place, no op context, no saved forward inputs to declare."""
        return not self.mutated and self.takes_ctx is None and not self.saved_reads

    def run_inline(self, reads, writes):
        """:meth:`push_arrays` where the engine is a NaiveEngine logging nothing (the caller
        checks; see ``FastCall``): run now and count the writes, as that engine would, without
        building the task and var lists a push needs. ``writes`` are distinct arrays."""
        run_unlogged(self.run, self.write_base + [arr._var for arr in writes], self.name, reads,
                     writes)

    def run(self, reads, writes, ctx=None):
        """Bind the external arrays' data, then run every kernel (one engine task); ``ctx``: the
        op context for kernels taking one."""
        slots = self.slots
        for eid, arr in zip(self.ext_reads, reads):
            slots[eid] = arr._data
        sparse = None
        for (eid, shape, dtype), arr in zip(self.ext_writes, writes):
            data = arr._data
            if data is None:
                data = arr._data = self.xp.empty(shape, dtype=dtype)
            slots[eid] = data
            if arr._sparse:   # NOTE: a dense copy of a sparse array: stored back after the run
                sparse = (sparse or []) + [(eid, arr)]
        if self.times is not None or ctx is not None:
            self._run_each(ctx)
        else:
            kernel = None
            try:
                for kernel in self.kernels:
                    kernel()
            except Exception as exc:  # noqa: BLE001 - re-raised naming the failing op
                self._raise_for(kernel, exc)
        if self.fresh:
            for eid, arr in zip(self.fresh, writes[len(self.ext_writes):]):
                arr._data = slots[eid]
        if sparse:
            for eid, arr in sparse:
                arr._data = slots[eid]

    def _run_each(self, ctx):
        """The kernels one by one: timed when ``times`` is on, with ``ctx`` where taken."""
        takes = self.takes_ctx or [False] * len(self.kernels)
        for kernel, step, with_ctx in zip(self.kernels, self.steps, takes):
            start = time.perf_counter()
            try:
                kernel(ctx) if with_ctx else kernel()
            except Exception as exc:  # noqa: BLE001
                self._raise_for(kernel, exc, ctx)
            if step is not None and self.times is not None:
                self.times[step.name] = time.perf_counter() - start

    def _raise_for(self, kernel, exc, ctx=None):
        step = self.steps[self.kernels.index(kernel)] if kernel in self.kernels else None
        try:
            if step is None:
                raise exc
            # NOTE: re-run through run_kernel, which translates the error and names the op.
            run_kernel(step.op, self.xp, [self.slots[e] for e in step.ins], step.attrs,
                       ctx=ctx)
            raise exc
        finally:
            del exc   # NOTE: no cycle through this frame (see NaiveEngine)


class Program:
    """A compiled node range of a planned graph (see module doc).

    Parameters
    ----------
    graph : Graph
        With ``shape``/``dtype`` attributes.
    plan : MemoryPlan
    segments : list of Segment
        The bulk segments of this range (one push each).
    node_range : (int, int)
    req_override : dict of int -> str, optional
        Write request per entry id replacing the plan's (gradient arrays with grad_req 'add').
    """

    def __init__(self, graph, plan, segments, node_range, req_override=None):
        self.graph, self.plan, self.node_range = graph, plan, tuple(node_range)
        idx = graph.indexed
        dtypes = graph.attrs["dtype"]
        reqs = plan.requests()
        reqs = [r if r is not None else OpReq.WRITE for r in reqs]
        for eid, req in (req_override or {}).items():
            reqs[eid] = req
        skipped = set(plan.skipped_nodes)
        self.steps = {}
        for nid in range(*self.node_range):
            n = idx[nid]
            if n.is_variable or nid in skipped:
                continue
            outs = idx.output_entries(nid)
            fresh = any(plan.entries[e].storage_id < EXTERNAL_STORAGE or
                        plan.entries[e].shape is None or plan.entries[e].dtype is None
                        for e in outs)
            self.steps[nid] = NodeStep(nid, n.name, n.op, n.node.attrs, list(n.inputs), outs,
                                       [reqs[e] for e in outs],
                                       [dtypes[e] for e in n.inputs + outs], fresh)
        self.segments = [[self.steps[nid] for nid in seg.nodes if nid in self.steps]
                         for seg in segments]
        self.segments = [s for s in self.segments if s]
        self.segment_info = [s for s in segments if any(nid in self.steps for nid in s.nodes)]

    @property
    def num_ops(self):
        return len(self.steps)

    def bind(self, frame, monitor=None, straight=False):
        """:class:`BoundSegment` list for ``frame``; ``monitor.after(step, frame)`` gives a
        callable run after each node (the executor's monitor callback). ``straight``: the whole
        range as ONE segment (one engine push per run: a static CachedOp's straight-line
        program)."""
        xp = frame.device.xp
        bound = []
        segments = self.segments
        straight = straight and len(segments) > 1
        if straight:
            segments = [[step for seg in segments for step in seg]]
        before = getattr(monitor, "before_step", None)   # NOTE: a block's op hook
        for i, seg in enumerate(segments):
            kernels, steps = [], []
            for step in seg:
                if before is not None and (call := before(step, frame)) is not None:
                    kernels.append(call)   # NOTE: inputs, with monitor_all
                    steps.append(None)
                kernels.append(self._kernel(step, frame, xp))
                steps.append(step)
                if monitor is not None:
                    kernels.append(monitor.after(step, frame))
                    steps.append(None)
            bound.append(self._bound_segment(i, seg, kernels, steps, frame, straight))
        return bound

    def _kernel(self, step, frame, xp):
        stable = frame.stable
        if step.fresh or not all(e in stable for e in step.ins + step.outs):
            return _slot_kernel(step, frame, xp)
        slots = frame.slots
        fn, arrange = step.caller(xp)
        args = arrange([slots[e] for e in step.ins], [slots[e] for e in step.outs])
        if step.op.takes_ctx:
            return lambda ctx: fn(*args, ctx)
        return functools.partial(fn, *args)

    def _bound_segment(self, i, seg, kernels, steps, frame, all_names=False):
        plan, arrays = self.plan, frame.arrays
        reads, writes, mutated, resources = [], [], set(), []
        block_reads, block_writes = {}, {}
        if frame.sync_var is not None:
            block_writes[id(frame.sync_var)] = frame.sync_var
        for step in seg:
            for pos, eid in enumerate(step.ins):
                if eid in arrays and eid not in reads:
                    reads.append(eid)
                if eid in arrays and pos in step.op.mutate_inputs:
                    mutated.add(eid)
                self._block_var(frame, eid, block_reads)
            for eid in step.outs:
                if eid in arrays and all(w[0] != eid for w in writes):
                    entry = plan.entries[eid]
                    writes.append((eid, entry.shape, entry.dtype, step.fresh))
                self._block_var(frame, eid, block_writes)
            for kind in step.op.resources:
                var = _engine.resource_var(kind, frame.device)
                if var not in resources:
                    resources.append(var)
        # NOTE: a straight-line program names every node, so the engine views (replay) can
        #   tell which nodes its one event ran; a segment names its first three.
        shown = seg if all_names else seg[:3]
        name = f"segment{i}:" + ",".join(s.name for s in shown) + \
            ("..." if len(seg) > len(shown) else "")
        return BoundSegment(name, kernels, steps, reads, writes, list(block_reads.values()),
                            list(block_writes.values()), frame, resources, mutated)

    @staticmethod
    def _block_var(frame, eid, into):
        var = frame.entry_vars.get(eid)
        if var is not None:
            into[id(var)] = var


def run_segments(bound, training=None):
    """Push every bound segment, in order; kernels get the op context of ``training`` (default:
    ``autograd.is_training()``)."""
    ctx = op_context(STATE.training if training is None else training)
    for seg in bound:
        seg.push(ctx)


def release_frame(frame, pool):
    """Give a dynamic frame's blocks back to the pool once the ops using them are done (the
    release is an engine op writing the blocks' vars)."""
    block_vars = [v for vs in frame.block_vars.values() for v in vs]

    def release():
        for name in list(frame.blocks):
            frame.release(name, pool)
    _engine.push(release, (), block_vars, "CachedOp:release")
