"""Iterators over in-memory arrays, with MXNet 1.9's batching rules.

``NDArrayIter`` keeps its sources as host (NumPy) arrays and hands out ``mx.nd`` arrays; the last
incomplete batch is padded with samples from the start ('pad'), dropped ('discard') or carried
into the next epoch ('roll_over'), exactly as MXNet does.

Example
-------
>>> import mxlab as mx
>>> it = mx.io.NDArrayIter(mx.nd.arange(10).reshape((5, 2)), batch_size=2)
>>> [(batch.data[0].shape, batch.pad) for batch in it]
[((2, 2), 0), ((2, 2), 0), ((2, 2), 1)]
"""
import collections
import threading

import numpy

from ..base import MXNetNotImplementedError, MXNetTypeError, MXNetValueError

__all__ = ["DataDesc", "DataBatch", "DataIter", "NDArrayIter", "ResizeIter", "PrefetchingIter"]


class DataDesc(collections.namedtuple("DataDesc", ["name", "shape"])):
    """A named input's shape, dtype and layout (a ``(name, shape)`` tuple with attributes)."""

    def __new__(cls, name, shape, dtype=numpy.float32, layout="NCHW"):
        desc = super().__new__(cls, name, shape)
        desc.dtype, desc.layout = dtype, layout
        return desc

    def __repr__(self):
        return f"DataDesc[{self.name},{self.shape},{self.dtype},{self.layout}]"

    @staticmethod
    def get_batch_axis(layout):
        return 0 if layout is None else layout.find("N")

    @staticmethod
    def get_list(shapes, types):
        dtypes = dict(types) if types is not None else {}
        return [DataDesc(name, shape, dtypes.get(name, numpy.float32)) for name, shape in shapes]


class DataBatch:
    """One batch: lists of data and label arrays, and how many trailing samples are padding."""

    def __init__(self, data, label=None, pad=None, index=None, bucket_key=None,
                 provide_data=None, provide_label=None):
        for what, value in (("Data", data), ("Label", label)):
            if value is not None and not isinstance(value, (list, tuple)):
                raise MXNetTypeError(f"{what} must be list of NDArrays")
        self.data, self.label, self.pad, self.index = data, label, pad, index
        self.bucket_key, self.provide_data, self.provide_label = (bucket_key, provide_data,
                                                                  provide_label)

    def __str__(self):
        labels = [x.shape for x in self.label] if self.label else None
        return (f"{type(self).__name__}: data shapes: {[d.shape for d in self.data]} "
                f"label shapes: {labels}")


class DataIter:
    """Base class: ``next()`` gives a :class:`DataBatch` until the epoch ends; ``reset()``."""

    def __init__(self, batch_size=0):
        self.batch_size = batch_size

    def __iter__(self):
        return self

    def reset(self):
        pass

    def next(self):
        if self.iter_next():
            return DataBatch(data=self.getdata(), label=self.getlabel(), pad=self.getpad(),
                             index=self.getindex())
        raise StopIteration

    def __next__(self):
        return self.next()

    def iter_next(self):
        return False

    def getdata(self):
        return None

    def getlabel(self):
        return None

    def getindex(self):
        return None

    def getpad(self):
        return 0


def _sources(data, allow_empty, default_name, np_names=None):
    """MXNet's canonical form: a sorted list of (name, host array); the names of ``mx.np``
    sources are added to ``np_names`` (their batches are ``mx.np`` arrays, as in MXNet 2.0)."""
    if data is None:
        if not allow_empty:
            raise MXNetValueError("NDArrayIter: data must be given")
        data = []
    if not isinstance(data, (list, dict)):
        data = [data]
    if isinstance(data, list):
        if not data and not allow_empty:
            raise MXNetValueError("NDArrayIter: data must not be empty")
        data = ({default_name: data[0]} if len(data) == 1
                else {f"_{i}_{default_name}": d for i, d in enumerate(data)})
    out = []
    for name, value in data.items():
        stype = getattr(value, "stype", None) or getattr(value, "format", None)
        if stype == "csr" and hasattr(value, "asnumpy"):
            out.append((name, value))   # NOTE: kept sparse; batches are its row slices
            continue
        if isinstance(stype, str) and stype != "default":   # NOTE: scipy.sparse has `format`
            raise MXNetNotImplementedError(f"NDArrayIter: sparse source {name!r} "
                                           f"({stype}) is not supported in mxlab")
        if np_names is not None and getattr(value, "_flavour", None) == "np":
            np_names.add(name)
        host = value.asnumpy() if hasattr(value, "asnumpy") else numpy.asarray(value)
        if not hasattr(value, "asnumpy"):
            # NOTE: MXNet wraps other sources with mx.nd.array, whose default dtype is float32
            #   for anything but an NDArray: NumPy int64 data and float64 labels become float32
            host = host.astype(numpy.float32)
        out.append((name, host))
    return sorted(out, key=lambda item: item[0])


