"""MXNet 1.x's composite cells: ``SequentialRNNCell``, ``BidirectionalCell``, ``DropoutCell`` and
``FusedRNNCell`` (the whole stack as one ``RNN`` op; ``unfuse()`` gives the equivalent stack of
stepping cells, with the per-gate weight names ``unpack_weights`` produces).
"""
import warnings

from .. import initializer as init
from .. import ndarray
from .. import symbol
from ..base import MXNetValueError
from .base_cell import (BaseRNNCell, cells_begin_state, cells_pack_weights, cells_state_info,
                        cells_unpack_weights, normalize_sequence)
from .basic_cells import GRUCell, LSTMCell, RNNCell

__all__ = ["FusedRNNCell", "SequentialRNNCell", "DropoutCell", "BidirectionalCell"]

_GATES = {"rnn_relu": [""], "rnn_tanh": [""], "lstm": ["_i", "_f", "_c", "_o"],
          "gru": ["_r", "_z", "_o"]}


def _adopt_params(parent, cells):
    """Share weights between a container and its cells (MXNet's rule: params on one side only)."""
    if parent._override_cell_params:
        for cell in cells:
            if not cell._own_params:
                raise MXNetValueError("Either specify params for the container cell or for its "
                                      "child cells, not both.")
            cell.params._params.update(parent.params._params)
    for cell in cells:
        parent.params._params.update(cell.params._params)


class SequentialRNNCell(BaseRNNCell):
    """Cells stacked in order: each one's output is the next one's input."""

    def __init__(self, params=None):
        super().__init__(prefix="", params=params)
        self._override_cell_params = params is not None
        self._cells = []

    def add(self, cell):
        """Append ``cell`` to the stack."""
        self._cells.append(cell)
        _adopt_params(self, [cell])

    @property
    def state_info(self):
        return cells_state_info(self._cells)

    def begin_state(self, **kwargs):
        self._check_unmodified()
        return cells_begin_state(self._cells, **kwargs)

    def unpack_weights(self, args):
        return cells_unpack_weights(self._cells, args)

    def pack_weights(self, args):
        return cells_pack_weights(self._cells, args)

    def __call__(self, inputs, states):
        self._counter += 1
        next_states, p = [], 0
        for cell in self._cells:
            if isinstance(cell, BidirectionalCell):
                raise MXNetValueError("BidirectionalCell cannot be stepped; use unroll")
            n = len(cell.state_info)
            inputs, state = cell(inputs, states[p:p + n])
            p += n
            next_states.extend(state)
        return inputs, next_states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        begin_state = self.begin_state() if begin_state is None else begin_state
        next_states, p, last = [], 0, len(self._cells) - 1
        for i, cell in enumerate(self._cells):
            n = len(cell.state_info)
            inputs, states = cell.unroll(length, inputs=inputs, begin_state=begin_state[p:p + n],
                                         layout=layout,
                                         merge_outputs=None if i < last else merge_outputs)
            p += n
            next_states.extend(states)
        return inputs, next_states


class DropoutCell(BaseRNNCell):
    """Dropout on the input, with rate ``dropout``; no state."""

    def __init__(self, dropout, prefix="dropout_", params=None):
        super().__init__(prefix, params)
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)):
            raise MXNetValueError(f"dropout probability must be a number, got {dropout!r}")
        self.dropout = dropout

    @property
    def state_info(self):
        return []

    def __call__(self, inputs, states):
        if self.dropout > 0:
            inputs = symbol.Dropout(data=inputs, p=self.dropout)
        return inputs, states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        inputs, _ = normalize_sequence(length, inputs, layout, merge_outputs)
        if isinstance(inputs, symbol.Symbol):
            return self(inputs, [])
        return super().unroll(length, inputs, begin_state=begin_state, layout=layout,
                              merge_outputs=merge_outputs)


