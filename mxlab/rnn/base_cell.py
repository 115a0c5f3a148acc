"""MXNet 1.x's symbolic RNN cells: the shared parts (``mx.rnn.RNNParams``, ``BaseRNNCell``).

A cell builds :class:`~mxlab.symbol.Symbol` graphs one time step at a time (``cell(x, states)``)
or over a sequence (``cell.unroll(length, inputs)``). Its weights are symbol variables named
``<prefix><group>_weight``/``_bias`` held by an :class:`RNNParams`, which cells share to tie
weights. ``unpack_weights`` splits a fused ``i2h``/``h2h`` matrix into one per gate
(``lstm_i2h_f_weight``) for checkpoints; ``pack_weights`` joins them back.
"""
from .. import ndarray
from .. import symbol
from ..base import MXNetTypeError, MXNetValueError

__all__ = ["RNNParams", "BaseRNNCell"]


def cells_state_info(cells):
    return sum([c.state_info for c in cells], [])


def cells_begin_state(cells, **kwargs):
    return sum([c.begin_state(**kwargs) for c in cells], [])


def cells_unpack_weights(cells, args):
    for cell in cells:
        args = cell.unpack_weights(args)
    return args


def cells_pack_weights(cells, args):
    for cell in cells:
        args = cell.pack_weights(args)
    return args


def _split(inputs, length, axis):
    if len(inputs.list_outputs()) != 1:
        raise MXNetValueError("unroll doesn't allow grouped symbol as input. Please convert to "
                              "list with list(inputs) first or let unroll handle splitting.")
    return list(symbol.split(inputs, axis=axis, num_outputs=length, squeeze_axis=1))


def normalize_sequence(length, inputs, layout, merge, in_layout=None):
    """``inputs`` as a list of per-step symbols (``merge`` False), one symbol with a time axis
    (``merge`` True), or as given (None); returns ``(inputs, time axis of layout)``."""
    if inputs is None:
        raise MXNetValueError("unroll(inputs=None) has been deprecated. Please create input "
                              "variables outside unroll.")
    axis = layout.find("T")
    in_axis = in_layout.find("T") if in_layout is not None else axis
    if isinstance(inputs, symbol.Symbol):
        if merge is False:
            inputs = _split(inputs, length, in_axis)
    else:
        if length is not None and len(inputs) != length:
            raise MXNetValueError(f"unroll: {len(inputs)} inputs for length {length}")
        if merge is True:
            inputs = symbol.Concat(*[symbol.expand_dims(i, axis=axis) for i in inputs],
                                   dim=axis)
            in_axis = axis
    if isinstance(inputs, symbol.Symbol) and axis != in_axis:
        inputs = symbol.swapaxes(inputs, dim1=axis, dim2=in_axis)
    return inputs, axis


class RNNParams:
    """Variables of one or more cells by name; ``get`` makes ``<prefix><name>`` on first use, so
    cells given the same container share their weights."""

    def __init__(self, prefix=""):
        self._prefix = prefix
        self._params = {}

    def get(self, name, **kwargs):
        """The variable ``<prefix><name>``, created with ``kwargs`` (``init=``, ``shape=``)."""
        name = self._prefix + name
        if name not in self._params:
            self._params[name] = symbol.Variable(name, **kwargs)
        return self._params[name]


class BaseRNNCell:
    """Abstract cell: subclasses give ``state_info`` and ``__call__(inputs, states)``.

    Parameters
    ----------
    prefix : str
        Prefix of the cell's node names (and of its weights when ``params`` is None).
    params : RNNParams, optional
        Container for weights shared with other cells; a new one when None.
    """

    def __init__(self, prefix="", params=None):
        self._own_params = params is None
        self._prefix = prefix
        self._params = RNNParams(prefix) if params is None else params
        self._modified = False
        self.reset()

    def reset(self):
        """Reset the step counters before building another graph."""
        self._init_counter = -1
        self._counter = -1
        for cell in getattr(self, "_cells", ()):
            cell.reset()

    def __call__(self, inputs, states):
        raise NotImplementedError(f"{type(self).__name__} must implement __call__")

    @property
    def params(self):
        """The weight container (reading it marks the weights as shared)."""
        self._own_params = False
        return self._params

    @property
    def state_info(self):
        """One dict per state: ``shape`` (0: unknown batch size) and ``__layout__``."""
        raise NotImplementedError(f"{type(self).__name__} must implement state_info")

    @property
    def state_shape(self):
        return [info["shape"] for info in self.state_info]

    @property
    def _gate_names(self):
        return ()

    def _check_unmodified(self):
        if self._modified:
            raise MXNetValueError("After applying modifier cells (e.g. DropoutCell) the base "
                                  "cell cannot be called directly. Call the modifier cell "
                                  "instead.")

    def begin_state(self, func=symbol.zeros, **kwargs):
        """Initial states, one ``func(name=<prefix>begin_state_<i>, shape=..., **kwargs)`` each
        (``symbol.zeros`` by default; ``symbol.Variable`` to feed them as inputs)."""
        self._check_unmodified()
        states = []
        for info in self.state_info:
            self._init_counter += 1
            if info is not None:
                kwargs.update(info)
            name = "%sbegin_state_%d" % (self._prefix, self._init_counter)
            states.append(func(name=name, **kwargs))
        return states

    def unpack_weights(self, args):
        """``args`` with this cell's ``i2h``/``h2h`` weights and biases split per gate
        (``<prefix>i2h_f_weight``); the inverse of :meth:`pack_weights`."""
        args = dict(args)
        if not self._gate_names:
            return args
        h = self._num_hidden
        for group in ("i2h", "h2h"):
            for kind in ("weight", "bias"):
                packed = args.pop("%s%s_%s" % (self._prefix, group, kind))
                for j, gate in enumerate(self._gate_names):
                    name = "%s%s%s_%s" % (self._prefix, group, gate, kind)
                    args[name] = packed[j * h:(j + 1) * h].copy()
        return args

    def pack_weights(self, args):
        """``args`` with the per-gate weights and biases joined into ``i2h``/``h2h`` ones."""
        args = dict(args)
        if not self._gate_names:
            return args
        for group in ("i2h", "h2h"):
            for kind in ("weight", "bias"):
                parts = [args.pop("%s%s%s_%s" % (self._prefix, group, gate, kind))
                         for gate in self._gate_names]
                args["%s%s_%s" % (self._prefix, group, kind)] = ndarray.concat(*parts, dim=0)
        return args

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        """Unroll over ``length`` steps; returns ``(outputs, states)``.

        ``inputs`` is one symbol with a time axis (``layout`` 'NTC' or 'TNC') or a list of
        per-step symbols; ``merge_outputs`` True gives one symbol with a time axis, False a list,
        None whichever is cheaper.
        """
        self.reset()
        inputs, _ = normalize_sequence(length, inputs, layout, False)
        states = self.begin_state() if begin_state is None else begin_state
        outputs = []
        for i in range(length):
            output, states = self(inputs[i], states)
            outputs.append(output)
        outputs, _ = normalize_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def _get_activation(self, inputs, activation, **kwargs):
        """``Activation(act_type=activation)`` for a name, else ``activation(inputs)``."""
        if isinstance(activation, str):
            return symbol.Activation(inputs, act_type=activation, **kwargs)
        if not callable(activation):
            raise MXNetTypeError(f"activation must be a name or a callable, got {activation!r}")
        return activation(inputs, **kwargs)
