"""What each rank of the MPI tests runs: ``mpiexec -n N python mpi_worker.py MODE OUTDIR``.

Modes: ``train`` (an MLP, data parallel, writes its losses, weights and engine events to
``OUTDIR/rank<r>.npz``), ``ops`` (the store's collectives, asserted here, results written),
``fault`` (rank 1 raises after two steps; the job must die, not hang), ``gpu`` (the NCCL
path on CuPy arrays). The test imports
:func:`train` to run the single-process reference on the concatenated batch.
"""
import json
import os
import sys

import numpy

import mxlab as mx
from mxlab import autograd, gluon

STEPS, PER_WORKER, FEATURES = 20, 8, 6


def global_batch(workers):
    rng = numpy.random.RandomState(42)
    x = rng.uniform(-1, 1, size=(STEPS, PER_WORKER * workers, FEATURES)).astype("float32")
    y = (x.sum(axis=2) > 0).astype("float32")
    return x, y


def make_net():
    mx.random.seed(7)
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(16, activation="relu", in_units=FEATURES),
            gluon.nn.Dense(16, activation="tanh", in_units=16), gluon.nn.Dense(2, in_units=16))
    net.initialize(mx.init.Xavier())
    return net


def train(kvstore, rank, workers, update_on_kvstore=None, fail_at=None):
    """Losses (this worker's mean per step) and final weights of ``STEPS`` SGD steps."""
    net = make_net()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.5, "momentum": 0.9},
                            kvstore=kvstore, update_on_kvstore=update_on_kvstore)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    x, y = global_batch(workers)
    local = slice(rank * PER_WORKER, (rank + 1) * PER_WORKER) if kvstore else slice(None)
    losses = []
    for step in range(STEPS):
        if step == fail_at and rank == 1:
            raise ValueError("rank 1 failed on purpose")
        data, label = mx.nd.array(x[step, local]), mx.nd.array(y[step, local])
        with autograd.record():
            loss = loss_fn(net(data), label)
        loss.backward()
        trainer.step(PER_WORKER if kvstore else PER_WORKER * workers)
        losses.append(float(loss.mean().asscalar()))
    weights = [p.data().asnumpy() for p in net.collect_params().values()]
    return numpy.array(losses), weights


def run_train(outdir):
    kv_type = os.environ.get("MXLAB_TEST_KVSTORE", "dist_sync")
    update = {"1": True, "0": False}.get(os.environ.get("MXLAB_TEST_UPDATE_ON_KV", ""))
    kv_rank, workers = _world()
    mx.engine.event_log.clear()
    losses, weights = train(kv_type, kv_rank, workers, update)
    events = [(e.name, len(e.writes), e.push_seq) for e in mx.engine.event_log.events()
              if e.name.startswith("kv_")]
    numpy.savez(os.path.join(outdir, f"rank{kv_rank}.npz"), losses=losses,
                events=json.dumps(events), **{f"w{i}": w for i, w in enumerate(weights)})


def _world():
    from mpi4py import MPI
    return MPI.COMM_WORLD.Get_rank(), MPI.COMM_WORLD.Get_size()


def run_ops(outdir):
    kv = mx.kv.create("dist_sync")
    rank, size = kv.rank, kv.num_workers
    results = {"rank": rank, "size": size, "type": kv.type}
    kv.init(0, mx.nd.ones((2, 3)) * (rank + 1))            # rank 0's value wins
    out = mx.nd.zeros((2, 3))
    kv.pull(0, out=out)
    results["init"] = out.asnumpy().tolist()
    kv.push(0, [mx.nd.ones((2, 3)) * (rank + 1), mx.nd.ones((2, 3))])   # sum: devices, workers
    kv.pull(0, out=out)
    results["push"] = out.asnumpy().tolist()
    value = mx.nd.arange(4) * (rank + 1)
    kv.pushpull(1, value)                                  # no init needed: an allreduce
    results["pushpull"] = value.asnumpy().tolist()
    target = mx.nd.zeros((3,))
    kv.broadcast(2, mx.nd.ones((3,)) * (10 + rank), out=target)
    results["broadcast"] = target.asnumpy().tolist()
    kv.bucket_bytes = 1 << 20
    many = [mx.nd.ones((5,)) * (rank + k) for k in range(3)]
    kv.pushpull([10, 11, 12], many)
    results["bucketed"] = [m.asnumpy().tolist() for m in many]
    kv.init(3, mx.nd.ones((2,)))
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1))
    kv.push(3, mx.nd.ones((2,)) * (rank + 1))
    weight = mx.nd.zeros((2,))
    kv.pull(3, out=weight)
    results["optimizer"] = weight.asnumpy().tolist()
    kv.barrier()
    hvd = mx.kv.create("horovod")
    results["horovod"] = [hvd.type, hvd.is_capable("optimizer"), hvd.num_workers]
    with open(os.path.join(outdir, f"rank{rank}.json"), "w") as fout:
        json.dump(results, fout)


def run_gpu(outdir):
    """The NCCL path: CuPy arrays on this rank's GPU through init, pushpull and buckets."""
    kv = mx.kv.create("dist_device_sync")
    rank, size = kv.rank, kv.num_workers
    device = mx.gpu(rank % mx.num_gpus())
    kv.init(0, mx.nd.ones((3,), ctx=device) * (rank + 1))
    out = mx.nd.zeros((3,), ctx=device)
    kv.pull(0, out=out)
    grads = [mx.nd.ones((4,), ctx=device) * (rank + k) for k in range(3)]
    kv.pushpull([1, 2, 3], grads)
    kv.bucket_bytes = 1 << 20
    kv.pushpull([1, 2, 3], grads)
    results = {"init": out.asnumpy().tolist(), "sums": [g.asnumpy().tolist() for g in grads],
               "size": size}
    with open(os.path.join(outdir, f"rank{rank}.json"), "w") as fout:
        json.dump(results, fout)


if __name__ == "__main__":
    mode, outdir = sys.argv[1], sys.argv[2]
    if mode == "train":
        run_train(outdir)
    elif mode == "ops":
        run_ops(outdir)
    elif mode == "gpu":
        run_gpu(outdir)
    elif mode == "fault":
        train("dist_sync", *_world(), fail_at=2)
    else:
        raise SystemExit(f"unknown mode {mode!r}")
