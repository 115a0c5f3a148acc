"""The imperative dispatcher: every op call on arrays goes through :func:`invoke`.

One decision point per call (see DESIGN.md "Data flow"): deferred compute on -> record a graph node
instead of computing; otherwise push the kernel to the engine, then, when autograd is recording, add
a tape node. The flags live in one thread-local :data:`STATE` shared by ``mx.autograd`` and
``mx._deferred_compute``.
"""
import threading

import numpy

from . import engine as _engine_mod
from .base import MXNetError, MXNetNotImplementedError, MXNetRuntimeError, MXNetValueError
from .device import current_device
from .engine.naive import NaiveEngine
from .engine.op import next_push_seq, raise_error
from .engine.var import Var
from .ops.context import op_context
from .ops.registry import call_translated, run_kernel, translate_error

__all__ = ["STATE", "ValuesNeeded", "invoke",
           "invoke_one", "invoke_updates", "prepare_updates", "push_updates",
           "set_hooks", "INPLACE_AUTOGRAD_MSG", "call_translated", "run_kernel"]

INPLACE_AUTOGRAD_MSG = ("Inplace operations (+=, -=, x[:]=, etc) are not supported when "
                       "recording with autograd.")


class _ThreadState(threading.local):
    """Per-thread mode flags (MXNet keeps these thread-local too). Kernels never read them: the
    dispatcher hands each kernel that takes one an :class:`~mxlab.ops.context.OpContext` made
    from ``training`` when the op is pushed."""
    recording = False
    training = False
    deferred = False
    shapes_only = 0     # depth of deferred_compute.shapes_only(): traces that must not compute


class ValuesNeeded(MXNetRuntimeError):
    """Raised by evaluation inside ``deferred_compute.shapes_only()``: the traced code reads
    values (a recorded array's, or an eager NumPy fallback's inputs)."""


STATE = _ThreadState()
_hooks = {"record": None, "deferred": None}


def set_hooks(record=None, deferred=None):
    """Install the autograd tape recorder and the deferred-compute recorder (called by those
    modules)."""
    if record is not None:
        _hooks["record"] = record
    if deferred is not None:
        _hooks["deferred"] = deferred


def _common_device(op, inputs):
    device = inputs[0]._device
    for i, x in enumerate(inputs):
        if x._device is not device and x._device != device:
            raise MXNetValueError(f"{op.name}: all inputs must be on the same device, but input 0 "
                                  f"is on {device} while input {i} is on {x._device}; use "
                                  "as_in_context() to copy")
    return device


def invoke(op, inputs, attrs, out=None, cls=None, device=None):
    """Run ``op`` on NDArray ``inputs`` with parsed ``attrs``; returns the list of output arrays.

    ``out``: arrays to write into (the op then mutates them); ``cls``/``device`` choose the output
    class and device for ops without inputs (creation, random).
    """
    if out is None and op.runs_inline and inputs:
        return [invoke_one(op, inputs, attrs, cls)]
    return _invoke_general(op, inputs, attrs, out, cls, device, STATE)


def invoke_one(op, inputs, attrs, cls=None):
    """:func:`invoke` of a one-output op on one or more arrays, without ``out``: the output array
    itself (the frontends' hot path: no list to build and index).

    The fast lane: under the NaiveEngine, an op that writes only its fresh output
    (``op.runs_inline``) runs right here on the calling thread, as a push would run it, without a
    kernel closure or an engine record; the event log still gets the event a push logs when it is
    active (same versions, same order). Anything else takes the general path, which also runs
    again (and reports as a push does) a kernel that raised here: these ops write nothing but their
    fresh output, so the re-run is safe.
    """
    state = STATE
    engine = _engine_mod._engine
    if not op.runs_inline or type(engine) is not NaiveEngine or state.deferred:
        return _invoke_general(op, inputs, attrs, None, cls, None, state)[0]
    first = inputs[0]
    device = first._device
    unary = len(inputs) == 1
    if unary:
        datas = [first._data]
        if datas[0] is None:   # deferred-compute or failed input: the general path handles it
            return _invoke_general(op, inputs, attrs, None, cls, None, state)[0]
    else:
        _common_device(op, inputs)
        datas = [x._data for x in inputs]
        if _any_none(datas):
            return _invoke_general(op, inputs, attrs, None, cls, None, state)[0]
    log = engine.event_log
    logged = log.active
    if logged:
        seq = next_push_seq()
        start = log.now()
        reads = None if unary else _read_versions(inputs)
    # NOTE: Device.xp inlined for the CPU (the per-op hot path).
    xp = numpy if device.device_type != "gpu" else device.xp
    try:
        result = op.compute(xp, datas, attrs) if not op.takes_ctx else \
            op.compute(xp, datas, attrs, op_context(state.training))
    except Exception:  # noqa: BLE001 - the general path re-runs it and reports the error
        return _invoke_general(op, inputs, attrs, None, cls, None, state)[0]
    if type(result) is not numpy.ndarray:
        result = _one_array(xp, result)
    output = (cls or type(first))._produced(result, device)
    if logged:   # NOTE: as NaiveEngine.push_checked logs a push
        if reads is None:
            log.record_unary(op.name, first._var.id, first._var.version, output._var.id, start,
                             seq)
        else:
            log.record(op.name, reads, ((output._var.id, 1),), start, log.now(), None, start, seq)
    if state.recording:
        _hooks["record"](op, attrs, inputs, [output])
    return output


