"""``mxnet.operator``: the op listing MXNet's tests call, and the Python custom-op classes.

mxlab has no Python custom-operator bridge (``mx.operator.register`` / ``mx.nd.Custom``): the
classes exist so code defining them imports, and registering one raises ``NotImplementedError``
naming it.
"""
import collections

from ...ops import registry

__all__ = ["CustomOp", "CustomOpProp", "NDArrayOp", "NumpyOp", "PythonOp", "register",
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


def _not_built(what):
    raise NotImplementedError(f"{what}: Python custom operators are not built in mxlab; write the "
                              "computation with mx.nd / mx.np ops (autograd differentiates it) "
                              "or a gluon HybridBlock")


class PythonOp:
    """MXNet 0.x's Python op base; instantiating it raises ``NotImplementedError``."""

    def __init__(self, *args, **kwargs):
        _not_built(f"mx.operator.{type(self).__name__}")


class NumpyOp(PythonOp):
    """See :class:`PythonOp`."""


class NDArrayOp(PythonOp):
    """See :class:`PythonOp`."""


class CustomOp:
    """Base class of a custom op's computation (``forward``/``backward``/``assign``)."""

    def forward(self, is_train, req, in_data, out_data, aux):
        raise NotImplementedError("CustomOp.forward must be overridden")

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        raise NotImplementedError("CustomOp.backward must be overridden")

    def assign(self, dst, req, src):
        """Write ``src`` into ``dst`` as ``req`` says ('write', 'inplace', 'add', 'null')."""
        if req in ("write", "inplace"):
            dst[:] = src
        elif req == "add":
            dst[:] = dst + src


class CustomOpProp:
    """Base class of a custom op's properties (arguments, outputs, shapes, the op itself)."""

    def __init__(self, need_top_grad=True):
        self.need_top_grad_ = need_top_grad

    def list_arguments(self):
        return ["data"]

    def list_outputs(self):
        return ["output"]

    def list_auxiliary_states(self):
        return []

    def infer_shape(self, in_shape):
        return in_shape, (in_shape[0],) * len(self.list_outputs()), ()


def register(reg_name):
    """``@mx.operator.register(name)``: raises ``NotImplementedError`` naming the op."""
    def do_register(prop_cls):
        _not_built(f"mx.operator.register({reg_name!r}) ({prop_cls.__name__})")
    return do_register
