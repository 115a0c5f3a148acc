"""The single-process stores ``local`` and ``device`` (MXNet's ``KVStoreLocal``).

A key holds one stored array. ``push`` sums the pushed arrays (one per device) and, with an
optimizer set, runs ``updater(key, merged, stored)``; without one the merged value replaces the
stored one. ``pull`` copies the stored value into every ``out`` array. ``local`` keeps stored
values (and merges) on the CPU, ``device`` on the device of the value given to ``init``, as
MXNet's two stores do. Every step is an ordinary engine op, so pushes and pulls are ordered by
the arrays' vars and show in the engine log.

Example
-------
>>> import mxlab as mx
>>> kv = mx.kv.create('local')
>>> kv.init(3, mx.nd.ones((2, 3)) * 2)
>>> kv.push(3, [mx.nd.ones((2, 3)), mx.nd.ones((2, 3)) * 3])
>>> out = mx.nd.zeros((2, 3))
>>> kv.pull(3, out=out)
>>> out.asnumpy()[0]
array([4., 4., 4.], dtype=float32)
"""
from ..atomic_file import write_bytes
from ..base import (
    MXNetKeyError,
    MXNetNotImplementedError,
    MXNetRuntimeError,
    MXNetTypeError,
    MXNetValueError,
)
from ..device import cpu
from ..ndarray import sparse
from ..optimizer import get_updater
from .base import KVStoreBase, key_value_pairs

__all__ = ["TYPES", "KVStore"]

TYPES = ("local", "device")


def is_local_type(name):
    """MXNet's C++ factory makes a local store for every non-dist, non-nccl name; mxlab takes
    ``local``/``device`` and the variants MXNet's tests name (``local_allreduce_cpu``,
    ``local_update_cpu``, ``local_allreduce_device``)."""
    return name in TYPES or name.startswith("local_")


