"""Graph nodes and entries: the one IR shared by Symbol, deferred compute, autograd's
``get_symbol``, the graph passes, CachedOp, the partitioner and the notebook drawings.

A :class:`Node` is an op application (or a variable when ``op is None``) with ordered inputs; an
:class:`Entry` names one output of a node. Graph-level structure (topological order, entry ids,
attributes such as shapes or memory plans) lives in :mod:`mxlab.graph.graph`.
"""
import itertools
import typing

__all__ = ["Node", "Entry", "topo_sort", "post_order", "new_node_name"]

_name_counters = {}


def new_node_name(hint):
    """Deterministic unique names per hint, MXNet style: ``fullyconnected0``, ``fullyconnected1``,
    ..."""
    base = hint.lower().lstrip("_") or "node"
    counter = _name_counters.setdefault(base, itertools.count())
    return f"{base}{next(counter)}"


class Entry(typing.NamedTuple):
    """Output ``index`` of ``node``; ``version`` is the variable version (MXNet's JSON keeps it,
    always 0 here)."""
    node: "Node"
    index: int = 0
    version: int = 0

    def __repr__(self):
        return f"{self.node.name}[{self.index}]"


class Node:
    """One op application or variable.

    Attributes
    ----------
    op : Op or None
        The registered op; ``None`` for a variable (MXNet's ``"op": "null"``).
    name : str
    attrs : dict
        Typed op attributes (parsed by ``op.parse_attrs``).
    inputs : list of Entry
    extra : dict of str -> str
        Symbol attributes that are not op parameters (``__shape__``, ``__dtype__``, ``__init__``,
        ``lr_mult``, ``__subgraph_name__``, ...), kept as strings exactly as MXNet's JSON stores
        them.
    control_deps : list of Node
        Ordering-only dependencies (e.g. the gradient-sum chain).
    subgraphs : list
        Inner symbols of subgraph ops (``_CachedOp``, ``_default_subgraph_op``).
    scope : tuple of (str, str)
        The Gluon blocks the node was traced in, outermost first, as ``(path, block class
        name)`` pairs (``(("features", "HybridSequential"), ("features.0", "Dense"))``; paths
        as in ``collect_params`` keys); recorded by deferred compute while a HybridBlock traces,
        ``()`` elsewhere. Mirror nodes and graph copies keep it.

    Example
    -------
    >>> import mxlab as mx
    >>> net = mx.gluon.nn.HybridSequential()
    >>> net.add(mx.gluon.nn.Dense(2))
    >>> net.initialize()
    >>> net.hybridize()
    >>> _ = net(mx.np.ones((1, 3)))
    >>> [n.node.scope for n in net.cached_op.symbol.graph.indexed.nodes if n.op][0]
    (('0', 'Dense'),)
    """

    __slots__ = ("op", "name", "attrs", "inputs", "extra", "control_deps", "subgraphs", "scope",
                 "__weakref__")

    def __init__(self, op, name, attrs=None, inputs=None, extra=None, control_deps=None,
                 subgraphs=None, scope=()):
        self.op = op
        self.name = name
        self.attrs = attrs if attrs is not None else {}
        self.inputs = list(inputs) if inputs else []
        self.extra = dict(extra) if extra else {}
        self.control_deps = list(control_deps) if control_deps else []
        self.subgraphs = list(subgraphs) if subgraphs else []
        self.scope = scope

    @property
    def is_variable(self):
        return self.op is None

    @property
    def num_outputs(self):
        return 1 if self.op is None else self.op.get_num_outputs(self.attrs)

    def output_names(self):
        """``<name>_<output>`` for each output (``<name>`` alone for a variable), as MXNet lists
        outputs."""
        if self.op is None:
            return [self.name]
        return [f"{self.name}_{o}" for o in self.op.get_output_names(self.attrs)]

    def __repr__(self):
        kind = "var" if self.op is None else self.op.name
        return f"<Node {self.name} ({kind})>"


def topo_sort(heads):
    """Nodes reachable from ``heads`` (entries or nodes) in post-order DFS: inputs before consumers.

    Deterministic: inputs are visited in order, then control dependencies (MXNet's ``DFSVisit``
    order).
    """
    return post_order([h.node if isinstance(h, Entry) else h for h in heads], _node_children)


def _node_children(node):
    return [e.node for e in node.inputs] + list(node.control_deps)


def post_order(roots, children):
    """Nodes reachable from ``roots`` through ``children(node)``, each once, children first."""
    order, seen = [], set()
    for root in roots:
        if id(root) in seen:
            continue
        stack = [(root, False)]
        while stack:
            node, done = stack.pop()
            if done:
                order.append(node)
                continue
            if id(node) in seen:
                continue
            seen.add(id(node))
            stack.append((node, True))
            for child in reversed(children(node)):
                if id(child) not in seen:
                    stack.append((child, False))
    return order
