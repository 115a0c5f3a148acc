"""Fused optimizer steps: MXNet's per-parameter update kernels (``adam_update``,
``rmsprop_update``, ``ftrl_update``, ...), all of one step's parameters run as ONE engine push.

An optimizer class mixes in :class:`KernelStep` and says, per parameter, which registered op
to run on which inputs (:meth:`KernelStep._kernel_call`); :meth:`KernelStep.fused_step` counts
the updates, takes the learning rates and weight decays, and hands the calls to
:func:`fused_updates` (``use_fused_step=True``, MXNet 2's default for these optimizers; MXNet
1.9.1 runs the same kernels in ``update``). ``use_fused_step=False`` runs the composed
one-parameter ``_rule`` (MXNet 2's ``step``).
"""
import itertools
import operator

import numpy

from ..engine.op import raise_error
from ..imperative import STATE, invoke_updates, push_updates
from ..ops.optimizer_ops import plain_sgd_scale
from ..ops.registry import get_op, translate_error

__all__ = ["KernelStep", "fused_updates", "parsed_op", "sgd_updates"]

_PARSED = {}   # (op name, attribute items) -> (op, parsed attrs): one parse per distinct step
_PARSED_MAX = 256


def parsed_op(op_name, attrs):
    """``(op, parsed attrs)``, kept per distinct value set.

    NOTE: a trainer repeats one set every step; a scheduler's changing rates (and Adam's bias
    correction, a new rate each step) just refill the bounded cache.
    """
    key = (op_name, *attrs.items())
    try:
        found = _PARSED.get(key)
    except TypeError:   # an unhashable value: parsed every time
        key, found = None, None
    if found is None:
        if len(_PARSED) >= _PARSED_MAX:
            _PARSED.clear()
        op = get_op(op_name)
        found = (op, op.parse_attrs(attrs))
        if key is not None:
            _PARSED[key] = found
    return found


def fused_updates(calls):
    """Run fused update ops ``[(op name, inputs, attrs)]``, each writing its first input (the
    weight) in place, as one engine push (see :func:`mxlab.imperative.invoke_updates`)."""
    runs = []
    for name, inputs, attrs in calls:
        op, parsed = parsed_op(name, attrs)
        runs.append((op, inputs, parsed))
    invoke_updates(runs)


class KernelStep:
    """Mixin: ``fused_step`` through one registered update op per parameter, batched into one
    engine push (``batches_updates``: the updater hands it every parameter at once)."""

    batches_updates = True

    def fused_step(self, indices, weights, grads, states):
        """MXNet's fused kernels, one per parameter, all in one engine push."""
        self._update_count(indices)
        lrs, wds = self._get_lrs(indices), self._get_wds(indices)
        common = {"rescale_grad": self.rescale_grad}
        if self.clip_gradient:   # NOTE: MXNet passes clip_gradient only when it is truthy
            common["clip_gradient"] = self.clip_gradient
        fused_updates([self._kernel_call(index, weight, grad, state, dict(common, lr=lr, wd=wd))
                       for index, weight, grad, state, lr, wd
                       in zip(indices, weights, grads, states, lrs, wds)])

    def _kernel_call(self, index, weight, grad, state, attrs):
        """``(op name, inputs, attrs)`` of one parameter's update; ``attrs`` holds ``lr``,
        ``wd``, ``rescale_grad`` and (when set) ``clip_gradient``."""
        raise NotImplementedError(f"{type(self).__name__} has no fused kernel")


# -- SGD's steady state ----------------------------------------------------------------------------
_PLAIN = (float, int, bool, type(None), numpy.float64, numpy.float32)
_VAR = operator.attrgetter("_var")
_DATA = operator.attrgetter("_data")
_NONES = itertools.repeat(None)


def sgd_updates(optimizer, indices, weights, grads, states, lrs, wds, kwargs):
    """SGD's (and NAG's) fused step without ``aggregate_num``: one ``sgd_update``/
    ``sgd_mom_update`` per parameter (``mp_`` float16 and NAG momentum updates run as their own
    ops, see ``SGD._fused_call``), the batched ones in one engine push.

    NOTE: the push (its kernel, read and write vars) is kept on the optimizer (``_steady``) and
      pushed again while the next step has the same indices, rates, weight decays, settings and
      the very same arrays (and vars): a trainer's steady step then builds and parses nothing
      (see :meth:`_Steady.step`). Anything else (a new rate from ``set_learning_rate``, a
      scheduler or an ``lr_mult``, other arrays, recording or deferred compute) takes the full
      path, which remakes it.
    """
    momentum = optimizer.momentum > 0
    moms = states if momentum else None
    key = _key(optimizer, lrs, wds, kwargs)
    steady = optimizer.__dict__.get("_steady")
    if steady is not None and not STATE.recording and not STATE.deferred \
            and steady.holds(indices, weights, grads, moms) and steady.same(key):
        push_updates(steady.prepared)
        return
    optimizer._steady = None
    calls, plain = [], True
    for weight, grad, state, lr, wd in zip(weights, grads, states, lrs, wds):
        mixed = optimizer.multi_precision and weight.dtype == numpy.float16
        master, mom = optimizer._split_mixed(weight, state) if mixed else (None, state)
        mom = mom if momentum else None
        inputs = [weight, grad] + ([mom] if mom is not None else []) \
            + ([master] if mixed else [])
        call = optimizer._fused_call(2 * mixed + (mom is not None), inputs,
                                     dict(kwargs, lr=lr, wd=wd))
        if call is None:   # NOTE: ran as its own op
            plain = False
            continue
        plain = plain and not mixed
        op, attrs = parsed_op(call[0], call[2])
        calls.append((op, call[1], attrs))
    prepared = invoke_updates(calls)
    if prepared is None:
        return
    if plain and not STATE.recording and all(type(v) in _PLAIN for v in (*key[2:], *lrs, *wds)):
        kernel = _plain_kernel(calls)
        if kernel is not None:
            prepared = (kernel, *prepared[1:])
        optimizer._steady = _Steady(key, indices, weights, grads, moms, prepared)


