"""What a ``static_alloc`` / ``static_shape`` CachedOp keeps between calls.

:class:`KeptState` is one member of a CachedOp's per-device pool (its frame and kernels bound to
it, kept across calls); :class:`FastCall` is the steady state of a ``static_shape`` inference call
with every look-up done once. Split from :mod:`.cached_op` along that seam: the planning and
recording logic lives there, what a repeated static call touches lives here.
"""
import numpy

from .. import engine as _engine
from ..autograd.backward import direct_grad_buffer
from ..engine.naive import NaiveEngine

__all__ = ["KeptState", "FastCall", "grad_array", "signature_of"]


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

    @classmethod
    def make(cls, cached_op, planned, inputs):
        """A fast call repeating this one, or None when a segment binds other arrays."""
        state = cached_op._state(inputs[0]._device)
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
        fast = cls()
        fast.state, fast.device, fast.cls = state, inputs[0]._device, type(inputs[0])
        fast.signature = [signature_of(x) for x in inputs]
        fast.param_positions = cached_op.config.param_indices
        fast.param_ids = state.param_ids
        fast.output_meta, fast.segments = planned.output_meta, segments
        fast.single = len(planned.output_meta) == 1 and planned.simple_outputs
        return fast if planned.simple_outputs else None

    def __call__(self, inputs):
        if self.state.holders or len(inputs) != len(self.signature):
            return None
        device = self.device
        for x, (shape, dtype) in zip(inputs, self.signature):
            data = x._data
            if data is None or x._device is not device or data.shape != shape or \
                    data.dtype != dtype:
                return None
        if type(inputs[0]) is not self.cls:
            return None
        if self.param_positions and \
                tuple(id(inputs[i]) for i in self.param_positions) != self.param_ids:
            return None
        empty = self.cls._empty_handle
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
        return outputs[0] if self.single else outputs


def grad_array(run, input_entry, planned):
    """The array a recorded run's backward writes an input's gradient into: the variable's own
    ``.grad`` buffer when backward may write it directly (same device, shape, dtype and class;
    see :func:`~mxlab.autograd.backward.direct_grad_buffer`), else a new one."""
    buffer = direct_grad_buffer(input_entry)
    if buffer is not None and type(buffer) is run.cls and buffer._device == run.device \
            and buffer.shape == planned.shape \
            and numpy.dtype(buffer.dtype) == numpy.dtype(planned.dtype):
        return buffer
    return run.cls._empty_handle(run.device, planned.shape, planned.dtype)


def signature_of(x):
    """(shape, dtype) of an input, from its data when it is there (the fast case)."""
    data = x._data
    if data is not None:
        return data.shape, data.dtype
    return x.shape, numpy.dtype(x.dtype)
