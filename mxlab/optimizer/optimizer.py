"""Optimizers with MXNet 1.9's update rules (``mx.optimizer``).

Every rule first forms ``g = clip(rescale_grad * grad, -clip_gradient, clip_gradient)`` (Adam and
RMSProp clip ``rescale_grad * grad + wd * w`` instead, as MXNet's kernels do); the learning rate
and weight decay are scaled by the parameter's ``lr_mult``/``wd_mult``. Updates write into the
weight (and state) arrays in place, outside autograd. The rules are checked against MXNet 1.9.1
itself in ``tests/gluon/test_optimizer.py`` (opt-in oracle test).

Example
-------
>>> import mxlab as mx
>>> opt = mx.optimizer.create('sgd', learning_rate=0.1, wd=0.0)
>>> w, g = mx.nd.array([1.0, 2.0]), mx.nd.array([1.0, 1.0])
>>> opt.update(0, w, g, opt.create_state(0, w))
>>> w.asnumpy()
array([0.9, 1.9], dtype=float32)
"""
import math

from .. import autograd
from ..base import MXNetValueError
from ..imperative import invoke
from ..ops.registry import F as _F, get_op

__all__ = ["Optimizer", "SGD", "NAG", "Adam", "AdamW", "RMSProp", "AdaGrad", "register",
           "create"]

_REGISTRY = {}


def register(klass):
    """Register an optimizer class under its lower-case name."""
    _REGISTRY[klass.__name__.lower()] = klass
    return klass


def create(name, **kwargs):
    """An optimizer by name (``'sgd'``, ``'adam'``, ...) with its keyword arguments."""
    if isinstance(name, Optimizer):
        return name
    klass = _REGISTRY.get(str(name).lower())
    if klass is None:
        raise MXNetValueError(f"Cannot find optimizer {name!r}; registered: {sorted(_REGISTRY)}")
    return klass(**kwargs)


def _zeros_like(weight):
    return _F.zeros_like(weight)


def _fused_update(op_name, inputs, attrs):
    """Run a fused update op writing its first input (the weight) in place."""
    op = get_op(op_name)
    invoke(op, inputs, op.parse_attrs(attrs), out=[inputs[0]])


def _assign(target, value):
    """``target[:] = value`` (in place, so traced graphs and the trainer keep the same array)."""
    target[:] = value


