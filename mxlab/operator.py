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
           "get_all_registered_operators", "get_all_registered_operators_grouped"]


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
