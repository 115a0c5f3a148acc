"""``mx.npx``: MXNet operators with NumPy-style arrays (activations, nn layers, MXNet-specific
helpers)."""
import numpy

from ..atomic_file import atomic_write as _atomic_write
from .. import ops as _ops  # noqa: F401  (registers every op family)
from ..ndarray.frontend import make_array_frontend as _make_array_frontend
from ..ndarray import ndarray as _ndarray_module
from ..ndarray.ndarray import ndarray as _ndarray
from ..ndarray.namespace import populate_namespace as _populate

_populate(globals(), "npx", _make_array_frontend(_ndarray))
_ndarray_module._namespaces["npx"] = __import__(__name__, fromlist=["_"])


def save(file, arr):
    """Save ``mx.np`` arrays. One array goes to NumPy's ``.npy`` format as in MXNet 2.0 (readable by
    ``numpy.load``); a list or dict goes to MXNet's format with NumPy shape semantics."""
    from ..ndarray.ndarray import NDArray
    if isinstance(arr, NDArray):
        host = arr.asnumpy()
        with _atomic_write(file, "wb") as handle:
            numpy.save(handle, host)
        return
    from ..ndarray.serialization import save as _save
    _save(file, arr, np_semantics=True)


def savez(file, *args, **kwds):
    """Save arrays into one uncompressed NumPy ``.npz`` file at exactly ``file`` (MXNet 2.0):
    positional arrays as ``arr_0``, ``arr_1``, ..., keyword arrays under their names."""
    from ..base import MXNetTypeError, MXNetValueError
    from ..ndarray.ndarray import NDArray
    named = dict(kwds)
    for i, value in enumerate(args):
        if f"arr_{i}" in named:
            raise MXNetValueError(f"savez: naming conflict between argument {i} and keyword "
                                  f"'arr_{i}'")
        named[f"arr_{i}"] = value
    bad = [k for k, v in named.items() if not isinstance(v, NDArray)]
    if bad:
        raise MXNetTypeError(f"savez: only accepts arrays, got {bad} of other types")
    from ..ndarray.serialization import npz_entries
    entries = {}
    for key, value in named.items():
        entries.update(npz_entries(key, value))
    with _atomic_write(file, "wb") as handle:
        numpy.savez(handle, **entries)


def load(file, device=None):
    """Load arrays saved by :func:`save`, :func:`savez` or real MXNet as ``mx.np`` arrays: a
    ``.npy`` file gives its array, an ``.npz`` file or a named MXNet file a dict, an unnamed
    MXNet file a list."""
    from ..ndarray.serialization import load as _load
    with open(file, "rb") as handle:
        is_npy = handle.read(6) == b"\x93NUMPY"
    loaded = _load(file, device=device, cls=_ndarray)
    return loaded[0] if is_npy else loaded


from ..util import is_np_array, is_np_shape, reset_np, set_np, use_np  # noqa: E402,F401
from .utils import *  # noqa: E402,F401,F403
from . import random  # noqa: E402,F401
from .random import scalar_poisson, tensor_poisson  # noqa: E402,F401  (MXNet's npx names)
from . import image  # noqa: E402,F401

_deconvolution_op = globals()["deconvolution"]


def deconvolution(data=None, weight=None, bias=None, kernel=None, stride=None, dilate=None,
                  pad=None, adj=None, target_shape=None, num_filter=1, num_group=1,
                  workspace=1024, no_bias=None, cudnn_tune=None, cudnn_off=False, layout=None,
                  **kwargs):
    """MXNet 2.0's ``npx.deconvolution``: ``bias`` is the third input, used unless ``no_bias``
    (which defaults to whether ``bias`` is missing; the legacy ``Deconvolution`` has no bias
    unless told)."""
    from ..base import MXNetValueError
    no_bias = bias is None if no_bias is None else no_bias
    if (bias is None) != bool(no_bias):
        raise MXNetValueError(f"deconvolution: no_bias={no_bias} but bias is "
                              f"{'missing' if bias is None else 'given'}")
    attrs = {"kernel": kernel, "stride": stride, "dilate": dilate, "pad": pad, "adj": adj,
             "target_shape": target_shape, "cudnn_tune": cudnn_tune, "layout": layout}
    attrs = {k: v for k, v in attrs.items() if v is not None}
    inputs = [data, weight] + ([] if no_bias else [bias])
    return _deconvolution_op(*inputs, num_filter=num_filter, num_group=num_group,
                             workspace=workspace, no_bias=bool(no_bias), cudnn_off=cudnn_off,
                             **attrs, **kwargs)
