"""Recurrent cells: one time step per call, ``unroll`` for whole sequences (MXNet's
``gluon.rnn.rnn_cell``).

``RNNCell``, ``LSTMCell``, ``GRUCell`` compute a step with ``FullyConnected`` and activations, so
they differentiate and hybridize like any block; ``SequentialRNNCell`` stacks cells,
``BidirectionalCell`` runs two over opposite directions (``unroll`` only), and ``DropoutCell``,
``ResidualCell``, ``ZoneoutCell``, ``VariationalDropoutCell`` modify a cell's output or states;
``LSTMPCell`` projects the LSTM state and ``dynamic_unroll`` is MXNet 2.0's merged unroll.

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
from .states import default_zeros, zeros_like_input

__all__ = [
    "BidirectionalCell",
    "DropoutCell",
    "GRUCell",
    "HybridRecurrentCell",
    "HybridSequentialRNNCell",
    "LSTMCell",
    "LSTMPCell",
    "ModifierCell",
    "RNNCell",
    "RecurrentCell",
    "ResidualCell",
    "SequentialRNNCell",
    "VariationalDropoutCell",
    "ZoneoutCell",
    "dynamic_unroll",
]


def _split_steps(inputs, length, axis):
    """A list of ``length`` per-step arrays from an array (time on ``axis``) or a list."""
    if isinstance(inputs, (list, tuple)):
        if len(inputs) != length:
            raise MXNetValueError(f"unroll: {len(inputs)} inputs for length={length}")
        return list(inputs), False
    if _is_symbol(inputs):   # NOTE: a Gluon 1 cell unrolled over symbols (shapes unknown)
        return list(_F.split(inputs, num_outputs=length, axis=axis, squeeze_axis=True)), True
    if inputs.shape[axis] != length:
        raise MXNetValueError(f"unroll: time axis {axis} of shape {inputs.shape} is not "
                              f"length={length}")
    steps = _F.split(inputs, num_outputs=length, axis=axis, squeeze_axis=True)
    return (list(steps) if isinstance(steps, (list, tuple)) else [steps]), True


def _is_symbol(x):
    from ...symbol import Symbol
    return isinstance(x, Symbol)


def _default_begin(cell, step):
    """Zero states like ``step``; for a symbol, ``sym.zeros`` of unknown batch size (MXNet 1.x
    infers it from the graph)."""
    if _is_symbol(step):
        from ... import symbol
        return cell.begin_state(batch_size=0, func=symbol.zeros)
    return cell.begin_state(batch_size=step.shape[0], func=_zeros_for(step))


def _merge(outputs, axis, merge):
    return _F.stack(*outputs, axis=axis, num_args=len(outputs)) if merge else outputs


class HybridRecurrentCell(HybridBlock):
    """Base of the cells: ``begin_state``, ``state_info`` and ``unroll``."""

    _counter = -1   # NOTE: MXNet 1.x's step count since reset(): a step's ops are named t<step>_...

    def state_info(self, batch_size=0):
        raise NotImplementedError(f"{type(self).__name__}.state_info")

    def _step(self, suffix):
        """MXNet 1.x's name of this step's op ``suffix`` (``t0_out``; the cell's name scope
        prefixes it, ``rnn_t0_out``). Only symbols keep it: arrays ignore ``name=``."""
        return f"t{self._counter}_{suffix}"

    def __call__(self, *args):
        self._counter += 1
        if args and _is_symbol(args[0]) and not self._is_gluon1():
            return self.forward(*args)   # NOTE: modifier cells step symbols through _F
        return super().__call__(*args)

    def reset(self):
        """Restart the step count (``unroll`` does): step names start again at ``t0_``."""
        self._counter = -1
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
        self.reset()
        axis = layout.find("T")
        steps, was_array = _split_steps(inputs, length, axis)
        states = begin_state if begin_state is not None else _default_begin(self, steps[0])
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
    return lambda shape, **kwargs: zeros_like_input(x, shape)


class _GatedCell(HybridRecurrentCell):
    """``i2h``/``h2h`` weights and biases of ``gates * hidden_size`` rows."""

    _gates, _num_states = 1, 1

    def __init__(self, hidden_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0,
                 dtype="float32", recurrent_size=None, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._hidden_size, self._input_size = hidden_size, input_size
        rows, recurrent = self._gates * hidden_size, recurrent_size or hidden_size
        for name, shape, init in (("i2h_weight", (rows, input_size), i2h_weight_initializer),
                                  ("h2h_weight", (rows, recurrent), h2h_weight_initializer),
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
        i2h = _F.FullyConnected(inputs, i2h_weight, i2h_bias, num_hidden=rows,
                                name=self._step("i2h"))
        h2h = _F.FullyConnected(h, h2h_weight, h2h_bias, num_hidden=rows,
                                name=self._step("h2h"))
        return i2h, h2h

    def _lstm_state(self, i2h, h2h, c, activation, recurrent):
        """The LSTM gates (MXNet's order ``i, f, c, o``) and the new cell state, ops named as
        MXNet 1.x names them; returns ``(o, next_c)``."""
        step = self._step
        gates = _F.SliceChannel(_F.elemwise_add(i2h, h2h, name=step("plus0")), num_outputs=4,
                                axis=-1, name=step("slice"))
        i, f, o = (_F.Activation(gates[k], act_type=recurrent, name=step(n))
                   for k, n in ((0, "i"), (1, "f"), (3, "o")))
        g = _F.Activation(gates[2], act_type=activation, name=step("c"))
        next_c = _F.elemwise_add(_F.elemwise_mul(f, c, name=step("mul0")),
                                 _F.elemwise_mul(i, g, name=step("mul1")), name=step("state"))
        return o, next_c

    def __repr__(self):
        return f"{type(self).__name__}({self._input_size or None} -> {self._hidden_size})"


class RNNCell(_GatedCell):
    """Elman step ``h' = act(W_i x + b_i + W_h h + b_h)``."""

    def __init__(self, hidden_size, activation="tanh", **kwargs):
        super().__init__(hidden_size, **kwargs)
        self._activation = activation

    def hybrid_forward(self, F, inputs, states, **params):
        i2h, h2h = self._projections(inputs, states[0], **params)
        out = _F.Activation(_F.elemwise_add(i2h, h2h, name=self._step("plus0")),
                            act_type=self._activation, name=self._step("out"))
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
        o, c = self._lstm_state(i2h, h2h, states[1], self._activation, self._recurrent)
        h = _F.elemwise_mul(o, _F.Activation(c, act_type=self._activation,
                                             name=self._step("activation0")),
                            name=self._step("out"))
        return h, [h, c]


class GRUCell(_GatedCell):
    """GRU step (cuDNN's form): ``n = tanh(W_in x + r * (W_hn h + b_hn))``."""

    _gates = 3

    def __init__(self, hidden_size, activation="tanh", recurrent_activation="sigmoid",
                 **kwargs):
        super().__init__(hidden_size, **kwargs)
        self._activation, self._recurrent = activation, recurrent_activation

    def hybrid_forward(self, F, inputs, states, **params):
        prev, step = states[0], self._step
        i2h, h2h = self._projections(inputs, prev, **params)
        xr, xz, xn = _F.SliceChannel(i2h, num_outputs=3, axis=-1, name=step("i2h_slice"))
        hr, hz, hn = _F.SliceChannel(h2h, num_outputs=3, axis=-1, name=step("h2h_slice"))
        reset = _F.Activation(_F.elemwise_add(xr, hr, name=step("plus0")),
                              act_type=self._recurrent, name=step("r_act"))
        update = _F.Activation(_F.elemwise_add(xz, hz, name=step("plus1")),
                               act_type=self._recurrent, name=step("z_act"))
        candidate = _F.Activation(
            _F.elemwise_add(xn, _F.elemwise_mul(reset, hn, name=step("mul0")),
                            name=step("plus2")), act_type=self._activation, name=step("h_act"))
        out = _F.elemwise_add(_F.elemwise_mul(1 - update, candidate, name=step("mul1")),
                              _F.elemwise_mul(update, prev, name=step("mul20")),
                              name=step("out"))
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

    def infer_shape(self, index, x, is_bidirect):
        """MXNet 2.0's explicit shape inference: cell ``i`` is told it is layer ``i``."""
        for i, cell in enumerate(self._cells):
            cell.infer_shape(i, x, is_bidirect)

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        """Each cell unrolls the whole sequence in turn (so ``BidirectionalCell`` stacks)."""
        self.reset()
        steps, _ = _split_steps(inputs, length, layout.find("T"))
        if begin_state is None:
            begin_state = _default_begin(self, steps[0])
        start, states = 0, []
        for i, cell in enumerate(self._cells):
            count = len(cell.state_info())
            last = i == len(self._cells) - 1
            inputs, cell_states = cell.unroll(length, inputs, begin_state[start:start + count],
                                              layout, merge_outputs if last else None,
                                              valid_length)
            states += cell_states
            start += count
        return inputs, states

    def forward(self, inputs, states):
        new_states, start = [], 0
        for cell in self._cells:
            count = len(cell.state_info())
            inputs, cell_states = cell(inputs, states[start:start + count])
            new_states += cell_states
            start += count
        return inputs, new_states


class HybridSequentialRNNCell(SequentialRNNCell):
    """``SequentialRNNCell`` for hybrid blocks; as MXNet's, its ``infer_shape`` tells every cell
    its input is unidirectional (a ``BidirectionalCell`` child still says so itself)."""

    def infer_shape(self, index, x, is_bidirect):
        super().infer_shape(index, x, False)


class BidirectionalCell(HybridRecurrentCell):
    """Two cells over opposite time directions; outputs concatenated (``unroll`` only)."""

    def __init__(self, l_cell, r_cell, output_prefix="bi_"):
        super().__init__()
        self.l_cell, self.r_cell = l_cell, r_cell
        self._output_prefix = output_prefix

    def state_info(self, batch_size=0):
        return self.l_cell.state_info(batch_size) + self.r_cell.state_info(batch_size)

    def forward(self, inputs, states):
        raise NotImplementedError("Bidirectional cannot be stepped. Please use unroll")

    def infer_shape(self, index, x, is_bidirect):
        self.l_cell.infer_shape(index, x, True)
        self.r_cell.infer_shape(index, x, True)

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        axis = layout.find("T")
        steps, was_array = _split_steps(inputs, length, axis)
        if begin_state is None:
            begin_state = _default_begin(self, steps[0])
        count = len(self.l_cell.state_info())
        l_out, l_states = self.l_cell.unroll(length, steps, begin_state[:count], layout, False,
                                             valid_length)
        reversed_steps = _reverse(steps, valid_length)
        r_out, r_states = self.r_cell.unroll(length, reversed_steps, begin_state[count:],
                                             layout, False, valid_length)
        r_out = _reverse(r_out, valid_length)
        outputs = [_concat_step(a, b, self._output_prefix + "t%d" % t)
                   for t, (a, b) in enumerate(zip(l_out, r_out))]
        merge = was_array if merge_outputs is None else merge_outputs
        return _merge(outputs, axis, merge), l_states + r_states


def _concat_step(left, right, name):
    if _is_symbol(left):   # NOTE: MXNet 1.x names the step's output <output_prefix>t<i>
        from ... import symbol
        return symbol.Concat(left, right, dim=-1, name=name)
    return _F.concat(left, right, dim=-1, num_args=2)


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

    def infer_shape(self, index, x, is_bidirect):
        self.base_cell.infer_shape(index, x, is_bidirect)


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

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        """The base cell unrolls (so a ``BidirectionalCell`` can be wrapped); the inputs, masked
        past ``valid_length``, are added to its outputs."""
        self.reset()
        axis = layout.find("T")
        outputs, states = self.base_cell.unroll(length, inputs, begin_state, layout,
                                                merge_outputs, valid_length)
        steps, _ = _split_steps(inputs, length, axis)
        if valid_length is not None:
            masked = _F.SequenceMask(_F.stack(*steps, axis=0, num_args=length), valid_length,
                                     use_sequence_length=True)
            steps = list(_F.split(masked, num_outputs=length, axis=0, squeeze_axis=True)) \
                if length > 1 else [_F.squeeze(masked, axis=0)]
        if isinstance(outputs, (list, tuple)):
            return [o + i for o, i in zip(outputs, steps)], states
        return outputs + _merge(steps, axis, True), states


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


def _dropout(x, rate, axes=()):
    out = _F.Dropout(x, p=rate, axes=tuple(axes))
    return out[0] if isinstance(out, (list, tuple)) else out


class VariationalDropoutCell(ModifierCell):
    """Variational dropout (Gal & Ghahramani) around ``base_cell``: one dropout mask per
    sequence for the inputs, the first state (``h``) and the outputs, kept across time steps
    until :meth:`reset` (``unroll`` resets first). The masks are per-sequence Python state, so
    this cell itself stays imperative under ``hybridize`` (its base cell hybridizes)."""

    def __init__(self, base_cell, drop_inputs=0.0, drop_states=0.0, drop_outputs=0.0):
        if drop_states and isinstance(base_cell, BidirectionalCell):
            raise MXNetValueError("BidirectionalCell doesn't support variational state dropout. "
                                  "Please add VariationalDropoutCell to the cells underneath "
                                  "instead.")
        super().__init__(base_cell)
        self.drop_inputs, self.drop_states, self.drop_outputs = (drop_inputs, drop_states,
                                                                 drop_outputs)
        self.drop_inputs_mask = self.drop_states_mask = self.drop_outputs_mask = None

    def hybridize(self, active=True, **kwargs):
        super().hybridize(active, **kwargs)
        self._active = False

    def reset(self):
        super().reset()
        self.drop_inputs_mask = self.drop_states_mask = self.drop_outputs_mask = None

    def forward(self, inputs, states):
        if self.drop_states and self.drop_states_mask is None:
            self.drop_states_mask = _dropout(_F.ones_like(states[0]), self.drop_states)
        if self.drop_inputs and self.drop_inputs_mask is None:
            self.drop_inputs_mask = _dropout(_F.ones_like(inputs), self.drop_inputs)
        if self.drop_states:
            states = [states[0] * self.drop_states_mask] + list(states[1:])
        if self.drop_inputs:
            inputs = inputs * self.drop_inputs_mask
        out, states = self.base_cell(inputs, states)
        if self.drop_outputs and self.drop_outputs_mask is None:
            self.drop_outputs_mask = _dropout(_F.ones_like(out), self.drop_outputs)
        if self.drop_outputs:
            out = out * self.drop_outputs_mask
        return out, states

    def __repr__(self):
        return (f"{type(self).__name__}(p_out = {self.drop_outputs}, "
                f"p_state = {self.drop_states})")


class LSTMPCell(_GatedCell):
    """LSTM with a projected recurrent state (Sak et al. 2014): ``r = W_hr (o * tanh(c))`` is
    both the output and the state fed back; states ``[r (N, P), c (N, H)]``."""

    _gates = 4

    def __init__(self, hidden_size, projection_size, i2h_weight_initializer=None,
                 h2h_weight_initializer=None, h2r_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0,
                 prefix=None, params=None):
        super().__init__(hidden_size, i2h_weight_initializer, h2h_weight_initializer,
                         i2h_bias_initializer, h2h_bias_initializer, input_size,
                         recurrent_size=projection_size, prefix=prefix, params=params)
        self._projection_size = projection_size
        self.h2r_weight = Parameter("h2r_weight", shape=(projection_size, hidden_size),
                                    init=h2r_weight_initializer, allow_deferred_init=True)

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size, self._projection_size), "__layout__": "NC"},
                {"shape": (batch_size, self._hidden_size), "__layout__": "NC"}]

    def infer_shape(self, inputs, *args):
        if isinstance(inputs, int) and args and inputs > 0:
            width = self._projection_size * (2 if len(args) > 1 and args[1] else 1)
            self.i2h_weight.shape = (4 * self._hidden_size, width)
            return
        super().infer_shape(inputs, *args)

    def hybrid_forward(self, F, inputs, states, h2r_weight, **params):
        i2h, h2h = self._projections(inputs, states[0], **params)
        o, c = self._lstm_state(i2h, h2h, states[1], "tanh", "sigmoid")
        hidden = _F.elemwise_mul(o, _F.Activation(c, act_type="tanh"),
                                 name=self._step("hidden"))
        r = _F.FullyConnected(hidden, h2r_weight, num_hidden=self._projection_size,
                              no_bias=True, name=self._step("out"))
        return r, [r, c]

    def __repr__(self):
        return (f"{type(self).__name__}({self._input_size or None} -> {self._hidden_size} -> "
                f"{self._projection_size})")


