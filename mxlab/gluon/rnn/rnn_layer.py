"""Fused recurrent layers ``RNN``, ``LSTM``, ``GRU`` over whole sequences (one ``RNN`` op).

The parameter layout follows the API generation active when the layer is built, as MXNet's two
generations differ here. In NumPy mode (``npx.set_np()`` / ``@use_np``: MXNet 2.0) the layer
holds ONE flat parameter ``rnn_param`` in the op's packing order (``initializer.RNNFused``
fills it; ``gluon.utils.split_rnn_params`` views it per gate group). Otherwise (MXNet 1.x) it
holds per-gate-group arrays (``l0_i2h_weight``, ``r1_h2h_bias``, ``l0_h2r_weight``, ...), so 1.x
``.params`` files load; each call concatenates them into the op's flat vector in MXNet's order
(all weights, then all biases; layer by layer, ``l`` before ``r``; ``i2h``, ``h2h``, ``h2r``).

Example
-------
>>> import mxlab as mx
>>> layer = mx.gluon.rnn.LSTM(4, num_layers=2)
>>> layer.initialize()
>>> out, (h, c) = layer(mx.nd.ones((5, 3, 2)), layer.begin_state(batch_size=3))
>>> out.shape, h.shape
((5, 3, 4), (2, 3, 4))
"""
from ...base import MXNetValueError
from ...ops.registry import F as _F
from ...ops.rnn import GATES, param_layout, rnn_param_size
from ...util import is_np_array
from ..block import HybridBlock
from ..parameter import Parameter
from .states import default_zeros, zeros_like_input  # noqa: F401  (MXNet's module path)

__all__ = ["GRU", "LSTM", "RNN"]


