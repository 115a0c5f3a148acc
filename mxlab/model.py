"""MXNet 1.x checkpoints: ``prefix-symbol.json`` plus ``prefix-NNNN.params`` (``mx.model``).

A 1.x checkpoint is the graph in MXNet's JSON and one ``.params`` file per epoch whose keys carry
their role, ``arg:<name>`` for learned arguments and ``aux:<name>`` for auxiliary states
(BatchNorm's running statistics). ``Module.save_checkpoint``, ``mx.callback.do_checkpoint`` and
``mx.rnn.save_rnn_checkpoint`` all write this pair, and old scripts read it back with
:func:`load_checkpoint`.
"""
import collections
import logging
import os

import numpy

from . import kvstore as kvs
from . import ndarray as nd
from . import symbol as sym
from .base import MXNetTypeError, MXNetValueError
from .device import cpu

__all__ = ["BatchEndParam", "load_checkpoint", "load_params", "save_checkpoint"]

# NOTE: MXNet's threshold: a 'local' store whose largest parameter exceeds 16M elements updates
#   on the workers instead (copying such weights through the store every step costs more).
_BIG_PARAM = 1024 * 1024 * 16

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


# -- the kvstore helpers Module's training loop uses (MXNet's model.py) --------------------------
def _create_kvstore(kvstore, num_device, arg_params):
    """``(store or None, update_on_kvstore)`` for ``Module.init_optimizer``.

    A store name on one device without ``dist`` needs no store at all (MXNet's rule: the updater
    runs on the worker); ``MXNET_UPDATE_ON_KVSTORE=0`` keeps the optimizer on the workers.
    """
    update_on_kvstore = bool(int(os.getenv("MXNET_UPDATE_ON_KVSTORE", "1")))
    if kvstore is None:
        store = None
    elif isinstance(kvstore, kvs.KVStoreBase):
        store = kvstore
    elif isinstance(kvstore, str):
        if num_device == 1 and "dist" not in kvstore:
            store = None
        else:
            store = kvs.create(kvstore)
            if kvstore == "local" and arg_params:
                largest = max(int(numpy.prod(p.shape)) for p in arg_params.values())
                if largest > _BIG_PARAM:
                    update_on_kvstore = False
    else:
        raise MXNetTypeError(f"kvstore must be a KVStore, a str or None, got "
                             f"{type(kvstore).__name__}")
    if store is None:
        update_on_kvstore = False
    else:
        update_on_kvstore &= store.is_capable(kvs.KVStoreBase.OPTIMIZER)
    return store, update_on_kvstore


def _initialize_kvstore(kvstore, param_arrays, arg_params, param_names, update_on_kvstore):
    """Give the store each parameter (by name); when the store updates, its value is also copied
    back to every device so all replicas start equal."""
    for name, param_on_devs in zip(param_names, param_arrays):
        if not update_on_kvstore or arg_params[name].stype != "default":
            kvstore.init(name, arg_params[name])
        else:
            kvstore.broadcast(name, arg_params[name], out=param_on_devs)


def _update_params_on_kvstore(param_arrays, grad_arrays, kvstore, param_names):
    """Push each parameter's device gradients; the store runs the optimizer and every device
    pulls the new weight."""
    for index, (arg_list, grad_list) in enumerate(zip(param_arrays, grad_arrays)):
        if grad_list[0] is None:
            continue
        name = param_names[index]
        if grad_list[0].stype == "default" and arg_list[0].stype == "default":
            kvstore.pushpull(name, grad_list, out=arg_list, priority=-index)
        else:
            kvstore.push(name, grad_list, priority=-index)
            kvstore.pull(name, out=arg_list, priority=-index)


def _update_params(param_arrays, grad_arrays, updater, num_device, kvstore=None,
                   param_names=None):
    """Sum the gradients through ``kvstore`` (when given), then run ``updater`` on every device.

    The updater's index of parameter ``i`` on device ``k`` is ``i * num_device + k`` (MXNet's
    numbering, which the saved optimizer states are keyed by).
    """
    updates = [[] for _ in range(num_device)]
    for index, (arg_list, grad_list) in enumerate(zip(param_arrays, grad_arrays)):
        if grad_list[0] is None:
            continue
        if kvstore:
            name = param_names[index]
            if grad_list[0].stype == "default" and arg_list[0].stype == "default":
                kvstore.pushpull(name, grad_list, priority=-index)
            else:
                kvstore.push(name, grad_list, priority=-index)
                kvstore.pull(name, out=grad_list, priority=-index)
        for k, (weight, grad) in enumerate(zip(arg_list, grad_list)):
            updates[k].append((index * num_device + k, grad, weight))
    for dev_updates in updates:
        if dev_updates:
            indices, grads, weights = zip(*dev_updates)
            updater(list(indices), list(grads), list(weights))


def _multiple_callbacks(callbacks, *args, **kwargs):
    """Call one callback or each of a list of them."""
    if isinstance(callbacks, (list, tuple)):
        for callback in callbacks:
            callback(*args, **kwargs)
    elif callbacks:
        callbacks(*args, **kwargs)