def dynamic_unroll(cell, inputs, begin_state, drop_inputs=0, drop_outputs=0, layout="TNC",
                   valid_length=None):
    """Run ``cell`` over every step of ``inputs`` (time on ``layout``'s T axis) from
    ``begin_state``; returns ``(outputs, states)`` with outputs merged. With ``valid_length``
    (per batch entry) the states stop at each sequence's last valid step and later outputs are
    zeros. ``drop_inputs``/``drop_outputs``: dropout with one mask shared across time."""
    axis = layout.find("T")
    if axis != 0:
        inputs = _F.swapaxes(inputs, dim1=0, dim2=axis)
    if drop_inputs:
        inputs = _dropout(inputs, drop_inputs, axes=(0,))
    steps, _ = _split_steps(inputs, inputs.shape[0], 0)
    states, outputs = list(begin_state), []
    for t, step in enumerate(steps):
        out, new_states = cell(step, states)
        if valid_length is not None:
            keep = _F.clip(valid_length - t, a_min=0, a_max=1)
            new_states = [old + _F.broadcast_mul(_F.reshape(
                keep, shape=(-1,) + (1,) * (len(new.shape) - 1)), new - old)
                for new, old in zip(new_states, states)]
        outputs.append(out)
        states = list(new_states)
    outputs = _F.stack(*outputs, axis=0, num_args=len(outputs))
    if drop_outputs:
        outputs = _dropout(outputs, drop_outputs, axes=(0,))
    if valid_length is not None:
        outputs = _F.SequenceMask(outputs, valid_length, use_sequence_length=True, axis=0)
    if axis != 0:
        outputs = _F.swapaxes(outputs, dim1=0, dim2=axis)
    return outputs, states
