"""Side-by-side benchmarks of mxlab against NumPy, PyTorch, JAX and real MXNet.

Run ``python -m benchmarks`` (see :mod:`benchmarks.run`).

Stdlib-only at import: :mod:`benchmarks.mxnet_worker` imports this package under MXNet's own Python.
"""
import os

THREADS_ENV = "MXLAB_BENCH_THREADS"


def pin_threads():
    """Give every library ``$MXLAB_BENCH_THREADS`` (default 1) intra-op threads; call before NumPy,
    PyTorch or JAX load.

    NOTE: on a small shared machine, multi-threaded kernels of one library spin or wait on a core
    another process holds (PyTorch's MLP step measured 4.7 ms with one thread and 117 ms with two
    under load), and their idle spinning slows the candidate timed next. One thread each makes the
    interleaved ratios compare per-core work, which is what the small workloads measure. Variables
    already set in the environment are kept.
    """
    threads = os.environ.setdefault(THREADS_ENV, "1")
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, threads)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    if threads == "1":
        os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                                           "intra_op_parallelism_threads=1")
