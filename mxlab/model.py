"""MXNet 1.x checkpoints: ``prefix-symbol.json`` plus ``prefix-NNNN.params`` (``mx.model``).

A 1.x checkpoint is the graph in MXNet's JSON and one ``.params`` file per epoch whose keys carry
their role, ``arg:<name>`` for learned arguments and ``aux:<name>`` for auxiliary states
(BatchNorm's running statistics). ``Module.save_checkpoint``, ``mx.callback.do_checkpoint`` and
``mx.rnn.save_rnn_checkpoint`` all write this pair, and old scripts read it back with
:func:`load_checkpoint`.
"""
import collections
import logging

from . import ndarray as nd
from . import symbol as sym
from .base import MXNetValueError
from .device import cpu

__all__ = ["BatchEndParam", "load_checkpoint", "load_params", "save_checkpoint"]

# What batch-end callbacks receive (``mx.callback.Speedometer`` reads ``nbatch`` and
# ``eval_metric``); the type name is MXNet's, plural included.
BatchEndParam = collections.namedtuple("BatchEndParams",
                                       ["epoch", "nbatch", "eval_metric", "locals"])


def params_filename(prefix, epoch):
    """``prefix-0007.params`` for epoch 7, as MXNet names them."""
    return "%s-%04d.params" % (prefix, epoch)


def save_checkpoint(prefix, epoch, symbol, arg_params, aux_params, remove_amp_cast=True):
    """Write ``prefix-symbol.json`` (unless ``symbol`` is None) and ``prefix-%04d.params``."""
    if symbol is not None:
        symbol.save("%s-symbol.json" % prefix, remove_amp_cast=remove_amp_cast)
    save_dict = {"arg:%s" % k: v.as_in_context(cpu()) for k, v in arg_params.items()}
    save_dict.update({"aux:%s" % k: v.as_in_context(cpu()) for k, v in aux_params.items()})
    filename = params_filename(prefix, epoch)
    nd.save(filename, save_dict)
    logging.info('Saved checkpoint to "%s"', filename)


def load_params(prefix, epoch):
    """``(arg_params, aux_params)`` from ``prefix-%04d.params``."""
    filename = params_filename(prefix, epoch)
    loaded = nd.load(filename)
    if not loaded:
        logging.warning("Params file '%s' is empty", filename)
        return {}, {}
    if not isinstance(loaded, dict):
        raise MXNetValueError(f"{filename}: a checkpoint holds named arrays ('arg:<name>', "
                              "'aux:<name>'); this file holds an unnamed list")
    arg_params, aux_params = {}, {}
    for key, value in loaded.items():
        role, _, name = key.partition(":")
        if role == "arg":
            arg_params[name] = value
        elif role == "aux":
            aux_params[name] = value
    return arg_params, aux_params


def load_checkpoint(prefix, epoch):
    """``(symbol, arg_params, aux_params)`` of the checkpoint ``prefix`` at ``epoch``."""
    symbol = sym.load("%s-symbol.json" % prefix)
    arg_params, aux_params = load_params(prefix, epoch)
    return symbol, arg_params, aux_params
