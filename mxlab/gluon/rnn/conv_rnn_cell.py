"""Convolutional recurrent cells (MXNet's ``gluon.rnn.conv_rnn_cell``): ``Conv1DRNNCell`` ...
``Conv3DGRUCell``. The ``i2h``/``h2h`` transforms are convolutions instead of dense layers
(Shi et al. 2015, ConvLSTM); states keep the spatial dims of the ``i2h`` convolution's output
(the ``h2h`` convolution pads to keep them, so its kernel must be odd).

Example
-------
>>> import mxlab as mx
>>> cell = mx.gluon.rnn.Conv1DLSTMCell((5, 7), 10, 3, 3)
>>> cell.initialize()
>>> out, states = cell.unroll(4, mx.nd.ones((2, 4, 5, 7)), merge_outputs=True)
>>> out.shape, states[1].shape
((2, 4, 10, 5), (2, 10, 5))
"""
from ...base import MXNetValueError
from ...ops.registry import F as _F
from ..parameter import Parameter
from .rnn_cell import HybridRecurrentCell

__all__ = [f"Conv{d}D{kind}Cell" for d in (1, 2, 3) for kind in ("RNN", "LSTM", "GRU")]


def _tuple(spec, dims, what):
    if isinstance(spec, int):
        return (spec,) * dims
    if len(spec) != dims:
        raise MXNetValueError(f"For {dims}D convolution, the convolution settings can only be "
                              f"either int or list/tuple of length {dims}: {what}={spec}")
    return tuple(spec)


def _activation(x, activation, name=None):
    if isinstance(activation, str):
        return _F.Activation(x, act_type=activation, name=name)
    return activation(x)


