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

from ..base import MXNetError, MXNetValueError
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

    def set_states(self, states, source="optimizer states"):
        """Restore what :meth:`get_states` returned, or MXNet 1.9.1's pickled ``.states`` bytes
        (``source`` names them in errors). The pickle is read by :func:`read_states` (data only,
        never code); an mxlab optimizer dumped with the states replaces this one, an MXNet
        optimizer gives this one its counters, ``lr`` and ``wd`` (see :func:`read_states`)."""
        self.apply_states(read_states(states, source))

    def apply_states(self, loaded):
        """Take the states (and optimizer) of a :class:`LoadedStates`."""
        if isinstance(loaded.optimizer, Optimizer):
            loaded.optimizer.param_dict = self.optimizer.param_dict
            self.optimizer = loaded.optimizer
        elif loaded.optimizer is not None:
            loaded.apply_fields(self.optimizer)
        self.states = {i: _from_numpy(s) for i, s in loaded.states.items()}
        self.states_synced = dict.fromkeys(self.states, False)
        self._master_first = set(self.states) if loaded.master_first else set()


_MP_ORDER_KEY = "__mp_order__"   # in pickled states: multi-precision states in each weight's order
# NOTE: the optimizer fields a .states file may set (mxlab's own Trainer file keeps the same ones):
#   the update counters (Adam's bias correction) and the current lr / wd
_OPTIMIZER_FIELDS = ("num_update", "_index_update_count", "_all_index_update_counts", "lr", "wd")


class LoadedStates:
    """What a ``.states`` pickle held: ``states`` (index -> NumPy array, tuple of them or None),
    ``optimizer`` (an mxlab :class:`Optimizer`, an :class:`_PickledObject` of MXNet's, or None)
    and ``master_first`` (multi-precision states saved as (master, state): see set_states)."""

    def __init__(self, states, optimizer, master_first, source):
        self.states, self.optimizer = states, optimizer
        self.master_first, self.source = master_first, source

    def fields(self):
        """The optimizer's counters, ``lr`` and ``wd`` as plain data (checked)."""
        found = vars(self.optimizer) if isinstance(self.optimizer, Optimizer) \
            else self.optimizer.fields
        out = {k: found[k] for k in _OPTIMIZER_FIELDS if k in found}
        for key in ("lr", "wd"):
            if key in out and not isinstance(out[key], (int, float)):
                raise MXNetValueError(f"{self.source}: the optimizer's {key} is "
                                      f"{type(out[key]).__name__}, not a number")
        for key in ("_index_update_count", "_all_index_update_counts"):
            if key in out and not _int_tree(out[key]):
                raise MXNetValueError(f"{self.source}: the optimizer's {key} is not a dict of "
                                      "integer counts")
        return out

    def check_class(self, optimizer):
        """The dumped optimizer's class must be ``optimizer``'s (Adam's states cannot drive
        SGD)."""
        name = self.optimizer.class_name if isinstance(self.optimizer, _PickledObject) \
            else type(self.optimizer).__name__
        if name.lower() != type(optimizer).__name__.lower():
            raise MXNetValueError(f"{self.source}: the states were written by a {name} "
                                  f"optimizer, this one is {type(optimizer).__name__}")

    def apply_fields(self, optimizer):
        """Give ``optimizer`` the dumped optimizer's counters, ``lr`` and ``wd`` (checked)."""
        self.check_class(optimizer)
        fields = self.fields()
        for key, value in fields.items():
            setattr(optimizer, key, value)
        if "_all_index_update_counts" in fields:
            optimizer._index_update_count = \
                optimizer._all_index_update_counts.setdefault(0, {})


def _int_tree(value):
    if isinstance(value, dict):
        return all(isinstance(k, int) and _int_tree(v) for k, v in value.items())
    return isinstance(value, int)


