"""The ``fuse`` backend: maximal connected sets of elementwise ops become one compiled kernel.

Selection: op nodes with ``Op.elementwise`` and a ``numexpr`` template (``"({0} + {1})"``,
``"({0} * {s})"`` for the ``scalar`` attribute; ``Activation`` uses the template of its
``act_type`` op), one output, not random. Each subgraph is turned
into numexpr expression text by filling the templates along the inner graph; a value used by
several inner consumers whose text grew long is computed once as a stage of its own (so a DAG does
not blow up). On CPU each stage is a ``numexpr.NumExpr`` compiled once per (expression, input
dtypes); on GPU the same text becomes a ``cupy.fuse`` function (Python's own parser turns it into
calls of CuPy ufuncs). Scalars are passed as 0-d arrays of the computing dtype, so float32 chains
stay float32. Dtypes numexpr lacks (float16, int8, ...) run the inner graph op by op.

Gradients: the backward subgraph (the ops' gradient rules over the inner graph) is partitioned by
this backend again, so its elementwise parts are fused too.

Example
-------
>>> import mxlab as mx
>>> x = mx.sym.var('x')
>>> y = mx.sym.tanh(x * 2 + 1, name='t') - 0.5
>>> fused = y.optimize_for('fuse')
>>> fused.get_children() is None, fused.name
(False, '_fused_op0')
>>> fused.eval(x=mx.nd.ones((3,)))[0].asnumpy().round(4)
array([0.4951, 0.4951, 0.4951], dtype=float32)
"""
import dataclasses
import re
import time

import numexpr
import numpy
from numexpr.necompiler import getType

from ...graph import infer
from ..property import SubgraphProperty
from ..registry import register_subgraph_property
from ..selector import SubgraphSelector
from ..subgraph_op import SubgraphRunner, register_subgraph_op_name
from .ufunc_program import compile_program

__all__ = ["FuseProperty", "FuseSelector", "FusedRunner", "fusable", "node_template",
           "NUMEXPR_DTYPES", "TUNE_MIN_SIZE"]

#: Dtypes numexpr computes in.
NUMEXPR_DTYPES = frozenset({"bool", "int32", "int64", "float32", "float64", "complex128"})
# A value used twice inside a subgraph becomes its own stage when its text is longer than this.
_INLINE_LIMIT = 120
#: Inputs this large (elements) are timed fused vs. op by op once, and the faster way is kept.
TUNE_MIN_SIZE = 1 << 16


def node_template(node):
    """The numexpr template of ``node`` (its op's for the node's attributes), or None."""
    return node.op.numexpr_template(node.attrs)


def fusable(node):
    """Whether ``node`` can join a fused kernel (``Op.fusable``, one output, a template)."""
    op = node.op
    return (op is not None and op.fusable and node.num_outputs == 1
            and node_template(node) is not None)


class FuseSelector(SubgraphSelector):
    """Grows over fusable nodes; drops subgraphs smaller than ``min_size`` nodes."""

    def __init__(self, min_size=2):
        self.min_size = min_size

    def select(self, node):
        return fusable(node)

    def select_input(self, node, input_node):
        return fusable(input_node)

    def select_output(self, node, output_node):
        return fusable(output_node)

    def filter(self, candidates):
        return list(candidates) if len(candidates) >= self.min_size else []


@dataclasses.dataclass
class _Stage:
    """One kernel: ``target`` (a temporary ``t<k>`` or an output ``o<k>``) = ``expr``."""
    target: str
    expr: str
    names: tuple  # the inputs, scalars and temporaries it reads, in signature order


