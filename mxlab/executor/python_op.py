"""MXNet's deprecated ``mx.operator.PythonOp`` / ``NumpyOp`` / ``NDArrayOp`` (MXNet's ``_Native``
and ``_NDArray`` ops), built on the custom operators of :mod:`.custom_op`.

``op.get_symbol(*symbols, name=...)`` files the instance as a custom op of its own (``op_type``
``_<Class>_<n>``) and returns its ``Custom`` node; ``forward(in_data, out_data)`` and
``backward(out_grad, in_data, out_data, in_grad)`` get NumPy arrays (``NumpyOp``) or NDArrays
(``NDArrayOp``). A symbol file of such a node names its op_type, which only this process knows
(MXNet writes a pointer there).
"""
import itertools
import warnings

from .custom_op import CustomOp, CustomOpProp, register
from .custom_frontend import sym_custom

__all__ = ["PythonOp", "NumpyOp", "NDArrayOp"]

_COUNT = itertools.count()


class PythonOp:
    """Base class of MXNet's deprecated Python ops (use :class:`CustomOp`)."""
    _ref_holder = []
    _as_numpy = True

    def __init__(self, need_top_grad=True):
        self.info_ = None
        self.need_top_grad_ = need_top_grad
        warnings.warn("PythonOp has been deprecated. Please use CustomOp", stacklevel=2)

    def __call__(self, *args, **kwargs):
        return self.get_symbol(*args, **kwargs)

    def get_symbol(self, *args, **kwargs):
        """The op's node on the input symbols ``args`` (a ``Custom`` node)."""
        if type(self) is PythonOp:
            raise NotImplementedError("Must override this")
        op_type = f"_{type(self).__name__}_{next(_COUNT)}"
        register(op_type)(_prop_class(self))
        PythonOp._ref_holder.append(self)
        return sym_custom(*args, op_type=op_type, **kwargs)

    def forward(self, in_data, out_data):
        out_data[0][:] = in_data[0]

    def backward(self, out_grad, in_data, out_data, in_grad):
        in_grad[0][:] = 1.0

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]]

    def list_outputs(self):
        return ["output"]

    def list_arguments(self):
        return ["data"]

    def need_top_grad(self):
        return self.need_top_grad_


class NumpyOp(PythonOp):
    """A Python op computing on NumPy arrays (MXNet's ``_Native``)."""

    def __init__(self, need_top_grad=True):
        super().__init__(need_top_grad)
        warnings.warn("NumpyOp has been deprecated. Please use CustomOp", stacklevel=2)


class NDArrayOp(PythonOp):
    """A Python op computing on NDArrays (MXNet's ``_NDArray``)."""
    _as_numpy = False

    def __init__(self, need_top_grad=True):
        super().__init__(need_top_grad)
        warnings.warn("NDArrayOp has been deprecated. Please use CustomOp", stacklevel=2)

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        deps = list(out_grad) if self.need_top_grad() else []
        return deps + list(in_data) + list(out_data)


def _prop_class(pyop):
    """A CustomOpProp (and its CustomOp) delegating to the PythonOp ``pyop``."""
    class Op(CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            _call(self, pyop, pyop.forward, req, [in_data], out_data)

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            _call(self, pyop, pyop.backward, req, [out_grad, in_data, out_data], in_grad)

    class Prop(CustomOpProp):
        def __init__(self):
            super().__init__(need_top_grad=pyop.need_top_grad())

        def list_arguments(self):
            return pyop.list_arguments()

        def list_outputs(self):
            return pyop.list_outputs()

        def infer_shape(self, in_shape):
            ins, outs = pyop.infer_shape(in_shape)[:2]
            return ins, outs, []

        def declare_backward_dependency(self, out_grad, in_data, out_data):
            if hasattr(pyop, "declare_backward_dependency"):
                return pyop.declare_backward_dependency(out_grad, in_data, out_data)
            return super().declare_backward_dependency(out_grad, in_data, out_data)

        def create_operator(self, ctx, in_shapes, in_dtypes):
            return Op()

    Prop.__name__ = f"{type(pyop).__name__}Prop"
    return Prop


def _call(op, pyop, fn, req, inputs, written):
    """``fn(*inputs, written)`` on NumPy copies (NumpyOp) or the arrays (NDArrayOp); the copies
    written are assigned back as ``req`` says."""
    if not pyop._as_numpy:
        fn(*inputs, written)
        return
    arrays = [[None if x is None else x.asnumpy() for x in group] for group in inputs]
    outs = [w.asnumpy() for w in written]
    fn(*arrays, outs)
    for dst, r, src in zip(written, req, outs):
        op.assign(dst, r, src)
