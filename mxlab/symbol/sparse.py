"""``mx.sym.sparse``: MXNet's sparse symbol namespace. Graph arrays are dense in mxlab, so each
name is the ``mx.sym`` op of that name (``mx.sym.sparse.elemwise_add`` is ``mx.sym.elemwise_add``);
a variable's ``stype`` is kept as MXNet's ``__storage_type__`` attribute.

Example
-------
>>> import mxlab as mx
>>> mx.sym.sparse.dot is mx.sym.dot
True
"""


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    from .. import symbol
    try:
        return getattr(symbol, name)
    except AttributeError:
        raise AttributeError(f"module 'mxlab.symbol.sparse' has no attribute {name!r}") from None
