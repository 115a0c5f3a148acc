"""``mx.sym.contrib``: MXNet's contrib ops as symbol functions (``_contrib_<name>`` as
``<name>``) and the symbolic control flow ``foreach``, ``while_loop`` and ``cond`` (one subgraph
node each, see :mod:`mxlab.symbol.control_flow`).

Example
-------
>>> import mxlab as mx
>>> mx.sym.contrib.quadratic(mx.sym.var('x'), a=1.0).infer_shape(x=(2,))[1]
[(2,)]
"""
import math as _math

from ..ndarray.contrib import NOT_BUILT as _NOT_BUILT
from ..ndarray.contrib import _like_optional
from ..ndarray.contrib import zipfian_expected as _zipfian_expected
from ..ndarray.namespace import populate_prefixed as _populate_prefixed
from .control_flow import cond, foreach, while_loop  # noqa: F401
from .frontend import make_symbol_frontend as _make
from .symbol import Symbol as _Symbol

_populate_prefixed(globals(), "_contrib_",
                   lambda op, public: _make(_Symbol)(op, op.name))
BilinearResize2D = _like_optional(globals()["BilinearResize2D"])


def rand_zipfian(true_classes, num_sampled, range_max):
    """Symbolic :func:`mxlab.ndarray.contrib.rand_zipfian`: ``[sampled, expected count of the
    true classes, expected count of the sampled ones]``."""
    from .random import uniform
    log_range = _math.log(range_max + 1)
    rand = uniform(0, log_range, shape=(num_sampled,), dtype="float64")
    sampled = (rand.exp() - 1).astype("int64") % range_max
    return [sampled, *_zipfian_expected(true_classes, sampled, num_sampled, log_range)]


def __getattr__(name):
    if name in _NOT_BUILT:
        raise NotImplementedError(f"sym.contrib.{name} is not built in mxlab (see docs/compat.md)")
    raise AttributeError(f"module 'mxlab.symbol.contrib' has no attribute {name!r}")
