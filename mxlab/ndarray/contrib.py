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
import math

from ..attribute import unique_subgraph_name
from ..imperative import STATE
from .frontend import make_array_frontend
from .namespace import populate_prefixed
from . import optimizer_updates as _updates
from .ndarray import NDArray

__all__ = ["NOT_BUILT", "cond", "foreach", "while_loop", "rand_zipfian", "zipfian_expected",
           "isinf", "isfinite", "isnan"]

# NOTE: contrib names MXNet code reaches for that mxlab does not build (see docs/compat.md).
NOT_BUILT = ("intgemm_fully_connected", "quantize",
             "dequantize", "hawkesll", "dgl_csr_neighbor_uniform_sample",
             "dgl_csr_neighbor_non_uniform_sample",
             "count_sketch", "fft", "ifft")


populate_prefixed(globals(), "_contrib_", make_array_frontend(NDArray))
for _name in _updates.CONTRIB:   # AdamW and AdaBelief updates (array frontends)
    globals()[_name] = getattr(_updates, _name)


def _like_optional(generated):
    """MXNet's ``BilinearResize2D(data, like=None, ...)``: a None ``like`` (any mode but 'like')
    is left out, so the remaining positionals still fill height, width, ..."""
    def BilinearResize2D(data=None, like=None, *args, **kwargs):  # noqa: N802 - MXNet's name
        return generated(*[a for a in (data, like) if a is not None], *args, **kwargs)
    BilinearResize2D.__doc__ = generated.__doc__
    return BilinearResize2D


BilinearResize2D = _like_optional(globals()["BilinearResize2D"])


def __getattr__(name):
    if name in NOT_BUILT:
        raise NotImplementedError(f"contrib.{name} is not built in mxlab (see docs/compat.md)")
    raise AttributeError(f"module 'mxlab.ndarray.contrib' has no attribute {name!r}")


def rand_zipfian(true_classes, num_sampled, range_max, ctx=None):
    """MXNet's candidate sampler: ``num_sampled`` classes from the log-uniform (Zipfian)
    distribution over ``[0, range_max)``, with the expected counts of ``true_classes`` and of the
    sampled classes (``P(c) = log((c + 2) / (c + 1)) / log(range_max + 1)``)."""
    from .random import uniform
    log_range = math.log(range_max + 1)
    rand = uniform(0, log_range, shape=(num_sampled,), dtype="float64", ctx=ctx)
    sampled = (rand.exp() - 1).astype("int64") % range_max
    return (sampled,) + zipfian_expected(true_classes, sampled, num_sampled, log_range)


def zipfian_expected(true_classes, sampled, num_sampled, log_range):
    """Expected counts of ``true_classes`` and ``sampled`` in ``num_sampled`` Zipfian draws (array
    or symbol arithmetic alike: :func:`rand_zipfian` for both)."""
    def expected(classes):
        classes = classes.astype("float64")
        return ((classes + 2.0) / (classes + 1.0)).log() / log_range * num_sampled
    return expected(true_classes), expected(sampled)


def _as_list(x):
    return (list(x), True) if isinstance(x, (list, tuple)) else ([x], False)


def _stack(items):
    """Stack along a new axis 0, keeping the items' class (``mx.np`` arrays stay ``mx.np``)."""
    from . import stack
    result = stack(*items, axis=0)
    return result if type(result) is type(items[0]) else result.as_np_ndarray()


def foreach(body, data, init_states, name="foreach"):
    """Run ``body(data[i], states) -> (outputs, states)`` over the first axis of ``data``
    (an array or a list of arrays); returns the stacked outputs and the final states.

    Imperative: a Python loop of recorded ops, so autograd differentiates it and a hybridized
    block traces it unrolled (``mx.sym.contrib.foreach`` builds one subgraph node)."""
    unique_subgraph_name(name)
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


def while_loop(cond, func, loop_vars, max_iterations=None, name="while_loop"):
    """``while cond(*vars): outputs, vars = func(*vars)`` at most ``max_iterations`` times;
    returns the stacked outputs (padded with zeros to ``max_iterations`` rows, as MXNet) and the
    final loop variables, each in the structure ``func`` and ``loop_vars`` gave."""
    if max_iterations is None:
        raise ValueError("while_loop: max_iterations is required (as in MXNet)")
    for part in ("_cond", "_func"):
        unique_subgraph_name(name + part)
    loop_vars, vars_were_list = _as_list(loop_vars)
    collected, out_was_list = [], True
    while len(collected) < max_iterations and bool(_truth(cond(*loop_vars))):
        outputs, new_vars = func(*loop_vars)
        if outputs is None:
            outputs = []
        outputs, out_was_list = _as_list(outputs)
        collected.append(outputs)
        loop_vars = _as_list(new_vars)[0]
    outputs = []
    if collected and collected[0]:
        for k in range(len(collected[0])):
            rows = [c[k] for c in collected]
            pad = [rows[0] * 0] * (max_iterations - len(rows))
            outputs.append(_stack(rows + pad))
    if outputs and not out_was_list:
        outputs = outputs[0]
    return outputs, (loop_vars if vars_were_list else loop_vars[0])


def _truth(value):
    return value.asscalar() if isinstance(value, NDArray) else value


def cond(pred, then_func, else_func, inputs=None, name="cond"):
    """``then_func()`` if ``pred`` (a scalar array) is true, else ``else_func()``.

    MXNet 2.0's ``npx.cond(pred, then_func, else_func, inputs)`` form: ``pred``, ``then_func``
    and ``else_func`` are functions of the ``inputs`` (an array or a list of arrays)."""
    if inputs is None and not callable(pred):
        if STATE.deferred:   # NOTE: a hybridized 1.x block: MXNet's symbolic cond names these
            for part in ("_pred", "_then", "_else"):
                unique_subgraph_name(name + part)
        return then_func() if bool(_truth(pred)) else else_func()
    for part in ("_pred", "_then", "_else"):
        unique_subgraph_name(name + part)
    args = _as_list(inputs)[0] if inputs is not None else []
    value = pred(*args) if callable(pred) else pred
    return then_func(*args) if bool(_truth(value)) else else_func(*args)


def isinf(data):
    """1 where ``data`` is +/-inf, else 0 (in ``data``'s dtype, as MXNet's contrib)."""
    return data.abs() == math.inf


def isfinite(data):
    """1 where ``data`` is neither inf nor NaN, else 0."""
    return (data.abs() != math.inf) * (data == data)


def isnan(data):
    """1 where ``data`` is NaN, else 0."""
    return data != data
