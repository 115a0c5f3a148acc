"""``mx.gluon.rnn``: fused recurrent layers (``RNN``, ``LSTM``, ``GRU``), step-by-step cells
with ``unroll`` (``RNNCell``, ``LSTMCell``, ``GRUCell``, ``LSTMPCell``, the ``Conv*Cell`` family and
the wrappers)."""
from .rnn_cell import (  # noqa: F401
                       BidirectionalCell,
                       DropoutCell,
                       GRUCell,
                       HybridRecurrentCell,
                       HybridSequentialRNNCell,
                       LSTMCell,
                       LSTMPCell,
                       ModifierCell,
                       RecurrentCell,
                       ResidualCell,
                       RNNCell,
                       SequentialRNNCell,
                       VariationalDropoutCell,
                       ZoneoutCell,
)
from .rnn_layer import GRU, LSTM, RNN  # noqa: F401
from .conv_rnn_cell import (  # noqa: F401
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
