"""Where the microseconds of one imperative mxlab op go: the 64-op chain on a (64,) vector.

Two views:

1. Ablations timed without a profiler (medians, interleaved): the chain with the engine event log
   off (the default in scripts) and on (the default in notebooks), a wrap-only floor (NumPy call +
   new NDArray, no dispatch) and the bare NumPy kernels -- real per-op costs.
2. cProfile of the default chain, every function's own time summed into layers (frontend, invoke,
   NDArray creation, engine push, event log, op compute/kernel). Time of stdlib/builtin functions
   goes to the layer of their caller. cProfile inflates Python call costs, so each layer is shown
   as its share and as that share of the unprofiled time per op.

Run: ``python -m benchmarks.profile_imperative [--size 64] [--calls 200] [--top 15]``
"""
import argparse
import cProfile
import os
import pstats

import numpy

import mxlab as mx

from . import models, peers
from .timing import Candidate, time_interleaved

OPS_PER_CHAIN = 4 * models.CHAIN_REPEAT
OTHER = "other (stdlib, builtins)"
# (path fragment, function name or None for any, layer); first match wins
LAYERS = (
    ("mxlab/engine/log.py", None, "engine event log"),
    ("mxlab/engine/var.py", None, "NDArray + Var creation"),
    ("mxlab/engine/", None, "engine push (naive)"),
    ("mxlab/imperative.py", "kernel", "op compute + kernel"),
    ("mxlab/imperative.py", None, "imperative.invoke"),
    ("mxlab/ndarray/ndarray.py", "_empty_handle", "NDArray + Var creation"),
    ("mxlab/ndarray/ndarray.py", "_produced", "NDArray + Var creation"),
    ("mxlab/ndarray/frontend.py", None, "frontend (args, attrs)"),
    ("mxlab/ndarray/ndarray.py", None, "frontend (args, attrs)"),
    ("mxlab/ndarray/arith.py", None, "frontend (args, attrs)"),
    ("mxlab/ops/registry.py", None, "op registry lookups"),
    ("mxlab/ops/", None, "op compute + kernel"),
    ("benchmarks/", None, "benchmark loop"),
)


def _layer(func):
    path, _, name = func
    path = path.replace(os.sep, "/")
    for fragment, fname, layer in LAYERS:
        if fragment in path and fname in (None, name):
            return layer
    return None


def layer_times(stats):
    """{layer: seconds of own time}; a function outside mxlab is charged to its callers' layers."""
    totals = {}
    for func, (_, _, tottime, _, callers) in stats.stats.items():
        layer = _layer(func)
        if layer is not None:
            totals[layer] = totals.get(layer, 0.0) + tottime
            continue
        shares = {}
        for caller, (_, _, caller_tt, _) in callers.items():
            owner = _layer(caller) or OTHER
            shares[owner] = shares.get(owner, 0.0) + caller_tt
        weight = sum(shares.values())
        for owner, value in shares.items():
            totals[owner] = totals.get(owner, 0.0) + (tottime * value / weight if weight else 0.0)
        if not shares:
            totals[OTHER] = totals.get(OTHER, 0.0) + tottime
    return totals


class _Wrapped:
    """The thinnest possible array front: each op is one NumPy call wrapped in a new NDArray (with
    its Var); the floor of any Python dispatch that keeps an array object per result."""

    def __init__(self, arr):
        self.arr = arr

    @staticmethod
    def _new(data):
        return _Wrapped(mx.nd.NDArray._wrap(data, _Wrapped.device))

    def __mul__(self, s):
        return self._new(numpy.multiply(self.arr._data, s))

    def __add__(self, s):
        return self._new(numpy.add(self.arr._data, s))

    def __sub__(self, s):
        return self._new(numpy.subtract(self.arr._data, s))

    @staticmethod
    def tanh(x):
        return x._new(numpy.tanh(x.arr._data))


def _wrap_only_step(size):
    _Wrapped.device = mx.cpu()
    x = _Wrapped(mx.nd.array(numpy.linspace(-1, 1, size, dtype="float32")))
    return lambda: models.chain_ops(_Wrapped, x)


def ablations(size, repeats):
    """Unprofiled medians (µs per chain): event log off (the script default) and on (the notebook
    default), wrap-only floor, NumPy alone."""
    def with_log(enabled):
        return models.with_event_log(mx, models.chain_nd_step(mx, size), enabled)
    cands = [Candidate("mxlab, event log off", lambda: with_log(False)),
             Candidate("mxlab, event log on", lambda: with_log(True)),
             Candidate("wrap-only floor", lambda: _wrap_only_step(size)),
             Candidate("numpy kernels only", lambda: peers.chain_numpy_naive(size))]
    rows = time_interleaved("profile", f"({size},)", cands, repeats, number=5)
    return {row.impl: row.value for row in rows}


def profile_chain(size, calls):
    step = models.chain_nd_step(mx, size)
    for _ in range(5):
        step()
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(calls):
        step()
    profiler.disable()
    return pstats.Stats(profiler)


def report(size=64, calls=200, top=15, repeats=15):
    """Print the ablations, the per-layer split and the top functions by own time."""
    times = ablations(size, repeats)
    per_op = times["mxlab, event log off"] / OPS_PER_CHAIN
    print(f"64-op chain on ({size},): unprofiled medians, µs per op")
    for impl, value in times.items():
        print(f"  {impl:24s} {value / OPS_PER_CHAIN:8.2f}")
    stats = profile_chain(size, calls)
    layers = layer_times(stats)
    total = sum(layers.values())
    ops = calls * OPS_PER_CHAIN
    print(f"\ncProfile, {calls} chains: own time by layer (share; share x unprofiled "
          f"{per_op:.1f} µs/op; profiled µs/op)")
    for layer, seconds in sorted(layers.items(), key=lambda kv: -kv[1]):
        share = seconds / total
        print(f"  {layer:28s} {share:6.1%} {share * per_op:8.2f} {seconds / ops * 1e6:8.2f}")
    print(f"\ntop {top} functions by own time")
    stats.sort_stats("tottime").print_stats(top)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=64)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    numpy.set_printoptions(precision=3)
    report(args.size, args.calls, args.top, args.repeats)


if __name__ == "__main__":
    main()
