"""``mx.gluon.Trainer``: applies an optimizer to a set of parameters.

``step(batch_size)`` = ``allreduce_grads()`` + ``update(batch_size)`` (the optimizer rule with
``rescale_grad = scale / batch_size``).

``kvstore`` (a name, a store from ``mx.kv.create`` or None) is used as MXNet's Trainer uses it.
With one device and a single-process name (``'device'``, ``'local'``) no store is needed and the
update runs locally. With several devices the store sums the gradients over them; with a dist
store (``'dist_sync'``, ``'dist_device_sync'``, ``'horovod'``; under ``mpiexec``) it also sums
over the workers. ``update_on_kvstore`` (default: True when the store can run an optimizer,
``MXNET_UPDATE_ON_KVSTORE`` overrides, as MXNet) runs the optimizer on the store, which then
writes the new weights to every device; False pulls the summed gradients and updates locally.

Data parallel (dist stores): ``batch_size`` is the batch of *one* worker and the gradient is
rescaled by ``1 / (batch_size * num_workers)``, so N workers on batches of b learn as one process
on the concatenated batch of N * b (MXNet's Module API and Horovod's DistributedTrainer do the
same; MXNet's Gluon Trainer divides by ``batch_size`` alone, which sums over the workers).
Parameters already initialised are broadcast from rank 0 when the Trainer is made, the others
(deferred init) at the first step. Gradients are pushed last parameter first, the order backward
produces them, so the allreduce of the last layers overlaps with backward of the first ones
(under a threaded engine).

Example
-------
>>> import mxlab as mx
>>> net = mx.gluon.nn.Dense(1, in_units=2)
>>> net.initialize(mx.init.One())
>>> trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
>>> with mx.autograd.record():
...     loss = net(mx.nd.array([[1.0, 1.0]])).sum()
>>> loss.backward()
>>> trainer.step(1)
>>> net.weight.data().asnumpy()
array([[0.9, 0.9]], dtype=float32)
"""
import json

import numpy

from .. import kvstore as kvs
from .. import optimizer as opt
from ..base import (
    MXNetAssertionError,
    MXNetRuntimeError,
    MXNetTypeError,
    MXNetValueError,
    env_int,
)
from .parameter import Parameter

__all__ = ["Trainer"]

_SCALARS_KEY = "__trainer_scalars__"


def _unique_params(params):
    if isinstance(params, dict):
        params = list(params.values())
    if not isinstance(params, (list, tuple)):
        raise MXNetValueError(
            f"First argument must be a list or dict of Parameters, got {type(params)}."
        )
    if not params:
        raise MXNetValueError("Trainer: params is empty; expected a list or dict of at least one "
                              "Parameter (e.g. net.collect_params())")
    unique = []
    for param in params:
        if not isinstance(param, Parameter):
            raise MXNetValueError(f"First argument must be a list or dict of Parameters, got "
                                  f"list of {type(param)}.")
        if all(param is not p for p in unique):
            unique.append(param)
    return unique


