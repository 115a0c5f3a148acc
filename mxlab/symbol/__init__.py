"""``mx.sym`` / ``mx.symbol``: symbolic graphs in MXNet's API, with every registered op as a
function.

``mx.sym.FullyConnected(data=x, num_hidden=4)`` adds a node (missing inputs become
``<node>_<input>`` variables); ``mx.sym.np`` and ``mx.sym.npx`` hold the NumPy-flavoured functions
and ``_Symbol``. Symbols read and write MXNet's JSON (:mod:`mxlab.symbol.json`), so models saved by
MXNet 1.x load here and back.

Example
-------
>>> import mxlab as mx
>>> y = mx.sym.FullyConnected(mx.sym.var('x') * 2, num_hidden=4, name='fc')
>>> y.list_arguments(), y.list_outputs()
(['x', 'fc_weight', 'fc_bias'], ['fc_output'])
"""

from .. import ops as _ops  # noqa: F401  (registers every op family)
from ..ndarray.namespace import populate_namespace as _populate
from ..ops.registry import register_dispatch as _register_dispatch
from . import frontend as _frontend
from . import symbol as _symbol_mod

_CORE = ("Symbol", "var", "Variable", "Group", "load", "load_json", "fromjson")
_HAND_WRITTEN = ("zeros", "ones", "full", "pow", "power", "maximum", "minimum", "hypot",
                 "split_v2", "histogram")

_populate(globals(), "sym", _frontend.make_symbol_frontend(_symbol_mod.Symbol))
_register_dispatch(_symbol_mod.Symbol, _symbol_mod.dispatch)
# NOTE: bound after populating: the core API and MXNet's hand-written functions win over ops.
globals().update({name: getattr(_symbol_mod, name) for name in _CORE})
globals().update({name: getattr(_frontend, name) for name in _HAND_WRITTEN})
from . import numpy as np  # noqa: E402
from . import numpy_extension as npx  # noqa: E402

__all__ = list(_CORE + _HAND_WRITTEN) + ["np", "npx", "random", "contrib", "image",
                                                  "linalg"]
from . import random  # noqa: E402,F401
from . import contrib  # noqa: E402,F401
from . import image  # noqa: E402,F401
from . import linalg  # noqa: E402,F401
from . import sparse  # noqa: E402,F401
