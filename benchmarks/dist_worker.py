"""Data-parallel figures, run under ``mpiexec`` (rank 0 prints one JSON line of rows).

``python -m benchmarks.dist_worker step <repeats> <global batch>``: one training step of the
784-1024-1024-10 MLP on a global batch, as one process (``mpiexec -n 1``: no store, the whole
batch) or as N workers (``mpiexec -n N``: ``kvstore='dist_sync'``, a slice each).
``python -m benchmarks.dist_worker allreduce <repeats>``: the MLP's gradient buffers summed over
the workers by ``kv.pushpull`` (per key and bucketed) and by mpi4py's own ``Allreduce`` of the
same NumPy buffers, timed interleaved; the note gives the bytes/s.
"""
import dataclasses
import json
import sys
import time

import numpy

import mxlab as mx
from mxlab import autograd, gluon

from .timing import Candidate, Row, time_interleaved

SIZES = (784, 1024, 1024, 10)
BUCKET_BYTES = 4 << 20


def _world():
    from mpi4py import MPI
    return MPI.COMM_WORLD


def _net():
    mx.random.seed(0)
    net = gluon.nn.HybridSequential()
    for units in SIZES[1:-1]:
        net.add(gluon.nn.Dense(units, activation="relu"))
    net.add(gluon.nn.Dense(SIZES[-1]))
    net.initialize(mx.init.Xavier())
    net.hybridize(static_alloc=True, static_shape=True)
    return net


def step_rows(repeats, global_batch):
    world = _world()
    workers, rank = world.Get_size(), world.Get_rank()
    per_worker = global_batch // workers
    net = _net()
    net(mx.nd.zeros((1, SIZES[0])))
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.01},
                            kvstore="dist_sync" if workers > 1 else None)
    rng = numpy.random.default_rng(rank)
    data = mx.nd.array(rng.standard_normal((per_worker, SIZES[0])).astype("float32"))
    label = mx.nd.array(rng.integers(0, SIZES[-1], per_worker).astype("float32"))
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()

    def step():
        with autograd.record():
            loss = loss_fn(net(data), label)
        loss.backward()
        trainer.step(per_worker)
        mx.engine.wait_all()

    for _ in range(3):
        step()
    times = []
    for _ in range(repeats):
        world.Barrier()
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    times = world.gather(numpy.median(times), root=0)
    impl = f"{workers} process" + ("es" if workers > 1 else "")
    case = f"MLP {'-'.join(map(str, SIZES))} step, global batch {global_batch}"
    return [Row("dist", case, impl, max(times or [0]) * 1e6)]


def allreduce_rows(repeats):
    world = _world()
    shapes = [(a, b) for a, b in zip(SIZES[1:], SIZES[:-1])] + [(b,) for b in SIZES[1:]]
    rng = numpy.random.default_rng(world.Get_rank())
    host = [rng.standard_normal(s).astype("float32") for s in shapes]
    total = sum(h.nbytes for h in host)

    def mpi_allreduce():
        from mpi4py import MPI
        for buf in host:
            world.Allreduce(MPI.IN_PLACE, buf, op=MPI.SUM)
        return lambda: [world.Allreduce(MPI.IN_PLACE, b, op=MPI.SUM) for b in host]

    def kv_pushpull(bucket):
        def setup():
            kv = mx.kv.create("dist_sync")
            kv.bucket_bytes = bucket
            grads = [mx.nd.array(h) for h in host]
            keys = list(range(len(grads)))

            def run():
                kv.pushpull(keys, grads)
                mx.engine.wait_all()
            return run
        return setup

    cands = [Candidate("mpi4py Allreduce", mpi_allreduce),
             Candidate("mxlab kv pushpull", kv_pushpull(0)),
             Candidate("mxlab kv pushpull bucketed", kv_pushpull(BUCKET_BYTES))]
    case = f"allreduce {len(host)} buffers, {total / 2**20:.1f} MB, {world.Get_size()} workers"
    rows = time_interleaved("dist", case, cands, repeats)
    for row in rows:
        if row.value:
            row.note = f"{total / (row.value * 1e-6) / 2**30:.2f} GiB/s"
    return rows


def main(argv):
    mode, repeats = argv[0], int(argv[1])
    rows = step_rows(repeats, int(argv[2])) if mode == "step" else allreduce_rows(repeats)
    if _world().Get_rank() == 0:
        print(json.dumps({"rows": [dataclasses.asdict(row) for row in rows]}))


if __name__ == "__main__":
    main(sys.argv[1:])
