"""The subgraph operator: one node that runs a whole inner graph (MXNet's ``_default_subgraph_op``).

:func:`make_subgraph_op` builds an :class:`~mxlab.ops.registry.Op` per subgraph, holding its inner
:class:`~mxlab.symbol.Symbol` (the node keeps it in ``Node.subgraphs`` too). Its inputs are the
inner variables in ``list_inputs`` order, its outputs the inner outputs; inner variables an inner
op mutates (BatchNorm's moving statistics) are the op's ``mutate_inputs``, so they stay auxiliary
states of the outer graph. The inner graph runs through a CachedOp with static_alloc and
static_shape (planned once, inspectable as ``op.runner.cached_op``). Shapes and dtypes are inferred
by running inference on the inner graph, in both directions.

Unlike MXNet 1.x, the op has a gradient: the inner graph's gradient (built once with the graph
gradient pass, inner forward ops recomputed) becomes a ``_backward_<name>`` subgraph op taking the
forward inputs and the output gradients. Since that is an op like any other, it works for autograd
on arrays, for the graph gradient pass on symbols, and can be differentiated again.

Example
-------
>>> import mxlab as mx
>>> op = make_subgraph_op(mx.sym.exp(mx.sym.var('x')) * 2)
>>> x = mx.nd.array([0.0, 1.0])
>>> mx.nd.exp(x).asnumpy() * 2 == mx.imperative.invoke(op, [x], {})[0].asnumpy()
array([ True,  True])
"""
import contextlib
import threading

import numpy

from .. import engine as _engine
from ..base import MXNetRuntimeError
from ..graph import gradient as _gradient, infer
from ..graph.gradient import build_gradient_graph
from ..graph.graph import Graph
from ..graph.node import Entry, Node, topo_sort
from ..device import cpu, gpu
from ..ops.registry import Op, apply_op, register

__all__ = ["SubgraphRunner", "make_subgraph_op", "is_subgraph_op", "register_subgraph_op_name",
           "restore_subgraph_ops"]


class SubgraphRunner:
    """An inner graph with the rules its subgraph op needs: compute, inference and gradient.

    Subclasses (the ``fuse`` backend) override :meth:`compute`; the backward op is built with
    the same class, so it is executed the same way.

    Parameters
    ----------
    sym : Symbol
        The inner graph.
    copy_mutated : bool
        Run on copies of inputs the inner ops mutate (backward ops recompute the forward, which
        must not update auxiliary states twice).
    """

    def __init__(self, sym, copy_mutated=False):
        self.sym = sym
        self.graph = Graph(list(sym._outputs))
        idx = self.graph.indexed
        self.input_nodes = [idx[nid].node for nid in idx.input_nodes]
        self.mutable = tuple(i for i, nid in enumerate(idx.input_nodes)
                             if nid in idx.mutable_input_nodes)
        self.copy_mutated = copy_mutated
        self.name = "_default_subgraph_op"  # set by make_subgraph_op
        self._backward = None
        self._cached = None
        self._lock = threading.Lock()

    # -- execution -----------------------------------------------------------------------------
    def compute(self, xp, inputs, attrs, ctx):
        """Run the inner graph on xp arrays through its CachedOp (static_alloc, static_shape),
        in the mode of ``ctx``; outputs never alias inputs or each other."""
        inputs = self._protect(list(inputs))
        return tuple(_fresh(self._run_cached(inputs, xp, ctx), inputs))

    @property
    def cached_op(self):
        """The inner :class:`~mxlab.executor.CachedOp` (planned once, inspectable like any
        other)."""
        if self._cached is None:
            from ..executor.cached_op import CachedOp  # NOTE: the executor imports this package.
            self._cached = CachedOp(self.sym, {"static_alloc": True, "static_shape": True})
        return self._cached

    def _run_cached(self, inputs, xp, ctx):
        from ..autograd import pause
        from ..ndarray.ndarray import NDArray
        device = _device_of(xp, inputs)
        arrays = [NDArray._wrap(x, device) for x in inputs]
        # NOTE: the outer op is what autograd records; the inner run must not add tape nodes.
        # NOTE: inline: queued behind the op running them, the inner ops could wait for it
        #   (ThreadedEngine deadlocked so); the lock keeps two such ops off the one frame.
        with self._lock, _engine.inline(), pause(train_mode=ctx.is_train):
            outputs = self.cached_op(*arrays)
        outputs = outputs if isinstance(outputs, list) else [outputs]
        return [o._get_data() for o in outputs]

    def _protect(self, inputs):
        if self.copy_mutated:
            for i in self.mutable:
                inputs[i] = inputs[i].copy()
        return inputs

    # -- inference -----------------------------------------------------------------------------
    def _outer(self, found):
        ins = [found.get((node, 0)) for node in self.input_nodes]
        outs = [found.get((e.node, e.index)) for e in self.graph.outputs]
        return ins, outs

    def infer_shape(self, attrs, in_shapes, out_shapes=None):
        """Shapes through the inner graph in both directions (known outer outputs seed its
        heads)."""
        known = {node: s for node, s in zip(self.input_nodes, in_shapes) if s is not None}
        for entry, shape in zip(self.graph.outputs, out_shapes or ()):
            if shape is not None:
                known[(entry.node, entry.index)] = shape
        return self._outer(infer.infer_shapes(self.graph.outputs, known, np_shape=False))

    def infer_type(self, attrs, in_dtypes):
        known = {node: d for node, d in zip(self.input_nodes, in_dtypes) if d is not None}
        return self._outer(infer.infer_types(self.graph.outputs, known))

    # -- gradient ------------------------------------------------------------------------------
    def gradient(self, node, out_grads):
        """Input gradients from one ``_backward_<name>`` op (None for auxiliary states)."""
        op, sources, targets = self.backward()
        args = [node.inputs[i] if kind == "input" else out_grads[i] for kind, i in sources]
        outs = apply_op(op, args, {})
        grads = [None] * len(node.inputs)
        for k, i in enumerate(targets):
            grads[i] = outs[k]
        return grads

    def backward(self):
        """``(op, sources, targets)``: the backward subgraph op, where each of its inputs comes
        from (``("input", i)`` or ``("out_grad", j)``) and which input each output is the
        gradient of. Built once."""
        if self._backward is None:
            with _own_gradient_scope():
                self._backward = self._build_backward()
        return self._backward

    def _build_backward(self):
        from ..symbol.symbol import Symbol

        out_names = [e.node.output_names()[e.index] for e in self.graph.outputs]
        heads = [Node(None, f"{n}_head_grad{k}") for k, n in enumerate(out_names)]
        targets = [i for i in range(len(self.input_nodes)) if i not in self.mutable]
        xs = [Entry(self.input_nodes[i]) for i in targets]
        grad_graph = build_gradient_graph(self.graph, xs=xs, head_grads=[Entry(h) for h in heads])
        bsym = self.backward_symbol(Symbol(grad_graph.outputs[len(self.graph.outputs):]))
        where = {n.name: ("input", i) for i, n in enumerate(self.input_nodes)}
        where.update({h.name: ("out_grad", j) for j, h in enumerate(heads)})
        runner = self.backward_runner(bsym)
        sources = [where[n.name] for n in runner.input_nodes]
        return make_subgraph_op(bsym, f"_backward{self.name}", runner=runner), sources, targets

    def backward_symbol(self, bsym):
        """Hook: the backward inner graph to run (a backend may partition it again)."""
        return bsym

    def backward_runner(self, bsym):
        """Hook: the runner of the backward op (same class; mutated inputs copied)."""
        return type(self)(bsym, copy_mutated=True)