class KVStore(KVStoreBase):
    """A single-process key-value store (``mx.kv.create('local' | 'device')``)."""

    def __init__(self, kind="local"):
        self._kind = kind
        self._store = {}
        self._updater = None
        self._key_type = None

    # -- identity ----------------------------------------------------------------------------------
    @property
    def type(self):
        return self._kind

    @property
    def rank(self):
        return 0

    @property
    def num_workers(self):
        return 1

    def is_capable(self, capability):
        if capability.lower() == KVStoreBase.OPTIMIZER:
            return True
        raise MXNetValueError(f"Unknown capability: {capability}")

    # -- the key-value API -------------------------------------------------------------------------
    def init(self, key, value):
        """Store a copy of ``value`` under ``key`` (each key once; rank 0's value wins)."""
        for k, arrays in key_value_pairs(key, value):
            self._check_key_type(k)
            if k in self._store:
                raise MXNetValueError(f"duplicate init of key {k}. Please double check if you "
                                      f"called kv.init or kv.broadcast with this key multiple "
                                      f"times")
            self._store[k] = self._initial_value(k, arrays[0])

    def push(self, key, value, priority=0):
        """Sum each key's arrays into its stored value (through the updater when one is set)."""
        self._push_all(key_value_pairs(key, value))

    def pull(self, key, out=None, priority=0, ignore_sparse=True):
        """Copy each key's stored value into its ``out`` array(s)."""
        if out is None:
            raise MXNetValueError("kvstore.pull: out is required (the arrays to pull into)")
        for k, targets in key_value_pairs(key, out, "out"):
            if ignore_sparse:   # NOTE: MXNet's rule: pull skips sparse outs unless told not to
                targets = [t for t in targets if t.stype == "default"]
            self._pull_one(k, targets)

    def pushpull(self, key, value, out=None, priority=0):
        """``push`` then ``pull`` (into ``value`` itself when ``out`` is None)."""
        pairs = key_value_pairs(key, value)
        outs = pairs if out is None else key_value_pairs(key, out, "out")
        _check_same_keys(pairs, outs)
        self._push_all(pairs)
        for k, targets in outs:
            self._pull_one(k, targets)

    def broadcast(self, key, value, out, priority=0):
        """``init(key, value)`` then ``pull(key, out)`` (a key is broadcast once, as in MXNet)."""
        self.init(key, value)
        self.pull(key, out=out)

    def row_sparse_pull(self, key, out=None, priority=0, row_ids=None):
        """Copy into each ``out`` only the rows ``row_ids`` of the stored value (the others are
        zero; ``out`` row_sparse). ``row_ids`` follows ``out``: one array per out array."""
        if out is None or row_ids is None:
            raise MXNetValueError("kvstore.row_sparse_pull: out and row_ids are required")
        pairs = key_value_pairs(key, out, "out")
        ids = [row_ids] if len(pairs) == 1 else list(row_ids)
        if len(ids) != len(pairs):
            raise MXNetValueError(f"kvstore.row_sparse_pull: {len(ids)} row_ids for "
                                  f"{len(pairs)} keys")
        for (k, targets), key_ids in zip(pairs, ids):
            key_ids = list(key_ids) if isinstance(key_ids, (list, tuple)) else [key_ids]
            if len(key_ids) == 1 and len(targets) > 1:
                key_ids = key_ids * len(targets)
            if len(key_ids) != len(targets):
                raise MXNetValueError(f"kvstore.row_sparse_pull: key {k}: {len(key_ids)} "
                                      f"row_ids for {len(targets)} out arrays")
            stored = self._stored(k)
            for target, rows in zip(targets, key_ids):
                if target.stype != "row_sparse":
                    raise MXNetValueError(f"kvstore.row_sparse_pull: key {k}: out must be "
                                          f"row_sparse, got storage type {target.stype!r}")
                _check_shape(k, stored, target, "row_sparse_pull")
                retained = sparse.retain(sparse.cast_storage(stored, "row_sparse")
                                         if stored.stype != "row_sparse" else stored,
                                         indices=rows.reshape((-1,)))
                retained.as_in_context(target.context).copyto(target)

    def set_gradient_compression(self, compression_params):
        raise MXNetNotImplementedError(f"gradient compression ({compression_params!r}) is not "
                                       f"built in mxlab's kvstore {self.type!r}")

    # -- optimizer on the store --------------------------------------------------------------------
    def set_optimizer(self, optimizer):
        """From now on a push runs ``optimizer`` on the stored value."""
        self._set_updater(get_updater(optimizer))

    def _set_updater(self, updater):
        """``updater(key, merged, stored)`` is called on every push from now on."""
        self._updater = updater

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Write the updater's states (and the optimizer when ``dump_optimizer``) to ``fname``."""
        states = self._require_updater("save").get_states(dump_optimizer)
        write_bytes(fname, states)

    def load_optimizer_states(self, fname):
        with open(fname, "rb") as fin:
            self._require_updater("load").set_states(fin.read(), str(fname))

    def _require_updater(self, verb):
        if self._updater is None:
            raise MXNetRuntimeError(f"Cannot {verb} optimizer states: no optimizer is set on "
                                    f"this kvstore (kv.set_optimizer)")
        return self._updater

    def _barrier(self):
        """One process: nothing to wait for."""

    barrier = _barrier

    # -- steps the dist stores extend --------------------------------------------------------------
    def _initial_value(self, key, array):
        device = array.device if "device" in self._kind else cpu()
        return array.as_in_context(device).copy()

    def _push_all(self, pairs):
        """Merge each key's arrays, sum over the workers, then update or replace the stored
        values."""
        merged = []
        for key, arrays in pairs:
            stored = self._stored(key)
            for array in arrays:
                _check_shape(key, stored, array, "push")
            merged.append(local_sum(arrays, stored.device))
        self._sum_over_workers([k for k, _ in pairs], merged)
        for (key, _), value in zip(pairs, merged):
            if self._updater is not None:
                self._updater(key, value, self._store[key])
            else:
                value.copyto(self._store[key])

    def _sum_over_workers(self, keys, arrays):
        """One process: the local sums are the sums."""

    def _pull_one(self, key, targets):
        stored = self._stored(key)
        for target in targets:
            _check_shape(key, stored, target, "pull")
            stored.copyto(target)

    def _stored(self, key):
        if key not in self._store:
            raise MXNetKeyError(f"key {key} has not been inited (kv.init)")
        return self._store[key]

    def _check_key_type(self, key):
        kind = str if isinstance(key, str) else int
        if self._key_type is None:
            self._key_type = kind
        elif self._key_type is not kind:
            raise MXNetTypeError(f"Mixed key types are not allowed: key {key!r} is a "
                                 f"{kind.__name__}, earlier keys are {self._key_type.__name__}s")

    def __repr__(self):
        return f"<{type(self).__name__} {self.type!r} keys={len(self._store)}>"


def local_sum(arrays, device):
    """``sum(arrays)`` as a new array on ``device`` (engine ops)."""
    total = arrays[0].as_in_context(device).copy()
    for array in arrays[1:]:
        total += array.as_in_context(device)
    return total


def _check_shape(key, stored, array, verb):
    if tuple(array.shape) != tuple(stored.shape):
        raise MXNetValueError(f"kvstore.{verb}: key {key} holds shape {tuple(stored.shape)}, "
                              f"got an array of shape {tuple(array.shape)}")


def _check_same_keys(pairs, outs):
    if [k for k, _ in pairs] != [k for k, _ in outs]:
        raise MXNetValueError("kvstore.pushpull: value and out must name the same keys")