class _Program:
    """The inner graph as numexpr stages: names ``v<i>`` (inputs), ``s<k>`` (scalars, one per
    distinct value; its dtype comes from the first node using it), ``t<k>`` (shared
    temporaries)."""

    def __init__(self, graph):
        idx = graph.indexed
        self.scalars = []  # (first node, value) per scalar name s<k>
        self._scalar_names = {}
        self.stages = []
        text = {}
        uses = [len(c) for c in idx.consumers]
        for eid in idx.outputs:
            uses[eid] += 1
        for n in idx.nodes:
            eid = idx.node_row_ptr[n.nid]
            if n.is_variable:
                text[eid] = f"v{idx.input_nodes.index(n.nid)}"
                continue
            args = [text[e] for e in n.inputs]
            expr = node_template(n.node).format(*args, s=self._scalar(n.node))
            if uses[eid] > 1 and len(expr) > _INLINE_LIMIT:
                expr = self._stage(f"t{len(self.stages)}", expr)
            text[eid] = expr
        self.outputs = [self._stage(f"o{k}", text[eid]) for k, eid in enumerate(idx.outputs)]

    def _scalar(self, node):
        if "scalar" not in node.attrs:
            return ""
        value = node.attrs["scalar"]
        key = (type(value), value)
        if key not in self._scalar_names:
            self._scalar_names[key] = f"s{len(self.scalars)}"
            self.scalars.append((node, value))
        return self._scalar_names[key]

    def _stage(self, target, expr):
        names = tuple(sorted(set(_names(expr)), key=_name_key))
        self.stages.append(_Stage(target, expr, names))
        return target


def _names(expr):
    """Variable names (``v3``, ``s0``, ``t1``) in a stage text."""
    return re.findall(r"\b[vst]\d+\b", expr)


def _name_key(name):
    return name[0], int(name[1:])


class _Kernel:
    """The compiled stages for one input-dtype signature (numexpr on CPU, cupy.fuse on GPU).

    Values live in slots: inputs, then scalars, then stage results; each step is
    ``(callable, argument slots, result slot)``.
    """

    def __init__(self, program, graph, in_dtypes, xp):
        found = infer.infer_types(graph.outputs, dict(zip(_input_nodes(graph), in_dtypes)))
        self.out_dtypes = [found[(e.node, e.index)] for e in graph.outputs]
        self.in_dtypes = tuple(in_dtypes)
        self.scalars = [_scalar_array(node, value, found, xp) for node, value in program.scalars]
        dtypes = {f"v{i}": d for i, d in enumerate(in_dtypes)}
        dtypes.update({f"s{k}": a.dtype.name for k, a in enumerate(self.scalars)})
        self.runnable = all(d in NUMEXPR_DTYPES for d in dtypes.values())
        slot = {name: i for i, name in enumerate(dtypes)}
        self.steps = []
        for stage in program.stages if self.runnable else ():
            compiled = _compile(stage, dtypes, xp)
            if compiled is None:
                self.runnable = False
                break
            fn, dtypes[stage.target] = compiled
            slot[stage.target] = len(slot)
            self.steps.append((fn, [slot[n] for n in stage.names], slot[stage.target]))
        self.outputs = [slot.get(t) for t in program.outputs]
        self.casts = [None if dtypes.get(t) == d else d
                      for t, d in zip(program.outputs, self.out_dtypes)]
        self.ufunc = None if xp is not numpy else _ufunc_program(program, in_dtypes,
                                                                 self.scalars)

    def run_ufunc(self, inputs):
        """The same results from the in-place ufunc program (see :mod:`.ufunc_program`)."""
        outs = self.ufunc.run(inputs, self.scalars)
        return [o if c is None else o.astype(c) for o, c in zip(outs, self.out_casts)]

    @property
    def out_casts(self):
        return [None if o.name == d else d
                for o, d in zip(self.ufunc.out_dtypes, self.out_dtypes)]

    def run(self, inputs):
        slots = list(inputs) + self.scalars + [None] * len(self.steps)
        for fn, args, target in self.steps:
            slots[target] = fn(*[slots[i] for i in args])
        outs = [slots[i] for i in self.outputs]
        return [o if c is None else o.astype(c) for o, c in zip(outs, self.casts)]


