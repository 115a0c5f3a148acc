"""Fused recurrent layers ``RNN``, ``LSTM``, ``GRU`` over whole sequences (one ``RNN`` op).

Parameters are MXNet 1.x's per-gate-group arrays (``l0_i2h_weight``, ``r1_h2h_bias``, ...), so
1.x ``.params`` files load; each call concatenates them into the op's flat vector in MXNet's
order (all weights, then all biases; layer by layer, ``l`` before ``r``, ``i2h`` before ``h2h``).

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
from ...ops.rnn import GATES
from ..block import HybridBlock
from ..parameter import Parameter

__all__ = ["GRU", "LSTM", "RNN"]


def zeros_like_input(x, shape, dtype=None):
    """Zeros of ``shape`` in ``x``'s flavour (``mx.nd`` / ``mx.np``) and device."""
    from ... import ndarray, numpy
    make = numpy.zeros if x._flavour == "np" else ndarray.zeros
    return make(shape, dtype=dtype or x.dtype, ctx=x.device)


def default_zeros():
    """``mx.np.zeros`` in NumPy mode (``npx.set_np``), else ``mx.nd.zeros``: MXNet's default
    ``begin_state`` function for each generation."""
    from ... import ndarray, numpy
    from ...util import is_np_array
    return numpy.zeros if is_np_array() else ndarray.zeros


class _RNNLayer(HybridBlock):
    """Shared machinery: parameters, states, layouts and the fused op call."""

    def __init__(self, hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                 i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                 h2h_bias_initializer, mode, projection_size=None, dtype="float32",
                 use_sequence_length=False, **kwargs):
        super().__init__()
        if layout not in ("TNC", "NTC"):
            raise MXNetValueError(f"{mode} layer: layout must be 'TNC' or 'NTC', got {layout!r}")
        if projection_size is not None or use_sequence_length:
            raise NotImplementedError(f"{mode} layer: projection_size and use_sequence_length "
                                      "are not built in mxlab")
        self._hidden_size, self._num_layers, self._layout = hidden_size, num_layers, layout
        self._dropout, self._dir, self._mode = dropout, 2 if bidirectional else 1, mode
        self._input_size, self._gates = input_size, GATES[mode]
        self._names = []
        size = self._gates * hidden_size
        for layer in range(num_layers):
            width = input_size if layer == 0 else self._dir * hidden_size
            for side in "lr"[:self._dir]:
                stem = f"{side}{layer}"
                for group, shape, init in (
                        ("i2h_weight", (size, width), i2h_weight_initializer),
                        ("h2h_weight", (size, hidden_size), h2h_weight_initializer),
                        ("i2h_bias", (size,), i2h_bias_initializer),
                        ("h2h_bias", (size,), h2h_bias_initializer)):
                    name = f"{stem}_{group}"
                    setattr(self, name, Parameter(name, shape=shape, init=init, dtype=dtype,
                                                  allow_deferred_init=True))
                    self._names.append(name)

    def __repr__(self):
        width = self._input_size or None
        return (f"{type(self).__name__}({width} -> {self._hidden_size}, {self._layout}, "
                f"num_layers={self._num_layers}"
                f"{', bidirectional' if self._dir == 2 else ''}"
                f"{f', dropout={self._dropout}' if self._dropout else ''})")

    def state_info(self, batch_size=0):
        shape = (self._num_layers * self._dir, batch_size, self._hidden_size)
        count = 2 if self._mode == "lstm" else 1
        return [{"shape": shape, "__layout__": "LNC"} for _ in range(count)]

    def begin_state(self, batch_size=0, func=None, **kwargs):
        """Initial states: ``func(shape=..., **kwargs)`` per state (zeros by default)."""
        func = func or default_zeros()
        kwargs.pop("name", None)
        return [func(shape=info["shape"], **kwargs) for info in self.state_info(batch_size)]

    def infer_shape(self, inputs, *args):
        width = inputs.shape[-1]
        for side in "lr"[:self._dir]:
            getattr(self, f"{side}0_i2h_weight").shape = (self._gates * self._hidden_size, width)

    def _flat_params(self, params):
        order = [n for kind in ("weight", "bias") for n in self._names if n.endswith(kind)]
        return _F.concat(*[_F.reshape(params[n], shape=(-1,)) for n in order], dim=0,
                         num_args=len(order))

    def hybrid_forward(self, F, inputs, states=None, sequence_length=None, **params):
        if sequence_length is not None:
            raise NotImplementedError("RNN layers: sequence_length is not built in mxlab")
        if self._layout == "NTC":
            inputs = _F.swapaxes(inputs, dim1=0, dim2=1)
        skip_states = states is None
        if skip_states:
            if not hasattr(inputs, "_flavour"):
                raise MXNetValueError(f"{type(self).__name__}: pass begin_state(...) states "
                                      "when calling the layer on symbols")
            states = [zeros_like_input(inputs, info["shape"]) for info in
                      self.state_info(inputs.shape[1])]
        if not isinstance(states, (list, tuple)):
            states = [states]
        outs = _F.RNN(inputs, self._flat_params(params), *states, state_size=self._hidden_size,
                      num_layers=self._num_layers, bidirectional=self._dir == 2,
                      p=self._dropout, state_outputs=True, mode=self._mode)
        # NOTE: F returns the op's hidden dropout-mask output too; the states come before it.
        out, new_states = outs[0], list(outs[1:1 + len(states)])
        if self._layout == "NTC":
            out = _F.swapaxes(out, dim1=0, dim2=1)
        return out if skip_states else (out, new_states)