class BidirectionalCell(BaseRNNCell):
    """``l_cell`` forward and ``r_cell`` backward in time; outputs concatenated per step
    (``<output_prefix>t<i>``, or ``<output_prefix>out`` merged)."""

    def __init__(self, l_cell, r_cell, params=None, output_prefix="bi_"):
        super().__init__("", params=params)
        self._output_prefix = output_prefix
        self._override_cell_params = params is not None
        _adopt_params(self, [l_cell, r_cell])
        self._cells = [l_cell, r_cell]

    def unpack_weights(self, args):
        return cells_unpack_weights(self._cells, args)

    def pack_weights(self, args):
        return cells_pack_weights(self._cells, args)

    def __call__(self, inputs, states):
        raise NotImplementedError("Bidirectional cannot be stepped. Please use unroll")

    @property
    def state_info(self):
        return cells_state_info(self._cells)

    def begin_state(self, **kwargs):
        self._check_unmodified()
        return cells_begin_state(self._cells, **kwargs)

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        inputs, axis = normalize_sequence(length, inputs, layout, False)
        states = self.begin_state() if begin_state is None else begin_state
        l_cell, r_cell = self._cells
        n_left = len(l_cell.state_info)
        l_out, l_states = l_cell.unroll(length, inputs=inputs, begin_state=states[:n_left],
                                        layout=layout, merge_outputs=merge_outputs)
        r_out, r_states = r_cell.unroll(length, inputs=list(reversed(inputs)),
                                        begin_state=states[n_left:], layout=layout,
                                        merge_outputs=merge_outputs)
        if merge_outputs is None:
            merge_outputs = isinstance(l_out, symbol.Symbol) and isinstance(r_out, symbol.Symbol)
            if not merge_outputs:
                l_out, r_out = (_steps(o, axis, length) for o in (l_out, r_out))
        if merge_outputs:
            return symbol.Concat(l_out, symbol.reverse(r_out, axis=axis), dim=2,
                                 name="%sout" % self._output_prefix), [l_states, r_states]
        outputs = [symbol.Concat(l_o, r_o, dim=1, name="%st%d" % (self._output_prefix, i))
                   for i, (l_o, r_o) in enumerate(zip(l_out, reversed(r_out)))]
        return outputs, [l_states, r_states]


def _steps(outputs, axis, length):
    if isinstance(outputs, symbol.Symbol):
        return list(symbol.SliceChannel(outputs, axis=axis, num_outputs=length, squeeze_axis=1))
    return outputs


