"""The array class behind ``mx.nd.NDArray`` and ``mx.np.ndarray``.

One implementation: :class:`NDArray` (legacy ``mx.nd`` semantics) and its subclass :class:`ndarray`
(NumPy semantics) differ only in a few flavour rules (0-d results, comparison dtypes, printing). An
array holds its data (a numpy or cupy array, ``None`` while an engine op or deferred compute has not
produced it), its engine :class:`~mxlab.engine.Var` (``version``), its device, and two graph slots:
the autograd entry and the deferred compute entry (``detach()`` clears both).
"""
import numpy

from .. import engine as _engine
from ..base import (MXNetNotImplementedError, MXNetRuntimeError, MXNetTypeError,
                    MXNetValueError)
from ..device import Device, current_device
from ..engine.var import Var
from ..imperative import STATE
from ..ops.shape import ReshapeSizeError

__all__ = ["NDArray", "ndarray", "array", "from_numpy_data", "DEFAULT_DTYPE"]

py_slice = slice   # NOTE: MXNet's module keeps the builtin under this name; its tests import it

DEFAULT_DTYPE = numpy.float32
_namespaces = {}   # flavour -> namespace module (filled by mx.nd / mx.np at import)
_hooks = {}        # "tostype": ndarray/sparse_array.to_stype, "backward": autograd.backward (each
                   # set when its module is imported; mxlab imports both)


def _ns(arr):
    return _namespaces[arr._flavour]