class Trainer:
    """Updates ``params`` with ``optimizer`` (a name plus ``optimizer_params``, or an instance)."""

    def __call__(self):
        """The Trainer itself: MXNet 2.0 code dereferences ``param._trainer()`` as a weak
        reference (see :attr:`Parameter._trainer <mxlab.gluon.Parameter>`)."""
        return self

    def __init__(self, params, optimizer, optimizer_params=None, kvstore="device",
                 compression_params=None, update_on_kvstore=None):
        self._params = _unique_params(params)
        param_dict = dict(enumerate(self._params))
        if isinstance(optimizer, opt.Optimizer):
            if optimizer_params:
                raise MXNetValueError("optimizer_params must be None if optimizer is an "
                                      "instance of Optimizer instead of str")
            self._optimizer = optimizer
            self._optimizer.param_dict = param_dict
        else:
            self._optimizer = opt.create(optimizer, param_dict=param_dict,
                                         **(optimizer_params or {}))
        self._scale = self._optimizer.rescale_grad
        self._updaters = []           # one Updater per device (local updates), MXNet's
        self._device_updaters = {}
        for param in self._params:
            param._set_trainer(self)
        self._compression_params = compression_params
        self._kvstore_params = {"kvstore": _check_kvstore(kvstore),
                                "update_on_kvstore": update_on_kvstore}
        self._kvstore = None
        self._update_on_kvstore = None
        self._kv_initialized = False
        self._params_to_init = list(self._params)
        if _is_dist(kvstore):
            # NOTE: made now, so a script not launched under MPI fails here, and the replicas
            #   start from rank 0's initial weights before the first forward.
            self._init_kvstore()
            self._init_params()

    @property
    def optimizer(self):
        return self._optimizer

    @property
    def learning_rate(self):
        return self._optimizer.learning_rate

    def set_learning_rate(self, lr):
        self._optimizer.set_learning_rate(lr)

    # -- the store ---------------------------------------------------------------------------------
    def _reset_kvstore(self):
        """Forget the store (a parameter was loaded: the store holds stale weights)."""
        if self._kvstore is not None and _is_dist(self._kvstore.type):
            raise MXNetRuntimeError("Cannot reset distributed KVStore.")
        self._kv_initialized = False
        self._kvstore = None
        self._update_on_kvstore = None
        self._params_to_init = list(self._params)

    def _init_kvstore(self):
        """Make the store (MXNet's ``_create_kvstore`` rules) and decide ``update_on_kvstore``."""
        config = self._kvstore_params
        kvstore = _create_kvstore(config["kvstore"], self._params)
        update_on_kvstore = None   # NOTE: MXNet: None without a store
        if kvstore is not None:
            update_on_kvstore = env_int("MXNET_UPDATE_ON_KVSTORE", 1) != 0
            if config["update_on_kvstore"] is not None:
                update_on_kvstore = bool(config["update_on_kvstore"])
            elif any(p._grad_stype != "default" for p in self._params):
                # NOTE: MXNet 1.x: dense weights with sparse gradients update here, not in the
                #   store, unless the store is distributed (its servers update)
                update_on_kvstore = _is_dist(kvstore.type)
            elif kvstore.type == "local" and _largest_param(self._params) > 16 * 1024 * 1024:
                update_on_kvstore = False
            if update_on_kvstore and not kvstore.is_capable("optimizer"):
                if config["update_on_kvstore"]:
                    raise MXNetValueError(f"Please set update_on_kvstore=False when training "
                                          f"with kvstore {kvstore.type!r}")
                update_on_kvstore = False
            if self._compression_params:
                kvstore.set_gradient_compression(self._compression_params)
            if update_on_kvstore:
                kvstore.set_optimizer(self._optimizer)
        elif config["update_on_kvstore"]:
            raise MXNetValueError("update_on_kvstore=True needs a kvstore: there is none with "
                                  "one device and a single-process kvstore (or kvstore=None)")
        self._kvstore, self._update_on_kvstore = kvstore, update_on_kvstore
        self._kv_initialized = True

    def _init_params(self):
        """Put every initialised parameter in the store (rank 0's value on every device/rank)."""
        waiting = []
        for index, param in enumerate(self._params):
            if param not in self._params_to_init:
                continue
            if param._data is None:
                waiting.append(param)
            elif self._kvstore is not None:
                self._kvstore.broadcast(index, param._list_data()[0], param._list_data())
        self._params_to_init = waiting

    def _prepare(self):
        if not self._kv_initialized:
            self._init_kvstore()
        if self._params_to_init:
            self._init_params()

    def _num_workers(self):
        store = self._kvstore
        return 1 if store is None or not _is_dist(store.type) else store.num_workers

    # -- stepping ----------------------------------------------------------------------------------
    def step(self, batch_size, ignore_stale_grad=False):
        """One update from the current gradients, normalised by ``batch_size`` (per worker)."""
        self._prepare()
        self._optimizer.rescale_grad = self._scale / (batch_size * self._num_workers())
        self._allreduce_grads()
        self._update(ignore_stale_grad)

    def allreduce_grads(self):
        """Sum each parameter's gradients over its devices (and workers), in place."""
        self._prepare()
        self._check_not_on_kvstore("allreduce_grads")
        self._allreduce_grads()

    def _allreduce_grads(self):
        store = self._kvstore
        if store is None:
            return
        indexed = [(i, p) for i, p in enumerate(self._params) if p.grad_req != "null"]
        indexed.reverse()   # NOTE: backward's order: the last layers' gradients are ready first
        keys = [i for i, _ in indexed]
        grads = [p.list_grad() for _, p in indexed]
        if not isinstance(store, kvs.KVStore):   # NOTE: a user's store: one call per key
            for i, p in indexed:
                out = p._list_data() if self._update_on_kvstore else None
                store.pushpull(i, p.list_grad(), out=out, priority=-i)
            return
        if self._update_on_kvstore:
            store.pushpull(keys, grads, out=[p._list_data() for _, p in indexed])
        else:
            store.pushpull(keys, grads)

    def update(self, batch_size, ignore_stale_grad=False):
        """The optimizer step alone (after ``allreduce_grads``)."""
        self._prepare()
        self._check_not_on_kvstore("update")
        self._optimizer.rescale_grad = self._scale / (batch_size * self._num_workers())
        self._update(ignore_stale_grad)

    def _check_not_on_kvstore(self, what):
        if self._kvstore is not None and self._update_on_kvstore:
            raise _OnKVStoreError(f"{what}() when parameters are updated on kvstore is not "
                                    f"supported. Try setting `update_on_kvstore` to False when "
                                    f"creating trainer.")

    def _updater_for(self, device):
        if device not in self._device_updaters:
            updater = opt.get_updater(self._optimizer)
            self._device_updaters[device] = updater
            self._updaters.append(updater)
        return self._device_updaters[device]

    def _update(self, ignore_stale_grad):
        plan = self.__dict__.get("_plan")
        if plan is None or not plan.holds(self):
            plan = self._plan = _StepPlan(self)
        stale = None
        for param, device, weight in plan.weights:
            if not weight._fresh_grad:
                if ignore_stale_grad:
                    stale = stale or set()
                    stale.add(id(weight))
                    continue
                raise MXNetRuntimeError(
                    f"Gradient of Parameter `{param.name}` on context {device} has not been "
                    f"updated by backward since last `step`. This could mean a bug in your "
                    f"model that made it only use a subset of the Parameters (Blocks) for "
                    f"this iteration. If you are intentionally only using a subset, call "
                    f"step with ignore_stale_grad=True to suppress this warning and skip "
                    f"updating of Parameters with stale gradient"
                )
            weight._fresh_grad = False
        if self._update_on_kvstore:
            return
        for device, indices, grads, weights in plan.groups:
            if stale:
                kept = [k for k, w in enumerate(weights) if id(w) not in stale]
                if not kept:
                    continue
                indices = [indices[k] for k in kept]
                grads, weights = [grads[k] for k in kept], [weights[k] for k in kept]
            self._updater_for(device)(indices, grads, weights)

    # -- optimizer state checkpoints ---------------------------------------------------------------
    def save_states(self, fname):
        """Write the optimizer states (arrays) and counters (JSON text) to one .params file."""
        from ..ndarray import serialization
        from ..ndarray.ndarray import array

        self._prepare()
        arrays, specs = {}, {}
        for index, state in self._state_items():
            values = []
            specs[str(index)] = _state_spec(state, values)
            for slot, value in enumerate(values):
                arrays[f"{index}:{slot}"] = value
        counts = self._optimizer._all_index_update_counts
        scalars = {"num_update": self._optimizer.num_update,
                   "index_update_counts": [[d, [[k, v] for k, v in c.items()]]
                                           for d, c in counts.items()],
                   "lr": self._optimizer.lr, "wd": self._optimizer.wd, "state_specs": specs,
                   "mp_order": "by_flavour"}
        text = numpy.frombuffer(json.dumps(scalars).encode("utf-8"), dtype=numpy.uint8)
        arrays[_SCALARS_KEY] = array(text, dtype="uint8")
        serialization.save(fname, arrays)

    def load_states(self, fname):
        """Restore what :meth:`save_states` wrote, or MXNet 1.9.1's pickled ``.states`` (read as
        data only: see :meth:`_load_pickled_states`)."""
        from ..ndarray import serialization

        self._prepare()
        with open(fname, "rb") as fin:
            if fin.read(1) == b"\x80":    # NOTE: a pickle's PROTO opcode; mxlab's file starts 0x12
                fin.seek(0)
                return self._load_pickled_states(fin.read(), str(fname))
        loaded = serialization.load(fname)
        scalars = json.loads(bytes(loaded.pop(_SCALARS_KEY).asnumpy().tolist()).decode("utf-8"))
        optimizer = self._optimizer
        optimizer.num_update = scalars["num_update"]
        optimizer._all_index_update_counts = {d: dict((k, v) for k, v in c)
                                              for d, c in scalars["index_update_counts"]}
        optimizer._index_update_count = optimizer._all_index_update_counts.setdefault(0, {})
        optimizer.lr, optimizer.wd = scalars["lr"], scalars["wd"]
        for updater in self._updaters:
            updater.states.clear()
        store_states = self._kvstore._updater.states if self._update_on_kvstore else None
        if store_states is not None:
            store_states.clear()
        # NOTE: files without "mp_order" hold every multi-precision state as (master, state);
        #   SGD/NAG/LARS now keep MXNet 1.x's (state, master) for mx.nd weights
        master_first = "mp_order" not in scalars
        for index_text, spec in scalars["state_specs"].items():
            index = int(index_text)
            values = [loaded[f"{index}:{slot}"] for slot in range(_spec_size(spec))]
            weight = self._params[index]._list_data()[0]
            for device in (None,) if store_states is not None else self._params[index].list_ctx():
                state = _state_from(spec, iter(values) if device is None
                                    else iter([value.as_in_context(device) for value in values]))
                if master_first:
                    state = optimizer._from_master_first(weight, state)
                if device is None:   # NOTE: the updater moves them to the weight's device
                    store_states[index] = state
                else:
                    self._updater_for(device).states[index] = state

    def _load_pickled_states(self, data, source):
        """MXNet's ``.states`` (``Updater.get_states(dump_optimizer=True)``), through the
        optimizer package's restricted unpickler: the states go to every updater; the dumped
        optimizer is never built, its class must be this trainer's and its update counters,
        ``lr`` and ``wd`` are taken (what mxlab's own states file restores)."""
        from ..optimizer.updater import LoadedStates, read_states

        loaded = read_states(data, source)
        if loaded.optimizer is not None:
            loaded.check_class(self._optimizer)
            loaded.fields()
        for index, state in loaded.states.items():
            self._check_loaded_state(index, state, source)
        if loaded.optimizer is not None:
            loaded.apply_fields(self._optimizer)
        states = LoadedStates(loaded.states, None, loaded.master_first, source)
        if self._update_on_kvstore:
            self._kvstore._updater.apply_states(states)
            return
        devices = {d: None for p in self._params for d in p.list_ctx()}
        for device in devices:
            self._updater_for(device).apply_states(states)

    def _check_loaded_state(self, index, state, source):
        """A loaded state must have the shapes this trainer's optimizer makes for parameter
        ``index``. NOTE: MXNet 1.x's Trainer numbers a dict's parameters in sorted-name order
        (mxlab's, as MXNet 2's, in the dict's order): a file of MXNet 1.x loads into a Trainer
        given the parameters in that order, and this check catches most mismatches."""
        if not 0 <= index < len(self._params):
            raise MXNetValueError(f"{source}: holds a state for parameter {index}, this "
                                  f"trainer has {len(self._params)} parameters")
        param = self._params[index]
        made = self._optimizer.create_state_multi_precision(index, param._list_data()[0])
        if _shapes(made) != _shapes(state):
            raise MXNetValueError(
                f"{source}: the state of parameter {index} ({param.name}) has shapes "
                f"{_shapes(state)}, this trainer's {type(self._optimizer).__name__} makes "
                f"{_shapes(made)} (MXNet 1.x's Trainer numbers parameters in sorted-name order: "
                f"give this Trainer the parameters in that order)")

    def _state_items(self):
        """``(param index, state)`` pairs, from the store's updater when it runs the optimizer."""
        if self._update_on_kvstore:
            return list(self._kvstore._updater.states.items())
        return list(self._updaters[0].states.items()) if self._updaters else []


