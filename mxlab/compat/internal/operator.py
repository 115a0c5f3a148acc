"""``mxnet.operator``: mxlab's :mod:`mxlab.operator` (Python custom operators, MXNet's deprecated
PythonOp/NumpyOp/NDArrayOp, the op listing)."""
from ...operator import (CustomOp, CustomOpProp, NDArrayOp, NumpyOp, PythonOp,  # noqa: F401
                         get_all_registered_operators, get_all_registered_operators_grouped,
                         register)

__all__ = ["CustomOp", "CustomOpProp", "NDArrayOp", "NumpyOp", "PythonOp", "register",
           "get_all_registered_operators", "get_all_registered_operators_grouped"]
