"""The clock the convolution autotuner (:mod:`.conv_algo`) times its candidates with."""

import os
import time

__all__ = ["clock", "timed"]

_ONE_THREAD_ENV = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS")  # who decides


def clock(xp):
    """The clock autotune reads: this thread's CPU time when NumPy's BLAS runs one thread (all of
    a candidate's work is then on this thread, so other processes and threads sharing the cores
    do not skew the ranking), else wall time (a multi-threaded GEMM works on other threads).

    NOTE: on a loaded 2-core machine wall-clock tuning picked per-sample GEMMs for 2x2 maps
    (7x slower) in some runs; the thread clock made the picks repeatable.
    """
    threads = next((os.environ[v] for v in _ONE_THREAD_ENV if os.environ.get(v)), None)
    if xp.__name__ == "numpy" and threads == "1":
        return time.thread_time
    return time.perf_counter


def timed(xp, fn, *args):
    tick = clock(xp)
    start = tick()
    fn(args[0], xp, *args[1:])
    if xp.__name__ != "numpy":
        xp.cuda.get_current_stream().synchronize()
    return tick() - start
