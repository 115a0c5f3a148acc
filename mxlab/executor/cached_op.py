"""``CachedOp``: run a Symbol as one op, with plans cached and (optionally) memory kept.

A call infers shapes and dtypes from the inputs, plans the graph once per signature (see
:mod:`.planning`), and runs the plan with the shared runtime (:mod:`.runtime`). Dynamic path:
each call takes a frame of buffers from the device's pool (and reuses the last call's bound
kernels when the pool hands back the same blocks). ``static_alloc``: each state keeps its buffers
and its kernels bound to them; ``static_shape``: a call whose inputs match the last one (device,
shapes, dtypes, parameter arrays; recorded: the same gradient requests) skips all look-ups. A
static call (both flags) runs each plan as ONE engine push: a straight-line program of
``ufunc(..., out)`` / ``compute_into`` calls over the planned buffers (the bulk segments stay in
the plan for inspection). States come from a per-device pool; a state is reused only when nobody
else holds it (a recorded forward awaiting backward holds its state), so ``y = op(x) + op(x)``
under ``autograd.record`` uses two states.

Recording, the call adds ONE tape node (op ``_CachedOp``) whose gradient runs the planned
backward graph; graphs with at most ``inline_limit`` op nodes (and no ``static_alloc``) are run op
by op instead, so the tape holds their nodes. Every re-plan is logged in :attr:`replan_log`.

Example
-------
>>> import mxlab as mx
>>> x = mx.sym.var('x')
>>> op = CachedOp(mx.sym.tanh(x) * 2, {'static_alloc': True, 'static_shape': True})
>>> op(mx.nd.zeros((3,))).asnumpy()
array([0., 0., 0.], dtype=float32)
>>> [e.trigger for e in op.replan_log]
['initial']
"""
import dataclasses
import functools
import types

import numpy

from ..autograd import record_op
from ..base import MXNetNotImplementedError, MXNetValueError, env_int
from ..device import current_device
from ..imperative import STATE
from ..ops.registry import Op
from ..symbol.evaluate import evaluate_graph
from .config import CachedOpConfig
from .op_hook import OpHook
from .planning import gradient_graph, head_entry_ids, infer_graph, plan_graph, saved_reads
from .runtime import (BufferPool, Frame, Program, ReplanEvent, release_frame,
                      run_segments, take_blocks)
from .static_call import (HIGHER_ORDER_MSG, FastCall, KeptState, RecordedCall, RecordedRun,
                          grad_array, signature_of)

__all__ = ["CachedOp", "HIGHER_ORDER_MSG", "NO_GRAD_INPUTS_MSG"]

NO_GRAD_INPUTS_MSG = "There are no inputs in computation graph that require gradients."
_BULK_ENV = {"forward": "MXNET_EXEC_BULK_EXEC_INFERENCE", "full": "MXNET_EXEC_BULK_EXEC_TRAIN",
             "backward": "MXNET_EXEC_BULK_EXEC_TRAIN"}


