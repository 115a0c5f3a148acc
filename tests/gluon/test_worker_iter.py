"""MXNet's private ``_MultiWorkerIter`` and loss helpers that GluonCV subclasses and imports."""
import multiprocessing
import pickle

import numpy
import pytest

import mxlab as mx
from mxlab.gluon.data.dataloader import _MultiWorkerIter, default_mp_batchify_fn
from mxlab.gluon.loss import _apply_weighting, _reshape_like

_DATASET = None


def _initializer(dataset):
    global _DATASET
    _DATASET = dataset


def _scaled_worker(samples, scale, batchify_fn):
    """GluonCV's worker shape: extra argument, global dataset, pickled result."""
    return pickle.dumps(batchify_fn([_DATASET[i] * scale for i in samples]))


class _ScaledIter(_MultiWorkerIter):
    def __init__(self, scale, pool, batchify_fn, sampler, prefetch):
        super().__init__(pool, batchify_fn, sampler, worker_fn=_scaled_worker, prefetch=0)
        self._scale = scale
        for _ in range(prefetch):
            self._push_next()

    def _push_next(self):
        indices = next(self._iter, None)
        if indices is None:
            return
        self._data_buffer[self._sent_idx] = self._worker_pool.apply_async(
            self._worker_fn, (indices, self._scale, self._batchify_fn))
        self._sent_idx += 1


def test_a_gluoncv_style_subclass_yields_batches_in_sampler_order():
    data = numpy.arange(10, dtype="float32")
    sampler = mx.gluon.data.BatchSampler(mx.gluon.data.SequentialSampler(10), 3, "keep")
    with multiprocessing.get_context("fork").Pool(2, initializer=_initializer,
                                                  initargs=[data]) as pool:
        batches = [b.asnumpy().tolist() for b in _ScaledIter(2, pool, default_mp_batchify_fn,
                                                             sampler, prefetch=2)]
    assert batches == [[0, 2, 4], [6, 8, 10], [12, 14, 16], [18]]
    assert len(_MultiWorkerIter(None, default_mp_batchify_fn, sampler)) == 4


def test_mxnet_loss_helpers_weight_and_reshape():
    loss = _apply_weighting(mx.nd, mx.nd.ones((2, 3)), 0.5, mx.nd.array([[1.0], [0.0]]))
    numpy.testing.assert_array_equal(loss.asnumpy(), [[0.5] * 3, [0.0] * 3])
    assert _reshape_like(mx.nd, mx.nd.ones((6,)), mx.nd.ones((2, 3))).shape == (2, 3)
    with pytest.raises(TypeError):
        _apply_weighting(mx.nd, mx.nd.ones((2,)), weight=mx.nd.ones((2,)))