class Optimizer:
    """Base class: learning rate (or ``lr_scheduler``), weight decay, gradient rescale/clip and
    per-index update counts."""

    def __init__(self, rescale_grad=1.0, param_idx2name=None, wd=0.0, clip_gradient=None,
                 learning_rate=None, lr_scheduler=None, begin_num_update=0, param_dict=None,
                 multi_precision=False, **kwargs):
        if kwargs:
            raise MXNetValueError(f"{type(self).__name__}: unknown arguments {sorted(kwargs)}")
        self.rescale_grad, self.wd, self.clip_gradient = rescale_grad, wd, clip_gradient
        self.lr = 0.01 if learning_rate is None else learning_rate
        self.lr_scheduler = lr_scheduler
        if lr_scheduler is not None and learning_rate is not None:
            lr_scheduler.base_lr = learning_rate
        self.begin_num_update = self.num_update = begin_num_update
        self._index_update_count = {}
        self.param_dict = param_dict or {}
        self.idx2name = dict(param_idx2name or {})
        self.multi_precision = multi_precision

    @property
    def learning_rate(self):
        if self.lr_scheduler is not None:
            return self.lr_scheduler(self.num_update)
        return self.lr

    def set_learning_rate(self, lr):
        if self.lr_scheduler is not None:
            raise MXNetValueError("LRScheduler of the optimizer has already been defined. Note "
                                  "that set_learning_rate can mutate the value of the learning "
                                  "rate of the optimizer only when the LRScheduler of the "
                                  "optimizer is undefined.")
        self.lr = lr

    def _update_count(self, index):
        count = self._index_update_count.get(index, self.begin_num_update) + 1
        self._index_update_count[index] = count
        self.num_update = max(count, self.num_update)

    def _get_lr(self, index):
        param = self.param_dict.get(index)
        return self.learning_rate * (param.lr_mult if param is not None else 1.0)

    def _get_wd(self, index):
        param = self.param_dict.get(index)
        return self.wd * (param.wd_mult if param is not None else 1.0)

    def _grad(self, grad, decay=0.0):
        """``clip(rescale_grad * grad + decay)``: SGD/NAG/AdaGrad add weight decay after the
        clip, Adam/RMSProp pass it here (clipped with the gradient, as MXNet's kernels)."""
        grad = grad * self.rescale_grad + decay
        if self.clip_gradient is not None:
            grad = _F.clip(grad, a_min=-self.clip_gradient, a_max=self.clip_gradient)
        return grad

    def create_state(self, index, weight):
        """The per-parameter state (None, an array or a tuple of arrays)."""
        return None

    def create_state_multi_precision(self, index, weight):
        """MXNet's name; the state of :meth:`create_state` (no float32 master copy is kept)."""
        return self.create_state(index, weight)

    def update(self, index, weight, grad, state):
        """Count the update and apply the rule (outside autograd recording).

        Takes one parameter (MXNet 1.x) or lists of indices, weights, grads, states (2.0)."""
        if isinstance(index, (list, tuple)):
            for args in zip(index, weight, grad, state):
                self.update(*args)
            return
        self._update_count(index)
        with autograd.pause():
            self.step(index, weight, grad, state, self._get_lr(index), self._get_wd(index))

    update_multi_precision = update

    def step(self, index, weight, grad, state, lr, wd):
        raise NotImplementedError(f"{type(self).__name__} must implement step")

    def __repr__(self):
        return f"{type(self).__name__}(lr={self.lr}, wd={self.wd})"


@register
class SGD(Optimizer):
    """``mom = momentum * mom - lr * (g + wd * w); w += mom`` (``w -= lr * (g + wd * w)``
    without momentum)."""

    def __init__(self, learning_rate=0.01, momentum=0.0, lazy_update=False, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.momentum = momentum

    def create_state(self, index, weight):
        return _zeros_like(weight) if self.momentum != 0.0 else None

    def step(self, index, weight, grad, state, lr, wd):
        # NOTE: one fused op per parameter (MXNet's kernels), updating weight and momentum in place.
        attrs = {"lr": lr, "wd": wd, "rescale_grad": self.rescale_grad,
                 "clip_gradient": -1.0 if self.clip_gradient is None else self.clip_gradient}
        if state is None:
            _fused_update("sgd_update", [weight, grad], attrs)
        else:
            _fused_update("sgd_mom_update", [weight, grad, state],
                          dict(attrs, momentum=self.momentum))


@register
class NAG(SGD):
    """Nesterov momentum (MXNet's ``nag_mom_update``): ``m = momentum * mom;
    w' = w - m + (momentum + 1) * (m - lr * (g + wd * w)); mom = m - lr * (g + wd * w')``."""

    def step(self, index, weight, grad, state, lr, wd):
        grad = self._grad(grad)
        if state is None:
            _assign(weight, weight - lr * (grad + wd * weight))
            return
        decayed = self.momentum * state
        new = weight - decayed + (self.momentum + 1) * (decayed - lr * (grad + wd * weight))
        _assign(weight, new)
        # NOTE: MXNet's kernel writes the weight in place first, so the momentum reads w'.
        _assign(state, decayed - lr * (grad + wd * weight))


@register
class Adam(Optimizer):
    """``m, v`` moving moments of ``g = clip(rescale * grad + wd * w)``;
    ``w -= lr_t * m / (sqrt(v) + eps)`` with ``lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t)``."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 lazy_update=False, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon

    def create_state(self, index, weight):
        return _zeros_like(weight), _zeros_like(weight)

    def _corrected_lr(self, index, lr):
        t = self._index_update_count[index]
        return lr * math.sqrt(1.0 - self.beta2 ** t) / (1.0 - self.beta1 ** t)

    def _moments(self, state, grad):
        mean, var = state
        _assign(mean, self.beta1 * mean + (1.0 - self.beta1) * grad)
        _assign(var, self.beta2 * var + (1.0 - self.beta2) * _F.square(grad))
        return mean / (_F.sqrt(var) + self.epsilon)

    def step(self, index, weight, grad, state, lr, wd):
        direction = self._moments(state, self._grad(grad, wd * weight))
        _assign(weight, weight - self._corrected_lr(index, lr) * direction)


@register
class AdamW(Adam):
    """Adam with decoupled weight decay: ``w -= lr_t * m / (sqrt(v) + eps); w -= lr_t * wd * w``
    (``correct_bias=False`` uses ``lr`` for ``lr_t``)."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6,
                 correct_bias=True, **kwargs):
        super().__init__(learning_rate, beta1, beta2, epsilon, **kwargs)
        self.correct_bias = correct_bias

    def step(self, index, weight, grad, state, lr, wd):
        if self.correct_bias:
            lr = self._corrected_lr(index, lr)
        direction = self._moments(state, self._grad(grad))
        _assign(weight, weight - lr * direction)
        if wd > 0:
            _assign(weight, weight - lr * wd * weight)


