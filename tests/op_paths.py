"""``check_op_paths``: one op, every execution path, the same answer.

For an op and sample inputs it runs: imperative (``imperative.invoke``), a deferred-compute trace
(eager values and the traced symbol), CachedOp (dynamic, planned op by op: ``inline_limit=0``;
and ``static_alloc`` + ``static_shape``), GraphExecutor (``bind``), and the op inside a subgraph
(the ``default`` backend selecting it); forward, and under ``autograd.record`` the gradient of
``sum(outputs * head gradients)``, compared with central differences when the op is
differentiable. Inputs come from :mod:`op_samples`. Ops without inputs (creation, sampling)
skip the CachedOp paths: a CachedOp needs an input to differentiate, as MXNet's.
"""
import dataclasses

import numpy

import mxlab as mx
from mxlab import autograd
from mxlab import deferred_compute as dc
from mxlab.executor import CachedOp
from mxlab.graph.node import Entry, Node
from mxlab.imperative import invoke
from mxlab.subgraph import partition_symbol

RTOL, ATOL = 1e-6, 1e-9
GRAD_RTOL, GRAD_ATOL = 1e-4, 1e-6
EPS = 1e-6


@dataclasses.dataclass
class Sample:
    """An op with parsed attributes and one NumPy array per input."""
    op: object
    attrs: dict
    inputs: list
    differentiable: bool = True
    numeric: bool = True         # False: the gradient rule is not a derivative (BlockGrad)
    values: bool = True          # False: random ops; only shapes and dtypes are compared
    no_grad: set = dataclasses.field(default_factory=set)  # index inputs: no gradient checked

    @property
    def aux(self):
        return set(self.op.mutate_inputs)

    def arrays(self):
        """Fresh NDArrays (paths mutate auxiliary inputs)."""
        return [mx.nd.array(x, dtype=x.dtype) for x in self.inputs]

    def symbol(self):
        names = [f"in{i}" for i in range(len(self.inputs))]
        node = Node(self.op, "op", dict(self.attrs), [Entry(Node(None, n)) for n in names])
        count = self.op.get_num_visible_outputs(self.attrs)
        return mx.sym.Symbol([Entry(node, i) for i in range(count)])

    def num_visible(self):
        return self.op.get_num_visible_outputs(self.attrs)


def _numpy(outputs):
    return [o.asnumpy() for o in (outputs if isinstance(outputs, (list, tuple)) else [outputs])]


def _grad_positions(sample):
    return [i for i, x in enumerate(sample.inputs)
            if i not in sample.aux and i not in sample.no_grad and x.dtype.kind == "f"]


# -- forward paths --------------------------------------------------------------------------------
def _invoke(sample, arrays):
    outs = invoke(sample.op, arrays, sample.attrs, cls=mx.nd.NDArray, device=mx.cpu())
    return outs[:sample.num_visible()]


def imperative(sample):
    return _numpy(_invoke(sample, sample.arrays()))


def deferred(sample):
    """(eager values of the recorded arrays, the traced symbol run by a CachedOp)."""
    arrays = sample.arrays()
    variables = [mx.sym.var(f"in{i}") for i in range(len(arrays))]
    dc.set_variable(arrays, variables)
    with dc.context():
        outs = _invoke(sample, arrays)
    traced = dc.get_symbol(outs)
    eager = _numpy(outs)
    if not arrays:
        return eager, executor(sample, sym=traced)
    op = CachedOp(traced, {"static_alloc": True})
    named = dict(zip([f"in{i}" for i in range(len(arrays))], sample.arrays()))
    return eager, _numpy(op(*[named[n] for n in traced.list_inputs()]))


def cached(sample, static, sym=None):
    sym = sym if sym is not None else sample.symbol()
    flags = {"static_alloc": True, "static_shape": True} if static else {"inline_limit": 0}
    op = CachedOp(sym, flags)
    named = dict(zip([f"in{i}" for i in range(len(sample.inputs))], sample.arrays()))
    return _numpy(op(*[named[n] for n in sym.list_inputs()]))


def executor(sample, is_train=False, sym=None):
    sym = sym if sym is not None else sample.symbol()
    named = dict(zip([f"in{i}" for i in range(len(sample.inputs))], sample.arrays()))
    ex = sym.bind(mx.cpu(), {n: named[n] for n in sym.list_arguments()},
                  aux_states={n: named[n] for n in sym.list_auxiliary_states()}, grad_req="null")
    return _numpy(ex.forward(is_train=is_train))


def partitioned(sample):
    """The op as the only member of a ``default`` subgraph (None when the backend leaves it)."""
    sym, part = partition_symbol(sample.symbol(), "default", op_names=[sample.op.name])
    if not part.subgraphs:
        return None
    return sym


# -- gradient paths -------------------------------------------------------------------------------
def _heads(sample, outputs):
    rng = numpy.random.default_rng(7)
    return [rng.uniform(0.5, 1.5, size=o.shape).astype(o.dtype) for o in outputs]


def _recorded(sample, run):
    arrays = sample.arrays()
    positions = _grad_positions(sample)
    for i in positions:
        arrays[i].attach_grad()
    with autograd.record():
        outs = run(arrays)
    outs = outs if isinstance(outs, (list, tuple)) else [outs]
    heads = _heads(sample, [o.asnumpy() for o in outs])
    autograd.backward(list(outs), [mx.nd.array(h, dtype=h.dtype) for h in heads])
    return [arrays[i].grad.asnumpy() for i in positions]


