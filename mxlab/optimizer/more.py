"""The rest of MXNet 1.9's optimizers: AdaDelta, Adamax, Nadam, Ftrl, FTML, Signum, DCASGD,
SGLD, LAMB and LARS, with the update rules of MXNet's kernels (``optimizer_op-inl.h``) and Python
classes. ``tests/gluon/test_optimizer_more.py`` checks each against MXNet 1.9.1 (opt-in).
"""
import math

from ..ops.registry import F as _F
from .fused import KernelStep
from .optimizer import Optimizer, _assign, _zeros_like, register

__all__ = ["AdaDelta", "Adamax", "Nadam", "Ftrl", "FTML", "Signum", "DCASGD", "SGLD", "LAMB",
           "LARS"]


def _sign(x):
    return _F.sign(x)


def _norm(x):
    """The L2 norm as a Python float (LAMB/LARS trust ratios are host scalars in MXNet too)."""
    return float(_F.norm(x).asnumpy().reshape(-1)[0])


@register
class AdaDelta(Optimizer):
    """``E[g²] = rho E[g²] + (1-rho) g²; d = sqrt(E[d²]+eps) / sqrt(E[g²]+eps) * g;
    E[d²] = rho E[d²] + (1-rho) d²; w -= d + wd w`` (no learning rate)."""

    def __init__(self, rho=0.9, epsilon=1e-05, **kwargs):
        super().__init__(**kwargs)
        self.rho, self.epsilon = rho, epsilon

    def create_state(self, index, weight):
        return _zeros_like(weight), _zeros_like(weight)

    def _rule(self, index, weight, grad, state, lr, wd):
        grad = self._grad(grad)
        acc_g, acc_delta = state
        _assign(acc_g, self.rho * acc_g + (1.0 - self.rho) * grad * grad)
        delta = _F.sqrt(acc_delta + self.epsilon) / _F.sqrt(acc_g + self.epsilon) * grad
        _assign(acc_delta, self.rho * acc_delta + (1.0 - self.rho) * delta * delta)
        _assign(weight, weight - (delta + wd * weight))


@register
class Adamax(Optimizer):
    """Adam with the infinity norm: ``u = max(beta2 u, |g|); w -= lr/(1-beta1^t) m / u``."""

    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1, self.beta2 = beta1, beta2

    def create_state(self, index, weight):
        return _zeros_like(weight), _zeros_like(weight)

    def _rule(self, index, weight, grad, state, lr, wd):
        lr /= 1.0 - self.beta1 ** self._index_update_count[index]
        grad = self._grad(grad, wd * weight)
        mean, inf_norm = state
        _assign(mean, self.beta1 * mean + (1.0 - self.beta1) * grad)
        _assign(inf_norm, _F.broadcast_maximum(self.beta2 * inf_norm, _F.abs(grad)))
        _assign(weight, weight - lr * mean / inf_norm)