def _writes_recorded(outputs, inputs):
    """Whether writing ``outputs`` would be an in-place write on the tape: an output with a
    history, or an output that is also an input of an op with recorded inputs (MXNet refuses
    both, see :func:`~mxlab.autograd.tape.record_op`); checked before the kernel runs, so a
    refused write changes nothing."""
    if any(o._ag is not None for o in outputs):
        return True
    return any(o is x for o in outputs for x in inputs) and \
        any(x._ag is not None for x in inputs)


def _one_array(xp, result):
    """A kernel's result as one array (the first of a tuple; a NumPy scalar made 0-d)."""
    if type(result) is tuple or type(result) is list:
        result = result[0]
    return xp.asarray(result) if isinstance(result, numpy.generic) else result


def _any_none(datas):
    for data in datas:
        if data is None:
            return True
    return False


def _invoke_general(op, inputs, attrs, out, cls, device, state):
    """Every call the fast lane does not take: deferred compute, ``out=``, the threaded engine,
    ops writing inputs or resources, several outputs, kernels that raise."""
    if state.deferred:
        return _hooks["deferred"](op, inputs, attrs, out, cls, device)
    if inputs:
        first = inputs[0]
        device = first._device
        if len(inputs) > 1:
            _common_device(op, inputs)
        cls = cls or type(first)
        for x in inputs:
            if x._data is None and x._dc is not None:
                x._materialize()
    else:
        device = device or current_device()
    xp = device.xp
    recording = state.recording
    if out is not None:
        outputs = list(out)
        if recording and _writes_recorded(outputs, inputs):
            raise MXNetNotImplementedError(INPLACE_AUTOGRAD_MSG)
    else:
        count = op.num_outputs if type(op.num_outputs) is int else op.get_num_outputs(attrs)
        outputs = [cls._empty_handle(device)] if count == 1 else \
            [cls._empty_handle(device) for _ in range(count)]
    # NOTE: the common shapes (one output; one or two inputs) avoid comprehensions: this is the
    #   per-op hot path.
    write_vars = [outputs[0]._var] if len(outputs) == 1 else [o._var for o in outputs]
    if op.mutate_inputs:
        write_vars += [inputs[i]._var for i in op.mutate_inputs]
    if op.resources:
        # NOTE: ops sharing a resource (one RNG per device) are ordered by writing its var, so seeds
        # repeat.
        write_vars += [_engine_mod.resource_var(kind, device) for kind in op.resources]
    if out is not None or op.mutate_inputs:
        read_vars = list(dict.fromkeys([x._var for x in inputs if x._var not in write_vars]))
    elif len(inputs) == 1:
        read_vars = [inputs[0]._var]
    elif len(inputs) == 2:
        lhs, rhs = inputs[0]._var, inputs[1]._var
        read_vars = [lhs] if lhs is rhs else [lhs, rhs]   # x * x reads one var once
    else:
        read_vars = list(dict.fromkeys([x._var for x in inputs]))
    single = len(inputs) == 1
    ctx = op_context(state.training) if op.takes_ctx else None

    def kernel():
        datas = [inputs[0]._data] if single else [x._data for x in inputs]
        if out is not None:
            buffers = [o._data for o in outputs]
            run_kernel(op, xp, datas, attrs, buffers, None, ctx)
            for o, buffer in zip(outputs, buffers):
                if o._sparse:   # NOTE: a sparse out= got a dense buffer: store it compressed
                    o._data = buffer
            return
        try:   # NOTE: call_translated inlined: this is the per-op hot path.
            results = op.compute(xp, datas, attrs) if ctx is None else \
                op.compute(xp, datas, attrs, ctx)
        except MXNetError:
            raise
        except Exception as exc:
            # NOTE: not bound to a local, which would keep the error in a cycle with its frame
            raise_error(translate_error(op, exc, datas) or exc, exc)
        if type(results) is tuple or type(results) is list:
            for o, r in zip(outputs, results):
                o._data = xp.asarray(r) if isinstance(r, numpy.generic) else r
        else:
            outputs[0]._data = xp.asarray(results) if isinstance(results, numpy.generic) \
                else results

    _engine_mod.get_engine().push_checked(kernel, read_vars, write_vars, op.name)
    if recording:
        _hooks["record"](op, attrs, inputs, outputs)
    return outputs


