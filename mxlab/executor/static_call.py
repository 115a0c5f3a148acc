"""What a ``static_alloc`` / ``static_shape`` CachedOp keeps between calls.

:class:`RecordedRun` is what a recorded call's tape node keeps for backward; :class:`KeptState`
one member of a CachedOp's per-device pool (its frame and kernels bound to it, kept across calls);
:class:`FastCall` the steady state of a ``static_shape`` inference call with every look-up done
once, :class:`RecordedCall` that of a recorded (training) call. Split from :mod:`.cached_op` along
that seam: the planning and recording logic lives there, what a repeated static call touches
lives here.
"""
import numpy

from .. import engine as _engine
from ..autograd.backward import direct_grad_buffer
from ..base import MXNetNotImplementedError
from ..engine.naive import NaiveEngine
from ..imperative import STATE

__all__ = ["RecordedRun", "KeptState", "FastCall", "RecordedCall", "grad_array", "signature_of",
           "HIGHER_ORDER_MSG"]


HIGHER_ORDER_MSG = ("CachedOp does not support higher order gradients. If you want to do backward "
                    "with create_graph=True please do not use hybridize.")


class RecordedRun:
    """One recorded forward (kept by its tape node): its frame and what backward needs.
    ``release()`` runs when the run is freed (the tape let it go): it gives the static state
    back, or the dynamic frame's blocks to the pool."""

    def __init__(self, cached_op, backward, frame, state, device, cls):
        self.cached_op, self.backward_plan = cached_op, backward
        self.frame, self.state = frame, state
        self.device, self.cls = device, cls
        self.entries = []   # the inputs' autograd entries (direct gradient buffers)
        self.release = None

    def __del__(self):
        # NOTE: cheaper than a weakref.finalize per call (its registry and atexit hook)
        if self.release is not None:
            self.release()

    def backward(self, out_grads):
        if STATE.recording:
            raise MXNetNotImplementedError(HIGHER_ORDER_MSG)
        return self.cached_op._backward(self, out_grads)


class KeptState:
    """One member of the per-device pool: a frame kept across calls (static_alloc)."""

    def __init__(self):
        self.holders = 0
        self.frame = None
        self.key = None          # (kind, planned graph) the frame was allocated for
        self.bound = {}          # kind -> bound segments
        self.param_ids = None

    def hold(self):
        self.holders += 1

    def unhold(self):
        self.holders -= 1


class FastCall:
    """The steady state of a static_shape inference call with everything looked up once: the
    inputs are checked against the last call (device, shape, dtype, parameter identity, the state
    free), then the bound segments are pushed with the call's arrays. Any difference returns None
    and the call takes the full path."""

    __slots__ = ("state", "device", "cls", "signature", "param_positions", "param_ids",
                 "output_meta", "segments", "single")
    recording = False   # NOTE: what autograd.is_recording() is for the calls this repeats

    @classmethod
    def make(cls, cached_op, planned, inputs, state=None):
        """A fast call repeating this one (on ``state``, default the first free one), or None
        when a segment binds other arrays."""
        state = state or cached_op._state(inputs[0]._device)
        positions = {eid: i for i, eid in enumerate(planned.input_eids)}
        count = len(inputs)
        positions.update({eid: count + i for i, eid in enumerate(planned.output_eids)})
        segments = []
        for seg in state.bound.get(planned.kind, ()):
            if any(e not in positions for e in seg.ext_reads + seg.write_eids):
                return None
            writes = [positions[e] for e in seg.write_eids]
            # NOTE: a segment writing one array twice takes the push (its writes are deduplicated)
            segments.append((seg, [positions[e] for e in seg.ext_reads], writes,
                             seg.runs_inline and len(set(writes)) == len(writes)))
        if not planned.simple_outputs:
            return None
        fast = cls()
        fast.state, fast.device, fast.cls = state, inputs[0]._device, type(inputs[0])
        fast.signature = [signature_of(x) for x in inputs]
        fast.param_positions = cached_op.config.param_indices
        fast.param_ids = state.param_ids
        fast.output_meta, fast.segments = planned.output_meta, segments
        fast.single = len(planned.output_meta) == 1
        return fast

    def matches(self, inputs):
        """Whether ``inputs`` repeat the call this was made for, with its state free."""
        if self.state.holders or len(inputs) != len(self.signature):
            return False
        device = self.device
        for x, (shape, dtype) in zip(inputs, self.signature):
            data = x._data
            if data is None or data.shape != shape or data.dtype != dtype or \
                    (x._device is not device and x._device != device):
                return False
        if type(inputs[0]) is not self.cls:
            return False
        return not self.param_positions or \
            tuple(id(inputs[i]) for i in self.param_positions) == self.param_ids

    def run(self, inputs):
        """New outputs, and every segment pushed with the call's arrays."""
        empty, device = self.cls._empty_handle, self.device
        outputs = [empty(device, shape, dtype) for shape, dtype in self.output_meta]
        arrays = [*inputs, *outputs]
        engine = _engine.get_engine()
        # NOTE: the naive engine with nothing logged would run each push at once and count its
        #   writes: do that directly (the imperative fast lane's counterpart)
        inline = type(engine) is NaiveEngine and not engine.event_log.active
        for seg, reads, writes, runs_inline in self.segments:
            if inline and runs_inline:
                seg.run_inline([arrays[i] for i in reads], [arrays[i] for i in writes])
            else:
                seg.push_arrays([arrays[i] for i in reads], [arrays[i] for i in writes])
        return outputs

    def __call__(self, inputs):
        if not self.matches(inputs):
            return None
        outputs = self.run(inputs)
        return outputs[0] if self.single else outputs


