"""The sparse array classes: :class:`CSRNDArray` and :class:`RowSparseNDArray` (MXNet's ``csr``
and ``row_sparse`` storage types), subclasses of the legacy ``NDArray``.

A sparse array keeps its components as dense NumPy arrays in ``_sp`` (``(data, indices,
indptr)`` or ``(data, indices)``; None while an engine op has yet to write them) and its logical
shape in ``_shape``. Its ``_data`` -- the slot every op kernel reads -- is a property here that
densifies the components: any op without a sparse kernel therefore runs on the dense form and gives
a dense result (MXNet's storage fallback), and the dense ops cost nothing extra. Writing ``_data``
(an op run with ``out=`` a sparse array, a gradient written into a sparse buffer) compresses the
dense result back into the array's storage type. Ops that do have a sparse kernel live in
``ndarray/sparse_ops.py`` and reach the classes' operators through :data:`SPARSE_FUNCS`.
"""
import numpy

from .. import engine as _engine
from ..base import MXNetTypeError, MXNetValueError, NotSupportedForSparseNDArray
from ..device import Device, current_device
from ..engine.var import Var
from ..ops import sparse_kernels as K
from .ndarray import NDArray, _hooks

__all__ = ["BaseSparseNDArray", "CSRNDArray", "RowSparseNDArray", "make_sparse", "to_stype",
           "SPARSE_FUNCS", "STORAGE_AUX_TYPES"]

STORAGE_AUX_TYPES = {"row_sparse": [numpy.int64], "csr": [numpy.int64, numpy.int64]}
# NOTE: filled by ndarray/sparse_ops.py (operator name -> function); the classes' arithmetic
#   operators call through it, which keeps this module free of an import cycle.
SPARSE_FUNCS = {}


def _host(value):
    """A NumPy array of an NDArray / array-like (waits for pending writes)."""
    if isinstance(value, NDArray):
        return value.asnumpy()
    return numpy.asarray(value)


