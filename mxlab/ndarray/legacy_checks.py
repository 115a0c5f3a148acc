"""MXNet 1.x shape checks that only the legacy ``mx.nd`` frontends make.

Outside NumPy shape mode MXNet reads a 0 dim as "unknown", so an op whose shape inference meets
one fails; ``mx.np`` (and ``mx.nd`` under ``mx.np_shape()``) takes 0 as a zero-size dim. The
kernels are shared by both flavours, so these checks run in the ``mx.nd`` frontends of the ops
listed here, before the op is invoked (see :func:`mxlab.ndarray.frontend.make_array_frontend`).

Example
-------
>>> import mxlab as mx
>>> mx.nd.tile(mx.nd.ones((2, 2)), reps=(1, 0))
Traceback (most recent call last):
...
mxlab.base.MXNetValueError: Operator tile inferring shapes failed: reps (1, 0) has a 0, ...
"""
from ..base import MXNetValueError
from ..util import is_np_shape

__all__ = ["LEGACY_CHECKS"]


def _failed(op_name, what):
    return MXNetValueError(f"Operator {op_name} inferring shapes failed: {what}, which means "
                           "unknown outside NumPy shape mode (use mx.np_shape() for zero-size "
                           "results)")


def _no_zero_dim(op_name, inputs, attrs):
    for x in inputs:
        if 0 in x.shape:
            raise _failed(op_name, f"the input shape {x.shape} has a 0")


def _tile(op_name, inputs, attrs):
    reps = attrs.get("reps") or ()
    if 0 in tuple(reps):
        raise _failed(op_name, f"reps {tuple(reps)} has a 0")


def _diag(op_name, inputs, attrs):
    """A 2-D input's diagonal ``k`` must exist (MXNet 1.x; ``np.diag`` gives an empty one)."""
    if inputs and inputs[0].ndim == 2:
        rows, cols = inputs[0].shape
        k = attrs.get("k", 0)
        if k > cols or -k > rows:
            raise MXNetValueError(f"diag: Diagonal does not exist: k={k} for a "
                                  f"{rows}x{cols} matrix")


# op name -> check(op name, input arrays, parsed attrs), run when NumPy shape mode is off
LEGACY_CHECKS = {"tile": _tile, "depth_to_space": _no_zero_dim, "space_to_depth": _no_zero_dim,
                 "diag": _diag}


def checked(op, frontend, bind):
    """``frontend`` running ``op``'s legacy check first (outside NumPy shape mode); ``bind(args,
    kwargs)`` splits a call into input arrays and attribute keywords."""
    check = LEGACY_CHECKS[op.name]

    def run(*args, **kwargs):
        if not is_np_shape():
            inputs, attr_kwargs = bind(args, kwargs)
            attr_kwargs = {k: v for k, v in attr_kwargs.items()
                           if k not in ("out", "name", "ctx", "device")}
            check(op.name, inputs, op.parse_attrs(attr_kwargs))
        return frontend(*args, **kwargs)
    run.__name__, run.__qualname__, run.__doc__ = (frontend.__name__, frontend.__qualname__,
                                                   frontend.__doc__)
    return run
