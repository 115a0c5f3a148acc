"""``mx.nd.op``: MXNet's module of the generated op functions (the same functions as ``mx.nd``'s,
for code that spells ``mx.nd.op.<name>``).

Example
-------
>>> import mxlab as mx
>>> mx.nd.op.random_pdf_exponential is mx.nd.random_pdf_exponential
True
"""
import sys

from ..ops.registry import get_op, list_ops


def _copy_op_functions():
    # NOTE: runs at import from mxlab.ndarray's __init__, after its namespace is populated.
    parent = sys.modules[__name__.rpartition(".")[0]]
    names = {alias for name in list_ops() for alias in (name, *get_op(name).aliases)}
    for name in names:
        fn = getattr(parent, name, None)
        if callable(fn):
            globals()[name] = fn


_copy_op_functions()