@register
class RMSProp(Optimizer):
    """``n = (1 - g1) g^2 + g1 n; w -= lr g / sqrt(n + eps)`` on ``g = clip(rescale * grad +
    wd * w)``; ``centered``
    also tracks the mean ``m`` and uses momentum ``gamma2``:
    ``delta = g2 delta - lr g / sqrt(n - m^2 + eps); w += delta``."""

    def __init__(self, learning_rate=0.001, gamma1=0.9, gamma2=0.9, epsilon=1e-8,
                 centered=False, clip_weights=None, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.gamma1, self.gamma2, self.epsilon = gamma1, gamma2, epsilon
        self.centered, self.clip_weights = centered, clip_weights

    def create_state(self, index, weight):
        count = 3 if self.centered else 1
        return tuple(_zeros_like(weight) for _ in range(count))

    def step(self, index, weight, grad, state, lr, wd):
        grad = self._grad(grad, wd * weight)
        g1 = self.gamma1
        _assign(state[0], (1 - g1) * _F.square(grad) + g1 * state[0])
        if self.centered:
            mean, delta = state[1], state[2]
            _assign(mean, (1 - g1) * grad + g1 * mean)
            step = grad / _F.sqrt(state[0] - _F.square(mean) + self.epsilon)
            _assign(delta, self.gamma2 * delta - lr * step)
            new = weight + delta
        else:
            new = weight - lr * grad / _F.sqrt(state[0] + self.epsilon)
        if self.clip_weights:
            new = _F.clip(new, a_min=-self.clip_weights, a_max=self.clip_weights)
        _assign(weight, new)


@register
class AdaGrad(Optimizer):
    """``h += g^2; w -= lr * (g / sqrt(h + eps) + wd * w)``."""

    def __init__(self, learning_rate=0.01, epsilon=1e-7, **kwargs):
        eps = kwargs.pop("eps", None)
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.float_stable_eps = epsilon if eps is None else eps

    def create_state(self, index, weight):
        return _zeros_like(weight)

    def step(self, index, weight, grad, state, lr, wd):
        grad = self._grad(grad)
        _assign(state, state + _F.square(grad))
        div = grad / _F.sqrt(state + self.float_stable_eps)
        _assign(weight, weight - lr * (div + wd * weight))


# MXNet's aliases
_REGISTRY["adamw"] = AdamW
_REGISTRY["rmsprop"] = RMSProp