class RecordedCall(FastCall):
    """The steady state of a recorded static_alloc / static_shape call (a training step's
    forward): :class:`FastCall`'s checks plus the same gradient requests and plans, its pushes,
    then the forward's inputs and outputs noted for the backward and the call put on the tape
    (``CachedOp._record_run``), as the full path does."""

    __slots__ = ("cached_op", "planned", "reqs", "saved")
    recording = True

    @classmethod
    def make(cls, cached_op, planned, inputs, state=None, reqs=None):
        fast = super().make(cached_op, planned, inputs, state)
        if fast is None:
            return None
        fast.cached_op, fast.planned, fast.reqs = cached_op, planned, reqs
        count = len(inputs)
        saved = dict(zip(planned.input_eids, range(count)))
        for i, eid in enumerate(planned.output_eids):
            saved.setdefault(eid, count + i)   # NOTE: a repeated output is its first array
        fast.saved = list(saved.items())
        return fast

    def __call__(self, inputs):
        cached_op = self.cached_op
        if not self.matches(inputs) or cached_op._record_reqs(inputs) != self.reqs \
                or cached_op._plans.get(self.planned.kind) is not self.planned:
            return None
        outputs = self.run(inputs)
        arrays = [*inputs, *outputs]
        frame = self.state.frame
        saved = frame.saved_vars   # NOTE: updated in place: bound backward segments hold it
        saved.clear()
        for eid, i in self.saved:
            saved[eid] = arrays[i]._var
        cached_op._record_run(inputs, outputs, frame, self.state, self.device)
        return outputs[0] if self.single else outputs


def grad_array(run, input_entry, planned):
    """The array a recorded run's backward writes an input's gradient into: the variable's own
    ``.grad`` buffer when backward may write it directly (same device, shape, dtype and class;
    see :func:`~mxlab.autograd.backward.direct_grad_buffer`), else a new one."""
    buffer = direct_grad_buffer(input_entry)
    if buffer is not None and type(buffer) is run.cls and buffer.shape == planned.shape \
            and (buffer._device is run.device or buffer._device == run.device) \
            and numpy.dtype(buffer.dtype) == numpy.dtype(planned.dtype):
        return buffer
    return run.cls._empty_handle(run.device, planned.shape, planned.dtype)


def signature_of(x):
    """(shape, dtype) of an input, from its data when it is there (the fast case)."""
    data = x._data
    if data is not None:
        return data.shape, data.dtype
    return x.shape, numpy.dtype(x.dtype)
