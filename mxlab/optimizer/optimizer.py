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
import functools
import math
import warnings

import numpy

from .. import autograd
from ..base import MXNetTypeError, MXNetUserWarning, MXNetValueError
from ..ops.registry import F as _F
from ..util import is_np_array
from .fused import KernelStep, sgd_updates as _sgd_updates
from .sparse_update import has_sparse, update_sparse

__all__ = ["Optimizer", "SGD", "NAG", "Adam", "AdamW", "RMSProp", "AdaGrad", "register",
           "create"]

_REGISTRY = {}
_CHAIN = frozenset(("update", "update_multi_precision", "fused_step", "step"))


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


def _assign(target, value):
    """``target[:] = value`` (in place, so traced graphs and the trainer keep the same array)."""
    target[:] = value


class Optimizer:
    """Base class (MXNet 2's interface, which also takes 1.x's one-parameter ``update``): learning
    rate (or ``lr_scheduler``), weight decay, gradient rescale/clip, per-index update counts and
    ``lr_mult``/``wd_mult``. Subclasses implement :meth:`step` (lists, MXNet 2) or the
    one-parameter rule ``_rule(index, weight, grad, state, lr, wd)`` that the default ``step``
    runs; ``fused_step`` (``use_fused_step=True``) defaults to ``step``."""

    opt_registry = _REGISTRY

    def __init__(self, rescale_grad=1.0, param_idx2name=None, wd=0.0, clip_gradient=None,
                 learning_rate=None, lr_scheduler=None, sym=None, begin_num_update=0,
                 multi_precision=False, param_dict=None, aggregate_num=None,
                 use_fused_step=None, **kwargs):
        if kwargs:
            raise MXNetTypeError(f"{type(self).__name__}: unknown arguments {sorted(kwargs)}")
        self.rescale_grad, self.wd, self.clip_gradient = rescale_grad, wd, clip_gradient
        self.lr_scheduler = lr_scheduler
        if lr_scheduler is None and learning_rate is None:
            learning_rate = 0.01
        self.lr = learning_rate
        if lr_scheduler is not None and learning_rate is not None \
                and lr_scheduler.base_lr != learning_rate:
            print(UserWarning("learning rate from ``lr_scheduler`` has been overwritten by "
                              "``learning_rate`` in optimizer."))
            lr_scheduler.base_lr = learning_rate
        self.begin_num_update = self.num_update = begin_num_update
        self._all_index_update_counts = {0: {}}
        self._index_update_count = self._all_index_update_counts[0]
        self.multi_precision = multi_precision
        self.aggregate_num = 1 if aggregate_num is None else aggregate_num
        if param_idx2name is not None and not isinstance(param_idx2name, dict):
            raise MXNetTypeError("param_idx2name should be a dict of param indexes to names.")
        self.idx2name = dict(param_idx2name or {})
        self.sym_info = (sym.attr_dict(), sym.list_arguments()) if sym is not None else ()
        self.param_dict = param_dict or {}
        # NOTE: MXNet's record of the mode it was made in (its Updater reads it when present)
        self.allow_np_array = is_np_array()
        self.use_fused_step = bool(use_fused_step)
        self.set_lr_mult({})
        self.set_wd_mult({})

    register = staticmethod(register)
    create_optimizer = staticmethod(create)

    @property
    def learning_rate(self):
        if self.lr_scheduler is not None:
            return self.lr_scheduler(self.num_update)
        return self.lr

    def set_learning_rate(self, lr):
        if self.lr_scheduler is not None:
            raise MXNetUserWarning("LRScheduler of the optimizer has already been defined. Note "
                                   "that set_learning_rate can mutate the value of the learning "
                                   "rate of the optimizer only when the LRScheduler of the "
                                   "optimizer is undefined.")
        self.lr = lr

    def _mults(self, args, key):
        mults = {}
        if self.sym_info:
            attr, arg_names = self.sym_info
            for name in arg_names:
                if name in attr and key in attr[name]:
                    mults[name] = float(attr[name][key])
        mults.update(args)
        return mults

    def set_lr_mult(self, args_lr_mult):
        """Per-parameter learning-rate multipliers, by name or index (MXNet's)."""
        self.lr_mult = self._mults(args_lr_mult, "__lr_mult__")

    def set_wd_mult(self, args_wd_mult):
        """Per-parameter weight-decay multipliers, by name or index (MXNet's)."""
        self.wd_mult = self._mults(args_wd_mult, "__wd_mult__")

    def _set_current_device(self, device_id):
        """Keep separate update counts per device (MXNet's)."""
        counts = self._all_index_update_counts.setdefault(device_id, {})
        self._index_update_count = counts

    _set_current_context = _set_current_device

    def _update_count(self, index):
        counts, begin, top = self._index_update_count, self.begin_num_update, self.num_update
        for idx in index if isinstance(index, (list, tuple)) else [index]:
            count = counts.get(idx, begin) + 1
            counts[idx] = count
            if count > top:
                top = count
        self.num_update = top

    def _scaled(self, indices, base, mults, attr):
        values = []
        param_dict = self.param_dict
        for index in indices:
            if index in param_dict:
                values.append(base * getattr(param_dict[index], attr))
            elif index in mults:
                values.append(base * mults[index])
            elif index in self.idx2name:
                values.append(base * mults.get(self.idx2name[index], 1.0))
            else:
                values.append(base)
        return values

    def _get_lrs(self, indices):
        return self._scaled(indices, self.learning_rate, self.lr_mult, "lr_mult")

    def _get_lr(self, index):
        return self._get_lrs([index])[0]

    def _get_wds(self, indices):
        return self._scaled(indices, self.wd, self.wd_mult, "wd_mult")

    def _get_wd(self, index):
        return self._get_wds([index])[0]

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

    # NOTE: MXNet 1.x's SGD, NAG and LARS keep ``(state, float32 master)``, 2.0 (and every other
    #   1.x optimizer) ``(master, state)``: the order follows the weight's flavour (docs/compat.md)
    _master_last_in_1x = False

    def _master_last(self, weight):
        """Whether the multi-precision state of ``weight`` is ``(state, master)``: an ``mx.nd``
        weight (the 1.x API) of an optimizer whose 1.x order is that."""
        if not self._master_last_in_1x:
            return False
        from ..ndarray.ndarray import ndarray as np_ndarray
        return not isinstance(weight, np_ndarray)

    def _split_mixed(self, weight, state):
        """``(float32 master, inner state)`` of a multi-precision state, in either order."""
        return (state[1], state[0]) if self._master_last(weight) else (state[0], state[1])

    def _from_master_first(self, weight, state):
        """``state`` saved as ``(master, state)`` (mxlab's order for every weight before the 1.x
        order was kept) in ``weight``'s order now."""
        mixed = self.multi_precision and weight.dtype == numpy.float16
        if mixed and self._master_last(weight) and isinstance(state, (tuple, list)):
            return (state[1], state[0])
        return state

    def create_state_multi_precision(self, index, weight):
        """With ``multi_precision`` and a float16 weight: ``(float32 master copy, state of the
        copy)`` (``(state, master)`` for SGD/NAG/LARS on ``mx.nd`` weights, as MXNet 1.x); else
        :meth:`create_state`."""
        if self.multi_precision and weight.dtype == numpy.float16:
            master = weight.astype(numpy.float32)
            inner = self.create_state(index, master)
            return (inner, master) if self._master_last(weight) else (master, inner)
        if weight.dtype == numpy.float16 and not self.multi_precision:
            warnings.warn("Accumulating with float16 in optimizer can lead to poor accuracy or "
                          "slow convergence. Consider using multi_precision=True option of the "
                          "optimizer", stacklevel=2)
        return self.create_state(index, weight)

    def step(self, indices, weights, grads, states):
        """One update of each parameter (lists): count, then the rule with its lr and wd."""
        for index, weight, grad, state in zip(indices, weights, grads, states):
            self._update_count(index)
            self._rule(index, weight, grad, state, self._get_lr(index), self._get_wd(index))

    def fused_step(self, indices, weights, grads, states):
        """The fused kernels' update; the same rule as :meth:`step` unless overridden."""
        self.step(indices, weights, grads, states)

    def update(self, indices, weights, grads, states):
        """Apply ``step`` (``fused_step`` with ``use_fused_step``) outside autograd recording.

        Takes lists of indices, weights, grads, states (MXNet 2) or one parameter (MXNet 1.x)."""
        indices, weights, grads, states = _as_lists(indices, weights, grads, states)
        array_class = _array_class()
        for weight, grad in zip(weights, grads):
            if not isinstance(weight, array_class) or not isinstance(grad, array_class):
                _check_array(weight, "weight")
                _check_array(grad, "grad")
        if has_sparse(weights, grads, states):
            run = self.fused_step if self.use_fused_step else self.step
            with autograd.pause():
                for item in zip(indices, weights, grads, states):
                    update_sparse(self, run, *item)
            return
        run = self.fused_step if self.use_fused_step else self.step
        if not autograd.is_recording():
            run(indices, weights, grads, states)
            return
        with autograd.pause():
            run(indices, weights, grads, states)

    def update_multi_precision(self, indices, weights, grads, states):
        """:meth:`update` on the float32 master copies of float16 weights (``multi_precision``),
        which are then cast back into the weights. One parameter (MXNet 1.x's call) reaches
        :meth:`update` as one parameter too, as a 1.x subclass's ``update`` expects."""
        one = not isinstance(indices, (list, tuple))
        indices, weights, grads, states = _as_lists(indices, weights, grads, states)
        masters, inner, grads32 = [], [], []
        for weight, grad, state in zip(weights, grads, states):
            if self.multi_precision and weight.dtype == numpy.float16:
                master, kept = self._split_mixed(weight, state)
                masters.append(master)
                inner.append(kept)
                grads32.append(grad.astype(numpy.float32))
            else:
                masters.append(weight)
                inner.append(state)
                grads32.append(grad)
        if one:
            self.update(indices[0], masters[0], grads32[0], inner[0])
        else:
            self.update(indices, masters, grads32, inner)
        for master, weight in zip(masters, weights):
            if master is not weight:
                _assign(weight, master.astype(weight.dtype))

    def _rule(self, index, weight, grad, state, lr, wd):
        raise NotImplementedError(f"{type(self).__name__} must implement step")

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("param_dict", None)
        state.pop("_steady", None)   # NOTE: a cache of the last step (see fused.sgd_updates)
        return state

    def __setstate__(self, state):
        self.__dict__ = state
        self.param_dict = {}

    def __repr__(self):
        return f"{type(self).__name__}(lr={self.lr}, wd={self.wd})"