class NDArray:
    """An n-dimensional array on a device, tracked by the dependency engine (``mx.nd.NDArray``)."""

    __slots__ = ("_data", "_var", "_device", "_ag", "_dc", "_grad", "_grad_req",
                 "_fresh_grad", "_shape", "_dtype", "__weakref__")
    _flavour = "nd"
    _sparse = False    # NOTE: True on the sparse classes (ndarray/sparse_array.py)
    __array_priority__ = 1000.0

    def __init__(self, data=None, device=None, var=None):
        self._data = data
        self._var = var if var is not None else Var()
        self._device = device or current_device()
        self._ag = None
        self._dc = None
        self._grad = None
        self._grad_req = "null"
        self._fresh_grad = False
        self._shape = None
        self._dtype = None

    @classmethod
    def _empty_handle(cls, device, shape=None, dtype=None):
        """An array whose data an engine op (or deferred compute) will produce later."""
        arr = cls.__new__(cls)
        arr._data = None
        arr._var = Var()
        arr._device = device
        arr._ag = arr._dc = arr._grad = None
        arr._grad_req = "null"
        arr._fresh_grad = False
        arr._shape = shape
        arr._dtype = dtype
        return arr

    @classmethod
    def _produced(cls, data, device):
        """An array holding ``data`` just written by an op run inline (its var at version 1)."""
        arr = cls.__new__(cls)
        arr._data = data
        arr._var = Var(None, 1)
        arr._device = device
        arr._ag = arr._dc = arr._grad = arr._shape = arr._dtype = None
        arr._grad_req = "null"
        arr._fresh_grad = False
        return arr

    @classmethod
    def _wrap(cls, data, device, var=None):
        arr = cls._empty_handle(device)
        arr._data = data
        if var is not None:
            arr._var = var
        return arr

    # -- readiness ---------------------------------------------------------------------------------
    def _materialize(self):
        """Produce data for a deferred-compute array (lazy evaluation)."""
        from .. import deferred_compute
        deferred_compute.evaluate(self)

    def _get_data(self):
        """The underlying xp array, after waiting for pending writes (or evaluating a traced
        array)."""
        if self._data is None and self._dc is not None:
            self._materialize()
        _engine.wait_for_var(self._var)
        if self._data is None:
            raise MXNetRuntimeError("array has no data: the engine op that was to produce it "
                                    "failed; its error was raised earlier")
        return self._data

    def wait_to_read(self):
        """Block until every pending write to this array has finished (re-raises async errors)."""
        self._get_data()

    def wait_to_write(self):
        self._get_data()

    @property
    def version(self):
        """Number of completed writes to this array's engine variable."""
        return self._var.version

    # -- basic properties --------------------------------------------------------------------------
    @property
    def shape(self):
        data = self._data
        if data is not None:
            return data.shape
        if self._shape is not None and None not in self._shape:
            return self._shape
        return self._get_data().shape

    @property
    def dtype(self):
        data = self._data
        if data is not None:
            return data.dtype.type if self._flavour == "nd" else data.dtype
        if self._dtype is not None:
            dt = numpy.dtype(self._dtype)
            return dt.type if self._flavour == "nd" else dt
        data = self._get_data()
        return data.dtype.type if self._flavour == "nd" else data.dtype

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return int(numpy.prod(self.shape, dtype=numpy.int64))

    def __len__(self):
        shape = self.shape
        if not shape:
            raise MXNetTypeError("len() of unsized object")
        return shape[0]

    @property
    def device(self):
        return self._device

    ctx = context = device

    @property
    def stype(self):
        return "default"

    @property
    def T(self):
        return _namespaces[self._flavour].transpose(self)

    @property
    def handle(self):
        return self._var

    # -- conversion --------------------------------------------------------------------------------
    def asnumpy(self):
        """A NumPy copy of the data (waits for pending writes)."""
        data = self._get_data()
        if isinstance(data, numpy.ndarray):
            return data.copy()
        return data.get()

    def asscalar(self):
        if self.size != 1:
            raise MXNetValueError(f"asscalar() needs an array of size 1, got shape {self.shape}")
        return self.asnumpy().reshape(())[()]   # NOTE: a NumPy scalar (it has .shape), as MXNet

    def item(self, *args):
        return self.asnumpy().item(*args)

    def tolist(self):
        return self.asnumpy().tolist()

    def __array__(self, dtype=None, copy=None):
        data = self.asnumpy()
        return data if dtype is None else data.astype(dtype)

    def __format__(self, spec):
        """``f"{x:.3f}"``: 0-d arrays (and legacy size-1 arrays) format their value; others only
        take an empty spec (NumPy's and MXNet's rule)."""
        if self.ndim == 0 or (self._flavour == "nd" and self.size == 1):
            return format(self.asscalar(), spec)
        if spec:
            raise MXNetTypeError(f"cannot format a {type(self).__name__} of shape {self.shape} "
                                 f"with format spec {spec!r}")
        return str(self)

    def tostype(self, stype):
        """A copy with storage type ``stype`` ('default', 'csr' or 'row_sparse')."""
        if stype == "default":
            return self.copy()
        return _hooks["tostype"](self, stype)

    def __float__(self):
        return float(self.asscalar())

    def __int__(self):
        return int(self.asscalar())

    def __index__(self):
        if not numpy.issubdtype(numpy.dtype(self.dtype), numpy.integer):
            raise MXNetTypeError("only integer arrays can be used as an index")
        return int(self.asscalar())

    def __bool__(self):
        size = self.size
        if size == 0:
            return False
        if size > 1:
            raise MXNetValueError("The truth value of an NDArray with multiple elements is "
                                  "ambiguous.")
        return bool(self.asscalar())

    def __hash__(self):
        return id(self)

    def as_np_ndarray(self):
        """The same data and engine var viewed as an ``mx.np.ndarray``."""
        return self._view_as(ndarray)

    def as_nd_ndarray(self):
        """The same data and engine var viewed as an ``mx.nd.NDArray``."""
        return self._view_as(NDArray)

    def _view_as(self, cls):
        if type(self) is cls:
            return self
        if self._data is None and self._dc is None:
            _engine.wait_for_var(self._var)
        arr = cls._empty_handle(self._device, self._shape, self._dtype)
        arr._data, arr._var, arr._ag, arr._dc = self._data, self._var, self._ag, self._dc
        arr._grad, arr._grad_req = self._grad, self._grad_req
        return arr

    # -- devices -----------------------------------------------------------------------------------
    def copyto(self, other):
        """Copy into ``other`` (an array: same shape required) or onto a device (returns the new
        array)."""
        if isinstance(other, Device):
            return self._copy_to_device(other)
        if not isinstance(other, NDArray):
            raise MXNetTypeError("copyto: target must be an NDArray or a Device, got "
                                 f"{type(other).__name__}")
        if other is self:
            return other
        if tuple(other.shape) != tuple(self.shape):
            raise MXNetValueError(f"copyto: shape mismatch, source {self.shape} vs target "
                                  f"{other.shape}")
        source = self._copy_to_device(other._device) if other._device != self._device else self
        from ..imperative import invoke
        from ..ops.registry import get_op
        invoke(get_op("_copy"), [source], {}, out=[other])
        return other

    def _copy_to_device(self, device):
        if STATE.deferred:
            from .. import deferred_compute
            return deferred_compute.record_copy(self, device)
        data = self._get_data()
        xp = device.xp
        if xp is numpy:
            new = data.copy() if isinstance(data, numpy.ndarray) else data.get()
        else:
            with xp.cuda.Device(device.device_id):
                new = xp.asarray(data if isinstance(data, numpy.ndarray) else data.get())
        result = type(self)._wrap(new, device)
        _engine.push(lambda: None, (self._var,), (result._var,), "_copyto")
        return result

    def as_in_context(self, device):
        """This array on ``device`` (itself when already there, else a copy)."""
        if self._device == device:
            return self
        return self._copy_to_device(device)

    as_in_ctx = to_device = as_in_context

    def copy(self):
        return _namespaces[self._flavour].copy(self)

    # -- autograd ----------------------------------------------------------------------------------
    def attach_grad(self, grad_req="write", stype=None):
        """Allocate a zero gradient buffer and mark this array as an autograd variable."""
        from .. import autograd
        grad = _ns(self).zeros_like(self)
        if stype is not None and stype != grad.stype:   # NOTE: MXNet's default: self's stype
            grad = _hooks["tostype"](grad, stype)
        autograd.mark_variables([self], [grad], grad_reqs=grad_req)

    def drop_grad(self):
        """Free the gradient buffer ``attach_grad`` gave this array (MXNet 2)."""
        from .. import autograd
        autograd.drop_grads([self])

    @property
    def grad(self):
        return self._grad

    def detach(self):
        """A new array sharing data, with no autograd history and no deferred-compute history."""
        if self._data is None and self._dc is not None:
            self._materialize()
        elif self._data is None:
            # NOTE: a pending op (threaded engine) sets the data of this handle only: wait, or
            #   the new handle would never get any
            _engine.wait_for_var(self._var)
        arr = type(self)._empty_handle(self._device, self._shape, self._dtype)
        arr._data, arr._var = self._data, self._var
        return arr

    def backward(self, out_grad=None, retain_graph=False, train_mode=True):
        _hooks["backward"]([self], None if out_grad is None else [out_grad], retain_graph,
                           train_mode)

    # -- printing ----------------------------------------------------------------------------------
    def __repr__(self):
        body = str(self.asnumpy())
        shape = "x".join(str(s) for s in self.shape)
        return f"\n{body}\n<{type(self).__name__} {shape} @{self._device}>"

    def __str__(self):
        return self.__repr__()

    # -- python operators: delegated to the flavour's namespace functions --------------------------
    # NOTE: _namespaces[...] rather than _ns(): one call less on the per-op hot path.
    def __add__(self, other):
        return _namespaces[self._flavour].add(self, other)

    def __radd__(self, other):
        return _namespaces[self._flavour].add(other, self)

    def __sub__(self, other):
        return _namespaces[self._flavour].subtract(self, other)

    def __rsub__(self, other):
        return _namespaces[self._flavour].subtract(other, self)

    def __mul__(self, other):
        return _namespaces[self._flavour].multiply(self, other)

    def __rmul__(self, other):
        return _namespaces[self._flavour].multiply(other, self)

    def __truediv__(self, other):
        return _namespaces[self._flavour].true_divide(self, other)

    def __rtruediv__(self, other):
        return _namespaces[self._flavour].true_divide(other, self)

    def __floordiv__(self, other):
        return _namespaces[self._flavour].floor_divide(self, other)

    def __rfloordiv__(self, other):
        return _namespaces[self._flavour].floor_divide(other, self)

    def __mod__(self, other):
        return _namespaces[self._flavour].mod(self, other)

    def __rmod__(self, other):
        return _namespaces[self._flavour].mod(other, self)

    def __pow__(self, other):
        return _namespaces[self._flavour].power(self, other)

    def __rpow__(self, other):
        return _namespaces[self._flavour].power(other, self)

    def __matmul__(self, other):
        return _namespaces[self._flavour].matmul(self, other)

    def __neg__(self):
        return _namespaces[self._flavour].negative(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return _namespaces[self._flavour].abs(self)

    def __invert__(self):
        return _namespaces[self._flavour].invert(self)

    def __eq__(self, other):
        return _namespaces[self._flavour].equal(self, other)

    def __ne__(self, other):
        return _namespaces[self._flavour].not_equal(self, other)

    def __lt__(self, other):
        return _namespaces[self._flavour].less(self, other)

    def __le__(self, other):
        return _namespaces[self._flavour].less_equal(self, other)

    def __gt__(self, other):
        return _namespaces[self._flavour].greater(self, other)

    def __ge__(self, other):
        return _namespaces[self._flavour].greater_equal(self, other)

    def __iadd__(self, other):
        return _namespaces[self._flavour].add(self, other, out=self)

    def __isub__(self, other):
        return _namespaces[self._flavour].subtract(self, other, out=self)

    def __imul__(self, other):
        return _namespaces[self._flavour].multiply(self, other, out=self)

    def __itruediv__(self, other):
        return _namespaces[self._flavour].true_divide(self, other, out=self)

    def __getitem__(self, key):
        return _namespaces[self._flavour]._getitem(self, key)

    def __setitem__(self, key, value):
        _ns(self)._setitem(self, key, value)

    # -- method forms of namespace functions -------------------------------------------------------
    def reshape(self, *shape, **kwargs):
        if not shape and "shape" in kwargs:     # MXNet 1.x: x.reshape(shape=(3, 2))
            shape = (kwargs.pop("shape"),)
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        try:
            return _namespaces[self._flavour].reshape(self, shape, **kwargs)
        except ReshapeSizeError as exc:
            if not (STATE.recording or STATE.deferred):
                raise
            # NOTE: MXNet's NDArray::Reshape words the mismatch so while recording or tracing.
            raise MXNetValueError(
                "target shape must have the same size as current shape when recording with "
                f"autograd or in deferred compute mode. ({exc.op_name}: {exc.src} -> {exc.dst})"
            ) from exc

    def astype(self, dtype, copy=True):
        if not copy and numpy.dtype(self.dtype) == numpy.dtype(dtype):
            return self
        return _namespaces[self._flavour].cast(self, dtype=dtype)

    def transpose(self, *axes, **kwargs):
        if "axes" in kwargs:                      # NOTE: MXNet 1.x: x.transpose(axes=(1, 0))
            axes = (kwargs.pop("axes"),)
        if kwargs:
            raise MXNetTypeError(f"transpose: unexpected keyword arguments {sorted(kwargs)}")
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        elif len(axes) == 1 and axes[0] is None:   # NOTE: NumPy's a.transpose(None)
            axes = ()
        return _namespaces[self._flavour].transpose(self, axes or None)


def _delegate(name):
    def method(self, *args, **kwargs):
        fn = getattr(_ns(self), name, None)
        if fn is None and self._flavour == "np":
            # NOTE: MXNet-only ops (relu, softmax, ...) live in mx.npx for NumPy-style arrays.
            fn = getattr(_namespaces["npx"], name, None)
        if fn is None:
            raise AttributeError(f"'{type(self).__name__}' object has no method '{name}'")
        return fn(self, *args, **kwargs)
    method.__name__ = name
    method.__doc__ = f"Same as the namespace function ``{name}(self, ...)``."
    return method


# NOTE: each name below is a namespace function taking the array first; the method simply forwards
# to it.
for _name in ("sum", "mean", "max", "min", "prod", "argmax", "argmin", "clip", "flatten",
              "expand_dims", "squeeze", "swapaxes", "tile", "repeat", "split", "take",
              "pick", "one_hot", "broadcast_to", "broadcast_like", "reshape_like",
              "slice_axis", "slice", "exp", "log", "sqrt", "square", "abs", "sign", "relu",
              "sigmoid", "tanh", "softmax", "log_softmax", "zeros_like", "ones_like", "std",
              "var", "dot", "round", "floor", "ceil", "norm", "sort", "argsort", "topk",
              "cumsum", "nonzero", "flip", "diag", "moveaxis", "rint", "fix",
              "trunc", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh",
              "arcsinh", "arccosh", "arctanh", "degrees", "radians", "expm1", "log1p", "log2",
              "log10", "rsqrt", "cbrt", "rcbrt", "reciprocal", "sort"):
    setattr(NDArray, _name, _delegate(_name))


class ndarray(NDArray):
    """``mx.np.ndarray``: NumPy semantics (0-d results, boolean comparisons, numpy-style
    printing)."""

    __slots__ = ()
    _flavour = "np"

    def __repr__(self):
        # NOTE: MXNet's rule: float32 (the default) and bool print no dtype, every other dtype does.
        data = self.asnumpy()
        body = numpy.array2string(data, separator=", ", prefix="array(")
        extras = "" if data.dtype.name in ("float32", "bool") else f", dtype={data.dtype.name}"
        if self._device.device_type != "cpu":
            extras += f", device={self._device}"
        return f"array({body}{extras})"

    def __str__(self):
        return str(self.asnumpy())

    def __index__(self):
        # NOTE: NumPy's rule (MXNet's mx.np too): only a 0-d integer array is an index.
        if self.ndim == 0 and numpy.issubdtype(numpy.dtype(self.dtype), numpy.integer):
            return int(self.asscalar())
        raise MXNetTypeError("only integer scalar arrays can be converted to a scalar index")

    def copy(self, order="C"):  # pylint: disable=arguments-differ
        """A copy on the same device; only C order is built (as MXNet's ``mx.np``)."""
        if order != "C":
            raise MXNetNotImplementedError(f"ndarray.copy: order {order!r} is not built in "
                                           "mxlab; only 'C' (row-major) exists")
        return super().copy()

    def to_device(self, device):
        return self.as_in_context(device)

    @property
    def grad(self):
        """The gradient buffer; None for ``grad_req='null'`` (MXNet 2.0's np arrays)."""
        return None if self._grad_req == "null" else self._grad

    def tostype(self, stype):
        raise AttributeError("mxnet.numpy.ndarray object has no attribute tostype (use mx.nd "
                             "arrays)")


def _iter_nd(self):
    """Rows along the first axis; a 0-d array is not iterable (``iter()`` itself raises, so
    ``numpy.iterable`` and matplotlib see a scalar)."""
    if not self.shape:
        raise MXNetTypeError("iteration over a 0-d array")
    return (self[i] for i in range(len(self)))


NDArray.__iter__ = _iter_nd


def from_numpy_data(data, device=None, cls=ndarray):
    """Wrap an existing xp array without copying (internal helper)."""
    return cls._wrap(data, device or current_device())


def _check_supported_dtype(dtype, source):
    """MXNet arrays hold the dtypes of its type flags; complex, string and object data are refused
    with an error naming the dtype (NumPy would fail later with a bare ValueError)."""
    from .serialization import DTYPE_FLAGS
    if dtype.name in DTYPE_FLAGS.values():
        return
    what = "string" if dtype.kind in "US" else dtype.name
    raise MXNetTypeError(f"array: {what} data ({type(source).__name__} of dtype {dtype}) is not "
                         f"supported; an MXNet array holds one of "
                         f"{', '.join(sorted(DTYPE_FLAGS.values()))}")


def array(source, dtype=None, device=None, cls=ndarray):
    """A new array holding a copy of ``source`` (lists, scalars, numpy arrays, other arrays).

    Without ``dtype``: arrays keep their dtype; Python data becomes float32 (MXNet's default) unless
    it is boolean.
    """
    device = device or current_device()
    if isinstance(source, NDArray):
        host = source.asnumpy()
        dtype = dtype or host.dtype
    else:
        host = numpy.asarray(source)
        if dtype is None:
            if isinstance(source, numpy.ndarray) or isinstance(source, numpy.generic):
                dtype = host.dtype
            elif host.dtype == numpy.bool_:
                dtype = numpy.bool_
            else:
                dtype = DEFAULT_DTYPE
    if host.dtype.kind in "USOV":
        _check_supported_dtype(host.dtype, source)
    _check_supported_dtype(numpy.dtype(dtype), source)
    xp = device.xp
    if xp is numpy:
        data = numpy.array(host, dtype=dtype)
    else:
        with xp.cuda.Device(device.device_id):
            data = xp.asarray(host, dtype=dtype)
    result = cls._wrap(data, device)
    _engine.push(lambda: None, (), (result._var,), "_array")
    return result
