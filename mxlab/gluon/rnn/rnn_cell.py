"""Recurrent cells: one time step per call, ``unroll`` for whole sequences (MXNet's
``gluon.rnn.rnn_cell``).

``RNNCell``, ``LSTMCell``, ``GRUCell`` compute a step with ``FullyConnected`` and activations, so
they differentiate and hybridize like any block; ``SequentialRNNCell`` stacks cells,
``BidirectionalCell`` runs two over opposite directions (``unroll`` only), and ``DropoutCell``,
``ResidualCell``, ``ZoneoutCell`` modify a cell's output or states.

Example
-------
>>> import mxlab as mx
>>> cell = mx.gluon.rnn.GRUCell(3, input_size=2)
>>> cell.initialize()
>>> outputs, states = cell.unroll(4, mx.nd.ones((5, 4, 2)), merge_outputs=True)
>>> outputs.shape, states[0].shape
((5, 4, 3), (5, 3))
"""
from ...base import MXNetValueError
from ...ops.registry import F as _F
from ..block import HybridBlock
from ..parameter import Parameter
from .rnn_layer import default_zeros

__all__ = [
    "BidirectionalCell",
    "DropoutCell",
    "GRUCell",
    "HybridRecurrentCell",
    "HybridSequentialRNNCell",
    "LSTMCell",
    "ModifierCell",
    "RNNCell",
    "RecurrentCell",
    "ResidualCell",
    "SequentialRNNCell",
    "ZoneoutCell",
]


def _split_steps(inputs, length, axis):
    """A list of ``length`` per-step arrays from an array (time on ``axis``) or a list."""
    if isinstance(inputs, (list, tuple)):
        if len(inputs) != length:
            raise MXNetValueError(f"unroll: {len(inputs)} inputs for length={length}")
        return list(inputs), False
    if inputs.shape[axis] != length:
        raise MXNetValueError(f"unroll: time axis {axis} of shape {inputs.shape} is not "
                              f"length={length}")
    steps = _F.split(inputs, num_outputs=length, axis=axis, squeeze_axis=True)
    return (list(steps) if isinstance(steps, (list, tuple)) else [steps]), True


def _merge(outputs, axis, merge):
    return _F.stack(*outputs, axis=axis, num_args=len(outputs)) if merge else outputs


class HybridRecurrentCell(HybridBlock):
    """Base of the cells: ``begin_state``, ``state_info`` and ``unroll``."""

    def state_info(self, batch_size=0):
        raise NotImplementedError(f"{type(self).__name__}.state_info")

    def reset(self):
        """Cells keep no step counters here; kept for MXNet's API."""
        for child in self._children.values():
            if isinstance(child, HybridRecurrentCell):
                child.reset()

    def begin_state(self, batch_size=0, func=None, **kwargs):
        """Initial states, ``func(shape=..., **kwargs)`` each (zeros of the active flavour)."""
        func = func or default_zeros()
        kwargs.pop("name", None)
        return [func(shape=info["shape"], **kwargs) for info in self.state_info(batch_size)]

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        """Run ``length`` steps; returns ``(outputs, states)``.

        ``inputs``: an array with time on ``layout``'s T axis, or a list of per-step arrays.
        ``valid_length`` (per batch entry) masks outputs past each length and returns the states
        of each sequence's last valid step.
        """
        axis = layout.find("T")
        steps, was_array = _split_steps(inputs, length, axis)
        states = begin_state if begin_state is not None else \
            self.begin_state(batch_size=steps[0].shape[0], func=_zeros_for(steps[0]))
        outputs, history = [], []
        for step in steps:
            out, states = self(step, states)
            outputs.append(out)
            history.append(states)
        if valid_length is not None:
            states = [_F.SequenceLast(_F.stack(*[h[i] for h in history], axis=0,
                                               num_args=length), valid_length,
                                      use_sequence_length=True)
                      for i in range(len(states))]
            masked = _F.SequenceMask(_F.stack(*outputs, axis=0, num_args=length), valid_length,
                                     use_sequence_length=True)
            outputs = list(_F.split(masked, num_outputs=length, axis=0, squeeze_axis=True)) \
                if length > 1 else [_F.squeeze(masked, axis=0)]
        merge = was_array if merge_outputs is None else merge_outputs
        return _merge(outputs, axis, merge), states


RecurrentCell = HybridRecurrentCell


def _zeros_for(x):
    """A ``func(shape=...)`` making zeros like ``x`` (its flavour, dtype and device)."""
    from .rnn_layer import zeros_like_input
    return lambda shape, **kwargs: zeros_like_input(x, shape)


