"""MXNet 1.x's stepping cells: ``mx.rnn.RNNCell``, ``LSTMCell``, ``GRUCell``.

Each step is two ``FullyConnected`` nodes (``<prefix>t<step>_i2h``, ``..._h2h``) over the cell's
shared weights, then the gates; the step's output node is ``<prefix>t<step>_out``. Gate order
(``i f c o`` for the LSTM, ``r z o`` for the GRU) is the fused ``RNN`` op's, so the unrolled and
the fused cell compute the same function of the same weights.
"""
from .. import initializer as init
from .. import symbol
from .base_cell import BaseRNNCell

__all__ = ["RNNCell", "LSTMCell", "GRUCell"]


def _nc_state(num_hidden):
    return {"shape": (0, num_hidden), "__layout__": "NC"}


class _DenseCell(BaseRNNCell):
    """A cell whose step is ``i2h(x) + h2h(h)`` with ``gates * num_hidden`` units."""

    num_gates = 1

    def __init__(self, num_hidden, prefix, params, i2h_bias_init=None):
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._iW = self.params.get("i2h_weight")
        self._hW = self.params.get("h2h_weight")
        extra = {} if i2h_bias_init is None else {"init": i2h_bias_init}
        self._iB = self.params.get("i2h_bias", **extra)
        self._hB = self.params.get("h2h_bias")

    def _step_name(self):
        self._counter += 1
        return "%st%d_" % (self._prefix, self._counter)

    def _projections(self, inputs, state, i2h_name, h2h_name):
        units = self._num_hidden * self.num_gates
        i2h = symbol.FullyConnected(data=inputs, weight=self._iW, bias=self._iB,
                                    num_hidden=units, name=i2h_name)
        h2h = symbol.FullyConnected(data=state, weight=self._hW, bias=self._hB,
                                    num_hidden=units, name=h2h_name)
        return i2h, h2h


class RNNCell(_DenseCell):
    """Elman cell: ``h' = activation(W x + b + U h + c)``.

    Parameters
    ----------
    num_hidden : int
    activation : str or callable, default 'tanh'
    prefix : str, default 'rnn_'
    params : RNNParams, optional
    """

    def __init__(self, num_hidden, activation="tanh", prefix="rnn_", params=None):
        super().__init__(num_hidden, prefix, params)
        self._activation = activation

    @property
    def state_info(self):
        return [_nc_state(self._num_hidden)]

    @property
    def _gate_names(self):
        return ("",)

    def __call__(self, inputs, states):
        name = self._step_name()
        i2h, h2h = self._projections(inputs, states[0], "%si2h" % name, "%sh2h" % name)
        output = self._get_activation(i2h + h2h, self._activation, name="%sout" % name)
        return output, [output]


class LSTMCell(_DenseCell):
    """Long short-term memory cell; states ``[h, c]``. The ``i2h`` bias starts with
    ``forget_bias`` on the forget gate (``mx.init.LSTMBias``)."""

    num_gates = 4

    def __init__(self, num_hidden, prefix="lstm_", params=None, forget_bias=1.0):
        super().__init__(num_hidden, prefix, params,
                         i2h_bias_init=init.LSTMBias(forget_bias=forget_bias))

    @property
    def state_info(self):
        return [_nc_state(self._num_hidden), _nc_state(self._num_hidden)]

    @property
    def _gate_names(self):
        return ["_i", "_f", "_c", "_o"]

    def __call__(self, inputs, states):
        name = self._step_name()
        i2h, h2h = self._projections(inputs, states[0], "%si2h" % name, "%sh2h" % name)
        gates = symbol.SliceChannel(i2h + h2h, num_outputs=4, name="%sslice" % name)
        in_gate = symbol.Activation(gates[0], act_type="sigmoid", name="%si" % name)
        forget_gate = symbol.Activation(gates[1], act_type="sigmoid", name="%sf" % name)
        in_transform = symbol.Activation(gates[2], act_type="tanh", name="%sc" % name)
        out_gate = symbol.Activation(gates[3], act_type="sigmoid", name="%so" % name)
        next_c = symbol._plus(forget_gate * states[1], in_gate * in_transform,
                              name="%sstate" % name)
        next_h = symbol._mul(out_gate, symbol.Activation(next_c, act_type="tanh"),
                             name="%sout" % name)
        return next_h, [next_h, next_c]


class GRUCell(_DenseCell):
    """Gated recurrent unit (Cho et al. 2014, the cuDNN variant: the reset gate scales
    ``U h + c``)."""

    num_gates = 3

    def __init__(self, num_hidden, prefix="gru_", params=None):
        super().__init__(num_hidden, prefix, params)

    @property
    def state_info(self):
        return [_nc_state(self._num_hidden)]

    @property
    def _gate_names(self):
        return ["_r", "_z", "_o"]

    def __call__(self, inputs, states):
        name = self._step_name()
        prev_h = states[0]
        i2h, h2h = self._projections(inputs, prev_h, "%s_i2h" % name, "%s_h2h" % name)
        i2h_r, i2h_z, i2h = symbol.SliceChannel(i2h, num_outputs=3, name="%s_i2h_slice" % name)
        h2h_r, h2h_z, h2h = symbol.SliceChannel(h2h, num_outputs=3, name="%s_h2h_slice" % name)
        reset_gate = symbol.Activation(i2h_r + h2h_r, act_type="sigmoid", name="%s_r_act" % name)
        update_gate = symbol.Activation(i2h_z + h2h_z, act_type="sigmoid",
                                        name="%s_z_act" % name)
        candidate = symbol.Activation(i2h + reset_gate * h2h, act_type="tanh",
                                      name="%s_h_act" % name)
        next_h = symbol._plus((1. - update_gate) * candidate, update_gate * prev_h,
                              name="%sout" % name)
        return next_h, [next_h]
