"""Small graphs and a recorded CachedOp for the notebook tests."""
import mxlab as mx


def mlp_symbol():
    """data -> fc1 -> relu1 -> fc2 (weights named as Gluon 1 blocks name them)."""
    x = mx.sym.var("data")
    y = mx.sym.FullyConnected(x, num_hidden=4, name="fc1")
    y = mx.sym.Activation(y, act_type="relu", name="relu1")
    return mx.sym.FullyConnected(y, num_hidden=3, name="fc2")


def recorded_cached_op(flags=None):
    """A CachedOp of tanh(x * w) + x that ran forward (recorded) and backward."""
    x, w = mx.sym.var("x"), mx.sym.var("w")
    op = mx.executor.CachedOp(mx.sym.tanh(x * w) + x, flags or {"static_alloc": True})
    a, b = mx.nd.ones((3,)), mx.nd.ones((3,)) * 2
    a.attach_grad()
    b.attach_grad()
    with mx.autograd.record():
        out = op(a, b)
    out.backward()
    return op


def chain_symbol(length, blocks=10):
    """``length`` tanh nodes named ``block<k>_tanh<i>`` in ``blocks`` block prefixes."""
    y = mx.sym.var("x")
    per = max(1, length // blocks)
    for i in range(length):
        y = mx.sym.tanh(y, name=f"block{i // per}_tanh{i}")
    return y
