"""``mx.sym.contrib``: MXNet's contrib ops as symbol functions (``_contrib_<name>`` as
``<name>``). The symbolic control-flow ops (``foreach``, ``while_loop``, ``cond``) are not built.

Example
-------
>>> import mxlab as mx
>>> mx.sym.contrib.quadratic(mx.sym.var('x'), a=1.0).infer_shape(x=(2,))[1]
[(2,)]
"""
from ..ndarray.contrib import NOT_BUILT as _NOT_BUILT
from ..ops.registry import get_op as _get_op
from ..ops.registry import list_ops as _list_ops
from .frontend import make_symbol_frontend as _make
from .symbol import Symbol as _Symbol

_SYMBOLIC_CONTROL_FLOW = ("foreach", "while_loop", "cond")

for _name in _list_ops():
    if _name.startswith("_contrib_"):
        globals()[_name[len("_contrib_"):]] = _make(_Symbol)(_get_op(_name), _name)


def __getattr__(name):
    if name in _NOT_BUILT or name in _SYMBOLIC_CONTROL_FLOW:
        raise NotImplementedError(f"sym.contrib.{name} is not built in mxlab (see "
                                  "docs/compat.md; mx.nd.contrib has the imperative control flow)")
    raise AttributeError(f"module 'mxlab.symbol.contrib' has no attribute {name!r}")