class CachedOp:
    """Run ``sym`` as one op (``mx.executor.CachedOp``; MXNet's ``mx.nd.CachedOp``).

    Parameters
    ----------
    sym : Symbol
    flags : dict or list of (key, value)
        See :class:`CachedOpConfig`.

    Attributes
    ----------
    replan_log : list of ReplanEvent
    last_run_times : dict of str -> float
        Seconds per node of the last run (filled while :attr:`time_nodes` is True).
    """

    def __init__(self, sym, flags=()):
        self.symbol = sym
        self.config = CachedOpConfig.parse(flags)
        self._graph = sym.graph
        idx = self._graph.indexed
        self.input_names = [idx[n].name for n in idx.input_nodes]
        self._aux = [i for i, n in enumerate(idx.input_nodes) if n in idx.mutable_input_nodes]
        self._check_indices(len(self.input_names))
        self.num_ops = sum(1 for n in idx.nodes if not n.is_variable)
        # NOTE: value-dependent output shapes (flatnonzero, boolean masks) have no static plan for
        #   the head gradients, so recorded calls of such graphs run op by op on the autograd tape.
        self.dynamic_shapes = any(n.op is not None and n.op.dynamic_shape for n in idx.nodes)
        self.replan_log = []
        self.last_run_times = {}
        self._time_nodes = False
        self._plans = {}
        self._gradient_graphs = {}
        self._states = {}
        self._pools = {}
        self._last_recording = None
        self._last_dynamic = None
        self._last_recorded = None
        self._fast = None
        self._op_hook = None
        self._op = Op(name="_CachedOp", compute=_not_runnable, num_inputs=len(self.input_names),
                      num_outputs=len(self._graph.outputs), gradient=_cached_op_gradient,
                      save_inputs=False, save_outputs=False)

    def _check_indices(self, count):
        data, params = self.config.data_indices, self.config.param_indices
        if data is None and params is None:
            self.config.data_indices, self.config.param_indices = tuple(range(count)), ()
            return
        data, params = data or (), params or ()
        if len(data) + len(params) != count:
            raise MXNetValueError(f"CachedOp: data_indices ({len(data)}) and param_indices "
                                  f"({len(params)}) must together cover the {count} inputs")
        self.config.data_indices, self.config.param_indices = tuple(data), tuple(params)

    @property
    def time_nodes(self):
        """Whether runs record seconds per node in :attr:`last_run_times` (slower)."""
        return self._time_nodes

    @time_nodes.setter
    def time_nodes(self, enabled):
        self._time_nodes, self._fast = bool(enabled), None
        for states in self._states.values():
            for state in states:
                state.bound = {}

    # -- public inspection -----------------------------------------------------------------------
    @property
    def plans(self):
        """The current plans by kind (``forward``; ``full`` and ``backward`` after a recorded
        call), each a :class:`~mxlab.executor.planning.PlannedGraph`: the planned graph (with its
        ``pass_log``), memory plan and segments. A read-only view that follows re-plans.

        Example
        -------
        >>> import mxlab as mx
        >>> op = CachedOp(mx.sym.tanh(mx.sym.var('x')))
        >>> _ = op(mx.nd.zeros((2,)))
        >>> list(op.plans), [r.name for r in op.plans['forward'].pass_log]
        (['forward'], ['infer_shape', 'infer_type', 'plan_memory', 'plan_segments'])
        """
        return types.MappingProxyType(self._plans)

    @property
    def forward_graph(self):
        """The planned inference graph (the symbol's graph before the first inference call)."""
        planned = self._plans.get("forward")
        return planned.graph if planned is not None else self._graph

    @property
    def full_graph(self):
        """The planned gradient graph (forward + gradients), after a recorded call."""
        planned = self._plans.get("full")
        return planned.graph if planned is not None else self._unplanned_full()

    @property
    def backward_graph(self):
        """The gradient graph carrying the backward memory plan (after a backward)."""
        planned = self._plans.get("backward")
        return planned.graph if planned is not None else self.full_graph

    def memory_plan(self, kind="forward"):
        """The :class:`~mxlab.graph.memory.MemoryPlan` of ``kind`` (forward/full/backward)."""
        return self._planned(kind).memory_plan

    def segments(self, kind="forward"):
        """The bulk :class:`~mxlab.graph.segments.Segment` list of ``kind``."""
        return self._planned(kind).segments

    def info(self):
        """A summary dict for the notebook: flags, plans, states, re-plans."""
        plans = {kind: {"planned_bytes": p.planned_bytes, "segments": len(p.segments),
                        "summary": p.memory_plan.summary()} for kind, p in self._plans.items()}
        states = {str(device): len(pool) for device, pool in self._states.items()}
        return {"flags": dataclasses.asdict(self.config), "inputs": list(self.input_names),
                "num_ops": self.num_ops, "inlined": self._inlines(), "plans": plans,
                "states": states, "replans": len(self.replan_log),
                "fast_call": self._fast is not None}

    def _planned(self, kind):
        planned = self._plans.get(kind)
        if planned is None:
            raise MXNetValueError(f"CachedOp: no '{kind}' plan yet; call the op first"
                                  + (" while recording" if kind != "forward" else "")
                                  + (" and run backward" if kind == "backward" else ""))
        return planned

    def _unplanned_full(self):
        return gradient_graph(self._graph, self._grad_names(self._default_reqs()),
                              sum_cap=self.config.sum_cap)

    def _straight(self, kind):
        """static_alloc + static_shape: plan ``kind`` runs as one straight-line program (one
        engine push per call over the kept buffers) instead of one push per bulk segment, unless
        bulk execution is switched off (MXNET_EXEC_BULK_EXEC_INFERENCE / _TRAIN = 0). Other calls
        keep MXNet's bulk segments (at most ``*_bulk_size`` nodes per push)."""
        return (self.config.static_alloc and self.config.static_shape
                and bool(env_int(_BULK_ENV[kind], 1)))

    def _inlines(self):
        return not self.config.static_alloc and self.num_ops <= self.config.inline_limit

    # -- planning --------------------------------------------------------------------------------
    def _log(self, trigger, detail):
        self.replan_log.append(ReplanEvent.now(trigger, detail))

    def _default_reqs(self):
        return tuple("null" if i in self._aux else "write" for i in range(len(self.input_names)))

    def _grad_names(self, reqs):
        return [n for n, r in zip(self.input_names, reqs) if r != "null"]

    def _get_plans(self, signature, reqs):
        """The plans for this input signature (and gradient reqs when recording), re-planned and
        logged when a trigger changed."""
        kinds = ("forward",) if reqs is None else ("full", "backward")
        current = self._plans.get(kinds[0])
        key = (signature, reqs)
        if current is not None and current.key == key:
            return [self._plans[k] for k in kinds]
        self._log(*self._trigger(current, signature, reqs))
        shapes = {n: s for n, (s, _) in zip(self.input_names, signature)}
        dtypes = {n: numpy.dtype(d).name for n, (_, d) in zip(self.input_names, signature)}
        if reqs is None:
            graph = infer_graph(self._graph, shapes, dtypes)
        else:
            graph = self._full_graph(reqs, shapes, dtypes)
        excluded = self._excluded(graph) if reqs is not None else ()
        for kind in kinds:
            bulk = self.config.backward_bulk_size if kind == "backward" else \
                self.config.forward_bulk_size
            planned = plan_graph(graph, kind, bulk, self.config.match_range, excluded)
            planned.key = key
            self._compile(planned)
            self._plans[kind] = planned
        return [self._plans[k] for k in kinds]

    def _compile(self, planned):
        """Program and the entry ids a call binds (precomputed, so a call only looks them up)."""
        planned.program = Program(planned.graph, planned.memory_plan, planned.segments,
                                  planned.node_range)
        idx = planned.graph.indexed
        by_name = {idx[n].name: idx.node_row_ptr[n] for n in idx.input_nodes}
        planned.input_eids = [by_name[name] for name in self.input_names]
        planned.output_eids = idx.outputs[:len(self._graph.outputs)]
        planned.variable_eids = set(planned.input_eids)
        entries = planned.memory_plan.entries
        planned.output_meta = [(entries[e].shape, entries[e].dtype) for e in planned.output_eids]
        planned.simple_outputs = (len(set(planned.output_eids)) == len(planned.output_eids)
                                  and not planned.variable_eids & set(planned.output_eids))
        planned.head_eids = head_entry_ids(planned.graph)
        if planned.kind == "backward":   # NOTE: what each backward call binds, looked up once
            planned.forward_eids = planned.input_eids + planned.output_eids
            grads = dict(zip(planned.graph.attrs["xs"],
                             idx.outputs[planned.graph.attrs["num_forward_outputs"]:]))
            planned.input_grads = [None if grads.get(name) is None else
                                   (grads[name], entries[grads[name]]) for name in self.input_names]
            planned.saved_positions, planned.saved_labels = saved_reads(
                planned, self.input_names, self._aux)

    def _trigger(self, current, signature, reqs):
        if current is None:
            return "initial", f"first {'recorded' if reqs else 'inference'} call"
        old_sig, old_reqs = current.key
        for name, (s0, d0), (s1, d1) in zip(self.input_names, old_sig, signature):
            if s0 != s1:
                return "shape", f"{name}: {s0} -> {s1}"
            if d0 != d1:
                return "dtype", f"{name}: {d0} -> {d1}"
        return "grad_req", f"{list(old_reqs)} -> {list(reqs)}"

    def _full_graph(self, reqs, shapes, dtypes):
        """The gradient graph for ``reqs`` (built once; per shapes when recompute sizes nodes),
        inferred for these shapes."""
        recompute = self.config.recompute
        key = (reqs, tuple(sorted(shapes.items())) if recompute else None)
        raw = self._gradient_graphs.get(key)
        if raw is None:
            sizes = {"shapes": shapes, "dtypes": dtypes} if recompute else {}
            raw = gradient_graph(self._graph, self._grad_names(reqs), recompute,
                                 self.config.recompute_budget, self.config.sum_cap, **sizes)
            self._gradient_graphs = {key: raw}
        return infer_graph(raw, shapes, dtypes)

    @staticmethod
    def _excluded(graph):
        idx = graph.indexed
        return [idx.node_row_ptr[n] for n in idx.input_nodes] + list(idx.outputs)

    # -- calling ---------------------------------------------------------------------------------
    def __call__(self, *inputs, out=None, default_device=None, default_ctx=None):
        if len(inputs) == 1 and inputs[0] is None:
            inputs = ()   # NOTE: MXNet's call without inputs, `op(None, default_device=)`
        fast = self._fast
        if fast is not None and out is None:
            result = fast(inputs) if STATE.recording is fast.recording else None
            if result is not None:
                return result
        self._fast = None
        if len(inputs) != len(self.input_names):
            raise MXNetValueError(f"CachedOp: expected {len(self.input_names)} inputs "
                                  f"{self.input_names}, got {len(inputs)}")
        device = self._device(inputs, default_device or default_ctx)
        cls = type(inputs[0]) if inputs else self.symbol._array_class()
        reqs = self._record_reqs(inputs) if STATE.recording else None
        recording = reqs is not None
        if recording and (self._inlines() or self.dynamic_shapes):
            # NOTE: device and class place ops without inputs (the zero states of an RNN layer).
            outputs = evaluate_graph(self._graph.outputs, dict(zip(self.input_names, inputs)),
                                     device, cls)
            return _single(outputs)
        signature = tuple(signature_of(x) for x in inputs)
        if self._last_recording is not recording:
            if self._last_recording is not None:
                self._log("recording", f"recording {self._last_recording} -> {recording}")
            self._last_recording = recording
        planned = self._get_plans(signature, reqs)[0]
        outputs = self._new_outputs(planned, cls, device, out)
        if recording:
            state = self._forward_recorded(planned, inputs, outputs, device)
            if state is not None and self.config.static_shape and out is None \
                    and not self.time_nodes and inputs:
                self._fast = RecordedCall.make(self, planned, inputs, state, reqs)
        else:
            self._forward(planned, inputs, outputs, device)
            if self.config.static_shape and out is None and not self.time_nodes and inputs:
                self._fast = FastCall.make(self, planned, inputs)
        if planned.simple_outputs:
            return outputs[0] if len(outputs) == 1 else outputs
        return _single(self._finish_outputs(planned, inputs, outputs))

    def _device(self, inputs, default=None):
        """The inputs' one device (``default``, else the current device, for a call without
        inputs)."""
        if not inputs:
            return default or current_device()
        device = inputs[0]._device
        for i, x in enumerate(inputs):
            if x._device is not device and x._device != device:
                raise MXNetValueError(
                    f"CachedOp requires all inputs to live on the same context. But "
                    f"{self.input_names[0]} is on {device} while {self.input_names[i]} is on "
                    f"{x._device}")
        return device

    def _record_reqs(self, inputs):
        """'write' for inputs with a history that wants a gradient, else 'null'; None when no
        input wants one (nothing to record: the call runs as inference)."""
        reqs = []
        for i, x in enumerate(inputs):
            entry = x._ag
            wants = (i not in self._aux and entry is not None and entry.node.alive
                     and (entry.node.op is not None or entry.node.grad_req != "null"))
            reqs.append("write" if wants else "null")
        return tuple(reqs) if "write" in reqs else None

    @staticmethod
    def _new_outputs(planned, cls, device, out):
        given = [] if out is None else (list(out) if isinstance(out, (list, tuple)) else [out])
        outputs = []
        for i, (shape, dtype) in enumerate(planned.output_meta):
            outputs.append(given[i] if i < len(given) else
                           cls._empty_handle(device, shape, dtype))
        return outputs

    def _finish_outputs(self, planned, inputs, outputs):
        """Outputs that are inputs, or repeat an earlier output, are the same arrays as those."""
        idx = planned.graph.indexed
        by_name = dict(zip(self.input_names, inputs))
        seen = {}
        result = []
        for eid, arr in zip(planned.output_eids, outputs):
            nid = idx.node_of_entry(eid)
            if idx[nid].is_variable:
                arr = by_name[idx[nid].name]
            result.append(seen.setdefault(eid, arr))
        return result

    @staticmethod
    def _bind_arrays(planned, frame, inputs, outputs):
        arrays = frame.arrays
        for eid, x in zip(planned.input_eids, inputs):
            arrays[eid] = x
        bound = set()
        for eid, arr in zip(planned.output_eids, outputs):
            # NOTE: an entry listed twice is computed into its first array (_finish_outputs
            #   returns that one for every repeat).
            if eid not in planned.variable_eids and eid not in bound:
                bound.add(eid)
                arrays[eid] = arr

    def _pool(self, device):
        pool = self._pools.get(device)
        if pool is None:
            pool = self._pools[device] = BufferPool(device.xp)
        return pool

    def _state(self, device):
        """The first pooled state nobody holds, or a new one."""
        states = self._states.setdefault(device, [])
        for state in states:
            if state.holders == 0:
                return state
        state = KeptState()
        states.append(state)
        return state

    def _static_frame(self, state, planned, device, inputs):
        """The state's frame for ``planned`` (re-allocated when the plan or the mode changed)."""
        if state.key is not None and state.key[1] is planned and state.frame is not None:
            self._check_params(state, inputs)
            return state.frame
        frame = Frame(planned.graph.indexed.num_entries, device, ordered=planned.kind != "forward")
        frame.allocate(planned.kind, planned.memory_plan, planned.node_range,
                       planned.graph.indexed)
        state.frame, state.key = frame, (planned.kind, planned)
        state.bound, state.param_ids = {}, None
        self._check_params(state, inputs)
        return frame

    def _check_params(self, state, inputs):
        """static_shape: note (and log) when a parameter array is not the one bound before."""
        if not self.config.static_shape:
            return
        ids = tuple(id(inputs[i]) for i in self.config.param_indices)
        if state.param_ids is not None and ids != state.param_ids:
            changed = [self.input_names[i] for i, a, b in
                       zip(self.config.param_indices, ids, state.param_ids) if a != b]
            self._log("param_identity", f"rebind parameters {changed}")
        state.param_ids = ids

    def _bound(self, state, planned, frame):
        """A static state's kernels stay bound to its buffers; only the caller's arrays (read
        from the frame at push time) change between calls. static_shape adds the fast call."""
        if state is None:
            return self._bind(planned, frame)
        bound = state.bound.get(planned.kind)
        if bound is None:
            bound = state.bound[planned.kind] = self._bind(planned, frame)
        return bound

    def register_op_hook(self, callback, monitor_all=False):
        """``callback(name, op_name, NDArray)`` on forward nodes (see :mod:`.op_hook`)."""
        self._op_hook = OpHook(callback, bool(monitor_all))   # NOTE: checks the callback
        self._last_dynamic = self._last_recorded = None
        self.time_nodes = self._time_nodes   # NOTE: drops every binding, the fast call too

    def _bind(self, planned, frame):
        hook = self._op_hook if planned.kind != "backward" else None
        bound = planned.program.bind(frame, monitor=hook,
                                     straight=self._straight(planned.kind) and hook is None)
        if self.time_nodes:
            self.last_run_times = {}
            for seg in bound:
                seg.times = self.last_run_times
        return bound

    def _forward(self, planned, inputs, outputs, device):
        if self.config.static_alloc:
            state = self._state(device)
            frame = self._static_frame(state, planned, device, inputs)
            self._bind_arrays(planned, frame, inputs, outputs)
            run_segments(self._bound(state, planned, frame))
            frame.unbind_arrays()
            return
        pool = self._pool(device)
        frame, bound = self._dynamic_frame(planned, device, pool, inputs, outputs)
        try:
            run_segments(bound)
        finally:
            frame.unbind_arrays()
            release_frame(frame, pool)

    def _dynamic_frame(self, planned, device, pool, inputs, outputs):
        """A frame on blocks from the pool; when the pool hands back the very blocks of the last
        call, that call's frame and bound kernels are reused (steady state costs no binding)."""
        blocks = take_blocks(planned.memory_plan, device.xp, pool)
        key = (planned, tuple(id(b) for b in blocks))
        cached = self._last_dynamic
        if cached is not None and cached[0] == key:
            cached[1].blocks["forward"] = blocks
            self._bind_arrays(planned, cached[1], inputs, outputs)
            return cached[1], cached[2]
        frame = Frame(planned.graph.indexed.num_entries, device)
        frame.allocate("forward", planned.memory_plan, planned.node_range,
                       planned.graph.indexed, blocks=blocks)
        self._bind_arrays(planned, frame, inputs, outputs)
        bound = self._bind(planned, frame)
        self._last_dynamic = (key, frame, bound)
        return frame, bound

    def _recorded_frame(self, planned, device, pool):
        """A recorded dynamic call's frame on blocks from the pool and its bound kernels. When
        the pool hands back the very blocks of the last recorded call, that call's run is over
        (its blocks came back when it died), so its frame and bindings -- the backward's too --
        are reused."""
        blocks = take_blocks(planned.memory_plan, device.xp, pool)
        key = (planned, tuple(id(b) for b in blocks))
        cached = self._last_recorded
        if cached is not None and cached[0] == key:
            cached[1].blocks["full"] = blocks
            return cached[1], cached[2]
        frame = Frame(planned.graph.indexed.num_entries, device, ordered=True)
        frame.allocate("full", planned.memory_plan, planned.node_range, planned.graph.indexed,
                       blocks=blocks)
        self._last_recorded = (key, frame, [])   # NOTE: bound once the caller's arrays are in
        return frame, self._last_recorded[2]

    def _forward_recorded(self, planned, inputs, outputs, device):
        pool = self._pool(device)
        if self.config.static_alloc:
            state = self._state(device)
            frame = self._static_frame(state, planned, device, inputs)
        else:
            state = None
            frame, bound = self._recorded_frame(planned, device, pool)
        self._bind_arrays(planned, frame, inputs, outputs)
        # NOTE: updated in place: bound segments hold this dict (see BoundSegment)
        frame.saved_vars.clear()
        frame.saved_vars.update((e, a._var) for e, a in frame.arrays.items() if a is not None)
        if state is not None:
            bound = self._bound(state, planned, frame)
        elif not bound:
            bound.extend(self._bind(planned, frame))
        run_segments(bound)
        frame.unbind_arrays()
        self._record_run(inputs, outputs, frame, state, device, pool)
        return state

    def _record_run(self, inputs, outputs, frame, state, device, pool=None):
        """Put a recorded forward on the tape: one node holding its run (the frame and what
        backward needs), which holds the static state (or the pooled blocks) while it lives."""
        backward = self._plans["backward"]
        run = RecordedRun(self, backward, frame, state, device, type(inputs[0]))
        run.entries = [x._ag for x in inputs]
        if state is not None:
            state.hold()
            run.release = state.unhold
        else:
            run.release = functools.partial(release_frame, frame, pool)
        count = len(inputs)
        saved = tuple([(inputs[i] if i < count else outputs[i - count])._var
                       for i in backward.saved_positions])
        record_op(self._op, {"run": run}, list(inputs), outputs, (saved, backward.saved_labels))

    def _backward(self, run, out_grads):
        """Run the backward plan of a recorded forward; one gradient (or None) per input."""
        backward = run.backward_plan
        frame = run.frame
        arrays = frame.arrays
        for eid in backward.forward_eids:
            # NOTE: backward reads the forward's inputs and outputs from the slots it filled.
            arrays.pop(eid, None)
        for eid, grad in zip(backward.head_eids, out_grads):
            if eid is not None:
                arrays[eid] = grad
        results = []
        for found, input_entry in zip(backward.input_grads, run.entries):
            arr = None if found is None else grad_array(run, input_entry, found[1])
            if arr is not None:
                arrays[found[0]] = arr
            results.append(arr)
        if run.state is not None:
            if "backward" not in frame.blocks:
                frame.allocate("backward", backward.memory_plan, backward.node_range,
                               backward.graph.indexed)
            bound = self._bound(run.state, backward, frame)
        else:
            bound = self._dynamic_backward(backward, frame, run.device)
        run_segments(bound, training=True)
        frame.unbind_arrays()
        return results


    def _dynamic_backward(self, backward, frame, device):
        """The backward kernels of a dynamic frame, on blocks from the pool (bound again only
        when the pool hands back other blocks than last time)."""
        blocks = frame.blocks.get("backward")
        if blocks is None:   # NOTE: present when the run is differentiated again (retain_graph)
            blocks = frame.blocks["backward"] = take_blocks(backward.memory_plan, device.xp,
                                                            self._pool(device))
        key = (backward, tuple(id(b) for b in blocks))
        cached = frame.bound_backward
        if cached is not None and cached[0] == key:
            return cached[1]
        frame.allocate("backward", backward.memory_plan, backward.node_range,
                       backward.graph.indexed, blocks=blocks)
        bound = self._bind(backward, frame)
        frame.bound_backward = (key, bound)
        return bound


def _single(outputs):
    return outputs[0] if len(outputs) == 1 else outputs


def _not_runnable(xp, inputs, attrs):
    raise MXNetNotImplementedError("_CachedOp: a recorded CachedOp node runs only through its "
                                   "CachedOp")


def _cached_op_gradient(node, out_grads):
    """The tape node's gradient: the recorded run's planned backward graph."""
    return node.attrs["run"].backward(out_grads)
