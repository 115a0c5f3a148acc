"""Fused optimizer steps: MXNet's per-parameter update kernels (``adam_update``,
``rmsprop_update``, ``ftrl_update``, ...), all of one step's parameters run as ONE engine push.

An optimizer class mixes in :class:`KernelStep` and says, per parameter, which registered op
to run on which inputs (:meth:`KernelStep._kernel_call`); :meth:`KernelStep.fused_step` counts
the updates, takes the learning rates and weight decays, and hands the calls to
:func:`fused_updates` (``use_fused_step=True``, MXNet 2's default for these optimizers; MXNet
1.9.1 runs the same kernels in ``update``). ``use_fused_step=False`` runs the composed
one-parameter ``_rule`` (MXNet 2's ``step``).
"""
from ..imperative import invoke_updates
from ..ops.registry import get_op

__all__ = ["KernelStep", "fused_updates", "parsed_op"]

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
