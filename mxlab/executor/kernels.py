"""How one op of a planned program is called on its buffers: the decisions taken once per node
(a NumPy ufunc with a positional ``out``, the op's ``compute_into``, or
:func:`~mxlab.ops.registry.run_kernel` with the write requests), so a bound kernel is one call.

Example
-------
>>> import numpy
>>> from mxlab.ops.registry import OpReq, get_op
>>> a, out = numpy.array([0.0, 1.0], "float32"), numpy.empty(2, "float32")
>>> kernel = bind_kernel(get_op("tanh"), numpy, [a], {}, [out], [OpReq.WRITE],
...                      ["float32", "float32"])
>>> kernel() is out     # one ufunc call writing the planned buffer
True
>>> [round(float(v), 3) for v in out]
[0.0, 0.762]
"""
import functools

import numpy

from ..ops.registry import OpReq, run_kernel

__all__ = ["kernel_caller", "direct_ufunc", "bind_kernel"]

# NOTE: NumPy deprecates a positional ``out`` for these two; they keep the op's compute_into.
_NO_POSITIONAL_OUT = frozenset({"maximum", "minimum"})


# -- kernels ---------------------------------------------------------------------------------------
def _float_ufunc(op, num_inputs, num_outputs, dtypes):
    """(ufunc name, None, None) or (None, scalar ufunc name, scalar first) for a float op that is
    exactly one ufunc, else None."""
    if num_outputs != 1 or not all(d is not None and numpy.dtype(d).kind == "f" for d in dtypes):
        return None
    if len(set(dtypes)) != 1 or op.ufunc is None or op.ufunc in _NO_POSITIONAL_OUT:
        return None
    if op.ufunc_scalar is not None:
        return None, op.ufunc, op.ufunc_scalar == "lhs"
    ufunc = getattr(numpy, op.ufunc, None)
    if isinstance(ufunc, numpy.ufunc) and ufunc.nin == num_inputs:
        return op.ufunc, None, None
    return None


def kernel_caller(op, xp, attrs, reqs, dtypes, num_inputs):
    """``(fn, arrange)``: ``fn(*arrange(ins, outs))`` runs ``op`` from arrays ``ins`` into
    ``outs``, every decision (ufunc or not, the scalar as a 0-d array) taken once here.

    ``dtypes`` are the input and output dtypes (names); they decide whether the direct ufunc path
    is exact.
    """
    plain = all(r in (OpReq.WRITE, OpReq.INPLACE) for r in reqs) and not op.takes_ctx
    ufunc = direct_ufunc(op, xp, attrs, reqs, dtypes, num_inputs)
    if ufunc is not None:
        fn, scalar, first = ufunc
        if scalar is None:
            return fn, _ufunc_args
        if first:
            return fn, lambda ins, outs: (scalar, ins[0], outs[0])
        return fn, lambda ins, outs: (ins[0], scalar, outs[0])
    if plain and op.compute_into is not None:
        return op.compute_into, lambda ins, outs: (xp, ins, attrs, outs)
    if plain:   # NOTE: errors are translated by BoundSegment._raise_for (re-run via run_kernel)
        return _compute_then_copy, lambda ins, outs: (op.compute, xp, ins, attrs, outs)
    if _skips_null(op, reqs):
        skip = [r == OpReq.NULL for r in reqs]
        return op.compute_into, lambda ins, outs: (
            xp, ins, attrs, [None if s else out for s, out in zip(skip, outs)])
    reqs = list(reqs)
    return run_kernel, lambda ins, outs: (op, xp, ins, attrs, outs, reqs)


def direct_ufunc(op, xp, attrs, reqs, dtypes, num_inputs):
    """``(ufunc, scalar, scalar first)`` when ``op`` runs as one NumPy ufunc call with a
    positional ``out`` (``scalar`` None: the ufunc takes the inputs as they are), else None."""
    plain = all(r in (OpReq.WRITE, OpReq.INPLACE) for r in reqs) and not op.takes_ctx
    # NOTE: direct ufuncs with a positional ``out`` on NumPy only (not verified on CuPy yet; GPU
    #   kernels cost far more than the Python call this saves).
    fast = _float_ufunc(op, num_inputs, len(reqs), dtypes) if plain and xp is numpy else None
    if fast is None:
        return None
    unary, name, first = fast
    if unary is not None:
        return getattr(xp, unary), None, None
    return getattr(xp, name), xp.asarray(attrs["scalar"], dtype=dtypes[0]), first


def _compute_then_copy(compute, xp, ins, attrs, outs):
    """An op without ``compute_into``: its kernel, then each result copied into its buffer (what
    ``Op.forward`` does for write requests, without its dispatch)."""
    results = compute(xp, ins, attrs)
    if not isinstance(results, (tuple, list)):
        results = (results,)
    for buf, res in zip(outs, results):
        if buf is not res:
            xp.copyto(buf, res, casting="unsafe")


def _skips_null(op, reqs):
    """Whether ``op``'s ``compute_into`` takes None for outputs nobody reads (``skips_none``,
    e.g. ``_backward_FullyConnected``) and every other output is simply written."""
    into = op.compute_into
    return (into is not None and getattr(into, "skips_none", False) and not op.takes_ctx
            and all(r in (OpReq.WRITE, OpReq.INPLACE, OpReq.NULL) for r in reqs))


def _ufunc_args(ins, outs):
    return (*ins, outs[0])


def bind_kernel(op, xp, ins, attrs, outs, reqs, dtypes):
    """A zero-argument callable running ``op`` from arrays ``ins`` into arrays ``outs``."""
    fn, arrange = kernel_caller(op, xp, attrs, reqs, dtypes, len(ins))
    return functools.partial(fn, *arrange(list(ins), list(outs)))
