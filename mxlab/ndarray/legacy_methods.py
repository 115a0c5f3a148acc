"""Legacy ``NDArray`` methods of MXNet 1.x that the generic delegates do not cover: the fluent
forms of every ``mx.nd`` op MXNet gives one (``x.rint()``, ``x.softmin()``, ...), and
``flatten`` / ``squeeze`` / ``expand_dims`` with ``inplace=True``, which return a **view** sharing
the data (and the engine variable, so reads and writes through either stay ordered); and MXNet's
pickled form (``__getstate__``/``__setstate__``: the array's binary record, never code).

Example
-------
>>> import mxlab as mx
>>> x = mx.nd.zeros((2, 3))
>>> view = x.flatten(inplace=True)
>>> x[:] = 1
>>> float(view.asnumpy().sum())
6.0
>>> mx.nd.array([1.4, 2.6]).rint().asnumpy()
array([1., 3.], dtype=float32)
"""
from .. import imperative as _imperative
from ..device import Device
from .indexing import slice_is_contiguous
from .ndarray import NDArray, _delegate, array
from .serialization import from_raw_bytes, raw_bytes

__all__ = ["install"]

# MXNet 1.x / 2.0 NDArray's fluent methods (``op.<name>(self, ...)``) not on every array already
FLUENT = ("broadcast_axes", "pad", "split_v2", "slice_like", "argmax_channel", "shape_array",
          "size_array", "depth_to_space", "space_to_depth", "nansum", "nanprod", "rint", "fix",
          "trunc", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "degrees", "radians", "sinh",
          "cosh", "arcsinh", "arccosh", "arctanh", "expm1", "log10", "log2", "log1p",
          "log_sigmoid", "rsqrt", "cbrt", "rcbrt", "reciprocal", "softmin", "mish")


def _shared_view(arr, shape):
    """An array of ``shape`` over ``arr``'s data and engine variable (MXNet's ``inplace=True``)."""
    view = arr.detach()
    view._data = view._data.reshape(shape)
    view._shape = tuple(shape)
    return view


def _viewable(name):
    """The legacy method ``name`` with ``inplace``: a copy by default, a view when True."""
    copying = _delegate(name)

    def method(self, *args, inplace=False, **kwargs):
        result = copying(self, *args, **kwargs)
        if inplace and self._flavour == "nd" and not _imperative.STATE.deferred:
            return _shared_view(self, result.shape)   # NOTE: a traced graph records the op
        return result
    method.__name__ = name
    method.__doc__ = (f"``mx.nd.{name}(self, ...)``; with ``inplace=True`` a view sharing this "
                      "array's data.")
    return method


def _getstate(self):
    """MXNet's pickled form: ``{'handle': bytearray}`` holding the array in its binary format
    (plain data: unpickling one runs no code of the file's)."""
    return {"handle": bytearray(raw_bytes(self.asnumpy(), self._flavour == "np"))}


def _setstate(self, state):
    if getattr(self, "_var", None) is not None:
        self.wait_to_read()     # NOTE: a pending op of the old value must not write after us
    host = from_raw_bytes(state["handle"])
    fresh = array(host, dtype=host.dtype, device=Device("cpu", 0), cls=type(self))
    for slot in _SLOTS:
        setattr(self, slot, getattr(fresh, slot))


_SLOTS = [slot for slot in NDArray.__slots__ if slot != "__weakref__"]


def install(cls=NDArray):
    """Give ``cls`` (``NDArray``) the methods."""
    for name in FLUENT:
        if not hasattr(cls, name):
            setattr(cls, name, _delegate(name))
    for name in ("flatten", "squeeze", "expand_dims"):
        setattr(cls, name, _viewable(name))
    cls.__getstate__, cls.__setstate__ = _getstate, _setstate
    # NOTE: MXNet's helper deciding which basic keys give views (its tests call it)
    cls._basic_indexing_slice_is_contiguous = staticmethod(slice_is_contiguous)