def _as_lists(indices, weights, grads, states):
    if isinstance(indices, (list, tuple)):
        return list(indices), list(weights), list(grads), list(states)
    return [indices], [weights], [grads], [states]


@functools.cache
def _array_class():
    from ..ndarray.ndarray import NDArray   # NOTE: ndarray imports the optimizers' ops module
    return NDArray


def _check_array(value, what):
    if not isinstance(value, _array_class()):
        raise MXNetTypeError(f"Optimizer.update: {what} must be an NDArray, got "
                             f"{type(value).__name__}")


@register
class SGD(Optimizer):
    """``mom = momentum * mom - lr * (g + wd * w); w += mom`` (``w -= lr * (g + wd * w)``
    without momentum)."""

    _master_last_in_1x = True

    def __init__(self, learning_rate=None, momentum=0.0, lazy_update=False, use_fused_step=True,
                 **kwargs):
        super().__init__(learning_rate=learning_rate, use_fused_step=use_fused_step, **kwargs)
        self.momentum = momentum
        self.lazy_update = lazy_update

    def create_state(self, index, weight):
        return _zeros_like(weight) if self.momentum != 0.0 else None

    def _rule(self, index, weight, grad, state, lr, wd):
        grad = self._grad(grad) + wd * weight
        if state is None:
            _assign(weight, weight - lr * grad)
            return
        _assign(state, self.momentum * state - lr * grad)
        _assign(weight, weight + state)

    _FUSED = ("sgd_update", "sgd_mom_update", "mp_sgd_update", "mp_sgd_mom_update")
    batches_updates = True   # NOTE: fused_step pushes all its parameters' kernels at once

    def fused_step(self, indices, weights, grads, states):
        """MXNet's kernels: ``aggregate_num`` > 1 updates the parameters in ``multi_*sgd*``
        calls, else one ``sgd_update``/``sgd_mom_update`` (``mp_`` for float16 with
        ``multi_precision``, whose states hold a float32 weight and the momentum) each."""
        self._update_count(indices)
        lrs, wds = self._get_lrs(indices), self._get_wds(indices)
        kwargs = self._fused_kwargs()
        mixed = self.multi_precision and weights[0].dtype == numpy.float16
        if self.aggregate_num > 1:
            from .. import ndarray as nd
            groups = []
            for weight, grad, state in zip(weights, grads, states):
                master, mom = self._split_mixed(weight, state) if mixed else (None, state)
                group = [weight, grad]
                if self.momentum > 0:
                    group.append(mom)
                if mixed:
                    group.append(master)
                groups += group
            name = f"multi_{'mp_' if mixed else ''}sgd_{'mom_' if self.momentum > 0 else ''}update"
            getattr(nd, name)(*groups, out=list(weights), num_weights=len(weights), lrs=lrs,
                              wds=wds, **kwargs)
            return
        _sgd_updates(self, indices, weights, grads, states, lrs, wds, kwargs)

    def _fused_kwargs(self):
        kwargs = {"rescale_grad": self.rescale_grad}
        if self.momentum > 0:
            kwargs["momentum"] = self.momentum
        if self.clip_gradient:
            kwargs["clip_gradient"] = self.clip_gradient
        return kwargs

    def _steady_chain(self):
        """Whether an ``Updater`` call runs SGD's own chain (``update_multi_precision`` ->
        ``update`` -> ``fused_step``, all parameters at once), which a repeated step may replay
        (``fused._Steady.step``)."""
        cls = type(self)
        return self.use_fused_step and self.aggregate_num <= 1 and self.batches_updates \
            and cls.update is Optimizer.update and cls.fused_step is SGD.fused_step \
            and cls.update_multi_precision is SGD.update_multi_precision \
            and not _CHAIN.intersection(self.__dict__)

    def _fused_call(self, which, inputs, attrs):
        """The registered update op to run, as ``(name, inputs, attrs)`` (all of a step's run as
        one engine push); the composite float16 updates run here and give None."""
        if which < 2:
            attrs.setdefault("clip_gradient", -1.0)
            return self._FUSED[which], inputs, attrs
        from .. import ndarray as nd
        getattr(nd, self._FUSED[which])(*inputs, out=inputs[0], **attrs)
        return None

    def update_multi_precision(self, indices, weights, grads, states):
        """The fused kernels take the ``(float32 weight, state)`` pairs themselves."""
        if self.use_fused_step:
            self.update(indices, weights, grads, states)
        else:
            super().update_multi_precision(indices, weights, grads, states)


