"""Nested inputs and outputs of hybridized blocks: flattened to a list plus a format, and regrouped
(MXNet's ``_flatten``/``_regroup``).

Example
-------
>>> import mxlab as mx
>>> flat, fmt = _flatten([mx.nd.ones(1), [mx.nd.ones(1), None]], "input")
>>> len(flat), fmt
(3, [0, [0, -1]])
>>> _regroup(flat, fmt)[1][1] is None
True
"""
import inspect

from ..base import MXNetTypeError, MXNetValueError
from ..ndarray.ndarray import NDArray
from ..symbol.symbol import Symbol

__all__ = []


def _flatten(args, what):
    """``(flat list, format)``: format 0 is one array, -1 is None, a list is a nested sequence."""
    if isinstance(args, (NDArray, Symbol)):
        return [args], 0
    if args is None:
        return [None], -1
    if not isinstance(args, (list, tuple)):
        raise MXNetValueError(
            f"When hybridized, the {what} of HybridBlock must be (nested) list of Symbol or "
            f"NDArray, but got {args} of type {type(args)}"
        )
    flat, fmts = [], []
    for arg in args:
        items, fmt = _flatten(arg, what)
        flat.extend(items)
        fmts.append(fmt)
    return flat, fmts


def _leaves(args):
    if isinstance(args, (list, tuple)):
        return [leaf for arg in args for leaf in _leaves(arg)]
    return [args]


class MixedInputsError(MXNetTypeError, ValueError):
    """NDArrays and Symbols in one HybridBlock call: a TypeError, and the ValueError MXNet 1.x
    raised for it."""


def needs_inputs(block, base_forward):
    """Whether ``block``'s ``forward`` cannot run without inputs (or is ``base_forward``, the
    unimplemented one). MXNet 2.0 keeps weak references in ``Block._children``, so its code calls
    an entry to get the child (``for c in self._children.values(): c()(x)``); mxlab keeps the
    child itself, as MXNet 1.x does (``_children[...] is child``), so calling such a block with
    no inputs gives the block back."""
    forward = type(block).forward
    if forward is base_forward:
        return True
    try:
        inspect.signature(block.forward).bind()
    except TypeError:
        return True
    return False


def check_array_inputs(args):
    """MXNet 2.0's rule for calling a HybridBlock on arrays: at least one array among the
    (nested) inputs, and no symbol mixed in."""
    if args and all_arrays(args):
        return
    leaves = _leaves(args)
    if any(isinstance(x, Symbol) for x in leaves):
        raise MixedInputsError("HybridBlock inputs mix NDArrays and Symbols: call it with arrays "
                               "only, or with symbols only (Gluon 1 blocks)")
    if not any(isinstance(x, NDArray) for x in leaves):
        raise MXNetValueError("In HybridBlock, there must be one NDArray in the input. Please "
                              "check the type of the args.")


def all_arrays(args):
    """Whether every item of the flat sequence ``args`` is an NDArray (the common call, checked
    without walking a nested structure)."""
    for x in args:
        if not isinstance(x, NDArray):
            return False
    return True


def check_symbol_inputs(args):
    """MXNet 1.x's rule for calling a HybridBlock on symbols: no array mixed in."""
    if any(isinstance(x, NDArray) for x in _leaves(args)):
        raise MixedInputsError("HybridBlock inputs mix Symbols and NDArrays: call it with symbols "
                               "only, or with arrays only")


def check_np_outputs(out):
    """MXNet's rule for a block called in NumPy mode: every output array is an ``mx.np`` array
    (``as_nd_ndarray()`` results raise TypeError)."""
    from ..util import is_np_array
    if not is_np_array():
        return
    for x in _leaves(out):
        if isinstance(x, NDArray) and x._flavour != "np" or \
                isinstance(x, Symbol) and not x._namespace_name.endswith("numpy"):
            raise MXNetTypeError("Block's output ndarrays/symbols must be of type "
                                 "`mxnet.numpy.ndarray` or `mxnet.symbol.numpy._Symbol`, while "
                                 f"got output type {type(x)}")


def same_but_trailing_nones(fmt, stored):
    """Whether two input formats differ only by trailing None arguments (a default left out
    one time and passed as None another: MXNet runs both on the cached graph)."""
    if not isinstance(fmt, list) or not isinstance(stored, list):
        return False
    short, long = sorted((fmt, stored), key=len)
    return long[:len(short)] == short and all(f == -1 for f in long[len(short):])


def data_names(count):
    """The input variables' names of a traced or composed block: ``data``, or ``data0``, ..."""
    return ["data"] if count == 1 else [f"data{i}" for i in range(count)]


def namespace(x):
    """``F`` of ``hybrid_forward``: ``mx.sym`` for symbols, else ``mx.nd``."""
    from .. import ndarray as nd, symbol as sym

    return sym if isinstance(x, Symbol) else nd


def _regroup(args, fmt):
    """Inverse of :func:`_flatten`."""
    def merge(rest, fmt):
        if isinstance(fmt, int):
            return (None if fmt == -1 else rest[0]), rest[1:]
        out = []
        for item in fmt:
            value, rest = merge(rest, item)
            out.append(value)
        return out, rest

    return merge(list(args), fmt)[0]
