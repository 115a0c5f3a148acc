"""``mx.rnn``: MXNet 1.x's symbolic recurrent API (cells that build ``mx.sym`` graphs, the
bucketing sentence iterator, checkpoints with per-gate weights).

Example
-------
>>> import mxlab as mx
>>> cell = mx.rnn.LSTMCell(8, prefix='lstm_')
>>> outputs, states = cell.unroll(3, mx.sym.var('data'), merge_outputs=True)
>>> outputs.infer_shape(data=(2, 3, 4))[1]
[(2, 3, 8)]
>>> sorted(cell.params._params)
['lstm_h2h_bias', 'lstm_h2h_weight', 'lstm_i2h_bias', 'lstm_i2h_weight']
"""
from . import io, rnn, rnn_cell  # noqa: F401
from .io import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403
from .rnn_cell import *  # noqa: F401,F403