class BaseSparseNDArray(NDArray):
    """The common part of MXNet's sparse arrays (``mx.nd.sparse.BaseSparseNDArray``)."""

    __slots__ = ("_sp",)
    _stype = None
    _sparse = True

    # -- the storage fallback: every dense kernel reads `_data` ------------------------------------
    @property
    def _data(self):
        sp = self._sp
        if sp is None:
            return None
        return self._densify(sp)

    @_data.setter
    def _data(self, value):
        if value is None:
            self._sp = None
            return
        value = numpy.asarray(value.get() if hasattr(value, "get") else value)
        if tuple(value.shape) != tuple(self._shape):
            raise MXNetValueError(f"{self._stype} array of shape {self._shape}: cannot store a "
                                  f"result of shape {value.shape}")
        self._sp = self._compress(value)
        self._dtype = value.dtype

    @classmethod
    def _produced(cls, data, device):
        return NDArray._produced(data, device)   # NOTE: fallback results are dense

    @classmethod
    def _empty_handle(cls, device, shape=None, dtype=None):
        return NDArray._empty_handle(device, shape, dtype)

    @classmethod
    def _make(cls, components, shape, device=None, dtype=None):
        arr = cls.__new__(cls)
        arr._sp = tuple(components)
        arr._var = Var()
        arr._device = device or current_device()
        arr._ag = arr._dc = arr._grad = None
        arr._grad_req = "null"
        arr._fresh_grad = False
        arr._shape = tuple(int(s) for s in shape)
        arr._dtype = numpy.dtype(dtype or components[0].dtype)
        if arr._sp[0].dtype != arr._dtype:
            arr._sp = (arr._sp[0].astype(arr._dtype),) + arr._sp[1:]
        _engine.push(lambda: None, (), (arr._var,), "_sparse_array")
        return arr

    def _components(self):
        """The component arrays, after pending writes finish."""
        _engine.wait_for_var(self._var)
        if self._sp is None:
            raise MXNetValueError("sparse array has no data: the op that was to write it failed")
        return self._sp

    def _assign_dense(self, source, name="_copyto"):
        """Write ``source`` (an NDArray of this shape, any storage) into this array, as an engine
        write of this array after ``source``'s pending writes."""
        if tuple(source.shape) != self._shape:
            raise MXNetValueError(f"{name}: shape mismatch, source {tuple(source.shape)} vs "
                                  f"target {self._shape}")
        dtype = self._dtype

        def kernel():
            if isinstance(source, BaseSparseNDArray) and source._stype == self._stype:
                comps = source._sp
                self._sp = (comps[0].astype(dtype),) + tuple(c.copy() for c in comps[1:])
            else:
                self._data = numpy.asarray(source._data, dtype=dtype)
        _engine.push(kernel, (source._var,), (self._var,), name)
        return self

    # -- properties --------------------------------------------------------------------------------
    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype.type

    @property
    def stype(self):
        return self._stype

    @property
    def _num_aux(self):
        return len(STORAGE_AUX_TYPES[self._stype])

    @property
    def _aux_types(self):
        return [numpy.dtype(c.dtype).type for c in self._components()[1:]]

    def _aux_type(self, i):
        return self._aux_types[i]

    def _component(self, i):
        value = self._components()[i]
        return NDArray._wrap(value.copy(), self._device)

    @property
    def data(self):
        """A copy of the stored values, as a dense NDArray."""
        return self._component(0)

    @property
    def indices(self):
        return self._component(1)

    # -- conversions -------------------------------------------------------------------------------
    def __repr__(self):
        shape = "x".join(str(s) for s in self._shape)
        return f"\n<{type(self).__name__} {shape} @{self._device}>"

    def __reduce__(self):
        comps = tuple(numpy.array(c) for c in self._components())
        return (_rebuild, (self._stype, comps, self._shape, self._dtype.name))

    def tostype(self, stype):
        """This array in storage type ``stype`` ('default', 'csr', 'row_sparse'; a copy)."""
        return to_stype(self, stype)

    def astype(self, dtype, copy=True):
        if not copy and numpy.dtype(dtype) == self._dtype:
            return self
        comps = self._components()
        return type(self)._make((comps[0].astype(dtype),) + tuple(c.copy() for c in comps[1:]),
                                self._shape, self._device)

    def copy(self):
        return self.astype(self._dtype, copy=True)

    def copyto(self, other):
        """Copy into ``other`` (an array of this shape, any storage type: the values are cast to
        its storage) or onto a device (a new array of this storage type)."""
        if isinstance(other, Device):
            comps = tuple(c.copy() for c in self._components())
            return type(self)._make(comps, self._shape, other)
        if not isinstance(other, NDArray):
            raise MXNetTypeError(f"copyto does not support type {type(other).__name__}")
        if other._var is self._var:
            return other
        if isinstance(other, BaseSparseNDArray):
            return other._assign_dense(self)
        return NDArray.copyto(self, other)

    def as_in_context(self, device):
        return self if device == self._device else self.copyto(device)

    as_in_ctx = to_device = as_in_context

    def detach(self):
        arr = type(self)._make(self._components(), self._shape, self._device)
        return arr

    def check_format(self, full_check=True):
        """Raise an MXNetValueError naming the broken invariant of the storage format."""
        _check_format(self._stype, self._components(), self._shape, full_check)

    def wait_to_read(self):
        self._components()

    # -- what MXNet's sparse arrays refuse ---------------------------------------------------------
    def _at(self, idx):
        raise NotSupportedForSparseNDArray(self._at, "[idx]", idx)

    def _slice(self, start, stop):
        raise NotSupportedForSparseNDArray(self._slice, None, start, stop)

    def reshape(self, *shape, **kwargs):
        raise NotSupportedForSparseNDArray(self.reshape, None, shape)

    def _sync_copyfrom(self, source_array):
        raise NotSupportedForSparseNDArray(self._sync_copyfrom, None)

    # -- operators ---------------------------------------------------------------------------------
    def __add__(self, other):
        return SPARSE_FUNCS["add"](self, other)

    def __radd__(self, other):
        return SPARSE_FUNCS["add"](other, self)

    def __sub__(self, other):
        return SPARSE_FUNCS["subtract"](self, other)

    def __rsub__(self, other):
        return SPARSE_FUNCS["subtract"](other, self)

    def __mul__(self, other):
        return SPARSE_FUNCS["multiply"](self, other)

    def __rmul__(self, other):
        return SPARSE_FUNCS["multiply"](other, self)

    def __truediv__(self, other):
        return SPARSE_FUNCS["divide"](self, other)

    def __rtruediv__(self, other):
        return SPARSE_FUNCS["divide"](other, self)

    def __pow__(self, other):
        return SPARSE_FUNCS["power"](self, other)

    def __rpow__(self, other):
        return SPARSE_FUNCS["power"](other, self)

    def __neg__(self):
        return SPARSE_FUNCS["negative"](self)

    def __abs__(self):
        return SPARSE_FUNCS["abs"](self)

    def __eq__(self, other):
        return SPARSE_FUNCS["equal"](self, other)

    def __ne__(self, other):
        return SPARSE_FUNCS["not_equal"](self, other)

    def __gt__(self, other):
        return SPARSE_FUNCS["greater"](self, other)

    def __ge__(self, other):
        return SPARSE_FUNCS["greater_equal"](self, other)

    def __lt__(self, other):
        return SPARSE_FUNCS["lesser"](self, other)

    def __le__(self, other):
        return SPARSE_FUNCS["lesser_equal"](self, other)

    __hash__ = NDArray.__hash__

    def _inplace(self, name, other):
        return self._assign_dense(SPARSE_FUNCS[name](self, other), "_" + name)

    def __iadd__(self, other):
        return self._inplace("add", other)

    def __isub__(self, other):
        return self._inplace("subtract", other)

    def __imul__(self, other):
        return self._inplace("multiply", other)

    def __itruediv__(self, other):
        return self._inplace("divide", other)

    def _assign_item(self, key, value):
        """``x[:] = value``: the only assignment MXNet's sparse arrays take."""
        if not isinstance(key, slice) or key != slice(None):
            raise MXNetValueError(f"{type(self).__name__} only supports [:] for assignment")
        if isinstance(value, NDArray):
            if value._var is not self._var:
                self._assign_dense(value)
            return
        if isinstance(value, (numpy.ndarray, numpy.generic, list, tuple)):
            value = numpy.broadcast_to(numpy.asarray(value, dtype=self._dtype), self._shape)
            self._assign_dense(NDArray._wrap(numpy.array(value), self._device))
            return
        raise MXNetTypeError(f"type {type(value).__name__} not supported")


