"""MXNet 1.x's convolutional cells (``mx.rnn.ConvRNNCell``, ``ConvLSTMCell``, ``ConvGRUCell``;
Shi et al. 2015): the dense cells with ``Convolution`` for ``i2h`` and ``h2h``. The state shape
is the ``i2h`` convolution's output for ``input_shape`` with the batch size unknown.
"""
import functools

from .. import symbol
from ..base import MXNetValueError
from .base_cell import BaseRNNCell

__all__ = ["BaseConvRNNCell", "ConvRNNCell", "ConvLSTMCell", "ConvGRUCell"]

_LEAKY = functools.partial(symbol.LeakyReLU, act_type="leaky", slope=0.2)


class BaseConvRNNCell(BaseRNNCell):
    """Shared parts of the convolutional cells (``h2h`` pads to keep the state's size)."""

    def __init__(self, input_shape, num_hidden, h2h_kernel, h2h_dilate, i2h_kernel, i2h_stride,
                 i2h_pad, i2h_dilate, i2h_weight_initializer, h2h_weight_initializer,
                 i2h_bias_initializer, h2h_bias_initializer, activation, prefix="",
                 params=None, conv_layout="NCHW"):
        super().__init__(prefix=prefix, params=params)
        if any(k % 2 == 0 for k in h2h_kernel):
            raise MXNetValueError(f"Only support odd number, get h2h_kernel= {h2h_kernel}")
        self._h2h_kernel, self._h2h_dilate = h2h_kernel, h2h_dilate
        self._h2h_pad = tuple(d * (k - 1) // 2 for d, k in zip(h2h_dilate, h2h_kernel))
        self._i2h = {"kernel": i2h_kernel, "stride": i2h_stride, "pad": i2h_pad,
                     "dilate": i2h_dilate}
        self._num_hidden, self._input_shape = num_hidden, input_shape
        self._conv_layout, self._activation = conv_layout, activation
        data = symbol.Variable("data")
        probe = symbol.Convolution(data=data, num_filter=num_hidden, layout=conv_layout,
                                   **self._i2h)
        self._state_shape = (0,) + tuple(probe.infer_shape(data=input_shape)[1][0][1:])
        self._iW = self.params.get("i2h_weight", init=i2h_weight_initializer)
        self._hW = self.params.get("h2h_weight", init=h2h_weight_initializer)
        self._iB = self.params.get("i2h_bias", init=i2h_bias_initializer)
        self._hB = self.params.get("h2h_bias", init=h2h_bias_initializer)

    @property
    def _num_gates(self):
        return len(self._gate_names)

    @property
    def state_info(self):
        return [{"shape": self._state_shape, "__layout__": self._conv_layout}
                for _ in range(self._num_states)]

    _num_states = 1

    def _step_name(self):
        self._counter += 1
        return "%st%d_" % (self._prefix, self._counter)

    def _conv_forward(self, inputs, states, name):
        filters = self._num_hidden * self._num_gates
        i2h = symbol.Convolution(name="%si2h" % name, data=inputs, num_filter=filters,
                                 weight=self._iW, bias=self._iB, layout=self._conv_layout,
                                 **self._i2h)
        h2h = symbol.Convolution(name="%sh2h" % name, data=states[0], num_filter=filters,
                                 kernel=self._h2h_kernel, dilate=self._h2h_dilate,
                                 pad=self._h2h_pad, stride=(1, 1), weight=self._hW,
                                 bias=self._hB, layout=self._conv_layout)
        return i2h, h2h

    def __call__(self, inputs, states):
        raise NotImplementedError("BaseConvRNNCell is abstract class for convolutional RNN")


def _conv_init(input_shape, num_hidden, h2h_kernel=(3, 3), h2h_dilate=(1, 1),
               i2h_kernel=(3, 3), i2h_stride=(1, 1), i2h_pad=(1, 1), i2h_dilate=(1, 1),
               i2h_weight_initializer=None, h2h_weight_initializer=None,
               i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", activation=_LEAKY,
               prefix=None, params=None, conv_layout="NCHW"):
    """MXNet's keyword defaults of the three cells, as one dict."""
    return dict(locals())


class ConvRNNCell(BaseConvRNNCell):
    """Convolutional Elman cell (default activation: leaky ReLU, slope 0.2)."""

    def __init__(self, input_shape, num_hidden, *args, prefix="ConvRNN_", **kwargs):
        super().__init__(**_conv_init(input_shape, num_hidden, *args, prefix=prefix, **kwargs))

    @property
    def _gate_names(self):
        return ("",)

    def __call__(self, inputs, states):
        name = self._step_name()
        i2h, h2h = self._conv_forward(inputs, states, name)
        output = self._get_activation(i2h + h2h, self._activation, name="%sout" % name)
        return output, [output]


class ConvLSTMCell(BaseConvRNNCell):
    """Convolutional LSTM cell; states ``[h, c]``."""

    _num_states = 2

    def __init__(self, input_shape, num_hidden, *args, prefix="ConvLSTM_", **kwargs):
        super().__init__(**_conv_init(input_shape, num_hidden, *args, prefix=prefix, **kwargs))

    @property
    def _gate_names(self):
        return ["_i", "_f", "_c", "_o"]

    def __call__(self, inputs, states):
        name = self._step_name()
        i2h, h2h = self._conv_forward(inputs, states, name)
        gates = symbol.SliceChannel(i2h + h2h, num_outputs=4,
                                    axis=self._conv_layout.find("C"), name="%sslice" % name)
        in_gate = symbol.Activation(gates[0], act_type="sigmoid", name="%si" % name)
        forget_gate = symbol.Activation(gates[1], act_type="sigmoid", name="%sf" % name)
        in_transform = self._get_activation(gates[2], self._activation, name="%sc" % name)
        out_gate = symbol.Activation(gates[3], act_type="sigmoid", name="%so" % name)
        next_c = symbol._plus(forget_gate * states[1], in_gate * in_transform,
                              name="%sstate" % name)
        next_h = symbol._mul(out_gate, self._get_activation(next_c, self._activation),
                             name="%sout" % name)
        return next_h, [next_h, next_c]


class ConvGRUCell(BaseConvRNNCell):
    """Convolutional GRU cell."""

    def __init__(self, input_shape, num_hidden, *args, prefix="ConvGRU_", **kwargs):
        super().__init__(**_conv_init(input_shape, num_hidden, *args, prefix=prefix, **kwargs))

    @property
    def _gate_names(self):
        return ["_r", "_z", "_o"]

    def __call__(self, inputs, states):
        name = self._step_name()
        i2h, h2h = self._conv_forward(inputs, states, name)
        i2h_r, i2h_z, i2h = symbol.SliceChannel(i2h, num_outputs=3, name="%s_i2h_slice" % name)
        h2h_r, h2h_z, h2h = symbol.SliceChannel(h2h, num_outputs=3, name="%s_h2h_slice" % name)
        reset_gate = symbol.Activation(i2h_r + h2h_r, act_type="sigmoid", name="%s_r_act" % name)
        update_gate = symbol.Activation(i2h_z + h2h_z, act_type="sigmoid",
                                        name="%s_z_act" % name)
        candidate = self._get_activation(i2h + reset_gate * h2h, self._activation,
                                         name="%s_h_act" % name)
        next_h = symbol._plus((1. - update_gate) * candidate, update_gate * states[0],
                              name="%sout" % name)
        return next_h, [next_h]
