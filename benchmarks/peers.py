"""Peer implementations of the mlp and chain64 workloads: hand-written NumPy (naive, and with
preallocated buffers -- the floor for any NumPy backend), PyTorch eager (CPU) and JAX ``jit``.

PyTorch and JAX are optional: their set-up raises ImportError when they are not installed and the
runner shows the row as n/a. Each ``*_step`` returns a zero-argument callable running one step to
completion (JAX results are blocked on).
"""
import numpy

from .models import CHAIN_REPEAT, LR, MLP_BATCH, MLP_SIZES

__all__ = ["mlp_numpy_naive", "mlp_numpy_prealloc", "mlp_torch", "mlp_jax", "chain_numpy_naive",
           "chain_numpy_prealloc", "chain_numpy_tanh_only", "chain_torch", "chain_jax"]


def _mlp_arrays():
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal((MLP_BATCH, MLP_SIZES[0])).astype("float32")
    label = rng.integers(0, MLP_SIZES[-1], MLP_BATCH)
    params = []
    for n_in, n_out in zip(MLP_SIZES, MLP_SIZES[1:]):
        params += [(rng.standard_normal((n_out, n_in)) / n_in ** 0.5).astype("float32"),
                   numpy.zeros(n_out, "float32")]
    return x, label, params


def mlp_numpy_naive():
    """Forward, softmax cross-entropy, backward and SGD with fresh arrays for every result."""
    x, label, params = _mlp_arrays()
    rows = numpy.arange(MLP_BATCH)

    def step():
        acts = [x]
        for i in range(0, len(params), 2):
            h = acts[-1] @ params[i].T + params[i + 1]
            acts.append(numpy.maximum(h, 0) if i + 2 < len(params) else h)
        logits = acts[-1]
        prob = numpy.exp(logits - logits.max(axis=1, keepdims=True))
        prob /= prob.sum(axis=1, keepdims=True)
        prob[rows, label] -= 1
        grad = prob / MLP_BATCH
        for i in range(len(params) - 2, -1, -2):
            w = params[i]
            gw, gb = grad.T @ acts[i // 2], grad.sum(axis=0)
            if i:
                grad = (grad @ w) * (acts[i // 2] > 0)
            params[i] -= LR * gw
            params[i + 1] -= LR * gb
    return step


def mlp_numpy_prealloc():
    """The same step writing every result into buffers allocated once (``out=`` everywhere)."""
    x, label, params = _mlp_arrays()
    rows = numpy.arange(MLP_BATCH)
    sizes = MLP_SIZES[1:]
    acts = [x] + [numpy.empty((MLP_BATCH, n), "float32") for n in sizes]
    grads = [numpy.empty((MLP_BATCH, n), "float32") for n in sizes]
    gws = [numpy.empty_like(params[i]) for i in range(0, len(params), 2)]
    gbs = [numpy.empty_like(params[i]) for i in range(1, len(params), 2)]
    rowmax = numpy.empty((MLP_BATCH, 1), "float32")

    def step():
        for k in range(len(sizes)):
            numpy.matmul(acts[k], params[2 * k].T, out=acts[k + 1])
            acts[k + 1] += params[2 * k + 1]
            if k + 1 < len(sizes):
                numpy.maximum(acts[k + 1], 0, out=acts[k + 1])
        g = grads[-1]
        numpy.subtract(acts[-1], acts[-1].max(axis=1, keepdims=True, out=rowmax), out=g)
        numpy.exp(g, out=g)
        g /= g.sum(axis=1, keepdims=True)
        g[rows, label] -= 1
        g *= 1.0 / MLP_BATCH
        for k in range(len(sizes) - 1, -1, -1):
            numpy.matmul(grads[k].T, acts[k], out=gws[k])
            grads[k].sum(axis=0, out=gbs[k])
            if k:
                numpy.matmul(grads[k], params[2 * k], out=grads[k - 1])
                grads[k - 1] *= acts[k] > 0
            gws[k] *= LR
            gbs[k] *= LR
            params[2 * k] -= gws[k]
            params[2 * k + 1] -= gbs[k]
    return step


def mlp_torch():
    """PyTorch eager: ``nn.Sequential`` + ``cross_entropy`` + ``optim.SGD`` on CPU."""
    import torch
    x, label, params = _mlp_arrays()
    layers = []
    for k in range(0, len(params), 2):
        layer = torch.nn.Linear(params[k].shape[1], params[k].shape[0])
        with torch.no_grad():
            layer.weight.copy_(torch.from_numpy(params[k]))
            layer.bias.zero_()
        layers += [layer, torch.nn.ReLU()]
    net = torch.nn.Sequential(*layers[:-1])
    opt = torch.optim.SGD(net.parameters(), lr=LR)
    tx, tlabel = torch.from_numpy(x), torch.from_numpy(label)

    def step():
        opt.zero_grad()
        torch.nn.functional.cross_entropy(net(tx), tlabel).backward()
        opt.step()
    return step


def mlp_jax():
    """JAX: the whole step (value_and_grad + SGD update) under one ``jax.jit``."""
    import jax
    import jax.numpy as jnp
    x, label, params = _mlp_arrays()

    def loss_fn(ps, x, label):
        h = x
        for k in range(0, len(ps), 2):
            h = h @ ps[k].T + ps[k + 1]
            if k + 2 < len(ps):
                h = jax.nn.relu(h)
        logp = jax.nn.log_softmax(h)
        return -jnp.take_along_axis(logp, label[:, None], axis=1).mean()

    @jax.jit
    def update(ps, x, label):
        grads = jax.grad(loss_fn)(ps, x, label)
        return [p - LR * g for p, g in zip(ps, grads)]

    state = {"ps": [jnp.asarray(p) for p in params]}
    jx, jlabel = jnp.asarray(x), jnp.asarray(label)

    def step():
        state["ps"] = update(state["ps"], jx, jlabel)
        jax.block_until_ready(state["ps"])
    return step


def _chain_input(size):
    return numpy.linspace(-1, 1, size, dtype="float32")


def chain_numpy_naive(size):
    """The 64-op chain with NumPy operators (a new array per op)."""
    from .models import chain_ops
    x = _chain_input(size)
    return lambda: chain_ops(numpy, x)


def chain_numpy_prealloc(size):
    """The chain in one preallocated buffer (``out=``): no allocation per op."""
    x = _chain_input(size)
    buf = numpy.empty_like(x)

    def step():
        numpy.copyto(buf, x)
        for _ in range(CHAIN_REPEAT):
            numpy.multiply(buf, 1.01, out=buf)
            numpy.add(buf, 0.1, out=buf)
            numpy.tanh(buf, out=buf)
            numpy.subtract(buf, 0.05, out=buf)
        return buf
    return step


def chain_numpy_tanh_only(size):
    """Only the chain's 16 ``tanh`` calls, in place: what any kernel built on NumPy's ``tanh``
    still pays, so ``this / numpy naive`` is the lowest ratio the ``fuse`` backend can reach."""
    x = _chain_input(size)
    buf = numpy.empty_like(x)

    def step():
        numpy.copyto(buf, x)
        for _ in range(CHAIN_REPEAT):
            numpy.tanh(buf, out=buf)
        return buf
    return step


def chain_torch(size):
    """The chain on a CPU tensor, eager."""
    import torch
    from .models import chain_ops
    x = torch.from_numpy(_chain_input(size))
    return lambda: chain_ops(torch, x)


def chain_jax(size):
    """The chain under ``jax.jit`` (XLA fuses it into one kernel)."""
    import jax
    import jax.numpy as jnp
    from .models import chain_ops
    fn = jax.jit(lambda x: chain_ops(jnp, x))
    x = jnp.asarray(_chain_input(size))
    return lambda: fn(x).block_until_ready()