class _StepPlan:
    """What :meth:`Trainer._update` loops over, kept between steps: each ``(param, device,
    weight)`` with a gradient, and per device the ``(indices, grads, weights)`` its updater takes.

    NOTE: valid while every parameter keeps its data and gradient dicts and ``grad_req`` (every
      change of device, re-initialisation, cast or ``grad_req`` makes new dicts) and the store
      decision stands; :meth:`holds` checks that in one short loop per step.
    """

    def __init__(self, trainer):
        self.params = [(p, p._data, p._grad, p.grad_req) for p in trainer._params]
        self.update_on_kvstore = trainer._update_on_kvstore
        self.weights, groups = [], {}
        for index, param in enumerate(trainer._params):
            if param.grad_req == "null":
                continue
            param._check_initialized()
            grads = param._grad
            for device, weight in param._data.items():
                self.weights.append((param, device, weight))
                group = groups.setdefault(device, ([], [], []))
                for part, value in zip(group, (index, grads and grads[device], weight)):
                    part.append(value)
        self.groups = [(device, *group) for device, group in groups.items()]

    def holds(self, trainer):
        if trainer._update_on_kvstore is not self.update_on_kvstore or \
                len(trainer._params) != len(self.params):
            return False
        for param, (known, data, grad, req) in zip(trainer._params, self.params):
            if param is not known or param._data is not data or param._grad is not grad \
                    or param.grad_req != req:
                return False
        return True