def _is_csr(value):
    return getattr(value, "stype", None) == "csr"


class NDArrayIter(DataIter):
    """Batches of ``data`` (and ``label``): arrays, lists of arrays or dicts of named arrays."""

    def __init__(self, data, label=None, batch_size=1, shuffle=False, last_batch_handle="pad",
                 data_name="data", label_name="softmax_label", layout="NCHW"):
        super().__init__(batch_size)
        if last_batch_handle not in ("pad", "discard", "roll_over"):
            raise MXNetValueError(f"last_batch_handle must be 'pad', 'discard' or 'roll_over', "
                                  f"got {last_batch_handle!r}")
        self._np_names = set()
        self.data = _sources(data, False, data_name, self._np_names)
        self.label = _sources(label, True, label_name, self._np_names)
        self.layout, self.shuffle, self.last_batch_handle = layout, shuffle, last_batch_handle
        if any(_is_csr(v) for _, v in self.data + self.label) and \
                (shuffle or last_batch_handle != "discard"):
            raise MXNetNotImplementedError("NDArrayIter: a CSRNDArray source needs "
                                           "last_batch_handle='discard' and shuffle=False (as "
                                           "MXNet)")
        self._axis = layout.find("N")
        self.num_data = self.data[0][1].shape[self._axis]
        self.idx = numpy.arange(self.num_data)
        self.cursor = -batch_size
        self._cache_data = self._cache_label = None
        self.reset()

    def _describe(self, sources):
        def batch_shape(v):
            shape = list(v.shape)
            shape[self._axis] = self.batch_size
            return tuple(shape)
        return [DataDesc(k, batch_shape(v), v.dtype, layout=self.layout) for k, v in sources]

    @property
    def provide_data(self):
        return self._describe(self.data)

    @property
    def provide_label(self):
        return self._describe(self.label)

    def hard_reset(self):
        """Start over, dropping a batch carried over by 'roll_over'."""
        if self.shuffle:
            self._shuffle()
        self.cursor = -self.batch_size
        self._cache_data = self._cache_label = None

    def reset(self):
        if self.shuffle:
            self._shuffle()
        carried = self.num_data - self.batch_size < self.cursor < self.num_data
        if self.last_batch_handle == "roll_over" and carried:
            self.cursor = self.cursor - self.num_data - self.batch_size
        else:
            self.cursor = -self.batch_size

    def _shuffle(self):
        # NOTE: as MXNet, the already shuffled sources are indexed by a re-shuffled index, so
        #   a seeded NumPy generator gives MXNet's order
        numpy.random.shuffle(self.idx)
        self.data = [(k, numpy.take(v, self.idx, axis=self._axis)) for k, v in self.data]
        self.label = [(k, numpy.take(v, self.idx, axis=self._axis)) for k, v in self.label]

    def iter_next(self):
        self.cursor += self.batch_size
        return self.cursor < self.num_data

    def next(self):
        if not self.iter_next():
            raise StopIteration
        data, label = self.getdata(), self.getlabel()
        if data[0].shape[self._axis] != self.batch_size:
            self._cache_data, self._cache_label = data, label
            raise StopIteration
        return DataBatch(data=data, label=label, pad=self.getpad(), index=None)

    def _take(self, sources, start=0, end=None):
        section = slice(start, self.num_data if end is None else end)
        index = [slice(None)] * (self._axis + 1)
        index[self._axis] = section
        return [v[section] if _is_csr(v) else v[tuple(index)] for _, v in sources]

    def _join(self, first, second):
        if not first or not second:
            return first or second
        return [numpy.concatenate([a, b], axis=self._axis) for a, b in zip(first, second)]

    def _padding(self, sources, pad):
        whole, rest = divmod(pad, self.num_data)
        parts = [self._take(sources)] * whole + ([self._take(sources, end=rest)] if rest else [])
        joined = []
        for part in parts:
            joined = self._join(joined, part)
        return joined

    def _batchify(self, sources, cache_attr):
        if self.cursor >= self.num_data:
            raise MXNetValueError("DataIter needs reset.")
        if self.last_batch_handle == "roll_over" and -self.batch_size < self.cursor < 0:
            cached = getattr(self, cache_attr)
            setattr(self, cache_attr, None)
            host = [c.asnumpy() for c in cached] if cached is not None else []
            return self._wrap(self._join(host, self._take(sources,
                                                          end=self.cursor + self.batch_size)),
                              sources)
        end = min(self.cursor + self.batch_size, self.num_data)
        batch = self._take(sources, self.cursor, end)
        if self.last_batch_handle == "pad" and self.cursor + self.batch_size > self.num_data:
            batch = self._join(batch, self._padding(sources, self.getpad()))
        return self._wrap(batch, sources)

    def _wrap(self, host_arrays, sources):
        from ..ndarray.ndarray import NDArray, array, ndarray

        return [a if _is_csr(a) else
                array(a, dtype=a.dtype, cls=ndarray if name in self._np_names else NDArray)
                for a, (name, _) in zip(host_arrays, sources)]

    def getdata(self):
        return self._batchify(self.data, "_cache_data")

    def getlabel(self):
        return self._batchify(self.label, "_cache_label")

    def getpad(self):
        if self.last_batch_handle == "pad" and self.cursor + self.batch_size > self.num_data:
            return self.cursor + self.batch_size - self.num_data
        if self.last_batch_handle == "roll_over" and -self.batch_size < self.cursor < 0:
            return -self.cursor
        return 0


