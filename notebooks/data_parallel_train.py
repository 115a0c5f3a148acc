"""Data-parallel MLP training with ``kvstore='dist_sync'`` (the script the MPI tutorial launches).

    mpiexec -n 2 python notebooks/data_parallel_train.py --steps 20 --batch 256 --json out.json
    python notebooks/data_parallel_train.py ...        # one process, the whole batch, no store

Every rank trains on its slice of the same global batch; rank 0 writes the step times, the loss
of the global batch per step and the engine events of the last step to ``--json``.
"""
import argparse
import dataclasses
import json
import time

import numpy

import mxlab as mx
from mxlab import autograd, gluon
from mxlab.kvstore.mpi import launched_by_mpi

SIZES = (784, 512, 512, 10)


def world():
    """(rank, workers, MPI communicator or None)."""
    if not launched_by_mpi():
        return 0, 1, None
    from mpi4py import MPI
    return MPI.COMM_WORLD.Get_rank(), MPI.COMM_WORLD.Get_size(), MPI.COMM_WORLD


def make_net():
    mx.random.seed(0)
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(SIZES[1], activation="relu", in_units=SIZES[0]),
            gluon.nn.Dense(SIZES[2], activation="relu", in_units=SIZES[1]),
            gluon.nn.Dense(SIZES[3], in_units=SIZES[2]))
    net.initialize(mx.init.Xavier())
    return net


def batch(step, size):
    rng = numpy.random.default_rng(step)
    x = rng.standard_normal((size, SIZES[0])).astype("float32")
    y = (x[:, :SIZES[3]].argmax(axis=1)).astype("float32")   # a learnable rule
    return x, y


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--batch", type=int, default=256, help="global batch (all workers)")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    rank, workers, comm = world()
    per_worker = args.batch // workers
    net = make_net()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1},
                            kvstore="dist_sync" if comm else "device")
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    times, losses = [], []
    for step in range(args.steps):
        x, y = batch(step, args.batch)
        local = slice(rank * per_worker, (rank + 1) * per_worker)
        data, label = mx.nd.array(x[local]), mx.nd.array(y[local])
        if step == args.steps - 1:
            mx.engine.event_log.clear()        # keep the engine events of the last step
        start = time.perf_counter()
        with autograd.record():
            loss = loss_fn(net(data), label)
        loss.backward()
        trainer.step(per_worker)
        mx.engine.wait_all()
        times.append(time.perf_counter() - start)
        local_loss = float(loss.mean().asscalar())
        losses.append(numpy.mean(comm.allgather(local_loss)) if comm else local_loss)
    if rank == 0 and args.json:
        events = [dataclasses.asdict(e) for e in mx.engine.event_log.events()]
        with open(args.json, "w") as fout:
            json.dump({"workers": workers, "step_s": times, "loss": losses, "events": events},
                      fout)


if __name__ == "__main__":
    main()