def _layer(mode, doc):
    class Layer(_RNNLayer):
        def __init__(self, hidden_size, num_layers=1, activation="relu", layout="TNC",
                     dropout=0, bidirectional=False, i2h_weight_initializer=None,
                     h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                     h2h_bias_initializer="zeros", input_size=0, **kwargs):
            run_mode = mode if mode != "rnn" else f"rnn_{activation}"
            super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                             i2h_weight_initializer, h2h_weight_initializer,
                             i2h_bias_initializer, h2h_bias_initializer, run_mode, **kwargs)
    Layer.__doc__ = doc
    return Layer


RNN = _layer("rnn", "Elman RNN layer (``activation`` 'relu' or 'tanh') over (T, N, C) / "
                    "(N, T, C) sequences.")
RNN.__name__ = RNN.__qualname__ = "RNN"
LSTM = _layer("lstm", "Long short-term memory layer; states are ``[h, c]``.")
LSTM.__name__ = LSTM.__qualname__ = "LSTM"
GRU = _layer("gru", "Gated recurrent unit layer (cuDNN's variant, as MXNet).")
GRU.__name__ = GRU.__qualname__ = "GRU"


def split_rnn_params(param, mode, num_layers, input_size, hidden_size, bidirectional=False,
                     projection_size=None):
    """The fused op's flat ``param`` as ``{'l0_i2h_weight': ..., 'r1_h2h_bias': ...}`` views
    (MXNet 2.0's ``gluon.utils.split_rnn_params``)."""
    if projection_size:
        raise NotImplementedError("split_rnn_params: projection_size is not built in mxlab")
    gates, dirs = GATES[mode], 2 if bidirectional else 1
    names = [f"{side}{layer}_{group}" for layer in range(num_layers) for side in "lr"[:dirs]
             for group in ("i2h", "h2h")]
    shapes = {}
    for name in names:
        layer = int(name[1:name.index("_")])
        width = hidden_size if "h2h" in name else (input_size if layer == 0
                                                   else dirs * hidden_size)
        shapes[f"{name}_weight"] = (gates * hidden_size, width)
        shapes[f"{name}_bias"] = (gates * hidden_size,)
    result, begin = {}, 0
    for kind in ("weight", "bias"):
        for name in names:
            shape = shapes[f"{name}_{kind}"]
            size = shape[0] * (shape[1] if len(shape) > 1 else 1)
            result[f"{name}_{kind}"] = param[begin:begin + size].reshape(shape)
            begin += size
    return result
