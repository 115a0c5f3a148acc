"""``mxnet.operator``: mxlab's :mod:`mxlab.operator` (Python custom operators, the op listing),
plus MXNet 0.x's Python op classes, which are not built."""
from ...operator import (CustomOp, CustomOpProp, get_all_registered_operators,  # noqa: F401
                         get_all_registered_operators_grouped, register)

__all__ = ["CustomOp", "CustomOpProp", "NDArrayOp", "NumpyOp", "PythonOp", "register",
           "get_all_registered_operators", "get_all_registered_operators_grouped"]


class PythonOp:
    """MXNet 0.x's Python op base (removed in MXNet 2); instantiating it raises
    ``NotImplementedError``."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"mx.operator.{type(self).__name__}: MXNet 0.x's Python ops are "
                                  "not built in mxlab; subclass mx.operator.CustomOp and "
                                  "CustomOpProp instead")


class NumpyOp(PythonOp):
    """See :class:`PythonOp`."""


class NDArrayOp(PythonOp):
    """See :class:`PythonOp`."""
