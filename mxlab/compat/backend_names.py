"""Private names of MXNet's C++-backed internals that MXNet's own tests and conftest read, given
to the mxlab objects only while the alias is installed (they mean nothing to mxlab itself)."""
from .. import ndarray as _ndarray_package
from .. import util as _util
from ..executor.cached_op import CachedOp  # noqa: F401 (attach() gives it to mx.nd by name)
from ..ndarray import ndarray as _ndarray_module
from ..ndarray.ndarray import NDArray

__all__ = ["attach"]

# MXNet's storage-type ids (include/mxnet/ndarray.h); mxlab arrays are all "default".
_STORAGE_TYPE_STR_TO_ID = {"undefined": -1, "default": 0, "row_sparse": 1, "csr": 2}


def _alive(self):
    """MXNet: the C++ handle is not freed yet. An mxlab array owns its memory as a plain Python
    object, so it is alive while it exists: an array kept only by a reference cycle is exactly
    the leak MXNet's conftest looks for."""
    return True


class _NumpyArrayScope(_util._Scope):
    """MXNet's class behind ``mx.np_array()`` (its thread-local tests build it directly)."""

    def __init__(self, is_np_array):
        super().__init__("array", is_np_array)

    @property
    def _is_np_array(self):
        return self._active


def attach():
    """Give mxlab's objects the MXNet-private names (idempotent)."""
    if not hasattr(NDArray, "_alive"):
        NDArray._alive = property(_alive)
    for module, name in ((_ndarray_module, "_STORAGE_TYPE_STR_TO_ID"),
                         (_util, "_NumpyArrayScope"),
                         (_ndarray_package, "CachedOp")):
        if not hasattr(module, name):
            setattr(module, name, globals()[name])