class FusedRNNCell(BaseRNNCell):
    """A stack of ``num_layers`` RNN/LSTM/GRU layers run as one ``RNN`` op over a flat
    ``<prefix>parameters`` vector (initialised per gate by ``mx.init.FusedRNN``).

    ``mode`` is 'rnn_relu', 'rnn_tanh', 'lstm' or 'gru'; with ``get_next_state`` the final states
    are outputs too. It cannot be stepped: use :meth:`unroll`, or :meth:`unfuse`.
    """

    def __init__(self, num_hidden, num_layers=1, mode="lstm", bidirectional=False, dropout=0.,
                 get_next_state=False, forget_bias=1.0, prefix=None, params=None):
        if mode not in _GATES:
            raise MXNetValueError(f"FusedRNNCell: mode must be one of {sorted(_GATES)}, "
                                  f"got {mode!r}")
        super().__init__(prefix="%s_" % mode if prefix is None else prefix, params=params)
        self._num_hidden, self._num_layers, self._mode = num_hidden, num_layers, mode
        self._bidirectional, self._dropout = bidirectional, dropout
        self._get_next_state = get_next_state
        self._directions = ["l", "r"] if bidirectional else ["l"]
        initializer = init.FusedRNN(None, num_hidden, num_layers, mode, bidirectional,
                                    forget_bias)
        self._parameter = self.params.get("parameters", init=initializer)

    @property
    def state_info(self):
        shape = ((self._bidirectional + 1) * self._num_layers, 0, self._num_hidden)
        return [{"shape": shape, "__layout__": "LNC"}
                for _ in range((self._mode == "lstm") + 1)]

    @property
    def _gate_names(self):
        return _GATES[self._mode]

    def _layout(self, num_input):
        """``(per-gate name, shape)`` in the ``RNN`` op's packing order: every layer's and
        direction's weights (``i2h`` gates, then ``h2h`` gates), then all the biases."""
        h, b = self._num_hidden, len(self._directions)
        weights, biases = [], []
        for layer in range(self._num_layers):
            width = num_input if layer == 0 else b * h
            for direction in self._directions:
                for group, cols in (("i2h", width), ("h2h", h)):
                    for gate in self._gate_names:
                        stem = "%s%s%d_%s%s_" % (self._prefix, direction, layer, group, gate)
                        weights.append((stem + "weight", (h, cols)))
                        biases.append((stem + "bias", (h,)))
        return weights + biases

    def _slice_weights(self, arr, num_input):
        """``{per-gate name: slice of arr}`` (see :meth:`_layout`)."""
        args, p = {}, 0
        for name, shape in self._layout(num_input):
            size = shape[0] * (shape[1] if len(shape) > 1 else 1)
            args[name] = arr[p:p + size].reshape(shape)
            p += size
        if p != arr.size:
            raise MXNetValueError(f"Invalid parameters size for FusedRNNCell: {arr.size}, "
                                  f"the layout needs {p}")
        return args

    def unpack_weights(self, args):
        args = dict(args)
        arr = args.pop(self._parameter.name)
        b, m, h = len(self._directions), len(self._gate_names), self._num_hidden
        num_input = arr.size // b // h // m - (self._num_layers - 1) * (h + b * h + 2) - h - 2
        args.update({k: v.copy() for k, v in self._slice_weights(arr, num_input).items()})
        return args

    def pack_weights(self, args):
        args = dict(args)
        num_input = args["%sl0_i2h%s_weight" % (self._prefix, self._gate_names[0])].shape[1]
        parts = [args.pop(name).reshape((-1,)) for name, _ in self._layout(num_input)]
        args[self._parameter.name] = ndarray.concat(*parts, dim=0)
        return args

    def __call__(self, inputs, states):
        raise NotImplementedError("FusedRNNCell cannot be stepped. Please use unroll")

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        inputs, axis = normalize_sequence(length, inputs, layout, True)
        if axis == 1:
            warnings.warn("NTC layout detected. Consider using TNC for FusedRNNCell for faster "
                          "speed")
            inputs = symbol.swapaxes(inputs, dim1=0, dim2=1)
        elif axis != 0:
            raise MXNetValueError(f"Unsupported layout {layout}")
        states = self.begin_state() if begin_state is None else begin_state
        names = ["state", "state_cell"] if self._mode == "lstm" else ["state"]
        rnn = symbol.RNN(data=inputs, parameters=self._parameter, state_size=self._num_hidden,
                         num_layers=self._num_layers, bidirectional=self._bidirectional,
                         p=self._dropout, state_outputs=self._get_next_state, mode=self._mode,
                         name=self._prefix + "rnn", **dict(zip(names, states)))
        if self._get_next_state:
            outputs, states = rnn[0], [rnn[i + 1] for i in range(len(names))]
            for state in states:
                state._set_attr(__layout__="LNC")
        else:
            outputs, states = rnn, []
        if axis == 1:
            outputs = symbol.swapaxes(outputs, dim1=0, dim2=1)
        outputs, _ = normalize_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def _unfused_cell(self, prefix):
        h = self._num_hidden
        if self._mode.startswith("rnn_"):
            return RNNCell(h, activation=self._mode[4:], prefix=prefix)
        return (LSTMCell if self._mode == "lstm" else GRUCell)(h, prefix=prefix)

    def unfuse(self):
        """The same network as a :class:`SequentialRNNCell` of stepping cells (with
        :class:`BidirectionalCell` and :class:`DropoutCell` as configured)."""
        stack = SequentialRNNCell()
        for i in range(self._num_layers):
            left = self._unfused_cell("%sl%d_" % (self._prefix, i))
            if self._bidirectional:
                right = self._unfused_cell("%sr%d_" % (self._prefix, i))
                stack.add(BidirectionalCell(left, right,
                                            output_prefix="%sbi_l%d_" % (self._prefix, i)))
            else:
                stack.add(left)
            if self._dropout > 0 and i != self._num_layers - 1:
                stack.add(DropoutCell(self._dropout, prefix="%s_dropout%d_" % (self._prefix, i)))
        return stack
