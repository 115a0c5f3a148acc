"""``mx.optimizer.Updater`` / ``get_updater``: an optimizer plus the per-index states it updates.

A key-value store calls ``updater(key, merged_grad, stored_weight)`` on every push once an
optimizer is set (``kv.set_optimizer``), as MXNet's stores do.

Example
-------
>>> import mxlab as mx
>>> updater = mx.optimizer.get_updater(mx.optimizer.SGD(learning_rate=0.1))
>>> w = mx.nd.ones((2,))
>>> updater(0, mx.nd.ones((2,)), w)
>>> w.asnumpy()
array([0.9, 0.9], dtype=float32)
"""
import io
import pickle

import numpy

from ..base import MXNetValueError
from .optimizer import _REGISTRY, Optimizer

__all__ = ["Updater", "get_updater"]


class Updater:
    """Applies ``optimizer`` to ``(index, grad, weight)``, keeping one state per index (MXNet's:
    states from ``create_state_multi_precision``, updates through ``update_multi_precision``,
    ``aggregate_num`` parameters of one dtype per call, update counts kept per device id)."""

    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.states = {}
        self.states_synced = {}
        self._master_first = set()   # indices whose loaded state is (master, state): see set_states
        self.aggregate_updates = getattr(optimizer, "aggregate_num", 1) > 1
        # NOTE: MXNet 2 calls update with one-element lists, MXNet 1.x with single items (what a
        #   1.x subclass's update(index, weight, grad, state) expects); mx.mod sets this
        self.single_items = False

    def __call__(self, index, grad, weight):
        """Update ``weight`` in place (``index``/``grad``/``weight`` may also be equal-length lists,
        MXNet 2's form)."""
        steady = getattr(self.optimizer, "_steady", None)   # NOTE: SGD's repeated step
        if steady is not None and steady.step(self, index, grad, weight):
            return
        if not isinstance(index, (list, tuple)):
            index, grad, weight = [index], [grad], [weight]
        indices, grads, weights = list(index), list(grad), list(weight)
        if weights and hasattr(self.optimizer, "_set_current_device"):
            self.optimizer._set_current_device(weights[0].device.device_id)
        states, synced = self.states, self.states_synced
        for i, w in zip(indices, weights):
            if synced.get(i) is True and i in states:   # NOTE: the steady state: nothing to do
                continue
            if i not in states:
                states[i] = self.optimizer.create_state_multi_precision(i, w)
            elif not synced.get(i, True):
                states[i] = _on_device(states[i], w.device)
                if i in self._master_first:
                    self._master_first.discard(i)
                    states[i] = self.optimizer._from_master_first(w, states[i])
            synced[i] = True
        if not self.aggregate_updates:
            if _takes_all_at_once(self.optimizer):
                self.optimizer.update_multi_precision(indices, weights, grads,
                                                      [self.states[i] for i in indices])
                return
            for i, w, g in zip(indices, weights, grads):
                if self.single_items:
                    self.optimizer.update_multi_precision(i, w, g, self.states[i])
                else:
                    self.optimizer.update_multi_precision([i], [w], [g], [self.states[i]])
            return
        by_dtype = {}
        for i, w, g in zip(indices, weights, grads):
            by_dtype.setdefault(w.dtype, []).append((i, w, g))
        size = self.optimizer.aggregate_num
        for group in by_dtype.values():
            step = len(group) if size == numpy.inf else int(size)
            for start in range(0, len(group), step):
                ids, ws, gs = (list(x) for x in zip(*group[start:start + step]))
                self.optimizer.update_multi_precision(ids, ws, gs, [self.states[i] for i in ids])

    def get_states(self, dump_optimizer=False):
        """The states (and the optimizer, without its ``param_dict``) as pickled bytes."""
        states = {i: _to_numpy(s) for i, s in self.states.items()}
        states[_MP_ORDER_KEY] = "by_flavour"
        if not dump_optimizer:
            return pickle.dumps(states)
        param_dict, self.optimizer.param_dict = self.optimizer.param_dict, {}
        try:
            return pickle.dumps((states, self.optimizer))
        finally:
            self.optimizer.param_dict = param_dict

    def set_states(self, states):
        """Restore what :meth:`get_states` returned (the optimizer too when it was dumped)."""
        loaded = _StatesUnpickler(io.BytesIO(states)).load()
        if isinstance(loaded, tuple):
            loaded, optimizer = loaded
            optimizer.param_dict = self.optimizer.param_dict
            self.optimizer = optimizer
        # NOTE: states pickled without the marker hold every multi-precision state as
        #   (master, state); reordered for its weight when first used (see __call__)
        master_first = loaded.pop(_MP_ORDER_KEY, None) is None
        self.states = {i: _from_numpy(s) for i, s in loaded.items()}
        self.states_synced = dict.fromkeys(self.states, False)
        self._master_first = set(self.states) if master_first else set()


_MP_ORDER_KEY = "__mp_order__"   # in pickled states: multi-precision states in each weight's order
_NUMPY_GLOBALS = {("numpy", "ndarray"), ("numpy", "dtype"),
                  ("numpy._core.multiarray", "_reconstruct"),
                  ("numpy.core.multiarray", "_reconstruct")}


class _StatesUnpickler(pickle.Unpickler):
    """Optimizer states are pickles (MXNet's ``.states`` format too), but a file is data: only
    NumPy arrays and the optimizer and LR-scheduler classes mxlab has (or a user registered) are
    rebuilt, so a crafted ``.states`` file cannot run code."""

    def find_class(self, module, name):
        if (module, name) in _NUMPY_GLOBALS:
            return super().find_class(module, name)
        from ..lr_scheduler import LRScheduler
        known = list(_REGISTRY.values()) + _subclasses(LRScheduler)
        for klass in known:
            if klass.__module__ == module and klass.__qualname__ == name:
                return klass
        raise MXNetValueError(f"optimizer states: refusing to load {module}.{name} (only arrays, "
                              "optimizers and LR schedulers are read from a states file)")


def _subclasses(klass):
    found = [klass]
    for sub in klass.__subclasses__():
        found += _subclasses(sub)
    return found


def get_updater(optimizer):
    """An :class:`Updater` for ``optimizer`` (MXNet's ``mx.optimizer.get_updater``)."""
    return Updater(optimizer)


def _to_numpy(state):
    if state is None:
        return None
    if isinstance(state, (tuple, list)):
        return tuple(_to_numpy(s) for s in state)
    return state.asnumpy()


def _from_numpy(state):
    from ..ndarray.ndarray import NDArray, array

    if state is None:
        return None
    if isinstance(state, tuple):
        return tuple(_from_numpy(s) for s in state)
    return array(numpy.asarray(state), dtype=state.dtype, cls=NDArray)


def _on_device(state, device):
    if state is None:
        return None
    if isinstance(state, tuple):
        return tuple(_on_device(s, device) for s in state)
    return state.as_in_context(device)


def _takes_all_at_once(optimizer):
    """Whether one call with every parameter does what one call per parameter does: an
    optimizer whose fused step batches its per-parameter kernels into one engine push
    (``batches_updates``), with mxlab's own list-taking ``update`` (a user's 1.x-style override
    expects one parameter per call)."""
    return getattr(optimizer, "batches_updates", False) and \
        type(optimizer).update is Optimizer.update
