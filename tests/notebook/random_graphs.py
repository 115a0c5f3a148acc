"""Seeded random graphs for the layout tests: DAGs of unary/binary ops in block-named layers,
with shapes (so the Memory and Segments views have plans) and a random partition."""
import numpy as np

import mxlab as mx

UNARY = ("tanh", "exp", "sigmoid", "relu", "sin")
BINARY = ("elemwise_add", "elemwise_mul", "elemwise_sub")


def random_symbol(rng, size):
    """A Symbol of ``size`` ops over 1-3 inputs; node names carry block prefixes (``b2_op7``)."""
    entries = [mx.sym.var(f"x{i}") for i in range(rng.integers(1, 4))]
    for i in range(size):
        name = f"b{rng.integers(0, 1 + size // 6)}_op{i}"
        if rng.random() < 0.4 and len(entries) > 1:
            a, b = rng.choice(len(entries), size=2, replace=False)
            op = BINARY[rng.integers(len(BINARY))]
            entries.append(getattr(mx.sym, op)(entries[a], entries[b], name=name))
        else:
            src = entries[rng.integers(max(0, len(entries) - 6), len(entries))]
            entries.append(getattr(mx.sym, UNARY[rng.integers(len(UNARY))])(src, name=name))
    heads = [entries[-1]] + [entries[k] for k in rng.choice(len(entries), size=2)]
    return mx.sym.Group([h for k, h in enumerate(heads) if all(h is not g for g in heads[:k])])


def random_case(seed):
    """``(symbol, shapes, partition or None)`` for ``seed``."""
    rng = np.random.default_rng(seed)
    sym = random_symbol(rng, int(rng.integers(3, 60)))
    shapes = {name: (int(rng.integers(1, 5)), 4) for name in sym.list_arguments()}
    shapes = {name: (2, 4) for name in shapes}
    partition = None
    if rng.random() < 0.5:
        ops = list(rng.choice(UNARY + BINARY, size=3, replace=False))
        _, partition = mx.subgraph.partition(sym, "default", op_names=ops)
    return sym, shapes, partition