class _OnKVStoreError(MXNetAssertionError, MXNetRuntimeError):
    """``update``/``allreduce_grads`` while the store runs the optimizer (MXNet asserts)."""


def _state_spec(state, values):
    """A JSON description of a (nested) state; its arrays are appended to ``values``."""
    if state is None:
        return None
    if isinstance(state, (tuple, list)):
        return [_state_spec(part, values) for part in state]
    values.append(state)
    return "array"


def _shapes(state):
    """A (nested) state's array shapes, None where it holds None."""
    if state is None:
        return None
    if isinstance(state, (tuple, list)):
        return tuple(_shapes(part) for part in state)
    return tuple(state.shape)


def _spec_size(spec):
    if spec is None:
        return 0
    return sum(_spec_size(part) for part in spec) if isinstance(spec, list) else 1


def _state_from(spec, values):
    """Rebuild a state described by ``spec`` from the iterator ``values``."""
    if spec is None:
        return None
    if isinstance(spec, list):
        return tuple(_state_from(part, values) for part in spec)
    return next(values)


# -- choosing the store (MXNet's model._create_kvstore) ------------------------------------------
def _check_kvstore(kvstore):
    if kvstore is not None and not isinstance(kvstore, (str, kvs.KVStoreBase)):
        raise MXNetTypeError(f"kvstore must be KVStore, str or None, got "
                             f"{type(kvstore).__name__}")
    return kvstore


def _is_dist(kvstore):
    name = kvstore if isinstance(kvstore, str) else ""
    return name.lower().startswith("dist") or name.lower() == "horovod"


def _create_kvstore(kvstore, params):
    """The store for ``kvstore``: None with one device and a single-process name (nothing to
    reduce); a new store for a name; the object itself for a store."""
    if kvstore is None or isinstance(kvstore, kvs.KVStoreBase):
        return kvstore
    devices = {d for p in params if p._data is not None for d in p.list_ctx()}
    if len(devices) <= 1 and not _is_dist(kvstore):
        kvs.create(kvstore)   # NOTE: still validates the name (unknown -> error, not ignored)
        return None
    return kvs.create(kvstore)


def _largest_param(params):
    return max((int(numpy.prod(p.shape)) for p in params
                if p.shape and all(d is not None and d > 0 for d in p.shape)),
               default=0)
