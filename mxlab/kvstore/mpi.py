"""MPI for the dist stores: is this an MPI job, the communicator, the collectives, fail-fast.

The dist stores run on MPI through mpi4py (``pip install 'mxlab[dist]'`` brings mpi4py and the
``mpich`` wheel, so no system MPI is needed); a script is launched with
``mpiexec -n 2 python train.py``.

**Is this an MPI job?** ``mpiexec`` (MPICH's Hydra, Open MPI, Intel MPI, Slurm's PMIx) tells each
process its rank through the environment: ``PMI_RANK``/``PMI_SIZE`` (MPICH, Intel MPI),
``OMPI_COMM_WORLD_SIZE`` (Open MPI), ``PMIX_RANK`` (PMIx). A dist store created without one of them
is an error that says how to launch, never a one-worker store that trains alone: a script started
with plain ``python`` would otherwise "train data-parallel" with nobody. ``mpiexec -n 1`` is a
valid one-worker job.

**Order of MPI calls.** Every collective is an engine op that writes :attr:`Communicator.var`,
so the engine runs them one at a time in push order. Every rank pushes the same collectives in
the same order (the same script), so every rank calls MPI in the same order, whichever engine
and however many worker threads: no mismatched collectives, no deadlock. mpi4py releases the GIL
inside MPI calls, so a worker blocked in an allreduce does not stop the other workers (backward
of the next layers keeps running).

**Fail fast.** A rank that dies with an uncaught exception would leave the others blocked in a
collective forever. Creating the communicator installs ``sys.excepthook`` / ``threading.excepthook``
wrappers that print the error (with the rank) and then ``MPI_Abort`` the job, so every rank exits
non-zero (mpi4py's ``python -m mpi4py`` does the same for whole scripts).

**GPU.** CuPy arrays are reduced with NCCL (``cupy.cuda.nccl``) on the current stream: one
``NcclCommunicator`` per device, its unique id broadcast from rank 0 over MPI.
"""
import os
import sys
import threading
import time

import numpy

from ..base import MXNetRuntimeError
from ..engine import Var

__all__ = ["LAUNCH_HINT", "Communicator", "communicator", "launched_by_mpi"]

_LAUNCH_ENV = ("PMI_RANK", "PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK")
LAUNCH_HINT = ("launch every worker under MPI, e.g. `mpiexec -n 2 python train.py` "
               "(pip install 'mxlab[dist]' brings mpi4py and mpich)")
ABORT_DRAIN_SECONDS = 0.5   # before MPI_Abort: time for the launcher to forward the error
_COMM = None
_COMM_LOCK = threading.Lock()


def launched_by_mpi():
    """Whether this process was started by an MPI launcher (see the module notes)."""
    return any(name in os.environ for name in _LAUNCH_ENV)


def communicator(kind):
    """The process's one :class:`Communicator` (made on first use); ``kind`` names the store asking,
    for the error raised outside an MPI job or without mpi4py."""
    global _COMM
    with _COMM_LOCK:
        if _COMM is None:
            _COMM = Communicator(_world(kind))
            _install_abort_hooks(_COMM)
    return _COMM


def _world(kind):
    if not launched_by_mpi():
        raise MXNetRuntimeError(f"kvstore {kind!r} needs an MPI job, and this process was not "
                                f"started by an MPI launcher: {LAUNCH_HINT}")
    try:
        from mpi4py import MPI
    except ImportError as exc:
        raise MXNetRuntimeError(f"kvstore {kind!r} needs mpi4py: pip install 'mxlab[dist]'") \
            from exc
    if MPI.Query_thread() < MPI.THREAD_SERIALIZED:
        raise MXNetRuntimeError(f"kvstore {kind!r}: MPI was initialised with thread level "
                                f"{MPI.Query_thread()}; engine workers call MPI, which needs "
                                f"MPI_THREAD_SERIALIZED or more (mpi4py's default is MULTIPLE)")
    return MPI.COMM_WORLD


