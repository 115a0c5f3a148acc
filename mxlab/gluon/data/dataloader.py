"""``DataLoader``: batches of a Dataset, optionally shuffled, with a tqdm progress bar on request.

Example
-------
>>> import mxlab as mx
>>> ds = mx.gluon.data.ArrayDataset(mx.np.arange(5), mx.np.arange(5))
>>> [x.shape for x, _ in mx.gluon.data.DataLoader(ds, batch_size=2)]
[(2,), (2,), (1,)]
"""
from ...base import MXNetNotImplementedError, MXNetValueError
from .batchify import default_batchify_fn
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader"]


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
        Only 0 (batches are made in the calling thread).
    progress : bool or dict
        Wrap iteration in a ``tqdm`` bar (a dict gives tqdm's arguments, e.g. ``file``).
    """

    def __init__(self, dataset, batch_size=None, shuffle=False, sampler=None, last_batch=None,
                 batch_sampler=None, batchify_fn=None, num_workers=0, pin_memory=False,
                 prefetch=None, thread_pool=False, timeout=120, progress=False):
        if num_workers:
            raise MXNetNotImplementedError(
                "DataLoader(num_workers>0): worker processes are not implemented in mxlab; "
                "use num_workers=0"
            )
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

    def _batches(self):
        for indices in self._batch_sampler:
            yield self._batchify_fn([self._dataset[i] for i in indices])

    def __iter__(self):
        if not self._progress:
            return self._batches()
        from tqdm.auto import tqdm

        options = self._progress if isinstance(self._progress, dict) else {}
        return iter(tqdm(self._batches(), total=len(self), **options))

    def __len__(self):
        return len(self._batch_sampler)