def _ufunc_program(program, in_dtypes, scalars):
    samples = {f"v{i}": numpy.zeros(1, d) for i, d in enumerate(in_dtypes)}
    samples.update({f"s{k}": s for k, s in enumerate(scalars)})
    return compile_program(program.stages, program.outputs, samples)


def _input_nodes(graph):
    idx = graph.indexed
    return [idx[nid].node for nid in idx.input_nodes]


def _scalar_array(node, value, dtypes, xp):
    """A scalar as a 0-d array of the dtype its op computes in (the input's for comparisons)."""
    dtype = dtypes[(node, 0)]
    if dtype == "bool":
        dtype = dtypes[(node.inputs[0].node, node.inputs[0].index)]
    return xp.asarray(numpy.asarray(value).astype(dtype))


_COMPILED = {}


def _compile(stage, dtypes, xp):
    """``(callable, result dtype)`` for a stage, cached per (expression, dtypes, array module);
    None when the compiler refuses it (e.g. numexpr's limit of 63 operands)."""
    signature = tuple(dtypes[n] for n in stage.names)
    key = (stage.expr, stage.names, signature, xp.__name__)
    if key not in _COMPILED:
        _COMPILED[key] = (_numexpr_kernel if xp is numpy else _cupy_kernel)(stage, signature, xp)
    return _COMPILED[key]


def _numexpr_kernel(stage, signature, xp):
    sig = [(n, getType(numpy.empty(0, d))) for n, d in zip(stage.names, signature)]
    samples = [numpy.zeros(1, d) for d in signature]
    try:
        compiled = numexpr.NumExpr(stage.expr, signature=sig)
        result = compiled(*samples).dtype
    except (ValueError, TypeError, KeyError, NotImplementedError, SyntaxError):
        return None
    # NOTE: numexpr computes some integer functions (abs) in float64; the rest of the chain would
    #   then not wrap around as integer arithmetic does, and the cast back gives INT_MIN: op by op
    if result.kind == "f" and any(numpy.dtype(d).kind in "iu" for d in signature):
        return None
    return compiled, result.name


def stage_function(stage, xp):
    """The stage text as a Python function of its names, calling ``xp``'s ufuncs (numexpr's
    function names are NumPy's, hence CuPy's): Python's own parser reads the text."""
    names = set(re.findall(r"\b([a-z][a-z0-9_]*)\(", stage.expr))
    namespace = {name: getattr(xp, name) for name in names}
    namespace["__builtins__"] = {}
    code = compile(f"lambda {', '.join(stage.names)}: {stage.expr}", "<fuse>", "eval")
    return eval(code, namespace)  # noqa: S307 (text built from registered op templates)


def _cupy_kernel(stage, signature, xp):
    fn = xp.fuse(stage_function(stage, xp))
    samples = [xp.zeros(1, d) for d in signature]
    return fn, xp.asarray(fn(*samples)).dtype.name


def _best_time(fn, runs=2):
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


