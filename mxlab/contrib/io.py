"""``mx.contrib.io``: MXNet's ``DataLoaderIter``, a gluon ``DataLoader`` seen as an
``mx.io.DataIter`` so that gluon data pipelines feed the symbolic ``Module`` API.

Example
-------
>>> import numpy as np
>>> import mxlab as mx
>>> from mxlab.contrib.io import DataLoaderIter
>>> ds = mx.gluon.data.ArrayDataset(np.zeros((10, 3)), np.arange(10))
>>> it = DataLoaderIter(mx.gluon.data.DataLoader(ds, 4, last_batch="keep"))
>>> [(b.data[0].shape, b.pad) for b in it]
[((4, 3), 0), ((4, 3), 0), ((4, 3), 2)]
"""
from .. import ndarray as nd
from ..io import DataDesc, DataIter
from ..numpy import ndarray as _np_ndarray

__all__ = ["DataLoaderIter"]


class DataLoaderIter(DataIter):
    """Batches of a ``gluon.data.DataLoader`` as :class:`~mxlab.io.DataBatch` es.

    The loader must yield ``(data, label)`` pairs. Its first batch fixes ``batch_size`` and the
    shapes in ``provide_data`` / ``provide_label`` (named ``data_name`` / ``label_name``). Arrays
    are cast to ``dtype``; a shorter last batch (``last_batch='keep'``) is padded to
    ``batch_size`` (the padding rows are unspecified, as with MXNet's ``nd.empty``) and reports
    how many rows are padding in ``DataBatch.pad``.
    """

    def __init__(self, loader, data_name="data", label_name="softmax_label", dtype="float32"):
        super().__init__()
        self._loader = loader
        self._iter = iter(self._loader)
        data, label = next(self._iter)
        self.batch_size = data.shape[0]
        self.dtype = dtype
        self.provide_data = [DataDesc(data_name, data.shape, dtype)]
        self.provide_label = [DataDesc(label_name, label.shape, dtype)]
        self._current_batch = None
        self.reset()

    def reset(self):
        self._iter = iter(self._loader)

    def iter_next(self):
        try:
            self._current_batch = next(self._iter)
        except StopIteration:
            self._current_batch = None
        return self._current_batch is not None

    def _padded(self, array):
        array = array.astype(self.dtype)
        if not self.getpad():
            return [array]
        # NOTE: MXNet pads into a float32 nd.empty whatever dtype says, and fails on mx.np
        # batches; mxlab keeps dtype and the batch's array type
        ret = nd.empty(shape=[self.batch_size] + list(array.shape[1:]), dtype=self.dtype)
        if isinstance(array, _np_ndarray):
            ret = ret.as_np_ndarray()
        ret[:array.shape[0]] = array
        return [ret]

    def getdata(self):
        return self._padded(self._current_batch[0])

    def getlabel(self):
        return self._padded(self._current_batch[1])

    def getpad(self):
        return self.batch_size - self._current_batch[0].shape[0]

    def getindex(self):
        return None