@register
class Nadam(Optimizer):
    """Adam with Nesterov momentum and MXNet's momentum schedule (``schedule_decay``)."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08,
                 schedule_decay=0.004, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon
        self.schedule_decay, self.m_schedule = schedule_decay, 1.0

    def create_state(self, index, weight):
        return _zeros_like(weight), _zeros_like(weight)

    def _momentum(self, t):
        return self.beta1 * (1.0 - 0.5 * pow(0.96, t * self.schedule_decay))

    def _rule(self, index, weight, grad, state, lr, wd):
        t = self._index_update_count[index]
        grad = self._grad(grad, wd * weight)
        momentum_t, momentum_next = self._momentum(t), self._momentum(t + 1)
        self.m_schedule *= momentum_t
        m_schedule_next = self.m_schedule * momentum_next
        mean, var = state
        _assign(mean, self.beta1 * mean + (1.0 - self.beta1) * grad)
        _assign(var, self.beta2 * var + (1.0 - self.beta2) * grad * grad)
        mean_bar = ((1.0 - momentum_t) * (grad / (1.0 - self.m_schedule))
                    + momentum_next * (mean / (1.0 - m_schedule_next)))
        var_hat = var / (1.0 - pow(self.beta2, t))
        _assign(weight, weight - lr * mean_bar / (_F.sqrt(var_hat) + self.epsilon))


@register
class Ftrl(KernelStep, Optimizer):
    """Follow the regularised leader (McMahan et al.), MXNet's ``ftrl_update``:
    ``z += g - (sqrt(n + g²) - sqrt(n)) w / lr; n += g²;
    w = -sign(z) max(|z| - lamda1, 0) / ((beta + sqrt(n)) / lr + wd)``."""
    _always_lazy = True   # NOTE: MXNet's row_sparse Ftrl kernel updates stored rows only

    def __init__(self, lamda1=0.01, learning_rate=0.1, beta=1, use_fused_step=True, **kwargs):
        super().__init__(learning_rate=learning_rate, use_fused_step=use_fused_step, **kwargs)
        self.lamda1, self.beta = lamda1, beta

    def create_state(self, index, weight):
        return _zeros_like(weight), _zeros_like(weight)

    def _rule(self, index, weight, grad, state, lr, wd):
        grad = self._grad(grad)
        z, n = state
        # NOTE: the kernel's order of operations (z + (g - ...)), so both paths agree exactly
        _assign(z, z + (grad - (_F.sqrt(n + grad * grad) - _F.sqrt(n)) * weight / lr))
        _assign(n, n + grad * grad)
        shrunk = -_sign(z) * _F.relu(_F.abs(z) - self.lamda1)
        _assign(weight, shrunk / ((self.beta + _F.sqrt(n)) / lr + wd))

    def _kernel_call(self, index, weight, grad, state, attrs):
        attrs.update(lamda1=self.lamda1, beta=self.beta)
        return "ftrl_update", [weight, grad, *state], attrs


@register
class FTML(KernelStep, Optimizer):
    """Follow the moving leader (Zheng & Kwok), MXNet's ``ftml_update``."""

    def __init__(self, beta1=0.6, beta2=0.999, epsilon=1e-08, use_fused_step=True, **kwargs):
        super().__init__(use_fused_step=use_fused_step, **kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon

    def create_state(self, index, weight):
        return _zeros_like(weight), _zeros_like(weight), _zeros_like(weight)

    def _rule(self, index, weight, grad, state, lr, wd):
        t = self._index_update_count[index]
        grad = self._grad(grad, wd * weight)  # NOTE: 1.9.1 clips rescale * grad + wd * w
        prev_d, v, z = state
        _assign(v, self.beta2 * v + (1 - self.beta2) * grad * grad)
        d_t = (1 - self.beta1 ** t) / lr * (_F.sqrt(v / (1 - self.beta2 ** t)) + self.epsilon)
        step = (1 - self.beta1) * grad - (d_t - self.beta1 * prev_d) * weight
        _assign(z, self.beta1 * z + step)   # NOTE: the kernel's order of operations
        _assign(prev_d, d_t)
        _assign(weight, -z / d_t)

    def _kernel_call(self, index, weight, grad, state, attrs):
        attrs.update(beta1=self.beta1, beta2=self.beta2, epsilon=self.epsilon,
                     t=self._index_update_count[index])
        if "clip_gradient" in attrs:
            attrs["clip_grad"] = attrs.pop("clip_gradient")
        return "ftml_update", [weight, grad, *state], attrs


@register
class Signum(KernelStep, Optimizer):
    """Sign of the momentum (Bernstein et al.): ``mom = momentum mom - (1-momentum)(g + wd w);
    w = (1 - lr wd_lh) w + lr sign(mom)``; without momentum, signSGD."""

    def __init__(self, learning_rate=0.01, momentum=0.9, wd_lh=0.0, use_fused_step=True,
                 **kwargs):
        super().__init__(learning_rate=learning_rate, use_fused_step=use_fused_step, **kwargs)
        self.momentum, self.wd_lh = momentum, wd_lh

    def create_state(self, index, weight):
        return _zeros_like(weight) if self.momentum != 0.0 else None

    def _rule(self, index, weight, grad, state, lr, wd):
        if state is None:  # NOTE: signsgd_update ignores clip_gradient and rescale_grad
            _assign(weight, (1.0 - lr * wd) * weight - lr * _sign(grad))
            return
        grad = self._grad(grad) + wd * weight
        _assign(state, self.momentum * state - (1 - self.momentum) * grad)
        _assign(weight, (1.0 - lr * self.wd_lh) * weight + lr * _sign(state))

    def _kernel_call(self, index, weight, grad, state, attrs):
        if state is None:
            return "signsgd_update", [weight, grad], attrs
        attrs.update(momentum=self.momentum, wd_lh=self.wd_lh)
        return "signum_update", [weight, grad, state], attrs


@register
class DCASGD(Optimizer):
    """Delay-compensated async SGD: the gradient gets ``lamda g² (w - w_prev)`` added."""

    def __init__(self, momentum=0.0, lamda=0.04, **kwargs):
        super().__init__(**kwargs)
        self.momentum, self.lamda = momentum, lamda

    def create_state(self, index, weight):
        mom = _zeros_like(weight) if self.momentum != 0.0 else None
        return mom, weight.copy()

    def _rule(self, index, weight, grad, state, lr, wd):
        grad = self._grad(grad)
        mom, previous = state
        change = -lr * (grad + wd * weight + self.lamda * grad * grad * (weight - previous))
        if mom is not None:
            _assign(mom, self.momentum * mom + change)
            change = mom
        _assign(previous, weight)
        _assign(weight, weight + change)


@register
class SGLD(Optimizer):
    """Stochastic gradient Langevin dynamics: ``w += -lr/2 (g + wd w) + N(0, sqrt(lr))``."""

    def _rule(self, index, weight, grad, state, lr, wd):
        grad = self._grad(grad)
        # NOTE: one draw per element from N(0, sqrt(lr)), on the weight's device and flavour
        noise = _F._sample_normal(_F.zeros_like(weight), _F.ones_like(weight) * math.sqrt(lr))
        _assign(weight, weight - lr / 2 * (grad + wd * weight) + noise)


@register
class LAMB(Optimizer):
    """Layer-wise adaptive moments (You et al.): an Adam direction ``g`` (bias-corrected, plus
    ``wd w``) scaled by the trust ratio ``||w|| / ||g||`` (``||w||`` clipped to the bounds);
    ``use_fused_step`` runs MXNet's ``lamb_update_phase1``/``lamb_update_phase2``."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-06,
                 lower_bound=None, upper_bound=None, bias_correction=True, use_fused_step=True,
                 **kwargs):
        super().__init__(learning_rate=learning_rate, use_fused_step=use_fused_step, **kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon
        self.lower_bound, self.upper_bound = lower_bound, upper_bound
        self.bias_correction = bias_correction

    def create_state(self, index, weight):
        return _zeros_like(weight), _zeros_like(weight)

    def _rule(self, index, weight, grad, state, lr, wd):
        t = self._index_update_count[index]
        grad = self._grad(grad)
        mean, var = state
        _assign(mean, self.beta1 * mean + (1.0 - self.beta1) * grad)
        _assign(var, self.beta2 * var + (1.0 - self.beta2) * grad * grad)
        mean_hat, var_hat = mean, var
        if self.bias_correction:
            mean_hat, var_hat = mean / (1.0 - self.beta1 ** t), var / (1.0 - self.beta2 ** t)
        direction = mean_hat / (_F.sqrt(var_hat) + self.epsilon) + wd * weight
        r1, r2 = _norm(weight), _norm(direction)
        if self.lower_bound:
            r1 = max(r1, self.lower_bound)
        if self.upper_bound:
            r1 = min(r1, self.upper_bound)
        ratio = 1.0 if r1 == 0.0 or r2 == 0.0 else r1 / r2
        _assign(weight, weight - lr * ratio * direction)

    def fused_step(self, indices, weights, grads, states):
        """MXNet 1.9.1's kernels: ``lamb_update_phase1`` (moments and direction), the two norms
        as arrays, ``lamb_update_phase2`` -- no host round trip per parameter."""
        from .. import ndarray as nd

        self._update_count(indices)
        common = {"beta1": self.beta1, "beta2": self.beta2, "epsilon": self.epsilon,
                  "bias_correction": self.bias_correction, "rescale_grad": self.rescale_grad}
        if self.clip_gradient:
            common["clip_gradient"] = self.clip_gradient
        bounds = {k: v for k, v in (("lower_bound", self.lower_bound),
                                    ("upper_bound", self.upper_bound)) if v}
        for index, weight, grad, state, lr, wd in zip(indices, weights, grads, states,
                                                      self._get_lrs(indices),
                                                      self._get_wds(indices)):
            g = nd.lamb_update_phase1(weight, grad, *state, wd=wd,
                                      t=self._index_update_count[index], **common)
            nd.lamb_update_phase2(weight, g, weight.norm(), g.norm(), lr=lr, out=weight,
                                  **bounds)


@register
class LARS(Optimizer):
    """Layer-wise adaptive rate scaling (You et al.): SGD whose learning rate is scaled by
    ``eta ||w|| / (||g|| + wd ||w|| + eps)`` for every parameter but biases and norm scales
    (names ending in gamma, beta or bias)."""

    _master_last_in_1x = True

    def __init__(self, momentum=0.0, lazy_update=True, eta=0.001, eps=0,
                 momentum_correction=True, **kwargs):
        super().__init__(**kwargs)
        self.momentum, self.eta, self.eps = momentum, eta, eps
        self.momentum_correction = momentum_correction

    def create_state(self, index, weight):
        return _zeros_like(weight) if self.momentum != 0.0 else None

    def _trust(self, index, weight, grad, lr, wd):
        name = self.idx2name.get(index, str(index))
        if name.endswith(("gamma", "beta", "bias")):
            return lr
        w_norm, g_norm = _norm(weight), _norm(grad * self.rescale_grad)
        if w_norm > 0.0 and g_norm > 0.0:
            return lr * self.eta * w_norm / (g_norm + wd * w_norm + self.eps)
        return lr

    def _rule(self, index, weight, grad, state, lr, wd):
        lr = self._trust(index, weight, grad, lr, wd)
        grad = self._grad(grad) + wd * weight
        if state is None:
            _assign(weight, weight - lr * grad)
            return
        _assign(state, self.momentum * state - lr * grad)
        _assign(weight, weight + state)
