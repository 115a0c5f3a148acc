"""``mx.gluon.rnn``: fused recurrent layers (``RNN``, ``LSTM``, ``GRU``) and step-by-step cells
with ``unroll`` (``RNNCell``, ``LSTMCell``, ``GRUCell`` and the wrappers)."""
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
