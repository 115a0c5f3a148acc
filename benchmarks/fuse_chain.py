"""The 64-op chain (``x*1.01; x+0.1; tanh; x-0.05`` x16) hybridized with ``backend='fuse'`` against
hand-written NumPy, on (64,) and (1e6,) float32 vectors.

Prints per-call medians and the ratio NumPy / fused (> 1 means fusion wins); also the fused
kernel alone (the numexpr call, without the framework around it) and the unfused hybridized block.
Targets (from the task): (64,) faster than NumPy; (1e6,) at least 2x faster.

Run: ``python -m benchmarks.fuse_chain [--repeats N]``
"""
import argparse
import statistics
import time

import numpy

import mxlab as mx

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
    """The compiled kernel of the one fused subgraph, called directly on numpy arrays."""
    x = mx.sym.var('x')
    y = x
    for _ in range(16):
        y = mx.sym.tanh(y * 1.01 + 0.1) - 0.05
    fused = y.optimize_for('fuse')
    kernel = fused._outputs[0].node.op.runner.kernel(['float32'])
    data = numpy.random.rand(size).astype('float32')
    return lambda: kernel.run([data])


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