def read_states(data, source="optimizer states"):
    """A :class:`LoadedStates` from ``.states`` bytes: mxlab's (NumPy arrays) or MXNet 1.9.1's
    (``Updater.get_states``: a dict index -> NDArray / tuple / None, with the optimizer when
    dumped, as ``Trainer.save_states`` always does).

    The pickle is data, never code: :class:`_StatesUnpickler` resolves only array stand-ins,
    ``bytearray``, mxlab's optimizer and LR-scheduler classes, and MXNet's optimizer and
    LR-scheduler classes as plain attribute records (an MXNet optimizer is never built: its
    counters, ``lr`` and ``wd`` go to the optimizer loading the states; its other
    hyper-parameters are those that optimizer was made with)."""
    unpickler = _StatesUnpickler(io.BytesIO(bytes(data)), source)
    try:
        loaded = unpickler.load()
    except MXNetError:
        raise
    except Exception as err:   # NOTE: a truncated or garbled pickle raises many types
        raise MXNetValueError(f"{source}: not a readable optimizer states pickle "
                              f"({type(err).__name__}: {err})") from None
    optimizer = None
    if isinstance(loaded, tuple) and len(loaded) == 2:
        loaded, optimizer = loaded
        if not isinstance(optimizer, (Optimizer, _PickledObject)) or \
                (isinstance(optimizer, _PickledObject) and optimizer.kind != "optimizer"):
            raise MXNetValueError(f"{source}: the object saved with the states is "
                                  f"{type(optimizer).__name__}, not an optimizer")
    if not isinstance(loaded, dict):
        raise MXNetValueError(f"{source}: holds a {type(loaded).__name__}, not a dict of "
                              "optimizer states")
    marker = loaded.pop(_MP_ORDER_KEY, None)
    states = {}
    for index, state in loaded.items():
        if not isinstance(index, (int, str)):   # NOTE: an index, or a name (Module's states)
            raise MXNetValueError(f"{source}: state key {index!r} is not a parameter index "
                                  "or name")
        states[index] = _state_value(state, source)
    # NOTE: MXNet writes each weight's own order, as mxlab does with the marker
    master_first = marker is None and not unpickler.saw_mxnet
    return LoadedStates(states, optimizer, master_first, source)


def _state_value(state, source):
    """A state as NumPy arrays, tuples and None; anything else is refused."""
    if state is None:
        return None
    if isinstance(state, (tuple, list)):
        return tuple(_state_value(s, source) for s in state)
    if isinstance(state, _PickledArray) and state.value is not None:
        return state.value
    raise MXNetValueError(f"{source}: an optimizer state is {type(state).__name__}, not an "
                          "array, a tuple of arrays or None")


class _PickledArray:
    """An array of the pickle: MXNet's or mxlab's ``NDArray`` (``{'handle': bytes}`` in MXNet's
    binary format) or a NumPy array; ``value`` is the NumPy array. Stands in for the classes
    the pickle names, so none of their code runs."""

    def __init__(self, *args):
        self.value = None

    def __setstate__(self, state):
        from ..ndarray.serialization import from_raw_bytes

        if not isinstance(state, dict) or not isinstance(state.get("handle"),
                                                          (bytes, bytearray)):
            raise MXNetValueError("optimizer states: a pickled NDArray holds no array bytes")
        self.value = from_raw_bytes(state["handle"], "pickled NDArray in optimizer states")


def _numpy_array(buffer, dtype, shape, order="C"):
    """NumPy's own pickled array, rebuilt from its bytes: object dtypes (whose values would be
    Python objects) are refused."""
    if not isinstance(dtype, numpy.dtype) or dtype.hasobject:
        raise MXNetValueError(f"optimizer states: refusing a NumPy array of dtype {dtype!r}")
    if not isinstance(buffer, (bytes, bytearray)) or order not in ("C", "F") or \
            not all(isinstance(n, int) and n >= 0 for n in shape):
        raise MXNetValueError("optimizer states: a malformed pickled NumPy array")
    try:
        flat = numpy.frombuffer(buffer, dtype)
        out = _PickledArray()
        out.value = flat.reshape(shape, order=order).copy(order="C")
    except ValueError as err:
        raise MXNetValueError(f"optimizer states: a malformed pickled NumPy array ({err})") \
            from None
    return out