class _RNNLayer(HybridBlock):
    """Shared machinery: parameters, states, layouts and the fused op call."""

    def __init__(self, hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                 i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                 h2h_bias_initializer, mode, projection_size=None, h2r_weight_initializer=None,
                 lstm_state_clip_min=None, lstm_state_clip_max=None, lstm_state_clip_nan=False,
                 dtype="float32", use_sequence_length=False, **kwargs):
        super().__init__(**kwargs)
        if layout not in ("TNC", "NTC"):
            raise MXNetValueError(f"{mode} layer: layout must be 'TNC' or 'NTC', got {layout!r}")
        if lstm_state_clip_min is not None or lstm_state_clip_max is not None:
            raise NotImplementedError("LSTM layer: state_clip_min/state_clip_max are not built "
                                      "in mxlab")
        self._hidden_size, self._num_layers, self._layout = hidden_size, num_layers, layout
        self._dropout, self._dir, self._mode = dropout, 2 if bidirectional else 1, mode
        self._input_size, self._gates = input_size, GATES[mode]
        self._projection_size = projection_size or None
        self._dtype, self._use_sequence_length = dtype, use_sequence_length
        self._clip = (lstm_state_clip_min, lstm_state_clip_max, lstm_state_clip_nan)
        self.skip_states = None
        inits = {"i2h_weight": i2h_weight_initializer, "h2h_weight": h2h_weight_initializer,
                 "i2h_bias": i2h_bias_initializer, "h2h_bias": h2h_bias_initializer,
                 "h2r_weight": h2r_weight_initializer}
        self._fused = is_np_array()
        self._names = []
        if self._fused:
            from ...initializer import RNNFused
            init = RNNFused(mode, num_layers, hidden_size, bidirectional, projection_size,
                            **{f"{k}_initializer": v for k, v in inits.items()})
            size = rnn_param_size(mode, num_layers, input_size, hidden_size, bidirectional,
                                  self._projection_size) if input_size else -1
            self.rnn_param = Parameter("rnn_param", shape=(size,), init=init, dtype=dtype,
                                       allow_deferred_init=True)
            return
        spans = param_layout(self._op_attrs(), input_size)
        groups = ("i2h_weight", "h2h_weight") + (("h2r_weight",) if self._projection_size
                                                  else ()) + ("i2h_bias", "h2h_bias")
        for k, span in enumerate(spans):
            stem = f"{'lr'[k % self._dir]}{k // self._dir}"
            for group, (_, _, shape) in zip(groups, span):
                name = f"{stem}_{group}"
                setattr(self, name, Parameter(name, shape=shape, init=inits[group],
                                              dtype=dtype, allow_deferred_init=True))
                self._names.append(name)

    def _op_attrs(self):
        return {"mode": self._mode, "num_layers": self._num_layers,
                "bidirectional": self._dir == 2, "state_size": self._hidden_size,
                "projection_size": self._projection_size}

    def __repr__(self):
        width = self._input_size or None
        return (f"{type(self).__name__}({width} -> {self._hidden_size}, {self._layout}"
                f"{f', num_layers={self._num_layers}' if self._num_layers != 1 else ''}"
                f"{f', dropout={self._dropout}' if self._dropout else ''}"
                f"{', bidirectional' if self._dir == 2 else ''})")

    def cast(self, dtype):
        super().cast(dtype)
        self._dtype = dtype

    def _unfuse(self):
        """MXNet 1.x: the same network as a ``HybridSequentialRNNCell`` of stepping cells that
        share this layer's per-gate-group parameters (1.x layout only, no projection)."""
        from . import rnn_cell
        if self._fused or self._projection_size:
            raise NotImplementedError("_unfuse of a NumPy-mode or projected RNN layer is not "
                                      "built in mxlab")
        cell_class = {"lstm": rnn_cell.LSTMCell, "gru": rnn_cell.GRUCell}.get(
            self._mode, rnn_cell.RNNCell)
        extra = {"activation": self._mode[4:]} if self._mode.startswith("rnn_") else {}
        stack = rnn_cell.HybridSequentialRNNCell()

        def cell(stem):
            made = cell_class(self._hidden_size, **extra)
            for group in ("i2h_weight", "h2h_weight", "i2h_bias", "h2h_bias"):
                setattr(made, group, getattr(self, f"{stem}_{group}"))
            return made

        for i in range(self._num_layers):
            stack.add(rnn_cell.BidirectionalCell(cell(f"l{i}"), cell(f"r{i}"))
                      if self._dir == 2 else cell(f"l{i}"))
            if self._dropout > 0 and i != self._num_layers - 1:
                stack.add(rnn_cell.DropoutCell(self._dropout))
        return stack

    def state_info(self, batch_size=0):
        shape = (self._num_layers * self._dir, batch_size, self._hidden_size)
        info = [{"shape": shape, "__layout__": "LNC", "dtype": self._dtype}]
        if self._mode == "lstm":
            info.append(dict(info[0]))
            if self._projection_size:
                info[0]["shape"] = shape[:2] + (self._projection_size,)
        return info

    def begin_state(self, batch_size=0, func=None, **kwargs):
        """Initial states: ``func(shape=..., **kwargs)`` per state (zeros by default)."""
        func = func or default_zeros()
        kwargs.pop("name", None)
        return [func(shape=info["shape"], **kwargs) for info in self.state_info(batch_size)]

    def infer_shape(self, inputs, *args):
        if len(inputs.shape) != 3:
            raise MXNetValueError("Input data should be rank-3 tensor of dim [sequence length, "
                                  f"batch size, input size], got {inputs.shape}")
        width = inputs.shape[-1]
        self._input_size = width
        if self._fused:
            self.rnn_param.shape = (rnn_param_size(
                self._mode, self._num_layers, width, self._hidden_size, self._dir == 2,
                self._projection_size),)
            return
        for side in "lr"[:self._dir]:
            getattr(self, f"{side}0_i2h_weight").shape = (self._gates * self._hidden_size, width)

    def _flat_params(self, params):
        if self._fused:
            return params["rnn_param"]
        order = [n for kind in ("weight", "bias") for n in self._names if n.endswith(kind)]
        return _F.concat(*[_F.reshape(params[n], shape=(-1,)) for n in order], dim=0,
                         num_args=len(order))

    def __call__(self, inputs, states=None, sequence_length=None, **kwargs):
        skip = states is None
        if skip != self.skip_states:
            self._clear_cached_op()
        self.skip_states = skip
        if skip and not hasattr(inputs, "_flavour"):
            raise MXNetValueError(f"{type(self).__name__}: pass begin_state(...) states "
                                  "when calling the layer on symbols")
        if skip and not self._use_sequence_length:
            # NOTE: zero states are made inside forward, so a hybridized graph has one input.
            return super().__call__(inputs)
        if skip:
            states = self._zero_states(inputs)
        if not isinstance(states, (list, tuple)):
            states = [states]
        if self._use_sequence_length:
            if sequence_length is None:
                raise MXNetValueError(f"{type(self).__name__}(use_sequence_length=True) needs "
                                      "sequence_length")
            return super().__call__(inputs, list(states), sequence_length)
        return super().__call__(inputs, list(states))

    def _zero_states(self, inputs):
        batch = inputs.shape[self._layout.find("N")]
        return [zeros_like_input(inputs, info["shape"]) for info in self.state_info(batch)]

    def hybrid_forward(self, F, inputs, states=None, sequence_length=None, **params):
        if states is None:
            states = self._zero_states(inputs)
        if hasattr(inputs, "_flavour"):
            batch = inputs.shape[self._layout.find("N")]
            for state, info in zip(states, self.state_info(batch)):
                if tuple(state.shape) != info["shape"]:
                    raise MXNetValueError(
                        f"Invalid recurrent state shape. Expecting {info['shape']}, got "
                        f"{tuple(state.shape)}.")
        if self._layout == "NTC":
            inputs = _F.swapaxes(inputs, dim1=0, dim2=1)
        extra = [sequence_length] if self._use_sequence_length else []
        outs = _F.RNN(inputs, self._flat_params(params), *states, *extra,
                      state_size=self._hidden_size, num_layers=self._num_layers,
                      bidirectional=self._dir == 2, p=self._dropout, state_outputs=True,
                      mode=self._mode, projection_size=self._projection_size,
                      use_sequence_length=self._use_sequence_length)
        # NOTE: F returns the op's hidden dropout-mask output too; the states come before it.
        out, new_states = outs[0], list(outs[1:1 + len(states)])
        if self._layout == "NTC":
            out = _F.swapaxes(out, dim1=0, dim2=1)
        return out if self.skip_states else (out, new_states)