class Communicator:
    """A private duplicate of ``COMM_WORLD`` plus the engine var that orders its collectives.

    The collectives work in place on NumPy arrays (MPI) or CuPy arrays (NCCL) and are meant to
    run inside engine ops that write :attr:`var`.
    """

    def __init__(self, world):
        self.world = world
        self.comm = world.Dup()
        self.rank = self.comm.Get_rank()
        self.size = self.comm.Get_size()
        self.var = Var("mpi")
        self._nccl = {}

    def allreduce(self, buf):
        """Sum ``buf`` (a contiguous NumPy or CuPy array) over every rank, in place."""
        if isinstance(buf, numpy.ndarray):
            from mpi4py import MPI
            self.comm.Allreduce(MPI.IN_PLACE, buf, op=MPI.SUM)
        else:
            from cupy.cuda import nccl
            with buf.device:   # NOTE: engine workers may have another current GPU
                self._nccl_comm(buf).allReduce(buf.data.ptr, buf.data.ptr, buf.size,
                                               _nccl_dtype(buf.dtype), nccl.NCCL_SUM,
                                               _cupy_stream())

    def bcast(self, buf, root=0):
        """Copy ``root``'s ``buf`` into ``buf`` on every rank (in place)."""
        if isinstance(buf, numpy.ndarray):
            self.comm.Bcast(buf, root=root)
        else:
            with buf.device:
                self._nccl_comm(buf).bcast(buf.data.ptr, buf.size, _nccl_dtype(buf.dtype), root,
                                           _cupy_stream())

    def barrier(self):
        self.comm.Barrier()

    def _nccl_comm(self, buf):
        """The NCCL communicator of ``buf``'s GPU (made collectively on first use, with that GPU
        current: ``ncclCommInitRank`` binds the communicator to the current device)."""
        device = buf.device.id
        if device not in self._nccl:
            from cupy.cuda import nccl
            uid = nccl.get_unique_id() if self.rank == 0 else None
            uid = self.comm.bcast(uid, root=0)
            self._nccl[device] = nccl.NcclCommunicator(self.size, uid, self.rank)
        return self._nccl[device]

    def abort(self, code=1):
        self.world.Abort(code)


def _cupy_stream():
    import cupy
    return cupy.cuda.get_current_stream().ptr


def _nccl_dtype(dtype):
    from cupy.cuda import nccl
    table = {"float16": nccl.NCCL_FLOAT16, "float32": nccl.NCCL_FLOAT32,
             "float64": nccl.NCCL_FLOAT64, "int8": nccl.NCCL_INT8, "uint8": nccl.NCCL_UINT8,
             "int32": nccl.NCCL_INT32, "int64": nccl.NCCL_INT64}
    name = numpy.dtype(dtype).name
    if name not in table:
        raise MXNetRuntimeError(f"NCCL allreduce: no NCCL type for dtype {name}")
    return table[name]


def _install_abort_hooks(comm):
    """Make an uncaught exception on any thread print itself and abort the whole MPI job."""
    previous, previous_thread = sys.excepthook, threading.excepthook

    def excepthook(kind, value, traceback):
        previous(kind, value, traceback)
        _abort(comm)

    def thread_excepthook(args):
        previous_thread(args)
        _abort(comm)

    sys.excepthook = excepthook
    threading.excepthook = thread_excepthook


def _abort(comm):
    sys.stderr.write(f"mxlab: rank {comm.rank} of {comm.size} failed (error above); "
                     f"aborting the MPI job\n")
    sys.stderr.flush()
    sys.stdout.flush()
    # NOTE: the launcher forwards each rank's output through pipes; aborting at once can kill
    #   the forwarders before the traceback above reaches the terminal (seen on a loaded machine)
    time.sleep(ABORT_DRAIN_SECONDS)
    comm.abort(1)