class ResizeIter(DataIter):
    """``size`` batches per epoch from ``data_iter``, restarting it when it runs out."""

    def __init__(self, data_iter, size, reset_internal=True):
        super().__init__(data_iter.batch_size)
        self.data_iter, self.size, self.reset_internal = data_iter, size, reset_internal
        self.cur, self.current_batch = 0, None
        self.provide_data = data_iter.provide_data
        self.provide_label = data_iter.provide_label

    def reset(self):
        self.cur = 0
        if self.reset_internal:
            self.data_iter.reset()

    def iter_next(self):
        if self.cur == self.size:
            return False
        try:
            self.current_batch = self.data_iter.next()
        except StopIteration:
            self.data_iter.reset()
            self.current_batch = self.data_iter.next()
        self.cur += 1
        return True

    def next(self):
        if self.iter_next():
            return self.current_batch
        raise StopIteration


class PrefetchingIter(DataIter):
    """Reads the next batch of ``iters`` (one iterator or several, whose batches are joined) in a
    background thread while the current one is used."""

    def __init__(self, iters, rename_data=None, rename_label=None):
        iters = iters if isinstance(iters, list) else [iters]
        super().__init__(iters[0].batch_size)
        if rename_data is not None or rename_label is not None:
            raise MXNetNotImplementedError("PrefetchingIter: rename_data / rename_label are not "
                                           "implemented in mxlab")
        self.iters = iters
        self._thread, self._next = None, None
        self.reset()

    @property
    def provide_data(self):
        return sum((list(i.provide_data) for i in self.iters), [])

    @property
    def provide_label(self):
        return sum((list(i.provide_label) for i in self.iters), [])

    def _fetch(self):
        try:
            batches = [i.next() for i in self.iters]
        except StopIteration:
            batches = None
        self._next = batches

    def _start(self):
        self._thread = threading.Thread(target=self._fetch, daemon=True)
        self._thread.start()

    def reset(self):
        if self._thread is not None:
            self._thread.join()
        for it in self.iters:
            it.reset()
        self._start()

    def next(self):
        self._thread.join()
        batches = self._next
        if batches is None:
            raise StopIteration
        self._start()
        return DataBatch(data=sum((list(b.data) for b in batches), []),
                         label=sum((list(b.label or []) for b in batches), []),
                         pad=batches[0].pad, index=batches[0].index)
