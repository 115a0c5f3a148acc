"""The MPI stores ``dist_sync``, ``dist_device_sync`` and ``horovod`` (data parallel, one process
per worker, launched with ``mpiexec -n N python train.py``).

Each worker holds a replica of every stored value. ``init``/``broadcast`` copy rank 0's value to
every rank; ``push`` sums the local arrays, then sums over the workers with an MPI allreduce, then
runs the optimizer (when one is set) on every replica alike, which keeps replicas identical
without a parameter server: MXNet's ``dist_sync`` semantics on an allreduce. ``pushpull`` without
an optimizer is a plain allreduce into ``out`` (Horovod's semantics).

**The allreduce is an engine op.** It writes the arrays it reduces (and the communicator's var,
which puts every MPI call in push order, see :mod:`.mpi`), so it starts as soon as the gradient it
reads is written and overlaps with the backward ops of the layers still running; it shows in
``mx.engine.event_log`` (and so in the explorer's Engine view) as ``kv_allreduce:keys``.

**Buckets.** ``bucket_bytes`` (``MXLAB_KVSTORE_BUCKET_BYTES``, default 0) chooses the allreduce
granularity: 0 gives one allreduce per key (MXNet's and the most overlap); N > 0 packs consecutive
keys of one device and dtype into buckets of at most N bytes, one allreduce each (fewer, larger
MPI calls, as Horovod's tensor fusion; a larger array is a bucket alone).

Types: ``dist_sync`` and ``dist_device_sync`` (``dist_sync_device`` is accepted) differ in MXNet
by where a machine merges its GPUs; here both merge on the device of the value given to ``init``.
``horovod`` reports ``is_capable('optimizer') == False`` (the Trainer then updates locally after
the allreduce, as Horovod's DistributedTrainer) and its ``broadcast`` does not store the key.
"""
import numpy

from ..base import env_int
from .. import engine
from .base import key_value_pairs
from .local import KVStore, local_sum
from .mpi import communicator

__all__ = ["DistKVStore", "TYPES"]

TYPES = {"dist_sync": "dist_sync", "dist_device_sync": "dist_device_sync",
         "dist_sync_device": "dist_device_sync", "horovod": "horovod"}


class DistKVStore(KVStore):
    """A store whose workers are the ranks of an MPI job (see the module notes)."""

    def __init__(self, name="dist_sync"):
        super().__init__(TYPES[name])
        self._comm = communicator(name)
        self.bucket_bytes = env_int("MXLAB_KVSTORE_BUCKET_BYTES", 0)

    @property
    def rank(self):
        return self._comm.rank

    @property
    def num_workers(self):
        return self._comm.size

    def is_capable(self, capability):
        return super().is_capable(capability) and self._kind != "horovod"

    # -- collectives -------------------------------------------------------------------------------
    def pushpull(self, key, value, out=None, priority=0):
        """Allreduce (sum over local arrays and workers) into ``out``; with an optimizer set, push
        (allreduce + update of the stored replica) then pull."""
        if self._updater is not None:
            super().pushpull(key, value, out, priority)
            return
        pairs = key_value_pairs(key, value)
        outs = pairs if out is None else key_value_pairs(key, out, "out")
        buffers = [_reduce_target(arrays, targets) for (_, arrays), (_, targets)
                   in zip(pairs, outs)]
        self._sum_over_workers([k for k, _ in pairs], buffers)
        for (k, _), (_, targets), buffer in zip(pairs, outs, buffers):
            for target in targets:
                if target is not buffer:
                    buffer.copyto(target)
            if k in self._store:
                buffer.copyto(self._store[k])

    def broadcast(self, key, value, out, priority=0):
        """Rank 0's ``value`` into ``out`` on every rank (``dist_*`` also stores the key)."""
        if self._kind != "horovod":
            super().broadcast(key, value, out, priority)
            return
        pairs = key_value_pairs(key, value)
        for (k, arrays), (_, targets) in zip(pairs, key_value_pairs(key, out, "out")):
            arrays[0].copyto(targets[0])
            self._collective("bcast", [targets[0]], f"kv_broadcast:{k}")
            for target in targets[1:]:
                targets[0].copyto(target)

    def barrier(self):
        """Block until every worker reaches this call (and this worker's pushes are done)."""
        self._collective("barrier", [], "kv_barrier")
        engine.wait_for_var(self._comm.var)

    _barrier = barrier

    # -- steps of the local store, extended ------------------------------------------------------
    def _initial_value(self, key, array):
        stored = super()._initial_value(key, array)
        self._collective("bcast", [stored], f"kv_broadcast:{key}")
        stored.wait_to_read()
        return stored

    def _sum_over_workers(self, keys, buffers):
        """Allreduce ``buffers`` in place: one engine op per bucket (see the module notes).

        Only pushes: sizes come from the stored value of a key (or the buffer's own metadata),
        never by waiting for a buffer, so each allreduce is queued while backward still runs."""
        templates = [self._store.get(k, b) for k, b in zip(keys, buffers)]
        for bucket in _buckets(list(zip(keys, buffers, templates)), self.bucket_bytes):
            names = ",".join(str(k) for k, _, _ in bucket)
            self._collective("allreduce", [b for _, b, _ in bucket], f"kv_allreduce:{names}")

    def _collective(self, kind, arrays, name):
        """Push one collective over ``arrays`` (in place) as an engine op writing them and the
        communicator's var."""
        comm = self._comm

        def run():
            if kind == "barrier":
                comm.barrier()
                return
            datas = [array._data for array in arrays]
            flat, packed = _flatten(datas)
            getattr(comm, kind)(flat)
            if packed:
                _unpack(flat, datas)

        engine.push(run, (), [a._var for a in arrays] + [comm.var], name)


def _reduce_target(arrays, targets):
    """The array the allreduce of one key runs on in place: the pushed array itself when it is
    also the output, else the first target holding the local sum."""
    if len(arrays) == 1 and targets[0] is arrays[0]:
        return arrays[0]
    if len(arrays) == 1:
        arrays[0].copyto(targets[0])
    else:
        local_sum(arrays, targets[0].device).copyto(targets[0])
    return targets[0]


def _buckets(items, cap):
    """Consecutive ``(key, buffer, template)`` groups of one device and dtype of at most ``cap``
    bytes (each item alone when ``cap`` is 0); sizes are read from the templates."""
    if cap <= 0:
        return [[item] for item in items]
    buckets, current, size = [], [], 0
    for item in items:
        template = item[2]
        nbytes = template.size * numpy.dtype(template.dtype).itemsize
        same_kind = current and (current[0][2].device, current[0][2].dtype) == \
            (template.device, template.dtype)
        if current and (not same_kind or size + nbytes > cap):
            buckets.append(current)
            current, size = [], 0
        current.append(item)
        size += nbytes
    if current:
        buckets.append(current)
    return buckets


def _flatten(datas):
    """``(buffer, packed)``: a flat view of the one contiguous array (reduced in place), else a
    packed copy of all of them (``packed``: to be copied back)."""
    if len(datas) == 1 and datas[0].flags.c_contiguous:
        return datas[0].reshape(-1), False
    xp = _xp(datas[0])
    return xp.concatenate([d.reshape(-1) for d in datas]), True


def _unpack(flat, datas):
    xp, offset = _xp(datas[0]), 0
    for data in datas:
        xp.copyto(data, flat[offset:offset + data.size].reshape(data.shape))
        offset += data.size


def _xp(data):
    if isinstance(data, numpy.ndarray):
        return numpy
    import cupy
    return cupy
