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


def test_a_block_can_also_be_an_abc_as_gluonnlp_declares_its_decoders():
    import abc

    class StepDecoder(abc.ABC):
        @abc.abstractmethod
        def step(self):
            """One decoding step."""

    class Decoder(mx.gluon.HybridBlock, StepDecoder):
        def step(self):
            return 1

        def forward(self, x):
            return x * 2

    assert Decoder().step() == 1 and Decoder()(mx.nd.ones(2)).asnumpy().tolist() == [2, 2]

    class Unfinished(mx.gluon.HybridBlock, StepDecoder):
        pass

    with pytest.raises(TypeError, match="abstract"):
        Unfinished()


def test_mxnet_creation_helpers_libraries_call():
    init = mx.init.create("normal", 0.02)
    assert isinstance(init, mx.init.Normal) and init.sigma == 0.02
    assert isinstance(mx.init.create({"initializer": "xavier", "magnitude": 3}), mx.init.Xavier)
    weight = mx.nd.zeros((1, 1, 4, 4))
    mx.init.create("bilinear")(mx.init.InitDesc("up_weight"), weight)
    numpy.testing.assert_allclose(weight.asnumpy()[0, 0, 1], [0.1875, 0.5625, 0.5625, 0.1875])
    utils = mx.gluon.utils
    assert utils.shape_is_known((2, 3)) and not utils.shape_is_known((2, 0))
    with mx.np_shape():
        assert utils.shape_is_known(()) and not utils.shape_is_known((-1, 3))
    assert utils._get_repo_file_url("gluon/models", "x.params").endswith("/gluon/models/x.params")