class FusedRunner(SubgraphRunner):
    """Runs the inner graph as compiled stages (falls back to op-by-op for unsupported dtypes or
    when the inner graph has ops without templates).

    On CPU, inputs of :data:`TUNE_MIN_SIZE` elements or more are timed once per dtype signature
    and size (power of two) three ways -- the numexpr kernel, the in-place ufunc program
    (:mod:`.ufunc_program`) and op by op -- and the fastest is kept: numexpr's transcendental
    functions without Intel VML are slower than NumPy's vectorised ones, so a long ``tanh``
    chain runs faster as ufuncs. ``choices`` records the decisions (``"numexpr"``, ``"ufunc"``,
    ``"ops"``), ``tune_times`` the seconds measured, and the fused node's ``kernel`` attribute
    shows them (the explorer lists it with the node's attributes).
    """

    def __init__(self, sym, copy_mutated=False):
        super().__init__(sym, copy_mutated)
        nodes = [n.node for n in self.graph.indexed.nodes if not n.is_variable]
        self.program = _Program(self.graph) if all(map(fusable, nodes)) else None
        self._kernels = {}
        self.choices = {}
        self.tune_times = {}
        self.node_attrs = None  # the fused node's attrs, where the tuned choice is shown

    def compute(self, xp, inputs, attrs, ctx):
        if self.program is None:
            return super().compute(xp, inputs, attrs, ctx)
        kernel = self.kernel([x.dtype.char for x in inputs], xp)
        # NOTE: numexpr broadcasts size-0 operands wrongly ((3, 0) + (1, 3, 0) gives (3, 0)),
        #   and an empty result has nothing to fuse: op by op then
        if not kernel.runnable or any(x.size == 0 for x in inputs):
            return super().compute(xp, inputs, attrs, ctx)
        size = max([x.size for x in inputs])
        if size < TUNE_MIN_SIZE or xp is not numpy:
            return tuple(kernel.run(list(inputs)))
        key = (id(kernel), size.bit_length())
        if key not in self.choices:
            self._tune(key, kernel, xp, inputs, attrs, ctx)
        return self._ways(kernel, xp, attrs, ctx)[self.choices[key]](inputs)

    def _ways(self, kernel, xp, attrs, ctx):
        """The ways to run ``kernel``: ``{name: fn(inputs) -> outputs}``."""
        ways = {"numexpr": lambda inputs: tuple(kernel.run(list(inputs))),
                "ops": lambda inputs: SubgraphRunner.compute(self, xp, inputs, attrs, ctx)}
        if kernel.ufunc is not None:
            ways["ufunc"] = lambda inputs: tuple(kernel.run_ufunc(list(inputs)))
        return ways

    def _tune(self, key, kernel, xp, inputs, attrs, ctx):
        """Time every way (best of two runs each, taking turns), keep the fastest, and show the
        choice on the fused node's ``kernel`` attribute."""
        ways = self._ways(kernel, xp, attrs, ctx)
        times = dict.fromkeys(ways, float("inf"))
        for _ in range(2):
            for name, way in ways.items():
                times[name] = min(times[name], _best_time(lambda: way(inputs), runs=1))
        self.choices[key] = min(times, key=times.get)
        self.tune_times[key] = times
        if self.node_attrs is not None:
            self.node_attrs["kernel"] = "; ".join(
                f"2^{k[1] - 1}+ elements: {choice}" for k, choice in self.choices.items())

    def kernel(self, in_dtypes, xp=numpy):
        """The compiled :class:`_Kernel` for these input dtypes (names, type codes or dtypes;
        built once per spelling)."""
        key = (tuple(in_dtypes), xp)
        kernel = self._kernels.get(key)
        if kernel is None:
            names = [numpy.dtype(d).name for d in in_dtypes]
            kernel = self._kernels[key] = _Kernel(self.program, self.graph, names, xp)
        return kernel

    def backward_symbol(self, bsym):
        """The backward inner graph with its elementwise parts fused again."""
        from ..partition import partition_symbol

        return partition_symbol(bsym, "fuse", FuseProperty())[0]

    def backward_runner(self, bsym):
        return SubgraphRunner(bsym, copy_mutated=True)


@register_subgraph_property("fuse")
class FuseProperty(SubgraphProperty):
    """Elementwise fusion; option ``min_size`` (default 2): smallest subgraph worth fusing."""

    subgraph_op_name = "_fused_op"
    runner_cls = FusedRunner

    def create_subgraph_node(self, sym, subgraph_id):
        node = super().create_subgraph_node(sym, subgraph_id)
        node.op.runner.node_attrs = node.attrs
        return node

    def create_subgraph_selector(self):
        return FuseSelector(int(self.get_attr("min_size", 2)))


register_subgraph_op_name(FuseProperty.subgraph_op_name, FusedRunner)