def grad_imperative(sample):
    return _recorded(sample, lambda a: _invoke(sample, a))


def grad_cached(sample, static, sym=None):
    sym = sym if sym is not None else sample.symbol()
    flags = {"static_alloc": True, "static_shape": True} if static else {"inline_limit": 0}
    op = CachedOp(sym, flags)
    order = [int(n[2:]) for n in sym.list_inputs()]
    return _recorded(sample, lambda a: op(*[a[i] for i in order]))


def grad_executor(sample):
    sym = sample.symbol()
    arrays = dict(zip([f"in{i}" for i in range(len(sample.inputs))], sample.arrays()))
    positions = _grad_positions(sample)
    grads = {f"in{i}": arrays[f"in{i}"].zeros_like() for i in positions}
    ex = sym.bind(mx.cpu(), {n: arrays[n] for n in sym.list_arguments()}, args_grad=grads,
                  grad_req={n: "write" if n in grads else "null" for n in sym.list_arguments()},
                  aux_states={n: arrays[n] for n in sym.list_auxiliary_states()})
    outs = ex.forward(is_train=True)
    heads = _heads(sample, [o.asnumpy() for o in outs])
    ex.backward([mx.nd.array(h, dtype=h.dtype) for h in heads])
    return [grads[f"in{i}"].asnumpy() for i in positions]


def grad_numeric(sample, limit=None):
    """Central differences of ``sum(outputs * heads)`` (training mode, as the recorded paths),
    at ``limit`` elements per input chosen at random (all when None); others are NaN."""
    def loss(inputs):
        arrays = [mx.nd.array(x, dtype=x.dtype) for x in inputs]
        with autograd.train_mode():
            outs = _numpy(_invoke(sample, arrays))
        return sum(float((o.astype(numpy.float64) * h).sum())
                   for o, h in zip(outs, _heads(sample, outs)))
    grads = []
    for i in _grad_positions(sample):
        x = sample.inputs[i]
        grad = numpy.full(x.shape, numpy.nan)
        elements = list(numpy.ndindex(x.shape))
        if limit is not None and len(elements) > limit:
            picked = numpy.random.default_rng(i).choice(len(elements), limit, replace=False)
            elements = [elements[j] for j in sorted(picked)]
        for k in elements:
            plus = [a.copy() for a in sample.inputs]
            minus = [a.copy() for a in sample.inputs]
            plus[i][k] += EPS
            minus[i][k] -= EPS
            grad[k] = (loss(plus) - loss(minus)) / (2 * EPS)
        grads.append(grad)
    return grads


# -- the check ------------------------------------------------------------------------------------
def _same(name, got, want, rtol=RTOL, atol=ATOL, values=True):
    assert len(got) == len(want), f"{name}: {len(got)} outputs, expected {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape, f"{name} output {k}: shape {g.shape} != {w.shape}"
        assert g.dtype == w.dtype, f"{name} output {k}: dtype {g.dtype} != {w.dtype}"
        if values:
            numpy.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True,
                                          err_msg=f"{name} output {k}")


def check_op_paths(sample, gradient=True, numeric=True, numeric_limit=None):
    """Assert every path gives the imperative result (and gradient); returns the paths run.

    ``numeric_limit``: how many elements per input central differences check (all: None).
    """
    values = sample.values
    want = imperative(sample)
    ran = ["imperative"]
    eager, traced = deferred(sample)
    _same("deferred compute (eager)", eager, want, values=values)
    _same("deferred compute (traced symbol)", traced, want, values=values)
    _same("GraphExecutor", executor(sample), want, values=values)
    ran += ["deferred", "executor"]
    if not sample.inputs:
        return ran
    _same("CachedOp dynamic", cached(sample, False), want, values=values)
    _same("CachedOp static", cached(sample, True), want, values=values)
    ran += ["cached_dynamic", "cached_static"]
    inner = partitioned(sample)
    if inner is not None:
        _same("subgraph", cached(sample, True, inner), want, values=values)
        ran.append("subgraph")
    if not (gradient and sample.differentiable and sample.op.gradient is not None
            and _grad_positions(sample)):
        return ran
    want = grad_imperative(sample)
    paths = [("CachedOp dynamic", grad_cached(sample, False)),
             ("CachedOp static", grad_cached(sample, True))]
    if not sample.op.dynamic_shape:
        # NOTE: binding needs every shape, and a value-dependent output's head gradient has none
        #   (MXNet's executor refuses it too; CachedOp runs such graphs on the tape).
        paths.append(("GraphExecutor", grad_executor(sample)))
    for name, got in paths:
        _same(f"gradient, {name}", got, want, values=values)
    if inner is not None:
        _same("gradient, subgraph", grad_cached(sample, True, inner), want, values=values)
    ran.append("gradient")
    if numeric and values and sample.numeric:
        numeric_grads = grad_numeric(sample, numeric_limit)
        checked = [numpy.where(numpy.isnan(g), w, g).astype(w.dtype)
                   for g, w in zip(numeric_grads, want)]
        _same("gradient vs central differences", want, checked, rtol=GRAD_RTOL, atol=GRAD_ATOL)
        ran.append("numeric")
    return ran
