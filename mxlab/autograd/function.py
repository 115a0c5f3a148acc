"""Custom differentiation: :class:`Function` (``forward``/``backward`` on arrays)."""
from ..base import MXNetNotImplementedError, MXNetRuntimeError, MXNetTypeError, MXNetValueError
from ..ndarray.ndarray import NDArray
from ..ops.registry import Op
from .modes import set_recording
from .tape import _as_list, record_op

__all__ = ["Function"]


def _not_runnable(xp, inputs, attrs):
    raise MXNetNotImplementedError("_CustomFunction: an autograd.Function runs only through its "
                                   "Python forward()")


class Function:
    """Custom differentiation: define ``forward`` and ``backward`` on arrays.

    ``forward`` runs unrecorded; called while recording, it adds one tape node whose gradient
    calls ``backward(*output_grads)``, which returns one gradient per input. Each instance is
    called once.

    Examples
    --------
    >>> import mxlab as mx
    >>> class sigmoid(mx.autograd.Function):
    ...     def forward(self, x):
    ...         y = 1 / (1 + mx.nd.exp(-x))
    ...         self.save_for_backward(y)
    ...         return y
    ...     def backward(self, dy):
    ...         y, = self.saved_tensors
    ...         return dy * y * (1 - y)
    >>> x = mx.nd.array([0.0])
    >>> x.attach_grad()
    >>> with mx.autograd.record():
    ...     m = sigmoid()(x)
    >>> m.backward()
    >>> x.grad.asnumpy()
    array([0.25], dtype=float32)
    """

    def __init__(self):
        self._used = False
        self.saved_tensors = ()

    def save_for_backward(self, *args):
        """Keep arrays for :meth:`backward` (read back as ``saved_tensors``)."""
        self.saved_tensors = args

    def __call__(self, *inputs):
        if self._used:
            raise MXNetRuntimeError("Each Function instance can only be called once. Please "
                                    "create another instance.")
        self._used = True
        for i, x in enumerate(inputs):
            if not isinstance(x, NDArray):
                raise MXNetTypeError(f"{type(self).__name__}: input {i} must be an NDArray, "
                                     f"got {type(x).__name__}")
        previous = set_recording(False)
        try:
            outputs = self.forward(*inputs)
        finally:
            set_recording(previous)
        if previous:
            outs = _as_list(outputs)
            op = Op(name="_CustomFunction", compute=_not_runnable, num_inputs=len(inputs),
                    num_outputs=len(outs), gradient=self._gradient, save_inputs=False,
                    save_outputs=False)
            record_op(op, {}, list(inputs), outs)
        return outputs

    def _gradient(self, node, out_grads):
        grads = _as_list(self.backward(*out_grads))
        if len(grads) != len(node.entries):
            raise MXNetValueError(
                f"{type(self).__name__}.backward must return exactly the same number of NDArrays "
                f"as the number of NDArrays arguments to forward. Expecting {len(node.entries)} "
                f"got {len(grads)}")
        for g in grads:
            if not isinstance(g, NDArray):
                raise MXNetTypeError("autograd.Function.backward must return NDArrays, not "
                                     f"{type(g).__name__}")
        return grads

    def forward(self, *inputs):
        """Forward computation (override)."""
        raise MXNetNotImplementedError(f"{type(self).__name__}.forward is not defined")

    def backward(self, *output_grads):
        """Gradients of the inputs given those of the outputs (override)."""
        raise MXNetNotImplementedError(f"{type(self).__name__}.backward is not defined")
