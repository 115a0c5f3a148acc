"""``mx.nd.contrib``: MXNet's contrib ops (every registered ``_contrib_<name>`` as ``<name>``)
and the imperative control-flow helpers ``foreach``, ``while_loop`` and ``cond``.

The control-flow helpers run Python loops over recorded ops, so autograd differentiates through
them; MXNet's symbolic (subgraph) forms are not built. Contrib ops mxlab does not build raise a
``NotImplementedError`` naming them.

Example
-------
>>> import mxlab as mx
>>> outs, state = mx.nd.contrib.foreach(lambda x, s: (x + s[0], [x + s[0]]),
...                                      mx.nd.array([[1.0], [2.0], [3.0]]), [mx.nd.zeros(1)])
>>> outs.asnumpy().ravel(), state[0].asnumpy()
(array([1., 3., 6.], dtype=float32), array([6.], dtype=float32))
"""
from ..ops.registry import get_op, list_ops
from .frontend import make_array_frontend
from .ndarray import NDArray

__all__ = ["NOT_BUILT", "cond", "foreach", "while_loop"]

# NOTE: contrib names MXNet code reaches for that mxlab does not build (see docs/compat.md).
NOT_BUILT = ("BilinearResize2D", "AdaptiveAvgPooling2D", "ROIAlign", "PSROIPooling",
             "MultiProposal", "Proposal", "MultiBoxPrior", "MultiBoxTarget", "MultiBoxDetection",
             "DeformableConvolution", "SyncBatchNorm", "interleaved_matmul_selfatt_qk",
             "interleaved_matmul_selfatt_valatt", "interleaved_matmul_encdec_qk",
             "interleaved_matmul_encdec_valatt", "intgemm_fully_connected", "quantize",
             "dequantize", "hawkesll", "rand_zipfian", "dgl_csr_neighbor_uniform_sample",
             "dgl_csr_neighbor_non_uniform_sample", "bipartite_matching", "box_encode",
             "box_decode", "count_sketch", "fft", "ifft", "group_adagrad_update")


def _publish(namespace, cls, make_frontend):
    for name in list_ops():
        if name.startswith("_contrib_"):
            public = name[len("_contrib_"):]
            namespace[public] = make_frontend(get_op(name), public)


_publish(globals(), NDArray, make_array_frontend(NDArray))


def __getattr__(name):
    if name in NOT_BUILT:
        raise NotImplementedError(f"contrib.{name} is not built in mxlab (see docs/compat.md)")
    raise AttributeError(f"module 'mxlab.ndarray.contrib' has no attribute {name!r}")


def _as_list(x):
    return (list(x), True) if isinstance(x, (list, tuple)) else ([x], False)


def _stack(items):
    from . import stack
    return stack(*items, axis=0)


def foreach(body, data, init_states):
    """Run ``body(data[i], states) -> (outputs, states)`` over the first axis of ``data``
    (an array or a list of arrays); returns the stacked outputs and the final states."""
    datas, data_was_list = _as_list(data)
    states = init_states
    collected = []
    for i in range(datas[0].shape[0]):
        step = [d[i] for d in datas]
        outputs, states = body(step if data_was_list else step[0], states)
        collected.append(outputs)
    if not collected:
        return [], states
    first, out_was_list = _as_list(collected[0])
    stacked = [_stack([_as_list(o)[0][k] for o in collected]) for k in range(len(first))]
    return (stacked if out_was_list else stacked[0]), states


def while_loop(cond, func, loop_vars, max_iterations=None):
    """``while cond(*vars): outputs, vars = func(*vars)`` at most ``max_iterations`` times;
    returns the stacked outputs (padded with zeros to ``max_iterations`` rows, as MXNet) and the
    final loop variables."""
    if max_iterations is None:
        raise ValueError("while_loop: max_iterations is required (as in MXNet)")
    loop_vars, vars_were_list = _as_list(loop_vars)
    collected = []
    while len(collected) < max_iterations and bool(_truth(cond(*loop_vars))):
        outputs, new_vars = func(*loop_vars)
        collected.append(_as_list(outputs)[0] if outputs is not None else [])
        loop_vars = _as_list(new_vars)[0]
    outputs = []
    if collected and collected[0]:
        for k in range(len(collected[0])):
            rows = [c[k] for c in collected]
            pad = [rows[0] * 0] * (max_iterations - len(rows))
            outputs.append(_stack(rows + pad))
    return outputs, (loop_vars if vars_were_list else loop_vars[0])


def _truth(value):
    return value.asscalar() if isinstance(value, NDArray) else value


def cond(pred, then_func, else_func):
    """``then_func()`` if ``pred`` (a scalar array) is true, else ``else_func()``."""
    return then_func() if bool(_truth(pred)) else else_func()
