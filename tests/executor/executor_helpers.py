"""Shared builders for the executor tests: a Symbol MLP and its parameters."""
import numpy

import mxlab as mx


def mlp_symbol(hidden=(8, 4)):
    """data -> (FullyConnected + relu)... -> FullyConnected + tanh: nodes fc<i> and act<i>."""
    x = mx.sym.var("data")
    for i, units in enumerate(hidden):
        x = mx.sym.FullyConnected(x, num_hidden=units, name=f"fc{i}")
        act = mx.sym.relu if i + 1 < len(hidden) else mx.sym.tanh
        x = act(x, name=f"act{i}")
    return x


def mlp_arrays(sym, batch=4, features=5, seed=0):
    """Arrays (list_inputs order) for ``sym``: data and random parameters."""
    rng = numpy.random.default_rng(seed)
    arg_shapes, _, _ = sym.infer_shape(data=(batch, features))
    shapes = dict(zip(sym.list_arguments(), arg_shapes))
    return [mx.nd.array(rng.standard_normal(shapes[name]).astype("float32"))
            for name in sym.list_inputs()]


def attach(arrays, skip=("data",), names=None):
    """attach_grad on every array but the data (by position in ``names``)."""
    for name, arr in zip(names, arrays):
        if name not in skip:
            arr.attach_grad()
