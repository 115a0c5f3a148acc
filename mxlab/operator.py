"""``mx.operator``: Python custom operators (MXNet's ``CustomOp`` / ``CustomOpProp`` /
``register``) and the op listing MXNet's tests call.

Example
-------
>>> import mxlab as mx
>>> class Twice(mx.operator.CustomOp):
...     def forward(self, is_train, req, in_data, out_data, aux):
...         self.assign(out_data[0], req[0], in_data[0] * 2)
...     def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
...         self.assign(in_grad[0], req[0], out_grad[0] * 2)
>>> @mx.operator.register("doc_twice")
... class TwiceProp(mx.operator.CustomOpProp):
...     def create_operator(self, ctx, in_shapes, in_dtypes):
...         return Twice()
>>> x = mx.nd.array([1.0, 2.0])
>>> x.attach_grad()
>>> with mx.autograd.record():
...     y = mx.nd.Custom(x, op_type="doc_twice")
>>> y.backward()
>>> y.asnumpy().tolist(), x.grad.asnumpy().tolist()
([2.0, 4.0], [2.0, 2.0])
"""
import collections

from .executor.custom_op import CustomOp, CustomOpProp, register, registered_op_types
from .executor.python_op import NDArrayOp, NumpyOp, PythonOp
from .ops import registry

__all__ = ["CustomOp", "CustomOpProp", "register", "registered_op_types", "PythonOp", "NumpyOp",
           "NDArrayOp",
           "get_all_registered_operators", "get_all_registered_operators_grouped",
           "OperatorArguments", "get_operator_arguments"]


def get_all_registered_operators():
    """The names of every registered op (MXNet lists its C++ registry the same way)."""
    return sorted(registry.list_ops())


def get_all_registered_operators_grouped():
    """Op names grouped by their name without a leading ``_backward_``/``_`` (MXNet's grouping
    of an op with its backward and private spellings)."""
    groups = collections.defaultdict(list)
    for name in get_all_registered_operators():
        groups[name.removeprefix("_backward_").lstrip("_")].append(name)
    return dict(groups)


OperatorArguments = collections.namedtuple("OperatorArguments", ["narg", "names", "types"])

# MXNet's (dmlc parameter) type names for mxlab's attribute kinds.
_KIND_NAMES = {"int": "int", "float": "float", "bool": "boolean", "shape": "Shape(tuple)",
               "axis": "int or Shape(tuple)", "dtype": "dtype", "str": "string",
               "floats": "tuple of <float>", "any": "any", "scalar": "double"}


def _attr_type(attr):
    """MXNet's description of one parameter: ``"{'relu', 'tanh'}, required"``,
    ``"boolean, optional, default=0"``."""
    if attr.choices:
        names = sorted(repr(c) for c in attr.choices)
        kind = "{" + ", ".join((["None"] if attr.optional else []) + names) + "}"
    else:
        kind = _KIND_NAMES[attr.kind] + (" or None" if attr.optional else "")
    if attr.default is registry.REQUIRED:
        return kind + ", required"
    default = attr.default
    if isinstance(default, bool):
        default = int(default)
    elif isinstance(default, tuple):
        default = list(default)
    return f"{kind}, optional, default={default}"


def get_operator_arguments(op_name):
    """An op's arguments as MXNet lists them: ``OperatorArguments(narg, names, types)``, the
    array inputs (``NDArray-or-Symbol``; ``NDArray-or-Symbol[]`` for a variable count) first,
    then the parameters.

    Examples
    --------
    >>> get_operator_arguments("Reshape").names[:3]
    ['data', 'shape', 'reverse']
    """
    op = registry.get_op(op_name)
    inputs, input_type = ["args"], "NDArray-or-Symbol[]"
    try:   # NOTE: an op whose inputs depend on its parameters lists them for the defaults
        inputs, input_type = list(op.get_input_names(dict(op._defaults))), "NDArray-or-Symbol"
    except (KeyError, TypeError, ValueError):   # NOTE: a required count (num_args): variadic
        pass
    names = inputs + [a.name for a in op.attrs]
    types = [input_type] * len(inputs) + [_attr_type(a) for a in op.attrs]
    return OperatorArguments(len(names), names, types)
