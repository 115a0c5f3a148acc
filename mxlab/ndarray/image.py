"""``mx.nd.image``: MXNet's image ops on NDArrays (every registered ``_image_<name>`` as
``<name>``; see :mod:`mxlab.ops.image`). Ops mxlab does not build raise ``NotImplementedError``.

Example
-------
>>> import mxlab as mx
>>> mx.nd.image.to_tensor(mx.nd.ones((4, 5, 3), dtype='uint8')).shape
(3, 4, 5)
"""
from .frontend import make_array_frontend as _make_array_frontend
from .namespace import populate_prefixed as _populate_prefixed
from .ndarray import NDArray as _NDArray

__all__ = ["NOT_BUILT", "not_built"]

# NOTE: image ops MXNet code reaches for that mxlab does not build (see docs/compat.md).
NOT_BUILT = ()

_populate_prefixed(globals(), "_image_", _make_array_frontend(_NDArray))


def not_built(namespace, name):
    """The error for ``namespace.<name>`` when ``name`` is an image op mxlab leaves out."""
    if name in NOT_BUILT:
        return NotImplementedError(f"{namespace}.{name} is not built in mxlab (see "
                                   f"docs/compat.md)")
    return AttributeError(f"module '{namespace}' has no attribute {name!r}")


def __getattr__(name):
    raise not_built("mxlab.nd.image", name)
