"""``mx.sym.image``: MXNet's image ops as symbol functions (``_image_<name>`` as ``<name>``).

Example
-------
>>> import mxlab as mx
>>> mx.sym.image.normalize(mx.sym.var('x'), mean=(0.5,), std=(2.0,)).infer_shape(x=(3, 4, 4))[1]
[(3, 4, 4)]
"""
from ..ndarray.image import not_built as _not_built
from ..ndarray.namespace import populate_prefixed as _populate_prefixed
from .frontend import make_symbol_frontend as _make
from .symbol import Symbol as _Symbol

_populate_prefixed(globals(), "_image_", lambda op, public: _make(_Symbol)(op, op.name))


def __getattr__(name):
    raise _not_built("mxlab.sym.image", name)
