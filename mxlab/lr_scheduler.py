"""``mx.lr_scheduler``: learning rate as a function of the update count (MXNet's rules).

Example
-------
>>> import mxlab as mx
>>> s = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=1.0)
>>> [s(n) for n in (1, 2, 3, 5)]
[1.0, 1.0, 0.5, 0.25]
"""
import math

from .base import MXNetValueError

__all__ = ["LRScheduler", "FactorScheduler", "MultiFactorScheduler", "CosineScheduler",
           "PolyScheduler"]


class LRScheduler:
    """Base class: ``base_lr`` and an optional warmup (``linear`` or ``constant``) of
    ``warmup_steps`` updates starting at ``warmup_begin_lr``."""

    def __init__(self, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0, warmup_mode="linear"):
        if warmup_mode not in ("linear", "constant"):
            raise MXNetValueError(f"Supports only linear and constant modes of warmup, got "
                                  f"{warmup_mode!r}")
        if warmup_steps and warmup_begin_lr > base_lr:
            raise MXNetValueError("Base lr has to be higher than warmup_begin_lr")
        self.base_lr = base_lr
        self.warmup_steps, self.warmup_begin_lr = warmup_steps, warmup_begin_lr
        self.warmup_final_lr, self.warmup_mode = base_lr, warmup_mode

    def get_warmup_lr(self, num_update):
        if self.warmup_mode == "constant":
            return self.warmup_begin_lr
        increase = (self.warmup_final_lr - self.warmup_begin_lr) * num_update / self.warmup_steps
        return self.warmup_begin_lr + increase

    def __call__(self, num_update):
        raise NotImplementedError(f"{type(self).__name__} must implement __call__")


class FactorScheduler(LRScheduler):
    """Multiply by ``factor`` every ``step`` updates, never below ``stop_factor_lr``."""

    def __init__(self, step, factor=1, stop_factor_lr=1e-8, base_lr=0.01, warmup_steps=0,
                 warmup_begin_lr=0, warmup_mode="linear"):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if step < 1:
            raise MXNetValueError("Schedule step must be greater or equal than 1 round")
        if factor > 1.0:
            raise MXNetValueError("Factor must be no more than 1 to make lr reduce")
        self.step, self.factor, self.stop_factor_lr = step, factor, stop_factor_lr
        self.count = 0

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        while num_update > self.count + self.step:
            self.count += self.step
            self.base_lr = max(self.base_lr * self.factor, self.stop_factor_lr)
        return self.base_lr


class MultiFactorScheduler(LRScheduler):
    """Multiply by ``factor`` after each update count listed in ``step`` (increasing)."""

    def __init__(self, step, factor=1, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0,
                 warmup_mode="linear"):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if any(b <= a for a, b in zip(step, step[1:])) or (step and step[0] < 1):
            raise MXNetValueError("Schedule step must be an increasing integer list >= 1")
        if factor > 1.0:
            raise MXNetValueError("Factor must be no more than 1 to make lr reduce")
        self.step, self.factor = list(step), factor
        self.cur_step_ind = self.count = 0

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        while self.cur_step_ind < len(self.step) and num_update > self.step[self.cur_step_ind]:
            self.count = self.step[self.cur_step_ind]
            self.cur_step_ind += 1
            self.base_lr *= self.factor
        return self.base_lr


class CosineScheduler(LRScheduler):
    """Cosine decay from ``base_lr`` to ``final_lr`` over ``max_update`` (after the warmup)."""

    def __init__(self, max_update, base_lr=0.01, final_lr=0, warmup_steps=0, warmup_begin_lr=0,
                 warmup_mode="linear"):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if max_update < 1:
            raise MXNetValueError("maximum number of updates must be strictly positive")
        self.max_update, self.final_lr, self.base_lr_orig = max_update, final_lr, base_lr
        self.max_steps = max_update - warmup_steps

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        if num_update <= self.max_update:
            progress = (num_update - self.warmup_steps) / self.max_steps
            self.base_lr = self.final_lr + (self.base_lr_orig - self.final_lr) * (
                1 + math.cos(math.pi * progress)) / 2
        return self.base_lr


class PolyScheduler(LRScheduler):
    """``final_lr + (base_lr - final_lr) * (1 - t / max_steps) ** pwr`` after the warmup."""

    def __init__(self, max_update, base_lr=0.01, pwr=2, final_lr=0, warmup_steps=0,
                 warmup_begin_lr=0, warmup_mode="linear"):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        self.max_update, self.power, self.final_lr = max_update, pwr, final_lr
        self.base_lr_orig, self.max_steps = base_lr, max_update - warmup_steps

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        if num_update <= self.max_update:
            left = 1 - (num_update - self.warmup_steps) / self.max_steps
            self.base_lr = self.final_lr + (self.base_lr_orig - self.final_lr) * left ** self.power
        return self.base_lr
