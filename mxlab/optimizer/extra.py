"""MXNet 2's AdaBelief and LANS, and MXNet's ``Test`` optimizer. MXNet 1.9.1 has neither
AdaBelief nor LANS as classes, so the rules are transcriptions of MXNet 2's Python ``step``
(AdaBelief's also equals 1.9-era ``contrib.adabelief_update``, which
``tests/ops/test_optimizer_updates.py`` checks); ``tests/gluon/test_optimizer_extra.py`` checks
them against NumPy transcriptions.
"""
import math

from ..ops.registry import F as _F
from .more import _norm
from .optimizer import Optimizer, _assign, _zeros_like, register

__all__ = ["AdaBelief", "LANS", "Test"]


@register
class AdaBelief(Optimizer):
    """AdaBelief (Zhuang et al.): Adam whose second moment tracks ``(g - m)²`` (plus ``eps``),
    with ``g = clip(rescale * grad + wd * w)`` and bias-corrected ``lr`` (``correct_bias``)."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6,
                 correct_bias=True, use_fused_step=True, **kwargs):
        super().__init__(learning_rate=learning_rate, use_fused_step=use_fused_step, **kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon
        self.correct_bias = correct_bias

    def create_state(self, index, weight):
        return _zeros_like(weight), _zeros_like(weight)

    def _rule(self, index, weight, grad, state, lr, wd):
        t = self._index_update_count[index]
        grad = self._grad(grad, wd * weight)
        if self.correct_bias:
            lr *= math.sqrt(1.0 - self.beta2 ** t) / (1.0 - self.beta1 ** t)
        mean, var = state
        _assign(mean, self.beta1 * mean + (1.0 - self.beta1) * grad)
        adj = grad - mean
        _assign(var, self.beta2 * var + (1.0 - self.beta2) * adj * adj + self.epsilon)
        _assign(weight, weight - lr * mean / (_F.sqrt(var) + self.epsilon))


@register
class LANS(Optimizer):
    """LANS (Zheng et al.): LAMB on the normalised gradient ``g / ||g||``, the step split into a
    momentum part (weight ``beta1``) and a gradient part (``1 - beta1``), each scaled by its
    trust ratio ``||w|| / ||d||`` (``||w||`` clipped to the bounds; 1 when a norm is 0)."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6,
                 lower_bound=None, upper_bound=None, aggregate_num=4, use_fused_step=True,
                 **kwargs):
        super().__init__(learning_rate=learning_rate, aggregate_num=aggregate_num,
                         use_fused_step=use_fused_step, **kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def create_state(self, index, weight):
        return (_zeros_like(weight).astype("float32"), _zeros_like(weight).astype("float32"))

    @staticmethod
    def _ratio(r1, direction):
        r2 = _norm(direction)
        ratio = r1 / r2 if r2 != 0.0 else math.nan
        return 1.0 if math.isnan(ratio) or ratio == 0.0 else ratio

    def _rule(self, index, weight, grad, state, lr, wd):
        t = self._index_update_count[index]
        grad = grad * self.rescale_grad
        grad = grad / _norm(grad)
        if self.clip_gradient is not None:
            grad = _F.clip(grad, a_min=-self.clip_gradient, a_max=self.clip_gradient)
        mean, var = state
        _assign(mean, self.beta1 * mean + (1.0 - self.beta1) * grad)
        _assign(var, self.beta2 * var + (1.0 - self.beta2) * grad * grad)
        r1 = _norm(weight)
        if self.lower_bound is not None:
            r1 = max(r1, self.lower_bound)
        if self.upper_bound is not None:
            r1 = min(r1, self.upper_bound)
        denom = _F.sqrt(var / (1.0 - self.beta2 ** t)) + self.epsilon
        first = mean / (1.0 - self.beta1 ** t) / denom + wd * weight
        _assign(weight, weight - lr * self._ratio(r1, first) * self.beta1 * first)
        second = grad / denom + wd * weight
        _assign(weight, weight - lr * self._ratio(r1, second) * (1.0 - self.beta1) * second)


@register
class Test(Optimizer):
    """MXNet's test optimizer: ``w -= lr * (rescale_grad * g + wd * w)``; its state is a zero
    array like the weight."""

    def create_state(self, index, weight):
        return _zeros_like(weight)

    def _rule(self, index, weight, grad, state, lr, wd):
        _assign(weight, weight - lr * (self.rescale_grad * grad + wd * weight))
