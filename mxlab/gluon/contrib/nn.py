"""``mx.gluon.contrib.nn``: MXNet 1.9.1's contrib layer names over mxlab's ``gluon.nn`` layers.

``Concurrent`` / ``HybridConcurrent`` are 1.x's names for ``Concatenate`` / ``HybridConcatenate``
(MXNet 2.0 moved them into ``gluon.nn``); ``SyncBatchNorm`` in one process is ``BatchNorm``.
"""
from ..block import Block, HybridBlock
from .. import nn as _nn
from ..nn import Identity, PixelShuffle1D, PixelShuffle2D, PixelShuffle3D, SyncBatchNorm

__all__ = ["Concurrent", "HybridConcurrent", "Identity", "SparseEmbedding", "SyncBatchNorm",
           "PixelShuffle1D", "PixelShuffle2D", "PixelShuffle3D"]


class Concurrent(_nn.Concatenate):
    """Runs each child on the same input and concatenates the outputs along ``axis``."""

    def __init__(self, axis=-1, prefix=None, params=None):
        Block.__init__(self, prefix=prefix, params=params)
        self._axis = axis


class HybridConcurrent(_nn.HybridConcatenate):
    """Hybridizable :class:`Concurrent`."""

    def __init__(self, axis=-1, prefix=None, params=None):
        HybridBlock.__init__(self, prefix=prefix, params=params)
        self._axis = axis


class SparseEmbedding(_nn.Embedding):
    """MXNet 1.x's embedding whose weight gradient is ``row_sparse`` (``Embedding`` with
    ``sparse_grad=True``): only the looked-up rows carry a gradient."""

    def __init__(self, input_dim, output_dim, dtype="float32", weight_initializer=None,
                 prefix=None, params=None):
        super().__init__(input_dim, output_dim, dtype=dtype,
                         weight_initializer=weight_initializer, sparse_grad=True)
