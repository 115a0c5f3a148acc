"""``mx.rnn.rnn_cell``: MXNet 1.x's module path of every symbolic cell (defined in the sibling
modules ``base_cell``, ``basic_cells``, ``stack_cells``, ``modifier_cells``, ``conv_cells``)."""
from .base_cell import BaseRNNCell, RNNParams
from .basic_cells import GRUCell, LSTMCell, RNNCell
from .conv_cells import BaseConvRNNCell, ConvGRUCell, ConvLSTMCell, ConvRNNCell
from .modifier_cells import ModifierCell, ResidualCell, ZoneoutCell
from .stack_cells import BidirectionalCell, DropoutCell, FusedRNNCell, SequentialRNNCell

__all__ = ["RNNParams", "BaseRNNCell", "RNNCell", "LSTMCell", "GRUCell", "FusedRNNCell",
           "SequentialRNNCell", "DropoutCell", "ModifierCell", "ZoneoutCell", "ResidualCell",
           "BidirectionalCell", "BaseConvRNNCell", "ConvRNNCell", "ConvLSTMCell", "ConvGRUCell"]
