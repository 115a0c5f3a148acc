"""``DataLoader``: batches of a Dataset, optionally shuffled, made in the calling thread, in worker
processes or in a thread pool, with a tqdm progress bar on request.

Workers (``num_workers > 0``) are forked processes, as in MXNet 1.x: each builds whole batches and
sends them back as NumPy arrays (pickled), which the loader wraps as arrays of the batch's flavour
again. Batches come back in the sampler's order whatever order the workers finish in, at most
``prefetch`` ahead. ``thread_pool=True`` uses threads instead (no copies; for datasets that cannot
be pickled or forked). A worker that dies or times out is an error naming it, never a hang.

Example
-------
>>> import mxlab as mx
>>> ds = mx.gluon.data.ArrayDataset(mx.np.arange(5), mx.np.arange(5))
>>> [x.shape for x, _ in mx.gluon.data.DataLoader(ds, batch_size=2)]
[(2,), (2,), (1,)]
"""
import collections
import concurrent.futures
import multiprocessing
from multiprocessing.reduction import ForkingPickler  # noqa: F401  (MXNet's module name)

from ... import engine
from ...base import MXNetRuntimeError, MXNetValueError
from ...device import Device
from ...ndarray.ndarray import NDArray
from .batchify import default_batchify_fn
from .sampler import BatchSampler, RandomSampler, SequentialSampler
from .worker_iter import _MultiWorkerIter, _worker_fn, default_mp_batchify_fn  # noqa: F401

__all__ = ["DataLoader", "default_batchify_fn", "default_mp_batchify_fn"]