@register
class NAG(SGD):
    """Nesterov momentum (MXNet's ``nag_mom_update``): ``m = momentum * mom;
    w' = w - m + (momentum + 1) * (m - lr * (g + wd * w)); mom = m - lr * (g + wd * w')``."""

    _FUSED = ("sgd_update", "nag_mom_update", "mp_sgd_update", "mp_nag_mom_update")

    def __init__(self, learning_rate=None, momentum=0.0, use_fused_step=True, **kwargs):
        kwargs.pop("aggregate_num", None)   # NOTE: MXNet's NAG has no multi-tensor kernel
        super().__init__(learning_rate=learning_rate, momentum=momentum,
                         use_fused_step=use_fused_step, **kwargs)

    def _fused_call(self, which, inputs, attrs):
        from .. import ndarray as nd

        if which == 0:
            return super()._fused_call(which, inputs, attrs)
        getattr(nd, self._FUSED[which])(*inputs, out=inputs[0], **attrs)
        return None

    def _rule(self, index, weight, grad, state, lr, wd):
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
class Adam(KernelStep, Optimizer):
    """``m, v`` moving moments of ``g = clip(rescale * grad + wd * w)``;
    ``w -= lr_t * m / (sqrt(v) + eps)`` with ``lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t)``
    (``use_fused_step``: MXNet's ``adam_update`` kernel with ``lr_t`` as its rate)."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 lazy_update=False, use_fused_step=True, **kwargs):
        super().__init__(learning_rate=learning_rate, use_fused_step=use_fused_step, **kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon
        self.lazy_update = lazy_update

    def create_state(self, index, weight):
        return _zeros_like(weight), _zeros_like(weight)

    def _corrected_lr(self, index, lr):
        t = self._index_update_count[index]
        return lr * math.sqrt(1.0 - self.beta2 ** t) / (1.0 - self.beta1 ** t)

    def _moments(self, state, grad, lr):
        """``lr * m / (sqrt(v) + eps)`` after the moment updates (the kernel's order of
        operations, so the composed rule equals ``adam_update`` bit for bit)."""
        mean, var = state
        _assign(mean, self.beta1 * mean + (1.0 - self.beta1) * grad)
        _assign(var, self.beta2 * var + (1.0 - self.beta2) * grad * grad)
        return lr * mean / (_F.sqrt(var) + self.epsilon)

    def _rule(self, index, weight, grad, state, lr, wd):
        lr = self._corrected_lr(index, lr)
        _assign(weight, weight - self._moments(state, self._grad(grad, wd * weight), lr))

    def _kernel_call(self, index, weight, grad, state, attrs):
        attrs.update(lr=self._corrected_lr(index, attrs["lr"]), beta1=self.beta1,
                     beta2=self.beta2, epsilon=self.epsilon)
        return "adam_update", [weight, grad, *state], attrs


@register
class AdamW(Adam):
    """Adam with decoupled weight decay: ``w -= lr_t * m / (sqrt(v) + eps); w -= lr_t * wd * w``
    (``correct_bias=False`` uses ``lr`` for ``lr_t``)."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6,
                 correct_bias=True, **kwargs):
        super().__init__(learning_rate, beta1, beta2, epsilon, **kwargs)
        self.correct_bias = correct_bias

    def fused_step(self, indices, weights, grads, states):
        """The composed rule: MXNet 2's fused AdamW (``contrib.adamw_update``, which decays the
        old weight) is not a registered op here."""
        self.step(indices, weights, grads, states)

    def _rule(self, index, weight, grad, state, lr, wd):
        if self.correct_bias:
            lr = self._corrected_lr(index, lr)
        _assign(weight, weight - self._moments(state, self._grad(grad), lr))
        if wd > 0:
            _assign(weight, weight - lr * wd * weight)


