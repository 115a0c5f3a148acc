"""``trainer.step`` CPU time: MXNet's fused update kernels (``use_fused_step=True``, one engine
push per step) against the composed rules (``use_fused_step=False``, ~10 ops per parameter).

Network: a 784-256-128-10 MLP (6 parameters), batch 64, a backward before each step. The
two settings are interleaved in rounds; each round times ``--steps`` steps per setting with
``time.process_time`` after ``waitall`` (the step alone, not forward/backward).

Run: ``OMP_NUM_THREADS=1 python benchmarks/optimizer_step.py [--optimizers adam rmsprop]
[--steps 100] [--rounds 3]``; it prints the median ms per step of each setting and their ratio.
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import mxlab as mx  # noqa: E402


def make_trainer(name, fused):
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(256, activation="relu", in_units=784),
            mx.gluon.nn.Dense(128, activation="relu", in_units=256),
            mx.gluon.nn.Dense(10, in_units=128))
    net.initialize()
    trainer = mx.gluon.Trainer(net.collect_params(), name,
                               {"learning_rate": 1e-3, "use_fused_step": fused})
    return net, trainer


def time_steps(net, trainer, steps):
    x = mx.nd.random.uniform(shape=(64, 784))
    y = mx.nd.array([i % 10 for i in range(64)])
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    times = []
    for _ in range(steps):
        with mx.autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        mx.nd.waitall()
        start = time.process_time()
        trainer.step(64)
        mx.nd.waitall()
        times.append(time.process_time() - start)
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--optimizers", nargs="+", default=["adam", "rmsprop", "ftrl", "signum"])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    for name in args.optimizers:
        trainers = {fused: make_trainer(name, fused) for fused in (True, False)}
        times = {True: [], False: []}
        for _ in range(args.rounds):
            for fused, (net, trainer) in trainers.items():
                times[fused] += time_steps(net, trainer, args.steps)[5:]
        fused_ms, composed_ms = (1e3 * statistics.median(times[f]) for f in (True, False))
        print(f"{name:8s} fused {fused_ms:6.2f} ms  composed {composed_ms:6.2f} ms  "
              f"ratio {composed_ms / fused_ms:4.1f}x")


if __name__ == "__main__":
    main()