def invoke_updates(calls):
    """Run in-place updates ``[(op, inputs, parsed attrs)]``, each writing its first input (and
    its ``mutate_inputs``), as one engine push: an optimizer step over many parameters costs one
    dependency record, not one per parameter (MXNet's multi-tensor updates have the same aim).

    Each update still runs its own kernel, with errors naming its op. Deferred compute, sparse
    weights and one-call batches take :func:`invoke` per call, which handles them. Returns the
    push :func:`prepare_updates` made (None where the calls ran one by one), for a caller that
    keeps it.
    """
    prepared = prepare_updates(calls)
    if prepared is None:
        for op, inputs, attrs in calls:
            invoke(op, inputs, attrs, out=[inputs[0]])
        return None
    push_updates(prepared)
    return prepared


def prepare_updates(calls):
    """``(kernel, read vars, write vars, event name)`` of :func:`invoke_updates`' one push, or
    None where the calls take :func:`invoke` one by one. An optimizer may keep it and hand it to
    :func:`push_updates` again while the same arrays get the same updates (it reads each array's
    data when it runs)."""
    state = STATE
    if len(calls) < 2 or state.deferred or any(c[1][0]._sparse for c in calls):
        return None
    writes, reads, runs = {}, {}, []
    recording = state.recording
    for op, inputs, attrs in calls:
        first = inputs[0]
        device = first._device
        for x in inputs:
            if x._data is None and x._dc is not None:
                x._materialize()
            if x._device is not device and x._device != device:
                _common_device(op, inputs)
        if recording and _writes_recorded([first], inputs):
            raise MXNetNotImplementedError(INPLACE_AUTOGRAD_MSG)
        writes[first._var] = None
        for i in op.mutate_inputs:
            writes[inputs[i]._var] = None
        for x in inputs:
            reads[x._var] = None
        # NOTE: compute_into called directly (what run_kernel's op.forward does for a write
        #   request), the per-step hot path of an optimizer
        into = op.compute_into if not op.into_takes_ctx else None
        runs.append((op, device.xp, inputs, attrs, into))
    read_vars = [v for v in reads if v not in writes]

    def kernel():
        for op, xp, inputs, attrs, into in runs:
            datas = [x._data for x in inputs]
            if into is None:
                run_kernel(op, xp, datas, attrs, [datas[0]])
                continue
            try:
                into(xp, datas, attrs, [datas[0]])
            except MXNetError:
                raise
            except Exception as exc:
                raise_error(translate_error(op, exc, datas) or exc, exc)

    name = calls[0][0].name
    for call in calls:
        if call[0].name != name:
            name = "fused updates"
            break
    return kernel, read_vars, list(writes), name


def push_updates(prepared):
    """Push what :func:`prepare_updates` made (one engine push, logged under its name)."""
    _engine_mod.get_engine().push_checked(*prepared)


def _read_versions(inputs):
    """``(var id, version)`` of each distinct var read, in order (``x * x`` reads one var)."""
    return tuple(dict.fromkeys([(x._var.id, x._var.version) for x in inputs]))


def new_var():
    return Var()