class RNN(_RNNLayer):
    """Elman RNN layer (``activation`` 'relu' or 'tanh') over (T, N, C) / (N, T, C)
    sequences."""

    def __init__(self, hidden_size, num_layers=1, activation="relu", layout="TNC", dropout=0,
                 bidirectional=False, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0,
                 dtype="float32", **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, f"rnn_{activation}", None, None, None, None,
                         False, dtype, **kwargs)


class LSTM(_RNNLayer):
    """Long short-term memory layer; states are ``[h, c]`` (``h`` of ``projection_size``
    features for LSTMP)."""

    def __init__(self, hidden_size, num_layers=1, layout="TNC", dropout=0, bidirectional=False,
                 input_size=0, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 projection_size=None, h2r_weight_initializer=None, state_clip_min=None,
                 state_clip_max=None, state_clip_nan=False, dtype="float32", **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, "lstm", projection_size, h2r_weight_initializer,
                         state_clip_min, state_clip_max, state_clip_nan, dtype, **kwargs)


class GRU(_RNNLayer):
    """Gated recurrent unit layer (cuDNN's variant, as MXNet)."""

    def __init__(self, hidden_size, num_layers=1, layout="TNC", dropout=0, bidirectional=False,
                 input_size=0, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", dtype="float32",
                 **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, "gru", None, None, None, None, False, dtype,
                         **kwargs)


def split_rnn_params(param, mode, num_layers, input_size, hidden_size, bidirectional=False,
                     projection_size=None):
    """The fused op's flat ``param`` as ``{'l0_i2h_weight': ..., 'r1_h2h_bias': ...}`` views
    (MXNet 2.0's ``gluon.utils.split_rnn_params``; ``l0_h2r_weight`` too for LSTMP)."""
    dirs = 2 if bidirectional else 1
    attrs = {"mode": mode, "num_layers": num_layers, "bidirectional": bidirectional,
             "state_size": hidden_size, "projection_size": projection_size or None}
    groups = ("i2h_weight", "h2h_weight") + (("h2r_weight",) if projection_size else ()) + \
        ("i2h_bias", "h2h_bias")
    result = {}
    for k, span in enumerate(param_layout(attrs, input_size)):
        stem = f"{'lr'[k % dirs]}{k // dirs}"
        for group, (begin, end, shape) in zip(groups, span):
            result[f"{stem}_{group}"] = param[begin:end].reshape(shape)
    return result
