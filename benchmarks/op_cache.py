"""Op-plan cache on vs off: a small CNN forward+backward (seed 004's regression, measured).

Network: conv3x3(3->16) -> BatchNorm -> conv3x3(16->16) -> max-pool 2x2, on 8x3x32x32, with
autograd. With the cache off every call rebuilds its plan (geometry, padded workspace and -- unless
``MXNET_CUDNN_AUTOTUNE_DEFAULT=0`` -- the autotuned algorithm choice), as MXNet did before #10116.

Run: ``python benchmarks/op_cache.py [--steps 5] [--rounds 4] [--device cpu|gpu]``; it prints
the time per step (wall clock and CPU time) with the cache on and off, their ratio, and the hit
rate once the first step has filled the cache. On a shared machine set
``OPENBLAS_NUM_THREADS=1`` and read the CPU-time ratio.
"""

import argparse
import os
import sys
import time

import numpy

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import mxlab as mx  # noqa: E402


def make_model(device):
    rng = numpy.random.default_rng(0)

    def param(*shape, scale=0.1):
        array = mx.nd.array(rng.standard_normal(shape) * scale, ctx=device)
        array.attach_grad()
        return array

    params = {
        "w1": param(16, 3, 3, 3),
        "b1": param(16),
        "gamma": param(16, scale=1.0),
        "beta": param(16),
        "w2": param(16, 16, 3, 3),
        "b2": param(16),
    }
    aux = {
        "mean": mx.nd.array(numpy.zeros(16), ctx=device),
        "var": mx.nd.array(numpy.ones(16), ctx=device),
    }
    return params, aux


def step(x, params, aux):
    with mx.autograd.record():
        y = mx.nd.Convolution(
            x, params["w1"], params["b1"], kernel=(3, 3), pad=(1, 1), num_filter=16
        )
        y = mx.nd.BatchNorm(
            y, params["gamma"], params["beta"], aux["mean"], aux["var"], fix_gamma=False
        )
        y = mx.nd.Convolution(
            y, params["w2"], params["b2"], kernel=(3, 3), pad=(1, 1), num_filter=16
        )
        y = mx.nd.Pooling(y, kernel=(2, 2), stride=(2, 2), pool_type="max")
    y.backward()
    return params["w1"].grad.asnumpy()


def time_steps(x, params, aux, steps):
    """Seconds per step, as (wall clock, this process's CPU time), after one warm-up step."""
    step(x, params, aux)  # warm-up: fills the cache when it is on
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(steps):
        step(x, params, aux)
    return (time.perf_counter() - wall) / steps, (time.process_time() - cpu) / steps


def compare(x, params, aux, steps, rounds):
    """Best per-step times with the cache on and off, alternating rounds so load drift hits both.

    NOTE: CPU time is reported too: on a shared machine it is far less noisy than wall clock.
    """
    best = {"on": (float("inf"),) * 2, "off": (float("inf"),) * 2}
    for _ in range(rounds):
        for mode in ("on", "off"):
            with mx.op_cache.enable(mode == "on"):
                times = time_steps(x, params, aux, steps)
            best[mode] = tuple(min(a, b) for a, b in zip(best[mode], times))
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--device", default="cpu", choices=("cpu", "gpu"))
    args = parser.parse_args()
    device = mx.gpu(0) if args.device == "gpu" else mx.cpu()
    x = mx.nd.array(numpy.random.default_rng(1).standard_normal((8, 3, 32, 32)), ctx=device)
    params, aux = make_model(device)
    mx.op_cache.clear()
    step(x, params, aux)
    mx.op_cache.reset_stats()
    step(x, params, aux)  # everything was built by the step above: this one only hits
    hit_rate = mx.op_cache.info().hit_rate
    best = compare(x, params, aux, args.steps, args.rounds)
    autotune = os.environ.get("MXNET_CUDNN_AUTOTUNE_DEFAULT", "1")
    print(f"device={device} autotune={autotune} steps={args.steps} rounds={args.rounds}")
    for mode in ("on", "off"):
        wall, cpu = best[mode]
        print(f"cache {mode:<3}: {wall * 1e3:8.2f} ms/step wall, {cpu * 1e3:8.2f} ms/step CPU")
    ratio_wall = best["off"][0] / best["on"][0]
    ratio_cpu = best["off"][1] / best["on"][1]
    print(
        f"speed-up : {ratio_wall:.2f}x wall, {ratio_cpu:.2f}x CPU; "
        f"hit rate after the first step: {hit_rate:.2f}"
    )
    print(mx.op_cache.info())


if __name__ == "__main__":
    main()
