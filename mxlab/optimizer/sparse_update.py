"""Optimizer updates with sparse weights, gradients or states (MXNet's sparse update kernels).

A ``row_sparse`` gradient with lazy update (``lazy_update=True``; always for AdaGrad and Ftrl,
whose MXNet kernels are lazy) updates only the rows the gradient stores: those rows of the
weight and of every weight-shaped state are gathered into dense arrays, the optimizer's ordinary
(dense) update runs on them, and they are scattered back -- rows without a gradient keep their
weight and state, weight decay included. Otherwise the gradient is densified and the standard
update runs (MXNet's ``lazy_update=False``). Sparse weights and states are updated as dense
copies and written back into their storage type.
"""
import numpy

from ..ndarray.ndarray import NDArray

__all__ = ["has_sparse", "update_sparse"]


def _sparse(value):
    return getattr(value, "_sparse", False)


def _flat_states(state):
    if state is None:
        return []
    if isinstance(state, (list, tuple)):
        return [a for s in state for a in _flat_states(s)]
    return [state] if isinstance(state, NDArray) else []


def has_sparse(weights, grads, states):
    """Whether any weight, gradient or state array is sparse (a cheap attribute check)."""
    for weight, grad in zip(weights, grads):
        if weight._sparse or grad._sparse:
            return True
    return any(_sparse(a) for s in states for a in _flat_states(s))


def _rebuild(state, mapping):
    """``state`` with each array replaced by ``mapping[id(array)]``."""
    if isinstance(state, (list, tuple)):
        return type(state)(_rebuild(s, mapping) for s in state)
    if isinstance(state, NDArray):
        return mapping[id(state)]
    return state


def _dense(array):
    return array.tostype("default") if array._sparse else array


def _host_rows(array, rows):
    return NDArray._wrap(numpy.ascontiguousarray(array.asnumpy()[rows]), array.context)


def update_sparse(optimizer, run, index, weight, grad, state):
    """One parameter's update; ``run(indices, weights, grads, states)`` is the dense update."""
    lazy = grad.stype == "row_sparse" and (getattr(optimizer, "lazy_update", False)
                                           or getattr(optimizer, "_always_lazy", False))
    arrays = _flat_states(state)
    if not lazy:
        dense_w = _dense(weight)
        mapping = {id(a): _dense(a) for a in arrays}
        run([index], [dense_w], [_dense(grad)], [_rebuild(state, mapping)])
        _write_back(weight, dense_w)
        for a in arrays:
            _write_back(a, mapping[id(a)])
        return
    rows = grad._components()[1]
    full = tuple(weight.shape)
    sub_w = _host_rows(weight, rows)
    sub_g = NDArray._wrap(grad._components()[0].copy(), grad.context)
    mapping = {id(a): _host_rows(a, rows) if tuple(a.shape) == full else _dense(a)
               for a in arrays}
    run([index], [sub_w], [sub_g], [_rebuild(state, mapping)])
    _scatter(weight, rows, sub_w)
    for a in arrays:
        if tuple(a.shape) == full:
            _scatter(a, rows, mapping[id(a)])
        else:
            _write_back(a, mapping[id(a)])


def _write_back(target, value):
    if value is not target:
        target[:] = value


def _scatter(target, rows, part):
    host = target.asnumpy()
    host[rows] = part.asnumpy()
    target[:] = NDArray._wrap(host, target.context)
