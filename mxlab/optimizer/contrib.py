"""``mx.optimizer.contrib``: MXNet 1.9's GroupAdaGrad (AdaGrad with one history value per row).

Example
-------
>>> import mxlab as mx
>>> opt = mx.optimizer.contrib.GroupAdaGrad(learning_rate=0.1)
>>> w = mx.nd.ones((2, 2))
>>> opt.update(0, w, mx.nd.ones((2, 2)), opt.create_state(0, w))
>>> [round(float(v), 4) for v in w.asnumpy().ravel()]
[0.9, 0.9, 0.9, 0.9]
"""
from ..base import MXNetValueError
from ..ops.registry import F as _F
from .fused import KernelStep
from .optimizer import Optimizer, _assign, register

__all__ = ["GroupAdaGrad"]


@register
class GroupAdaGrad(KernelStep, Optimizer):
    """``g = clip(rescale_grad * grad); h += mean(g², axis=1); w -= lr g / sqrt(h + eps)`` with
    one history value ``h`` per row of a 2-D weight; no weight decay. ``use_fused_step`` runs
    MXNet's ``contrib.group_adagrad_update`` kernel (MXNet 1.9.1 runs it for row_sparse
    gradients, the composed rule for dense ones: the same values)."""

    def __init__(self, learning_rate=0.01, epsilon=1e-5, use_fused_step=True, eps=None,
                 **kwargs):
        # NOTE: MXNet 1.9.1 calls it eps (default 1e-5), MXNet 2 epsilon; both are taken
        super().__init__(learning_rate=learning_rate, use_fused_step=use_fused_step, **kwargs)
        self.float_stable_eps = epsilon if eps is None else eps

    epsilon = property(lambda self: self.float_stable_eps, doc="MXNet 2's name of the eps.")

    def create_state(self, index, weight):
        if len(weight.shape) != 2:
            raise MXNetValueError(f"GroupAdaGrad: weight {index!r} must be 2-D, got shape "
                                  f"{tuple(weight.shape)}")
        from ..ndarray import sparse
        return sparse.zeros(weight.stype, (weight.shape[0], 1), ctx=weight.context,
                            dtype=weight.dtype)

    @staticmethod
    def _no_decay(index, wd):
        if wd != 0:
            raise MXNetValueError(f"Weight decay is not supported for GroupAdaGrad (parameter "
                                  f"{index!r} has wd={wd})")

    def _rule(self, index, weight, grad, state, lr, wd):
        self._no_decay(index, wd)
        grad = self._grad(grad)
        _assign(state, state + _F.mean(grad * grad, axis=1, keepdims=True))
        _assign(weight, weight - lr * grad / _F.sqrt(state + self.float_stable_eps))

    def _kernel_call(self, index, weight, grad, state, attrs):
        self._no_decay(index, attrs.pop("wd"))
        attrs["epsilon"] = self.float_stable_eps
        return "_contrib_group_adagrad_update", [weight, grad, state], attrs