def _plain_kernel(calls):
    """The kept push's kernel where every update is a plain ``sgd_update`` on the CPU (no weight
    decay or clip, a power-of-two rescale): ``_sgd_into``'s arithmetic, ``w - g * scale``, with
    each scale computed once (``plain_sgd_scale``), or None."""
    runs = []
    for op, inputs, attrs in calls:
        scale = plain_sgd_scale(attrs) if op.name == "sgd_update" else None
        if scale is None or inputs[0]._device.xp is not numpy:
            return None
        runs.append((inputs[0], inputs[1], scale))
    op = calls[0][0]
    subtract, multiply = numpy.subtract, numpy.multiply

    def kernel():
        for weight, grad, scale in runs:
            w, g = weight._data, grad._data
            try:
                subtract(w, multiply(g, scale), out=w)
            except Exception as exc:
                raise_error(translate_error(op, exc, [w, g]) or exc, exc)

    return kernel


def _key(optimizer, lrs, wds, kwargs):
    """What a step's parsed attributes depend on besides the arrays."""
    return (lrs, wds, optimizer.rescale_grad, kwargs.get("momentum"),
            kwargs.get("clip_gradient"), optimizer.multi_precision)


class _Steady:
    """One SGD step's prepared push and what it was made for (on the optimizer, ``_steady``)."""

    __slots__ = ("key", "indices", "arrays", "vars", "has_moms", "prepared")

    def __init__(self, key, indices, weights, grads, moms, prepared):
        self.key, self.indices, self.prepared = key, list(indices), prepared
        self.has_moms = moms is not None
        self.arrays = weights + grads + moms if self.has_moms else weights + grads
        self.vars = list(map(_VAR, self.arrays))

    def same(self, key):
        try:
            return key == self.key
        except (TypeError, ValueError):   # NOTE: a rate that is an array: no match
            return False

    def holds(self, indices, weights, grads, moms):
        """The same indices and the same arrays (with the same vars), none of them awaiting
        deferred compute."""
        n = len(self.indices)
        if indices != self.indices or len(weights) != n or len(grads) != n \
                or (moms is not None) != self.has_moms:
            return False
        arrays = weights + grads + moms if self.has_moms else weights + grads
        if not all(map(operator.is_, arrays, self.arrays)) \
                or list(map(_VAR, arrays)) != self.vars:
            return False
        if any(map(operator.is_, map(_DATA, arrays), _NONES)):   # NOTE: a pending array (rare)
            return not any(x._data is None and x._dc is not None for x in arrays)
        return True

    def step(self, updater, indices, grads, weights):
        """A whole ``updater(indices, grads, weights)`` call (True), when it repeats the step this
        was made for with SGD's own update chain (``optimizer._steady_chain()``): the same
        device, counts, rates and states as that chain, then the kept push (or, with new rates or
        settings, the rest of the chain). False (nothing done) for anything else."""
        optimizer = updater.optimizer
        if type(indices) is not list or updater.aggregate_updates or STATE.recording \
                or STATE.deferred or not optimizer._steady_chain():
            return False
        states, synced = updater.states, updater.states_synced
        for i in indices:
            if synced.get(i) is not True or i not in states:
                return False
        moms = [states[i] for i in indices] if self.has_moms else None
        if not self.holds(indices, weights, grads, moms):
            return False
        optimizer._set_current_device(weights[0].device.device_id)
        optimizer._update_count(indices)
        lrs, wds = optimizer._get_lrs(indices), optimizer._get_wds(indices)
        kwargs = optimizer._fused_kwargs()
        if self.same(_key(optimizer, lrs, wds, kwargs)):
            push_updates(self.prepared)
        else:
            sgd_updates(optimizer, list(indices), list(weights), list(grads),
                        [states[i] for i in indices], lrs, wds, kwargs)
        return True