class CSRNDArray(BaseSparseNDArray):
    """A 2-d array in compressed sparse row format (``data``, ``indices``, ``indptr``)."""

    __slots__ = ()
    _stype = "csr"

    def _densify(self, sp):
        return K.csr_to_dense(sp[0], sp[1], sp[2], self._shape)

    def _compress(self, dense):
        return K.dense_to_csr(dense)

    @property
    def indices(self):
        return self._component(1)

    @property
    def indptr(self):
        return self._component(2)

    def asscipy(self):
        """This matrix as a ``scipy.sparse.csr_matrix`` (copies)."""
        import scipy.sparse as spsp
        data, indices, indptr = (numpy.array(c) for c in self._components())
        return spsp.csr_matrix((data, indices, indptr), shape=self._shape, dtype=self._dtype)

    def __getitem__(self, key):
        """Rows: ``x[i]`` (kept 2-d) and ``x[start:stop]`` give csr matrices."""
        rows = self._shape[0]
        if isinstance(key, (int, numpy.integer)):
            begin = int(key) + rows if key < 0 else int(key)
            if not 0 <= begin < rows:
                raise IndexError(f"index {key} is out of bounds for axis 0 with size {rows}")
            return self._rows(begin, begin + 1)
        if isinstance(key, slice):
            if key.step not in (None, 1):
                raise MXNetValueError("CSRNDArray only supports continuous slicing on axis 0")
            if key == slice(None):
                return self
            begin, end, _ = key.indices(rows)
            return self._rows(begin, max(begin, end))
        if isinstance(key, tuple):
            raise MXNetValueError("Multi-dimension indexing is not supported")
        raise MXNetValueError(f"Undefined behaviour for {key}")

    def _rows(self, begin, end):
        data, indices, indptr = self._components()
        comps = K.csr_slice_rows(data, indices, indptr, begin, end)
        return CSRNDArray._make(comps, (end - begin, self._shape[1]), self._device)

    def __setitem__(self, key, value):
        if isinstance(value, (int, float, numpy.number)) and not isinstance(value, numpy.ndarray):
            raise MXNetValueError("Assigning numeric types to CSRNDArray is not implemented yet.")
        self._assign_item(key, value)


