"""``mxnet.operator``: mxlab's :mod:`mxlab.operator` (Python custom operators, MXNet's deprecated
PythonOp/NumpyOp/NDArrayOp, the op listing and argument descriptions)."""
from ...operator import (CustomOp, CustomOpProp, NDArrayOp, NumpyOp,  # noqa: F401
                         OperatorArguments, PythonOp, get_all_registered_operators,
                         get_all_registered_operators_grouped, get_operator_arguments, register)

__all__ = ["CustomOp", "CustomOpProp", "NDArrayOp", "NumpyOp", "PythonOp", "register",
           "get_all_registered_operators", "get_all_registered_operators_grouped",
           "OperatorArguments", "get_operator_arguments"]