class _NumpyReconstructed(_PickledArray):
    """``numpy.core.multiarray._reconstruct``'s result: filled by its state tuple."""

    def __setstate__(self, state):
        if not isinstance(state, tuple) or len(state) != 5:
            raise MXNetValueError("optimizer states: a malformed pickled NumPy array")
        _, shape, dtype, fortran, raw = state
        self.value = _numpy_array(raw, dtype, tuple(shape), "F" if fortran else "C").value


def _reconstruct(cls, shape, dtype):
    if cls is not numpy.ndarray:
        raise MXNetValueError(f"optimizer states: refusing to rebuild a {cls!r}")
    return _NumpyReconstructed()


def _frombuffer(buffer, dtype, shape, order):
    return _numpy_array(buffer, dtype, tuple(shape), order)


class _PickledObject:
    """An MXNet optimizer or LR scheduler of the pickle, as data: its attributes in ``fields``
    (no method of MXNet's class is ever run; its class name is kept for checks)."""

    class_name, kind, fields = "", "", {}

    def __setstate__(self, state):
        if not isinstance(state, dict):
            raise MXNetValueError(f"optimizer states: the pickled {self.class_name} holds no "
                                  "attribute dict")
        self.fields = state


def _record_class(module, name, kind):
    return type(name, (_PickledObject,), {"class_name": name, "kind": kind,
                                          "__module__": module})


_ARRAY_GLOBALS = {("mxnet.ndarray.ndarray", "NDArray"): _PickledArray,
                  ("mxlab.ndarray.ndarray", "NDArray"): _PickledArray,
                  ("numpy._core.multiarray", "_reconstruct"): _reconstruct,
                  ("numpy.core.multiarray", "_reconstruct"): _reconstruct,
                  ("numpy._core.numeric", "_frombuffer"): _frombuffer,
                  ("numpy.core.numeric", "_frombuffer"): _frombuffer,
                  ("numpy", "ndarray"): numpy.ndarray,
                  ("numpy", "dtype"): numpy.dtype,
                  ("builtins", "bytearray"): bytearray}


class _StatesUnpickler(pickle.Unpickler):
    """Optimizer states are pickles (MXNet's ``.states`` format too), but a file is data: the
    globals it may name are the stand-ins of ``_ARRAY_GLOBALS``, the optimizer and LR-scheduler
    classes mxlab has (or a user registered), and MXNet's optimizer and LR-scheduler classes of
    the same names (read as :class:`_PickledObject` records). Any other global raises before
    anything is called, so a crafted ``.states`` file cannot run code."""

    def __init__(self, file, source):
        super().__init__(file)
        self.source, self.saw_mxnet = source, False

    def find_class(self, module, name):
        if (module, name) in _ARRAY_GLOBALS:
            self.saw_mxnet |= module.startswith("mxnet.")
            return _ARRAY_GLOBALS[module, name]
        from ..lr_scheduler import LRScheduler
        if module in ("mxnet.optimizer.optimizer", "mxnet.optimizer") and \
                name.lower() in _REGISTRY:
            self.saw_mxnet = True
            return _record_class(module, name, "optimizer")
        if module == "mxnet.lr_scheduler" and \
                name in {k.__name__ for k in _subclasses(LRScheduler)}:
            return _record_class(module, name, "lr_scheduler")
        known = list(_REGISTRY.values()) + _subclasses(LRScheduler)
        for klass in known:
            if klass.__module__ == module and klass.__qualname__ == name:
                return klass
        raise MXNetValueError(f"{self.source}: refusing to load {module}.{name} (only arrays, "
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