@register
class RMSProp(KernelStep, Optimizer):
    """``n = (1 - g1) g^2 + g1 n; w -= lr g / sqrt(n + eps)`` on ``g = clip(rescale * grad +
    wd * w)``; ``centered``
    also tracks the mean ``m`` and uses momentum ``gamma2``:
    ``delta = g2 delta - lr g / sqrt(n - m^2 + eps); w += delta`` (``use_fused_step``: MXNet's
    ``rmsprop_update``/``rmspropalex_update`` kernels)."""

    def __init__(self, learning_rate=0.001, gamma1=0.9, gamma2=0.9, epsilon=1e-8,
                 centered=False, clip_weights=None, rho=None, momentum=None, use_fused_step=True,
                 **kwargs):
        # NOTE: MXNet 2 renamed gamma1 -> rho and gamma2 -> momentum; both spellings are taken
        gamma1 = gamma1 if rho is None else rho
        gamma2 = gamma2 if momentum is None else momentum
        super().__init__(learning_rate=learning_rate, use_fused_step=use_fused_step, **kwargs)
        self.gamma1, self.gamma2, self.epsilon = gamma1, gamma2, epsilon
        self.centered, self.clip_weights = centered, clip_weights

    rho = property(lambda self: self.gamma1, doc="MXNet 2's name of ``gamma1``.")
    momentum = property(lambda self: self.gamma2, doc="MXNet 2's name of ``gamma2``.")

    def create_state(self, index, weight):
        count = 3 if self.centered else 1
        return tuple(_zeros_like(weight) for _ in range(count))

    def _rule(self, index, weight, grad, state, lr, wd):
        grad = self._grad(grad, wd * weight)
        g1 = self.gamma1
        # NOTE: the kernels' order of operations, so both paths agree bit for bit
        _assign(state[0], g1 * state[0] + (1 - g1) * grad * grad)
        if self.centered:
            mean, delta = state[1], state[2]
            _assign(mean, g1 * mean + (1 - g1) * grad)
            step = lr * grad / _F.sqrt(state[0] - mean * mean + self.epsilon)
            _assign(delta, self.gamma2 * delta - step)
            new = weight + delta
        else:
            new = weight - lr * grad / _F.sqrt(state[0] + self.epsilon)
        if self.clip_weights:
            new = _F.clip(new, a_min=-self.clip_weights, a_max=self.clip_weights)
        _assign(weight, new)

    def _kernel_call(self, index, weight, grad, state, attrs):
        attrs.update(rho=self.gamma1, epsilon=self.epsilon)
        if self.clip_weights:
            attrs["clip_weights"] = self.clip_weights
        if self.centered:
            attrs["momentum"] = self.gamma2
            return "rmspropalex_update", [weight, grad, *state], attrs
        return "rmsprop_update", [weight, grad, state[0]], attrs


@register
class AdaGrad(Optimizer):
    """``h += g^2; w -= lr * (g / sqrt(h + eps) + wd * w)``."""
    _always_lazy = True   # NOTE: MXNet's row_sparse AdaGrad kernel updates stored rows only

    def __init__(self, learning_rate=None, epsilon=1e-7, **kwargs):
        eps = kwargs.pop("eps", None)
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.float_stable_eps = epsilon if eps is None else eps

    def create_state(self, index, weight):
        return _zeros_like(weight)

    def _rule(self, index, weight, grad, state, lr, wd):
        grad = self._grad(grad)
        _assign(state, state + _F.square(grad))
        div = grad / _F.sqrt(state + self.float_stable_eps)
        _assign(weight, weight - lr * (div + wd * weight))


# MXNet's aliases
_REGISTRY["adamw"] = AdamW
_REGISTRY["rmsprop"] = RMSProp
