"""What the explorer reads from the object it was opened on, behind one small interface.

:class:`Source` wraps a CachedOp (or anything with its inspection API: ``forward_graph``,
``memory_plan(kind)``, ``segments(kind)``, ``replan_log``), a HybridBlock (its CachedOp, or its
traced graph before the first hybridized call) or a Symbol (planned here when ``shapes`` are
given). It only reads, and only public names (``CachedOp.plans``, ``HybridBlock.cached_op``,
``Symbol.graph``, ``Node.scope``, ...): nothing here changes the inspected object.

Example
-------
>>> import mxlab as mx
>>> src = Source(mx.sym.tanh(mx.sym.var('x')), shapes={'x': (2,)})
>>> src.kinds(), src.memory_plan('forward').planned_bytes
(['forward'], 0)
"""
from ..base import MXNetTypeError, MXNetValueError
from ..graph.graph import Graph
from ..symbol.symbol import Symbol

__all__ = ["Source", "KIND_ORDER"]

KIND_ORDER = ("forward", "full", "backward", "joint")


def _is_cached_op(obj):
    return callable(getattr(obj, "memory_plan", None)) and hasattr(obj, "forward_graph")


def _executor_plan(obj):
    """The jointly planned graph of a GraphExecutor (``Symbol.bind``), else None."""
    plans = None if _is_cached_op(obj) else getattr(obj, "plans", None)
    return plans.get("joint") if plans is not None else None


