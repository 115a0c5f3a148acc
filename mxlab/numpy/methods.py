"""``mx.np.ndarray`` methods of MXNet 2.0 that legacy ``NDArray`` objects lack (``diagonal``,
``mT``, the array-API ``__array_namespace__``, the ``&``/``|``/``^`` operators), installed when
``mx.np`` is imported.

Example
-------
>>> import mxlab as mx
>>> a = mx.np.arange(6).reshape(1, 2, 3)
>>> a.mT.shape, a.diagonal(axis1=1, axis2=2).shape
((1, 3, 2), (1, 2))
>>> a.__array_namespace__() is mx.np
True
"""
import datetime
import sys

from ..base import MXNetValueError
from ..ndarray.ndarray import _delegate

__all__ = ["install"]


def _np():
    return sys.modules[__name__.rpartition(".")[0]]


def diagonal(self, offset=0, axis1=0, axis2=1):
    """Same as ``mx.np.diagonal(self, ...)``."""
    return _np().diagonal(self, offset=offset, axis1=axis1, axis2=axis2)


def _matrix_transpose(self):
    """The last two axes swapped (MXNet 2.0's ``mT``, from the array API)."""
    if self.ndim < 2:
        raise MXNetValueError("x must be at least 2-dimensional for matrix_transpose")
    return _np().swapaxes(self, -1, -2)


def _is_array_api_2021(version):
    """Whether ``version`` is a valid ``YYYY.MM`` date in 2021 (the array API MXNet follows)."""
    try:
        return datetime.datetime.strptime(version, "%Y.%m").year == 2021
    except (TypeError, ValueError):
        return False


def array_namespace(self, api_version=None):
    """The array-API namespace of these arrays: ``mx.np`` (API versions 2021.xx, as MXNet)."""
    if api_version is not None and not _is_array_api_2021(api_version):
        raise MXNetValueError(f"Unrecognized array API version: {api_version!r}")
    return _np()


def _bitwise(name, reflected):
    """``a & b`` and the like: mx.np's ``bitwise_*`` (logical on bool arrays)."""
    def operator(self, other):
        return getattr(_np(), name)(*((other, self) if reflected else (self, other)))
    operator.__name__ = f"__{'r' if reflected else ''}{name[8:]}__"
    return operator


def install(cls):
    """Give ``cls`` (``mx.np.ndarray``) the methods."""
    cls.diagonal = diagonal
    cls.mT = property(_matrix_transpose)
    cls.__array_namespace__ = array_namespace
    for name in ("all", "any"):      # NOTE: not legacy methods: np.all(nd_array) converts it
        setattr(cls, name, _delegate(name))
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        setattr(cls, f"__{name[8:]}__", _bitwise(name, False))
        setattr(cls, f"__r{name[8:]}__", _bitwise(name, True))
