"""``mx.optimizer.contrib``: MXNet's contrib optimizers (``GroupAdaGrad``)."""
from ..base import MXNetValueError
from ..ops.registry import F as _F
from .optimizer import Optimizer, _assign, register

__all__ = ["GroupAdaGrad"]


@register
class GroupAdaGrad(Optimizer):
    """AdaGrad with one learning rate per row of a 2-d weight (MXNet's ``GroupAdaGrad``)::

        grad = clip(grad * rescale_grad, clip_gradient)
        history += mean(square(grad), axis=1, keepdims=True)
        weight -= lr * grad / sqrt(history + eps)

    as MXNet 1.9.1's ``update`` computes it (``eps=1e-5``; MXNet 2.0 spells it ``epsilon``,
    default 1e-6, and divides by ``sqrt(history) + epsilon``, as 1.9.1's row_sparse kernel does).
    Weight decay is not supported. A ``row_sparse`` gradient updates the stored rows only (the
    other rows' gradient is 0, which changes neither history nor weight).

    Example
    -------
    >>> import mxlab as mx
    >>> opt = mx.optimizer.contrib.GroupAdaGrad(learning_rate=0.1)
    >>> weight = mx.nd.ones((2, 3))
    >>> state = opt.create_state(0, weight)
    >>> opt.update([0], [weight], [mx.nd.ones((2, 3))], [state])
    >>> [round(float(v), 4) for v in weight.asnumpy()[0]], state.shape
    ([0.9, 0.9, 0.9], (2, 1))
    """

    def __init__(self, learning_rate=0.01, eps=1e-5, epsilon=None, use_fused_step=True,
                 **kwargs):
        super().__init__(learning_rate=learning_rate, use_fused_step=use_fused_step, **kwargs)
        self.float_stable_eps = eps if epsilon is None else epsilon

    def create_state(self, index, weight):
        if len(weight.shape) != 2:
            raise MXNetValueError(f"GroupAdaGrad: weights must be 2-d (one learning rate per "
                                  f"row), got shape {tuple(weight.shape)}")
        dense = weight.tostype("default") if weight._sparse else weight
        return _F.mean(_F.zeros_like(dense), axis=1, keepdims=True)

    def _rule(self, index, weight, grad, state, lr, wd):
        if wd != 0:
            raise MXNetValueError("GroupAdaGrad: weight decay is not supported (wd must be 0)")
        grad = self._grad(grad)
        _assign(state, state + _F.mean(_F.square(grad), axis=1, keepdims=True))
        _assign(weight, weight - lr * grad / _F.sqrt(state + self.float_stable_eps))