@contextlib.contextmanager
def _own_gradient_scope():
    """Build an inner gradient graph while an outer gradient pass may be running: the pass keeps
    per-thread naming state, restored afterwards."""
    scope = _gradient._SCOPE
    saved = (scope.prefix, scope.counters, scope.created)
    try:
        yield
    finally:
        scope.prefix, scope.counters, scope.created = saved


def _device_of(xp, arrays):
    """The mxlab device holding raw ``arrays`` (CPU for NumPy; the CuPy array's GPU)."""
    if xp is numpy or not arrays:
        return cpu()
    return gpu(arrays[0].device.id)


def _fresh(results, inputs):
    """Copies of results that are an input or an earlier result (each output owns its buffer)."""
    seen = {id(x) for x in inputs}
    out = []
    for r in results:
        if id(r) in seen:
            r = r.copy()
        seen.add(id(r))
        out.append(r)
    return out


def make_subgraph_op(sym, name="_default_subgraph_op", runner=None, runner_cls=SubgraphRunner):
    """An :class:`~mxlab.ops.registry.Op` running the inner symbol ``sym`` (see module doc).

    ``op.subgraph`` is the inner symbol and ``op.runner`` its :class:`SubgraphRunner`.
    """
    runner = runner or runner_cls(sym)
    runner.name = name
    inner = [n.op for n in runner.graph.indexed.nodes if n.op is not None]
    # NOTE: what the passes decide from must hold for the whole inner graph: a value-dependent
    #   shape inside (boolean_mask) has no static plan; a random op inside is never recomputed.
    op = Op(name=name, compute=runner.compute,
            dynamic_shape=any(o.dynamic_shape for o in inner),
            is_random=any(o.is_random for o in inner),
            num_inputs=len(runner.input_nodes), num_outputs=len(sym._outputs),
            input_names=tuple(n.name for n in runner.input_nodes),
            output_names=tuple(sym.list_outputs()),
            infer_shape=runner.infer_shape, infer_type=runner.infer_type,
            gradient=lambda node, out_grads: runner.gradient(node, out_grads),
            mutate_inputs=() if runner.copy_mutated else runner.mutable,
            save_outputs=False, hidden=True,
            doc=f"Runs an inner graph of {len(runner.graph.indexed.nodes)} nodes as one op.")
    op.subgraph = sym
    op.runner = runner
    return op


_RUNNERS = {}  # subgraph op name -> runner class, for restore_subgraph_ops


def register_subgraph_op_name(name, runner_cls=SubgraphRunner):
    """Register ``name`` as a placeholder op (so JSON holding such nodes loads) and remember the
    runner class :func:`restore_subgraph_ops` rebuilds its nodes with."""
    def needs_restore(xp, inputs, attrs):
        raise MXNetRuntimeError(f"{name}: this node was loaded from JSON; call "
                                f"mx.subgraph.restore_subgraph_ops(sym) to rebuild it")
    _RUNNERS[name] = runner_cls
    register(Op(name=name, compute=needs_restore, num_inputs=None, hidden=True,
                doc="Placeholder of a subgraph node loaded from JSON (see "
                    "restore_subgraph_ops)."))


def restore_subgraph_ops(sym):
    """Rebuild, in place, the subgraph nodes of a symbol loaded from JSON (their inner symbols
    are in ``Node.subgraphs``); returns ``sym``."""
    for node in topo_sort(sym._outputs):
        if node.op is not None and node.op.name in _RUNNERS and not is_subgraph_op(node.op):
            node.op = make_subgraph_op(node.subgraphs[0], node.op.name,
                                       runner_cls=_RUNNERS[node.op.name])
    return sym


def is_subgraph_op(op):
    """Whether ``op`` was made by :func:`make_subgraph_op`."""
    return op is not None and getattr(op, "runner", None) is not None



register_subgraph_op_name("_default_subgraph_op")
