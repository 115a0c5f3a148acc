"""MXNet 1.x's private worker-pool iterator, ``gluon.data.dataloader._MultiWorkerIter``, for code
that builds its own pool and subclasses it (GluonCV's ``RandomTransformDataLoader``).

mxlab's own :class:`~mxlab.gluon.data.DataLoader` does not use it: it keeps its workers in a
``concurrent.futures`` pool. This is MXNet's protocol as its subclasses expect it: a
``multiprocessing`` pool, ``apply_async(worker_fn, (indices, batchify_fn[, dataset]))`` per batch,
results kept by send order in ``_data_buffer`` (``_sent_idx``/``_rcvd_idx``) and, when no dataset
is passed along, pickled by the worker and unpickled here.
"""
import multiprocessing
import pickle

from ...base import MXNetRuntimeError
from .batchify import default_batchify_fn

__all__ = ["default_mp_batchify_fn", "_MultiWorkerIter", "_worker_fn"]

default_mp_batchify_fn = default_batchify_fn   # NOTE: batches pickle as they are (no shm)


def _worker_fn(samples, batchify_fn, dataset=None):
    """MXNet's worker: the batch of ``samples`` from ``dataset``, pickled."""
    return pickle.dumps(batchify_fn([dataset[i] for i in samples]), pickle.HIGHEST_PROTOCOL)


class _MultiWorkerIter:
    """Batches from ``worker_pool`` in ``batch_sampler`` order, ``prefetch`` sent ahead."""

    def __init__(self, worker_pool, batchify_fn, batch_sampler, pin_memory=False,
                 pin_device_id=0, worker_fn=_worker_fn, prefetch=0, dataset=None,
                 data_loader=None, timeout=120):
        self._worker_pool, self._batchify_fn = worker_pool, batchify_fn
        self._batch_sampler, self._iter = batch_sampler, iter(batch_sampler)
        self._data_buffer, self._rcvd_idx, self._sent_idx = {}, 0, 0
        self._worker_fn, self._dataset, self._data_loader = worker_fn, dataset, data_loader
        self._pin_memory, self._pin_device_id, self._timeout = pin_memory, pin_device_id, timeout
        for _ in range(prefetch):
            self._push_next()

    def __len__(self):
        return len(self._batch_sampler)

    def _push_next(self):
        indices = next(self._iter, None)
        if indices is None:
            return
        args = (indices, self._batchify_fn) + (() if self._dataset is None else (self._dataset,))
        self._data_buffer[self._sent_idx] = self._worker_pool.apply_async(self._worker_fn, args)
        self._sent_idx += 1

    def __next__(self):
        self._push_next()
        if self._rcvd_idx == self._sent_idx:
            raise StopIteration
        pending = self._data_buffer.pop(self._rcvd_idx)
        try:
            result = pending.get(self._timeout)
        except multiprocessing.TimeoutError as exc:
            raise MXNetRuntimeError(f"DataLoader worker timed out after {self._timeout} s on "
                                    f"batch {self._rcvd_idx}") from exc
        self._rcvd_idx += 1
        return pickle.loads(result) if isinstance(result, bytes) else result

    next = __next__

    def __iter__(self):
        return self
