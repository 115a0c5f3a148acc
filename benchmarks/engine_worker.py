"""NaiveEngine vs ThreadedEngine on two independent chains of 512x512 matmuls (one JSON line).

The runner starts this in a subprocess with ``OPENBLAS_NUM_THREADS``, ``OMP_NUM_THREADS`` and
``MKL_NUM_THREADS`` = 1 (set before NumPy loads its BLAS, which is why it is a separate process) and
``MXNET_CPU_WORKER_NTHREADS=2``: each matmul then uses one core, and any speed-up of the threaded
engine comes from running the two chains side by side on its workers (NumPy releases the GIL inside
the matmul), not from a multi-threaded BLAS.

Run: ``python -m benchmarks.engine_worker <repeats> <chain length>``
"""
import dataclasses
import json
import statistics
import sys
import time

import numpy

import mxlab as mx

from .timing import Row

SIZE = 512


def chains_step(length):
    """Push two independent ``length``-matmul chains on the current engine, then wait for both."""
    rng = numpy.random.default_rng(0)
    w = mx.nd.array((rng.standard_normal((SIZE, SIZE)) / SIZE ** 0.5).astype("float32"))
    starts = [mx.nd.array(rng.standard_normal((SIZE, SIZE)).astype("float32")) for _ in range(2)]

    def step():
        heads = list(starts)
        for _ in range(length):
            heads = [mx.nd.dot(h, w) for h in heads]
        mx.engine.wait_all()
    return step


def time_engines(repeats, length, kinds=("NaiveEngine", "ThreadedEngine")):
    """Median seconds per step of each engine; engines alternate every repeat.

    NOTE: the switch (which drains and stops the old engine's workers) happens outside the timed
    region, followed by one untimed step.
    """
    step = chains_step(length)
    samples = {kind: [] for kind in kinds}
    for _ in range(repeats):
        for kind in kinds:
            mx.engine.set_engine(kind)
            step()
            start = time.perf_counter()
            step()
            samples[kind].append(time.perf_counter() - start)
    return {kind: statistics.median(times) for kind, times in samples.items()}


def overlap(length, kind="ThreadedEngine"):
    """Summed op durations / wall time of one step (from the event log): how many matmuls ran at
    once on average. Unlike the speed-up, it does not drop when other processes hold the cores."""
    step = chains_step(length)
    mx.engine.set_engine(kind)
    step()
    mx.engine.event_log.enabled = True
    mx.engine.event_log.clear()
    start = time.perf_counter()
    step()
    wall = time.perf_counter() - start
    mx.engine.event_log.enabled = False
    return sum(e.duration for e in mx.engine.event_log.events() if e.name == "dot") / wall


def main(argv):
    repeats, length = int(argv[0]), int(argv[1])
    mx.engine.event_log.enabled = False
    medians = time_engines(repeats, length)
    case = f"2 x {length} matmuls {SIZE}^2"
    rows = [Row("engine", case, kind, seconds * 1e6) for kind, seconds in medians.items()]
    rows[-1].note = f"matmuls overlapped {overlap(length):.2f}x"
    print(json.dumps({"rows": [dataclasses.asdict(row) for row in rows]}))


if __name__ == "__main__":
    main(sys.argv[1:])
