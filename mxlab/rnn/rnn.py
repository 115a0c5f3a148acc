"""Checkpoints of models built with ``mx.rnn`` cells: the weights are saved unpacked (one array
per gate, readable by the unfused cells and by other frameworks) and packed again on load, over
``mx.model``'s checkpoint pair."""
import warnings

from ..model import load_checkpoint, save_checkpoint
from .base_cell import BaseRNNCell

__all__ = ["rnn_unroll", "save_rnn_checkpoint", "load_rnn_checkpoint", "do_rnn_checkpoint"]


def _cell_list(cells):
    return [cells] if isinstance(cells, BaseRNNCell) else list(cells)


def rnn_unroll(cell, length, inputs=None, begin_state=None, layout="NTC"):
    """Deprecated: ``cell.unroll(length, inputs, begin_state, layout)``."""
    warnings.warn("rnn_unroll is deprecated. Please call cell.unroll directly.")
    return cell.unroll(length=length, inputs=inputs, begin_state=begin_state, layout=layout)


def save_rnn_checkpoint(cells, prefix, epoch, symbol, arg_params, aux_params):
    """``mx.model.save_checkpoint`` with ``arg_params`` unpacked by each cell of ``cells``."""
    for cell in _cell_list(cells):
        arg_params = cell.unpack_weights(arg_params)
    save_checkpoint(prefix, epoch, symbol, arg_params, aux_params)


def load_rnn_checkpoint(cells, prefix, epoch):
    """``(symbol, arg_params, aux_params)`` of a checkpoint, ``arg_params`` packed again by each
    cell of ``cells``."""
    sym, arg, aux = load_checkpoint(prefix, epoch)
    for cell in _cell_list(cells):
        arg = cell.pack_weights(arg)
    return sym, arg, aux


def do_rnn_checkpoint(cells, prefix, period=1):
    """An epoch-end callback ``(iter_no, sym, arg, aux)`` saving an RNN checkpoint every
    ``period`` epochs (as epoch ``iter_no + 1``)."""
    period = int(max(1, period))

    def _callback(iter_no, sym=None, arg=None, aux=None):
        if (iter_no + 1) % period == 0:
            save_rnn_checkpoint(cells, prefix, iter_no + 1, sym, arg, aux)

    return _callback
