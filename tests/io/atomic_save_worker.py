"""The child of tests/io/test_atomic_saves.py's kill test: for each writer named on the command
line it saves a small "good" version into ``<root>/<writer>/target``, a large "new" version into
``<root>/<writer>/ref``, then, round after round, puts the good files back, forks a process that
saves the new version in a loop, SIGKILLs it after a random delay and copies what it left into
``<root>/<writer>/snap<k>`` for the parent to check.

Forking keeps mxlab's import (seconds) to one per test; usage:
``python atomic_save_worker.py ROOT KILLS SEED WRITER...``. Prints one JSON line per writer.
"""
import json
import os
import random
import shutil
import signal
import sys
import time

import numpy

import mxlab as mx
from mxlab.gluon import nn

# writer name -> (file names it saves, builder); builder(big) -> save(folder)
WRITERS = {}


def writer(*files):
    def register(build):
        WRITERS[build.__name__] = (files, build)
        return build
    return register


def _values(big, shape_small=(3,), n_big=1 << 20):
    return numpy.arange(n_big, dtype="float32") if big else numpy.ones(shape_small, "float32")


@writer("a.params")
def nd_save(big):
    arrays = {"w": mx.nd.array(_values(big)), "b": mx.nd.array(_values(big)[:7])}
    return lambda folder: mx.nd.save(os.path.join(folder, "a.params"), arrays)


@writer("a.npy")
def npx_save(big):
    array = mx.np.array(_values(big))
    return lambda folder: mx.npx.save(os.path.join(folder, "a.npy"), array)


@writer("a.npz")
def npx_savez(big):
    arrays = [mx.np.array(_values(big)), mx.np.array(_values(big)[:5])]
    return lambda folder: mx.npx.savez(os.path.join(folder, "a.npz"), *arrays, c=arrays[1])


def _deep_symbol(layers):
    x = mx.sym.var("data")
    for i in range(layers):
        x = mx.sym.FullyConnected(x, num_hidden=4, name=f"fc{i}")
    return x


@writer("a-symbol.json")
def symbol_save(big):
    symbol = _deep_symbol(400 if big else 1)
    return lambda folder: symbol.save(os.path.join(folder, "a-symbol.json"))


def _net(big):
    net = nn.HybridSequential()
    for _ in range(40 if big else 1):
        net.add(nn.Dense(160 if big else 2, activation="relu"))
    net.initialize(mx.init.Uniform())
    net.hybridize()
    net(mx.nd.ones((1, 160 if big else 2)))
    return net


@writer("a-symbol.json", "a-0000.params")
def export(big):
    net = _net(big)
    return lambda folder: net.export(os.path.join(folder, "a"))


@writer("a.params")
def save_parameters(big):
    net = _net(big)
    return lambda folder: net.save_parameters(os.path.join(folder, "a.params"))


@writer("a-model.json", "a-model.params")
def block_save(big):
    net = _net(big)
    return lambda folder: net.save(os.path.join(folder, "a"))


@writer("a.states")
def trainer_save_states(big):
    net = _net(big)
    trainer = mx.gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.1})
    with mx.autograd.record():
        loss = net(mx.nd.ones((1, 160 if big else 2))).sum()
    loss.backward()
    trainer.step(1)
    return lambda folder: trainer.save_states(os.path.join(folder, "a.states"))


@writer("a.states")
def kvstore_save_optimizer_states(big):
    kv = mx.kv.create("local")
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9))
    for key in range(8 if big else 1):
        kv.init(key, mx.nd.array(_values(big, n_big=1 << 17)))
        kv.push(key, mx.nd.ones(_values(big, n_big=1 << 17).shape))
    return lambda folder: kv.save_optimizer_states(os.path.join(folder, "a.states"))


@writer("a-symbol.json", "a-0000.params", "a-0000.states")
def module_save_checkpoint(big):
    width = 1024 if big else 2
    symbol = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=width, name="fc")
    module = mx.mod.Module(symbol, label_names=None)
    module.bind(data_shapes=[("data", (1, width))])
    module.init_params(mx.init.Uniform())
    module.init_optimizer(optimizer="sgd", optimizer_params={"momentum": 0.9})
    module.forward(mx.io.DataBatch([mx.nd.ones((1, width))]), is_train=True)
    module.backward([mx.nd.ones((1, width))])
    module.update()
    return lambda folder: module.save_checkpoint(os.path.join(folder, "a"), 0,
                                                 save_optimizer_states=True)


@writer("a.rec", "a.idx")
def recordio(big):
    records = [bytes([i % 256]) * (20000 if big else 3) for i in range(60 if big else 2)]

    def save(folder):
        out = mx.recordio.MXIndexedRecordIO(os.path.join(folder, "a.idx"),
                                            os.path.join(folder, "a.rec"), "w")
        for i, record in enumerate(records):
            out.write_idx(i, record)
        out.close()
    return save


def _copy(files, src, dst):
    os.makedirs(dst, exist_ok=True)
    for name in files:
        if os.path.exists(os.path.join(src, name)):
            shutil.copy2(os.path.join(src, name), os.path.join(dst, name))


def _save_forever(save, folder):
    """The forked saver: never returns (it is killed)."""
    try:
        while True:
            save(folder)
    finally:
        os._exit(1)


def run(root, name, kills, rng):
    files, build = WRITERS[name]
    home = os.path.join(root, name)
    target, ref = os.path.join(home, "target"), os.path.join(home, "ref")
    os.makedirs(target)
    os.makedirs(ref)
    build(False)(target)
    _copy(files, target, os.path.join(home, "good"))
    save = build(True)
    start = time.perf_counter()
    save(ref)
    span = time.perf_counter() - start     # one save of the new version
    delays = []
    for k in range(kills):
        _copy(files, os.path.join(home, "good"), target)
        pid = os.fork()
        if pid == 0:
            _save_forever(save, target)
        delays.append(rng.uniform(0.0, 2.5 * span))
        time.sleep(delays[-1])
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        _copy(files, target, os.path.join(home, f"snap{k}"))
    return {"writer": name, "files": list(files), "span": span, "delays": delays}


def main(argv):
    root, kills, seed, names = argv[0], int(argv[1]), int(argv[2]), argv[3:]
    rng = random.Random(seed)
    for name in names:
        print(json.dumps(run(root, name, kills, rng)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
