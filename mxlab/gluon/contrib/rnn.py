"""``mx.gluon.contrib.rnn``: where MXNet 1.x kept the convolutional cells, ``LSTMPCell``,
``VariationalDropoutCell`` and ``dynamic_unroll`` (MXNet 2.0 moved them to ``gluon.rnn``); the
same classes as ``mx.gluon.rnn``'s."""
from ..rnn import conv_rnn_cell, rnn_cell  # noqa: F401
from ..rnn.conv_rnn_cell import (  # noqa: F401
                                 Conv1DGRUCell,
                                 Conv1DLSTMCell,
                                 Conv1DRNNCell,
                                 Conv2DGRUCell,
                                 Conv2DLSTMCell,
                                 Conv2DRNNCell,
                                 Conv3DGRUCell,
                                 Conv3DLSTMCell,
                                 Conv3DRNNCell,
)
from ..rnn.rnn_cell import LSTMPCell, VariationalDropoutCell, dynamic_unroll  # noqa: F401