class RowSparseNDArray(BaseSparseNDArray):
    """An array whose stored rows (``data``) sit at row ``indices``; the other rows are zero."""

    __slots__ = ()
    _stype = "row_sparse"

    def _densify(self, sp):
        return K.rsp_to_dense(sp[0], sp[1], self._shape)

    def _compress(self, dense):
        return K.dense_to_rsp(dense)

    def __getitem__(self, key):
        if isinstance(key, slice) and key == slice(None):
            return self
        if isinstance(key, tuple):
            raise MXNetValueError("Multi-dimension indexing is not supported")
        raise MXNetValueError("RowSparseNDArray only supports [:] for __getitem__")

    def __setitem__(self, key, value):
        if isinstance(value, (int, float, numpy.number)) and not isinstance(value, numpy.ndarray):
            value = numpy.full(self._shape, value, dtype=self._dtype)
        self._assign_item(key, value)

    def retain(self, *args, **kwargs):
        return SPARSE_FUNCS["retain"](self, *args, **kwargs)


_CLASSES = {"csr": CSRNDArray, "row_sparse": RowSparseNDArray}


def _rebuild(stype, comps, shape, dtype):
    return _CLASSES[stype]._make(comps, shape, dtype=dtype)


def make_sparse(stype, components, shape, device=None, dtype=None):
    """A new sparse array from its component arrays (NumPy; used as given)."""
    return _CLASSES[stype]._make(components, shape, device, dtype)


def empty_components(stype, shape, dtype):
    if stype == "csr":
        return (numpy.zeros(0, dtype), numpy.zeros(0, K.INDEX),
                numpy.zeros(shape[0] + 1, K.INDEX))
    return numpy.zeros((0,) + tuple(shape[1:]), dtype), numpy.zeros(0, K.INDEX)


def to_stype(arr, stype):
    """``arr`` (any storage) as a new array of storage type ``stype`` (MXNet's cast_storage)."""
    if stype not in ("default", "csr", "row_sparse"):
        raise MXNetValueError(f"unknown storage type {stype!r}; MXNet's are 'default', "
                              "'row_sparse' and 'csr'")
    if stype == "default":
        return NDArray._wrap(numpy.array(arr._get_data()), arr._device) \
            if isinstance(arr, BaseSparseNDArray) else arr.copy()
    if isinstance(arr, BaseSparseNDArray) and arr._stype == stype:
        return arr.copy()
    if stype == "csr" and len(arr.shape) != 2:
        raise MXNetValueError(f"cast_storage: csr storage needs a 2-d array, got shape "
                              f"{tuple(arr.shape)}")
    if stype == "row_sparse" and len(arr.shape) == 0:
        raise MXNetValueError("cast_storage: row_sparse storage needs at least 1 dimension")
    dense = numpy.asarray(arr._get_data())
    comps = K.dense_to_csr(dense) if stype == "csr" else K.dense_to_rsp(dense)
    return make_sparse(stype, comps, dense.shape, arr._device, dense.dtype)


def _fail(msg):
    raise MXNetValueError(f"check_format: {msg}")


def _check_format(stype, comps, shape, full_check):
    if stype == "csr":
        data, indices, indptr = comps
        if len(indptr) != shape[0] + 1:
            _fail(f"indptr has {len(indptr)} entries, expected rows + 1 = {shape[0] + 1}")
        if len(data) != len(indices):
            _fail(f"data ({len(data)}) and indices ({len(indices)}) differ in length")
        if not full_check:
            return
        if len(indptr) and (indptr[0] != 0 or indptr[-1] != len(indices)):
            _fail(f"indptr must start at 0 and end at nnz={len(indices)}")
        if (numpy.diff(indptr) < 0).any():
            _fail("indptr must be non-decreasing")
        if len(indices) and ((indices < 0).any() or (indices >= shape[1]).any()):
            _fail(f"column indices must lie in [0, {shape[1]})")
        for row in range(shape[0]):
            cols = indices[indptr[row]:indptr[row + 1]]
            if (numpy.diff(cols) <= 0).any():
                _fail(f"column indices of row {row} are not strictly ascending")
        return
    data, indices = comps
    if len(data) != len(indices):
        _fail(f"data ({len(data)} rows) and indices ({len(indices)}) differ in length")
    if full_check and len(indices):
        if (indices < 0).any() or (indices >= shape[0]).any():
            _fail(f"row indices must lie in [0, {shape[0]})")
        if (numpy.diff(indices) <= 0).any():
            _fail("row indices are not strictly ascending")


_hooks["tostype"] = to_stype