class _BaseConvRNNCell(HybridRecurrentCell):
    """Parameters, shapes and the two convolutions shared by the cells."""

    _gates = 1
    _num_states = 1

    def __init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad,
                 i2h_dilate, h2h_dilate, i2h_weight_initializer, h2h_weight_initializer,
                 i2h_bias_initializer, h2h_bias_initializer, dims, conv_layout, activation):
        super().__init__()
        self._hidden_channels, self._input_shape = hidden_channels, tuple(input_shape)
        self._conv_layout, self._activation = conv_layout, activation
        self._i2h_kernel = _tuple(i2h_kernel, dims, "i2h_kernel")
        self._i2h_pad = _tuple(i2h_pad, dims, "i2h_pad")
        self._i2h_dilate = _tuple(i2h_dilate, dims, "i2h_dilate")
        self._h2h_kernel = _tuple(h2h_kernel, dims, "h2h_kernel")
        self._h2h_dilate = _tuple(h2h_dilate, dims, "h2h_dilate")
        if any(k % 2 == 0 for k in self._h2h_kernel):
            raise MXNetValueError(f"Only support odd number, get h2h_kernel= {h2h_kernel}")
        self._stride = (1,) * dims
        self._h2h_pad = tuple(d * (k - 1) // 2 for d, k in zip(self._h2h_dilate,
                                                              self._h2h_kernel))
        axis = self._channel_axis = conv_layout.find("C")
        in_channels = self._input_shape[axis - 1]
        spatial = self._input_shape[1:] if axis == 1 else self._input_shape[:-1]
        out_size = tuple(x + 2 * p - d * (k - 1) if x > 0 else 0 for x, k, p, d in
                         zip(spatial, self._i2h_kernel, self._i2h_pad, self._i2h_dilate))
        total = hidden_channels * self._gates
        if axis == 1:
            i2h_shape = (total, in_channels) + self._i2h_kernel
            h2h_shape = (total, hidden_channels) + self._h2h_kernel
            self._state_shape = (hidden_channels,) + out_size
        else:
            i2h_shape = (total,) + self._i2h_kernel + (in_channels,)
            h2h_shape = (total,) + self._h2h_kernel + (hidden_channels,)
            self._state_shape = out_size + (hidden_channels,)
        for name, shape, init in (("i2h_weight", i2h_shape, i2h_weight_initializer),
                                  ("h2h_weight", h2h_shape, h2h_weight_initializer),
                                  ("i2h_bias", (total,), i2h_bias_initializer),
                                  ("h2h_bias", (total,), h2h_bias_initializer)):
            setattr(self, name, Parameter(name, shape=shape, init=init,
                                          allow_deferred_init=True))

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size,) + self._state_shape, "__layout__": self._conv_layout}
                for _ in range(self._num_states)]

    def infer_shape(self, *args):
        """The input channels from ``x``: MXNet 2.0's ``infer_shape(i, x, is_bidirect)`` or the
        first call's ``(inputs, states)``."""
        x = args[1] if isinstance(args[0], int) else args[0]
        dims = len(self._i2h_kernel)
        channels = x.shape[-dims - 1:][self._channel_axis - 1]
        shape = list(self.i2h_weight.shape)
        shape[self._channel_axis] = channels
        self.i2h_weight.shape = tuple(shape)

    def _conv_forward(self, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        total = self._hidden_channels * self._gates
        i2h = _F.Convolution(inputs, i2h_weight, i2h_bias, num_filter=total,
                             kernel=self._i2h_kernel, stride=self._stride, pad=self._i2h_pad,
                             dilate=self._i2h_dilate, layout=self._conv_layout,
                             name=self._step("i2h"))
        h2h = _F.Convolution(states[0], h2h_weight, h2h_bias, num_filter=total,
                             kernel=self._h2h_kernel, stride=self._stride, pad=self._h2h_pad,
                             dilate=self._h2h_dilate, layout=self._conv_layout,
                             name=self._step("h2h"))
        return i2h, h2h

    def _split(self, x, name):
        return _F.SliceChannel(x, num_outputs=self._gates, axis=self._channel_axis,
                               name=self._step(name))

    def __repr__(self):
        shape = self.i2h_weight.shape
        channels = shape[1 if self._channel_axis == 1 else -1]
        activation = f", {self._activation}" if isinstance(self._activation, str) else ""
        return (f"{type(self).__name__}({channels if channels > 0 else None} -> {shape[0]}"
                f"{activation}, {self._conv_layout})")


class _ConvRNNCell(_BaseConvRNNCell):
    def hybrid_forward(self, F, inputs, states, **params):
        i2h, h2h = self._conv_forward(inputs, states, **params)
        out = _activation(_F.elemwise_add(i2h, h2h, name=self._step("plus0")),
                          self._activation, self._step("out"))
        return out, [out]


class _ConvLSTMCell(_BaseConvRNNCell):
    _gates, _num_states = 4, 2

    def hybrid_forward(self, F, inputs, states, **params):
        step = self._step
        i2h, h2h = self._conv_forward(inputs, states, **params)
        gates = self._split(_F.elemwise_add(i2h, h2h, name=step("plus0")), "slice")
        i, f, o = (_F.Activation(gates[k], act_type="sigmoid", name=step(n))
                   for k, n in ((0, "i"), (1, "f"), (3, "o")))
        g = _activation(gates[2], self._activation, step("c"))
        c = _F.elemwise_add(_F.elemwise_mul(f, states[1], name=step("mul0")),
                            _F.elemwise_mul(i, g, name=step("mul1")), name=step("state"))
        h = _F.elemwise_mul(o, _activation(c, self._activation), name=step("out"))
        return h, [h, c]


class _ConvGRUCell(_BaseConvRNNCell):
    _gates = 3

    def hybrid_forward(self, F, inputs, states, **params):
        step = self._step
        i2h, h2h = self._conv_forward(inputs, states, **params)
        xr, xz, xn = self._split(i2h, "i2h_slice")
        hr, hz, hn = self._split(h2h, "h2h_slice")
        reset = _F.Activation(_F.elemwise_add(xr, hr, name=step("plus0")),
                              act_type="sigmoid", name=step("r_act"))
        update = _F.Activation(_F.elemwise_add(xz, hz, name=step("plus1")),
                               act_type="sigmoid", name=step("z_act"))
        candidate = _activation(
            _F.elemwise_add(xn, _F.elemwise_mul(reset, hn, name=step("mul0")),
                            name=step("plus2")), self._activation, step("h_act"))
        out = _F.elemwise_add(_F.elemwise_mul(1.0 - update, candidate, name=step("mul1")),
                              _F.elemwise_mul(update, states[0], name=step("mul20")),
                              name=step("out"))
        return out, [out]


def _cell(base, dims, kind):
    layout = {1: "NCW", 2: "NCHW", 3: "NCDHW"}[dims]

    class Cell(base):
        def __init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel,
                     i2h_pad=(0,) * dims, i2h_dilate=(1,) * dims, h2h_dilate=(1,) * dims,
                     i2h_weight_initializer=None, h2h_weight_initializer=None,
                     i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                     conv_layout=layout, activation="tanh"):
            super().__init__(input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad,
                             i2h_dilate, h2h_dilate, i2h_weight_initializer,
                             h2h_weight_initializer, i2h_bias_initializer,
                             h2h_bias_initializer, dims, conv_layout, activation)

    Cell.__name__ = Cell.__qualname__ = f"Conv{dims}D{kind}Cell"
    Cell.__doc__ = (f"{dims}D convolutional {kind} cell (``input_shape`` per step without the "
                    f"batch, in ``conv_layout`` order, default {layout!r}).")
    return Cell


Conv1DRNNCell = _cell(_ConvRNNCell, 1, "RNN")
Conv2DRNNCell = _cell(_ConvRNNCell, 2, "RNN")
Conv3DRNNCell = _cell(_ConvRNNCell, 3, "RNN")
Conv1DLSTMCell = _cell(_ConvLSTMCell, 1, "LSTM")
Conv2DLSTMCell = _cell(_ConvLSTMCell, 2, "LSTM")
Conv3DLSTMCell = _cell(_ConvLSTMCell, 3, "LSTM")
Conv1DGRUCell = _cell(_ConvGRUCell, 1, "GRU")
Conv2DGRUCell = _cell(_ConvGRUCell, 2, "GRU")
Conv3DGRUCell = _cell(_ConvGRUCell, 3, "GRU")