class Source:
    """Graphs, plans, segments, partition and timings of one inspected object.

    Parameters
    ----------
    obj : CachedOp, HybridBlock, Symbol or executor
    shapes, dtypes : dict, optional
        Input shapes/dtypes by name, to plan a bare Symbol (dtype default float32).
    partition : Partition, optional
        Drawn by the Partitions view; default: the partition found in the graph or the latest
        :func:`mxlab.subgraph.partition` call whose node names match.
    original : Symbol, optional
        The symbol before partitioning: the Partitions view draws it, subgraphs as clusters.
    """

    def __init__(self, obj, shapes=None, dtypes=None, partition=None, original=None):
        self.obj = obj
        self.original = None if original is None else original.graph
        self.title = type(obj).__name__
        self._symbol_plans = {}
        self._partition = partition
        self.params = frozenset()
        self._block = None
        if hasattr(obj, "collect_params") and hasattr(obj, "hybridize"):
            self._block = obj
            self.params = frozenset(p.var().name for p in obj.collect_params().values())
        elif not (_is_cached_op(obj) or _executor_plan(obj) or isinstance(obj, Symbol)):
            raise MXNetTypeError(f"explore: cannot inspect a {type(obj).__name__}; give a "
                                 "CachedOp, HybridBlock, Symbol or executor")
        if shapes:
            self._plan_symbol(shapes, dtypes or {})

    # -- what is inspected ------------------------------------------------------------------------
    @property
    def cached_op(self):
        """The CachedOp-like object, or None (a Symbol, a block not hybridized/called yet)."""
        if _is_cached_op(self.obj):
            return self.obj
        op = getattr(self._block, "cached_op", None)
        return op if _is_cached_op(op) else None

    @property
    def symbol(self):
        if self._block is not None:
            return self._block.traced_symbol
        return getattr(self.obj, "symbol", self.obj)

    def _op_plans(self):
        op = self.cached_op
        return {} if op is None else getattr(op, "plans", {})

    def kinds(self):
        """Graph kinds available now (forward, full, backward) in display order."""
        plans = self._op_plans()
        if plans:
            return [k for k in KIND_ORDER if k in plans]
        if _executor_plan(self.obj) is not None:
            return ["joint"]
        if self._symbol_plans:
            return list(self._symbol_plans)
        return ["forward"] if self.symbol is not None else []

    def graph(self, kind="forward"):
        """The Graph of ``kind`` (planned when a plan exists)."""
        planned = self._planned(kind)
        if planned is not None:
            return planned.graph
        op = self.cached_op
        if op is not None:
            return op.forward_graph if kind == "forward" else op.full_graph
        sym = self.symbol
        if sym is None:
            raise MXNetValueError("explore: nothing traced yet; call the block once (after "
                                  "hybridize()) or give a Symbol")
        return sym.graph

    def _planned(self, kind):
        executor = _executor_plan(self.obj)
        if executor is not None:
            return executor if kind == executor.kind else None
        if self.cached_op is not None:
            return self._op_plans().get(kind)
        return self._symbol_plans.get(kind)

    def memory_plan(self, kind="forward"):
        """The MemoryPlan of ``kind``, or None before the first (recorded) call."""
        planned = self._planned(kind)
        return None if planned is None else planned.memory_plan

    def segments(self, kind="forward"):
        planned = self._planned(kind)
        return None if planned is None else planned.segments

    @property
    def replan_log(self):
        return list(getattr(self.cached_op, "replan_log", []))

    @property
    def run_times(self):
        return dict(getattr(self.cached_op, "last_run_times", {}) or {})

    def partition(self, graph):
        """The Partition whose subgraphs name nodes of ``graph``; None without one."""
        part = self._partition or graph.attrs.get("partition")
        if part is None:
            from .. import subgraph
            part = subgraph.last_partition()
        if part is None:
            return None
        names = {n.name for n in graph.indexed.nodes}
        if self._partition is None and not any(n in names for sub in part.subgraphs for n in sub):
            return None
        return part

    def block_paths(self, graph):
        """``{node name: block path}`` of a HybridBlock's graph: an op takes the blocks it was
        traced in (``Node.scope``), else those of the parameters it reads; a parameter the
        blocks of its structured name (``dense0.weight`` -> ``['dense0']``). Empty for other
        objects (names carry their own prefixes there)."""
        if self._block is None:
            return {}
        params = {}
        for key, param in self._block.collect_params().items():
            parts = key.split(".")[:-1]
            params[param.var().name] = [".".join(parts[:i + 1]) for i in range(len(parts))]
        paths = dict(params)
        for n in graph.indexed.nodes:
            owners = [params[e.node.name] for e in n.node.inputs if e.node.name in params]
            if n.node.scope:
                paths[n.name] = [path for path, _ in n.node.scope]
            elif owners and not n.is_variable:
                paths[n.name] = owners[0]
        return {name: path for name, path in paths.items() if path}

    def block_labels(self):
        """``{block path: "path: ClassName"}`` for the cluster titles of a HybridBlock (from the
        scopes its traced nodes recorded)."""
        kinds = self.kinds() if self._block is not None else []
        labels = {}
        for n in self.graph(kinds[0]).indexed.nodes if kinds else ():
            for path, block_type in n.node.scope:
                labels[path] = f"{path}: {block_type}"
        return labels

    def fingerprint(self):
        """Changes when the object re-planned or was traced (live refresh compares it)."""
        op = self.cached_op
        plans = tuple(id(p) for p in self._op_plans().values())
        return (id(op), len(self.replan_log), plans, id(self.symbol))

    # -- planning a bare symbol, and what-if re-plans ---------------------------------------------
    def _plan_symbol(self, shapes, dtypes):
        sym = self.symbol
        names = sym.list_inputs()
        args, _, aux = sym.infer_shape_partial(**shapes)
        known = dict(zip(sym.list_arguments() + sym.list_auxiliary_states(), args + aux))
        shapes = {n: tuple(shapes.get(n) or known.get(n) or ()) for n in names}
        missing = [n for n in names if not shapes[n]]
        if missing:
            raise MXNetValueError(f"explore: shapes missing for inputs {missing}")
        from ..executor.planning import infer_graph, plan_graph
        dtypes = {n: dtypes.get(n, "float32") for n in names}
        forward = infer_graph(sym.graph, shapes, dtypes)
        self._symbol_plans = {"forward": plan_graph(forward, "forward")}

    def replan(self, kind, match_range=None, sum_cap=None, recompute=False):
        """A what-if PlannedGraph of ``kind`` with other planner knobs; the object keeps its own.

        ``sum_cap`` and ``recompute`` rebuild the gradient graph (kinds full/backward).
        """
        from ..executor.planning import gradient_graph, infer_graph, plan_graph
        current = self._planned(kind) or self._planned("forward")
        if current is None:
            raise MXNetValueError(f"explore: no '{kind}' plan to re-plan; run the op first")
        if kind in ("forward", "joint") and not (sum_cap or recompute):
            return plan_graph(current.graph, kind, match_range=match_range)
        if kind == "joint":
            raise MXNetValueError("explore: sum_cap and recompute re-plan CachedOp gradient "
                                  "graphs; an executor's joint plan takes match_range only")
        forward = self._planned("forward")
        base = forward.graph if forward is not None else self._inferred_forward(current.graph)
        idx = base.indexed
        shapes = {idx[n].name: base.attrs["shape"][idx.node_row_ptr[n]] for n in idx.input_nodes}
        dtypes = {idx[n].name: base.attrs["dtype"][idx.node_row_ptr[n]] for n in idx.input_nodes}
        xs = [idx[n].name for n in idx.input_nodes if n not in idx.mutable_input_nodes]
        full = gradient_graph(base, xs, recompute=recompute, sum_cap=sum_cap)
        return plan_graph(infer_graph(full, shapes, dtypes), kind, match_range=match_range)

    def _inferred_forward(self, full):
        """The forward graph (inferred) from a planned full graph's forward outputs."""
        from ..executor.planning import infer_graph
        idx = full.indexed
        count = full.attrs.get("num_forward_outputs", len(full.outputs))
        shapes = {idx[n].name: full.attrs["shape"][idx.node_row_ptr[n]]
                  for n in idx.input_nodes if not idx[n].name.endswith("_head_grad")}
        dtypes = {idx[n].name: full.attrs["dtype"][idx.node_row_ptr[n]]
                  for n in idx.input_nodes if not idx[n].name.endswith("_head_grad")}
        return infer_graph(Graph(full.outputs[:count]), shapes, dtypes)
