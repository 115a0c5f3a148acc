"""``mx.npx.image``: MXNet 2.0's image ops on ``mx.np`` arrays (``_image_<name>`` as ``<name>``).

Example
-------
>>> import mxlab as mx
>>> mx.npx.image.flip_left_right(mx.np.array([[[1.0], [2.0]]])).reshape(-1)
array([2., 1.])
"""
from ..ndarray.frontend import make_array_frontend as _make_array_frontend
from ..ndarray.image import not_built as _not_built
from ..ndarray.namespace import populate_prefixed as _populate_prefixed
from ..ndarray.ndarray import ndarray as _ndarray

_populate_prefixed(globals(), "_image_", _make_array_frontend(_ndarray))


def __getattr__(name):
    raise _not_built("mxlab.npx.image", name)
