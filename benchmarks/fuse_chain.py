"""The 64-op chain (``x*1.01; x+0.1; tanh; x-0.05`` x16) hybridized with ``backend='fuse'`` against
hand-written NumPy, on (64,) and (1e6,) float32 vectors.

Prints per-call medians and the ratio NumPy / fused (> 1 means fusion wins); also the fused
kernel alone (the numexpr call, without the framework around it) and the unfused hybridized block.
Targets (from the task): (64,) faster than NumPy; (1e6,) at least 2x faster.

Run: ``python -m benchmarks.fuse_chain [--repeats N]``
"""
import argparse
import functools
import statistics
import time

import numpy

import mxlab as mx
from mxlab.ops.context import PREDICT

SIZES = (64, 1_000_000)
CONSTANTS = (numpy.float32(1.01), numpy.float32(0.1), numpy.float32(0.05))


def numpy_chain(x):
    scale, shift, drop = CONSTANTS
    for _ in range(16):
        x = numpy.tanh(x * scale + shift) - drop
    return x


class Chain(mx.gluon.HybridBlock):
    def forward(self, x):
        for _ in range(16):
            x = mx.np.tanh(x * 1.01 + 0.1) - 0.05
        return x


def median_seconds(fn, repeats, number):
    """Median over ``repeats`` of the mean time of ``number`` calls."""
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - start) / number)
    return statistics.median(times)


def _block(backend):
    net = Chain()
    net.hybridize(backend=backend) if backend else net.hybridize()
    return net


def _fused_kernel(size):
    """The one fused subgraph's kernel, called directly on numpy arrays: the way the backend
    chose for this size (numexpr, the in-place ufunc program or op by op; see
    :class:`mxlab.subgraph.backends.fuse.FusedRunner`), without the framework around it."""
    x = mx.sym.var('x')
    y = x
    for _ in range(16):
        y = mx.sym.tanh(y * 1.01 + 0.1) - 0.05
    runner = y.optimize_for('fuse')._outputs[0].node.op.runner
    data = numpy.random.rand(size).astype('float32')
    runner.compute(numpy, [data], {}, PREDICT)     # NOTE: tunes the choice for this size, once
    kernel = runner.kernel(['float32'])
    choice = next(iter(runner.choices.values()), "numexpr")
    return functools.partial(runner._ways(kernel, numpy, {}, PREDICT)[choice], [data])


def run(repeats=5, sizes=SIZES):
    """``{size: {name: seconds}}`` for numpy, the fused block, the plain block and the kernel."""
    mx.npx.set_np()
    results = {}
    for size in sizes:
        number = 200 if size < 1000 else 3
        data = numpy.random.rand(size).astype('float32')
        x = mx.np.array(data)
        fused, plain = _block('fuse'), _block(None)
        numpy.testing.assert_allclose(fused(x).asnumpy(), numpy_chain(data), rtol=1e-4,
                                      atol=1e-5)
        results[size] = {
            "numpy": median_seconds(lambda: numpy_chain(data), repeats, number),
            "fused block": median_seconds(lambda: fused(x).wait_to_read(), repeats, number),
            "plain block": median_seconds(lambda: plain(x).wait_to_read(), repeats, number),
            "fused kernel": median_seconds(_fused_kernel(size), repeats, number),
        }
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    for size, times in run(args.repeats).items():
        print(f"size ({size},):")
        for name, seconds in times.items():
            print(f"  {name:13s} {seconds * 1e6:12.1f} us   numpy/this = "
                  f"{times['numpy'] / seconds:6.2f}")


if __name__ == "__main__":
    main()