class DataLoader:
    """Iterates batches of ``dataset``.

    Parameters
    ----------
    dataset : Dataset
    batch_size : int
    shuffle : bool
        A new random order every pass (not with ``sampler``).
    sampler, batch_sampler : Sampler, optional
    last_batch : {'keep', 'discard', 'rollover'}
    batchify_fn : callable, optional
        Turns a list of samples into a batch (default: stack, field by field).
    num_workers : int
        0: batches are made in the calling thread; > 0: in that many forked worker processes
        (or threads, with ``thread_pool``).
    pin_memory : bool
        Batches come on ``cpu_pinned(pin_device_id)`` as in MXNet; the memory is ordinary host
        memory (page-locked memory is a CUDA transfer optimisation that CuPy applies on copy).
    pin_device_id : int
        The id of that ``cpu_pinned`` device.
    prefetch : int, optional
        How many batches the workers may run ahead (default ``2 * num_workers``).
    thread_pool : bool
        Use a pool of threads rather than processes.
    timeout : float
        Seconds to wait for one batch from a worker before raising.
    progress : bool or dict
        Wrap iteration in a ``tqdm`` bar (a dict gives tqdm's arguments, e.g. ``file``).
    auto_reload : bool
        MXNet 1.9.1's: prefetch as soon as the loader is built or a pass ends. Workers here start
        with each pass; the batches are the same either way, so it is only recorded.
    """

    def __init__(self, dataset, batch_size=None, shuffle=False, sampler=None, last_batch=None,
                 batch_sampler=None, batchify_fn=None, num_workers=0, pin_memory=False,
                 pin_device_id=0, prefetch=None, thread_pool=False, timeout=120,
                 progress=False, auto_reload=False):
        self.auto_reload = auto_reload
        if num_workers < 0:
            raise MXNetValueError(f"num_workers must be >= 0, got {num_workers}")
        self._num_workers, self._thread_pool, self._timeout = num_workers, thread_pool, timeout
        self._prefetch = max(1, 2 * num_workers if prefetch is None else prefetch)
        self._dataset = dataset
        if batch_sampler is None:
            if batch_size is None:
                raise MXNetValueError("batch_size must be specified unless batch_sampler is "
                                      "specified")
            if sampler is None:
                sampler = (RandomSampler if shuffle else SequentialSampler)(len(dataset))
            elif shuffle:
                raise MXNetValueError("shuffle must not be specified if sampler is specified")
            batch_sampler = BatchSampler(sampler, batch_size, last_batch or "keep")
        elif batch_size is not None or shuffle or sampler is not None or last_batch is not None:
            raise MXNetValueError("batch_size, shuffle, sampler and last_batch must not be "
                                  "specified if batch_sampler is specified.")
        self._batch_sampler = batch_sampler
        self._batchify_fn = batchify_fn or default_batchify_fn
        self._progress = progress
        self._pinned = Device("cpu_pinned", pin_device_id) if pin_memory else None

    def _make_batch(self, indices):
        return self._batchify_fn([self._dataset[i] for i in indices])

    def _batches(self):
        batches = (map(self._make_batch, self._batch_sampler) if not self._num_workers
                   else self._worker_batches())
        return batches if self._pinned is None else map(self._pin, batches)

    def _pin(self, batch):
        if isinstance(batch, (list, tuple)):
            return type(batch)(self._pin(x) for x in batch)
        return batch.as_in_context(self._pinned) if isinstance(batch, NDArray) else batch

    def _pool(self):
        if self._thread_pool:
            return concurrent.futures.ThreadPoolExecutor(self._num_workers), self._make_batch
        engine.wait_all()  # NOTE: a forked worker must not inherit arrays with pending writes
        # NOTE: fork passes initargs by memory, so the dataset is never pickled
        pool = concurrent.futures.ProcessPoolExecutor(
            self._num_workers, mp_context=multiprocessing.get_context("fork"),
            initializer=_install_worker_task, initargs=(self._make_batch,))
        return pool, _run_worker_task

    def _worker_batches(self):
        pool, task = self._pool()
        pending = collections.deque()
        try:
            for indices in self._batch_sampler:
                pending.append(pool.submit(task, indices))
                if len(pending) >= self._prefetch:
                    yield self._result(pending.popleft(), task)
            while pending:
                yield self._result(pending.popleft(), task)
        finally:
            for future in pending:
                future.cancel()
            pool.shutdown(wait=True, cancel_futures=True)

    def _result(self, future, task):
        try:
            batch = future.result(timeout=self._timeout)
        except concurrent.futures.TimeoutError:
            raise MXNetRuntimeError(f"DataLoader: no batch from a worker within timeout="
                                    f"{self._timeout}s") from None
        except concurrent.futures.process.BrokenProcessPool as err:
            raise MXNetRuntimeError("DataLoader: a worker process died unexpectedly (killed, "
                                    "out of memory or a crash in native code)") from err
        return _from_numpy(batch) if task is _run_worker_task else batch

    def __iter__(self):
        if not self._progress:
            return self._batches()
        from tqdm.auto import tqdm

        options = self._progress if isinstance(self._progress, dict) else {}
        return iter(tqdm(self._batches(), total=len(self), **options))

    def __len__(self):
        return len(self._batch_sampler)


def _as_in_context(data, ctx):
    """MXNet's helper: ``data`` (an array or a nested list of them) moved to device ``ctx``."""
    if isinstance(data, NDArray):
        return data.as_in_context(ctx)
    if isinstance(data, (list, tuple)):
        return [_as_in_context(d, ctx) for d in data]
    return data


_worker_make_batch = None


def _install_worker_task(make_batch):
    global _worker_make_batch
    _worker_make_batch = make_batch


def _run_worker_task(indices):
    """What a worker process runs: one whole batch, returned as NumPy (arrays pickle cheaply and
    carry no engine state across processes)."""
    return _to_numpy(_worker_make_batch(indices))


def _to_numpy(batch):
    from ...ndarray.ndarray import NDArray

    if isinstance(batch, NDArray):
        return _Shipped(batch.asnumpy(), type(batch))
    if isinstance(batch, (list, tuple)):
        return type(batch)(_to_numpy(item) for item in batch)
    return batch


def _from_numpy(batch):
    if isinstance(batch, _Shipped):
        return batch.restore()
    if isinstance(batch, (list, tuple)):
        return type(batch)(_from_numpy(item) for item in batch)
    return batch


class _Shipped:
    """A batch array on its way from a worker: its values and its array class (nd or np)."""

    def __init__(self, values, cls):
        self.values, self.cls = values, cls

    def restore(self):
        from ... import ndarray as nd, numpy as np

        make = np.array if issubclass(self.cls, np.ndarray) else nd.array
        return make(self.values, dtype=self.values.dtype)
