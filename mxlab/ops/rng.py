"""The per-device random generators behind random ops (the ``rng`` resource).

Each device kind has one generator (NumPy ``Generator`` on CPU, a CuPy ``RandomState`` per GPU),
created from the seed given to :func:`seed` (``mx.random.seed``), so the same seed gives the same
numbers. Kernels reach it through their op context (:meth:`OpContext.draw
<mxlab.ops.context.OpContext.draw>`).

Example
-------
>>> import numpy
>>> seed(3); a = draw(numpy, lambda gen: gen.uniform(size=2))
>>> seed(3); b = draw(numpy, lambda gen: gen.uniform(size=2))
>>> bool((a == b).all())
True
"""
import threading

import numpy

from ..base import MXNetValueError
from ..device import Device
from .. import engine

__all__ = ["seed", "generator", "draw"]

_DEFAULT_SEED = 0
_generators = {}  # (array module name, gpu id) -> generator
_seeds = {}  # same key -> seed used for it (absent: the global seed)
_global_seed = [_DEFAULT_SEED]
# NOTE: CPU devices share one generator while the engine orders random ops per device, so draws
# take this lock (threaded engine workers may run ops of cpu(0) and cpu(1) at once).
_lock = threading.Lock()


def _key(xp):
    if xp is numpy:
        return ("numpy", 0)
    return ("cupy", int(xp.cuda.Device().id))


def _device_key(device):
    return ("numpy", 0) if device.device_type != "gpu" else ("cupy", device.device_id)


def draw(xp, fn):
    """``fn(generator)`` for the device ``xp`` computes on, with the generator held exclusively."""
    with _lock:
        return fn(generator(xp))


def generator(xp):
    """The generator for the device ``xp`` currently computes on (created from its seed when first
    used)."""
    key = _key(xp)
    gen = _generators.get(key)
    if gen is None:
        # NOTE: MXNet takes any int seed (negative too); the generators take unsigned 64-bit ones
        seed_value = _seeds.get(key, _global_seed[0]) % (1 << 64)
        gen = (
            numpy.random.Generator(numpy.random.PCG64(seed_value))
            if xp is numpy
            else xp.random.RandomState(seed_value)
        )
        _generators[key] = gen
    return gen


def seed(seed_state, ctx="all"):
    """Seed the generators of every device (``ctx='all'``) or of one device (``ctx=mx.gpu(1)``)."""
    if not isinstance(seed_state, (int, numpy.integer)) or isinstance(seed_state, bool):
        raise MXNetValueError(f"random.seed: seed_state must be an integer, got {seed_state!r}")
    seed_state = int(seed_state)
    engine.wait_all()  # NOTE: random ops already pushed draw from the old state first.
    if isinstance(ctx, str) and ctx == "all":
        _global_seed[0] = seed_state
        _seeds.clear()
        _generators.clear()
        return
    if not isinstance(ctx, Device):
        raise MXNetValueError(f"random.seed: ctx must be 'all' or a Device, got {ctx!r}")
    key = _device_key(ctx)
    _seeds[key] = seed_state
    _generators.pop(key, None)