class _GatedCell(HybridRecurrentCell):
    """``i2h``/``h2h`` weights and biases of ``gates * hidden_size`` rows."""

    _gates, _num_states = 1, 1

    def __init__(self, hidden_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0,
                 dtype="float32"):
        super().__init__()
        self._hidden_size, self._input_size = hidden_size, input_size
        rows = self._gates * hidden_size
        for name, shape, init in (("i2h_weight", (rows, input_size), i2h_weight_initializer),
                                  ("h2h_weight", (rows, hidden_size), h2h_weight_initializer),
                                  ("i2h_bias", (rows,), i2h_bias_initializer),
                                  ("h2h_bias", (rows,), h2h_bias_initializer)):
            setattr(self, name, Parameter(name, shape=shape, init=init, dtype=dtype,
                                          allow_deferred_init=True))

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size, self._hidden_size), "__layout__": "NC"}
                for _ in range(self._num_states)]

    def infer_shape(self, inputs, *args):
        """From the first forward's ``(inputs, states)``, or MXNet 2.0's explicit
        ``infer_shape(layer_index, x, is_bidirect)`` (a layer > 0 reads the layer below)."""
        if isinstance(inputs, int) and args:
            index, x, is_bidirect = inputs, args[0], args[1] if len(args) > 1 else False
            width = x.shape[-1] if index == 0 else self._hidden_size * (2 if is_bidirect else 1)
        else:
            width = inputs.shape[-1]
        self.i2h_weight.shape = (self._gates * self._hidden_size, width)

    def _projections(self, inputs, h, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        rows = self._gates * self._hidden_size
        i2h = _F.FullyConnected(inputs, i2h_weight, i2h_bias, num_hidden=rows)
        h2h = _F.FullyConnected(h, h2h_weight, h2h_bias, num_hidden=rows)
        return i2h, h2h

    def __repr__(self):
        return f"{type(self).__name__}({self._input_size or None} -> {self._hidden_size})"


class RNNCell(_GatedCell):
    """Elman step ``h' = act(W_i x + b_i + W_h h + b_h)``."""

    def __init__(self, hidden_size, activation="tanh", **kwargs):
        super().__init__(hidden_size, **kwargs)
        self._activation = activation

    def hybrid_forward(self, F, inputs, states, **params):
        i2h, h2h = self._projections(inputs, states[0], **params)
        out = _F.Activation(i2h + h2h, act_type=self._activation)
        return out, [out]


class LSTMCell(_GatedCell):
    """LSTM step, gates ``i, f, c, o`` (MXNet's order); states ``[h, c]``."""

    _gates, _num_states = 4, 2

    def __init__(self, hidden_size, activation="tanh", recurrent_activation="sigmoid",
                 **kwargs):
        super().__init__(hidden_size, **kwargs)
        self._activation, self._recurrent = activation, recurrent_activation

    def hybrid_forward(self, F, inputs, states, **params):
        i2h, h2h = self._projections(inputs, states[0], **params)
        i, f, g, o = _F.SliceChannel(i2h + h2h, num_outputs=4, axis=-1)
        i, f, o = (_F.Activation(v, act_type=self._recurrent) for v in (i, f, o))
        c = f * states[1] + i * _F.Activation(g, act_type=self._activation)
        h = o * _F.Activation(c, act_type=self._activation)
        return h, [h, c]


class GRUCell(_GatedCell):
    """GRU step (cuDNN's form): ``n = tanh(W_in x + r * (W_hn h + b_hn))``."""

    _gates = 3

    def __init__(self, hidden_size, activation="tanh", recurrent_activation="sigmoid",
                 **kwargs):
        super().__init__(hidden_size, **kwargs)
        self._activation, self._recurrent = activation, recurrent_activation

    def hybrid_forward(self, F, inputs, states, **params):
        prev = states[0]
        i2h, h2h = self._projections(inputs, prev, **params)
        xr, xz, xn = _F.SliceChannel(i2h, num_outputs=3, axis=-1)
        hr, hz, hn = _F.SliceChannel(h2h, num_outputs=3, axis=-1)
        reset = _F.Activation(xr + hr, act_type=self._recurrent)
        update = _F.Activation(xz + hz, act_type=self._recurrent)
        candidate = _F.Activation(xn + reset * hn, act_type=self._activation)
        out = (1 - update) * candidate + update * prev
        return out, [out]


class SequentialRNNCell(HybridRecurrentCell):
    """Cells stacked: each one's output is the next one's input; states are concatenated."""

    def __init__(self):
        super().__init__()
        self._cells = []

    def add(self, cell):
        self.register_child(cell, str(len(self._cells)))
        self._cells.append(cell)

    def __len__(self):
        return len(self._cells)

    def __getitem__(self, i):
        return self._cells[i]

    def state_info(self, batch_size=0):
        return [info for cell in self._cells for info in cell.state_info(batch_size)]

    def forward(self, inputs, states):
        new_states, start = [], 0
        for cell in self._cells:
            count = len(cell.state_info())
            inputs, cell_states = cell(inputs, states[start:start + count])
            new_states += cell_states
            start += count
        return inputs, new_states


HybridSequentialRNNCell = SequentialRNNCell


class BidirectionalCell(HybridRecurrentCell):
    """Two cells over opposite time directions; outputs concatenated (``unroll`` only)."""

    def __init__(self, l_cell, r_cell, output_prefix="bi_"):
        super().__init__()
        self.l_cell, self.r_cell = l_cell, r_cell

    def state_info(self, batch_size=0):
        return self.l_cell.state_info(batch_size) + self.r_cell.state_info(batch_size)

    def forward(self, inputs, states):
        raise NotImplementedError("BidirectionalCell cannot be stepped; use unroll (as MXNet)")

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        axis = layout.find("T")
        steps, was_array = _split_steps(inputs, length, axis)
        if begin_state is None:
            begin_state = self.begin_state(batch_size=steps[0].shape[0],
                                           func=_zeros_for(steps[0]))
        count = len(self.l_cell.state_info())
        l_out, l_states = self.l_cell.unroll(length, steps, begin_state[:count], layout, False,
                                             valid_length)
        reversed_steps = _reverse(steps, valid_length)
        r_out, r_states = self.r_cell.unroll(length, reversed_steps, begin_state[count:],
                                             layout, False, valid_length)
        r_out = _reverse(r_out, valid_length)
        outputs = [_F.concat(a, b, dim=-1, num_args=2) for a, b in zip(l_out, r_out)]
        merge = was_array if merge_outputs is None else merge_outputs
        return _merge(outputs, axis, merge), l_states + r_states


def _reverse(steps, valid_length):
    """Steps in reverse order (within each sequence's valid length when given)."""
    if valid_length is None:
        return steps[::-1]
    stacked = _F.stack(*steps, axis=0, num_args=len(steps))
    flipped = _F.SequenceReverse(stacked, valid_length, use_sequence_length=True)
    return list(_F.split(flipped, num_outputs=len(steps), axis=0, squeeze_axis=True)) \
        if len(steps) > 1 else [_F.squeeze(flipped, axis=0)]


class ModifierCell(HybridRecurrentCell):
    """Wraps ``base_cell``; its states are the base cell's."""

    def __init__(self, base_cell):
        super().__init__()
        self.base_cell = base_cell

    def state_info(self, batch_size=0):
        return self.base_cell.state_info(batch_size)


class DropoutCell(HybridRecurrentCell):
    """Dropout on the input while training; no states."""

    def __init__(self, rate, axes=()):
        super().__init__()
        self._rate, self._axes = rate, tuple(axes)

    def state_info(self, batch_size=0):
        return []

    def forward(self, inputs, states):
        if self._rate > 0:
            out = _F.Dropout(inputs, p=self._rate, axes=self._axes)
            inputs = out[0] if isinstance(out, (list, tuple)) else out
        return inputs, states


class ResidualCell(ModifierCell):
    """``output = base_cell(inputs) + inputs``."""

    def forward(self, inputs, states):
        out, states = self.base_cell(inputs, states)
        return out + inputs, states


class ZoneoutCell(ModifierCell):
    """While training, keeps each output / state unit's previous value with probability
    ``zoneout_outputs`` / ``zoneout_states`` (Krueger et al.)."""

    def __init__(self, base_cell, zoneout_outputs=0.0, zoneout_states=0.0):
        super().__init__(base_cell)
        self._zoneout_outputs, self._zoneout_states = zoneout_outputs, zoneout_states
        self._prev_output = None

    def reset(self):
        super().reset()
        self._prev_output = None

    def forward(self, inputs, states):
        from ... import autograd
        out, new_states = self.base_cell(inputs, states)
        if not autograd.is_training():
            return out, new_states
        prev = self._prev_output if self._prev_output is not None else _F.zeros_like(out)
        out = _zoneout(out, prev, self._zoneout_outputs)
        new_states = [_zoneout(new, old, self._zoneout_states)
                      for new, old in zip(new_states, states)]
        self._prev_output = out
        return out, new_states


def _zoneout(new, old, rate):
    if rate == 0:
        return new
    keep_new = _F.Dropout(_F.ones_like(new), p=rate, mode="always")
    keep_new = keep_new[0] if isinstance(keep_new, (list, tuple)) else keep_new
    return _F.where(keep_new, new, old)
