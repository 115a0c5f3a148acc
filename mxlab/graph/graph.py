"""``Graph`` (output entries + attributes) and ``IndexedGraph`` (node ids, entry ids, consumers).

A :class:`Graph` is what passes take and return: its ``outputs`` (a list of
:class:`~mxlab.graph.node.Entry`) and an ``attrs`` dict the passes fill (``shape``, ``dtype``,
``memory_plan``, ``segments``, ...). Its :attr:`Graph.indexed` view numbers nodes in topological
order (MXNet's DFS order) and entries as ``node_row_ptr[nid] + index``, the numbering every
per-entry attribute list uses.

Example
-------
>>> from mxlab.graph.node import Node, Entry
>>> from mxlab.ops.registry import get_op
>>> x = Node(None, "x")
>>> y = Node(get_op("tanh"), "y", {}, [Entry(x)])
>>> g = Graph([Entry(y)])
>>> g.indexed.num_nodes, g.indexed.entry_id(y, 0)
(2, 1)
>>> print(g)
#0 x = var
#1 y = tanh(x[0])
outputs: y[0]
"""
import dataclasses
import functools

from ..base import MXNetValueError
from .node import Entry, Node, topo_sort

__all__ = ["Graph", "IndexedGraph", "IndexedNode", "PassRecord"]


@dataclasses.dataclass(frozen=True)
class PassRecord:
    """One pass run on a graph, for the notebook's pass timeline: its options, seconds, and the
    graph attributes it required and provided."""
    name: str
    options: dict
    seconds: float
    requires: tuple = ()
    provides: tuple = ()


class Graph:
    """Output entries plus attributes; the unit every pass consumes and produces.

    Parameters
    ----------
    outputs : list of Entry
    attrs : dict, optional
        Graph attributes. Keys the passes use: ``num_forward_outputs``, ``visit_order`` (output
        positions in the order the topological sort visits them), ``shape``/``dtype`` (lists by
        entry id), ``memory_plan``, ``segments``, ``pass_log``.
    """

    def __init__(self, outputs, attrs=None):
        self.outputs = [o if isinstance(o, Entry) else Entry(o) for o in outputs]
        self.attrs = dict(attrs) if attrs else {}
        self.attrs.setdefault("pass_log", [])

    @functools.cached_property
    def indexed(self):
        """The :class:`IndexedGraph` (computed once; structural passes make new Graphs)."""
        return IndexedGraph(self)

    @property
    def pass_log(self):
        """List of :class:`PassRecord`, oldest first."""
        return self.attrs["pass_log"]

    @property
    def num_forward_outputs(self):
        """How many of ``outputs`` are forward outputs (the rest are gradients)."""
        return self.attrs.get("num_forward_outputs", len(self.outputs))

    @functools.cached_property
    def num_forward_nodes(self):
        """Node count of the forward part: a prefix of the node ids, since the gradient pass
        orders forward outputs first (all nodes for a graph without gradients)."""
        idx = self.indexed
        count = self.num_forward_outputs
        if count >= len(self.outputs):
            return idx.num_nodes
        return max((idx.node_of_entry(e) + 1 for e in idx.outputs[:count]), default=0)

    def copy(self, outputs=None, **attrs):
        """A new Graph sharing nodes, with copied attributes (updated by ``attrs``) and pass log.

        Without new ``outputs`` (and the same ``visit_order``) the copy reuses the indexed view.
        """
        new_attrs = dict(self.attrs)
        new_attrs["pass_log"] = list(self.pass_log)
        new_attrs.update(attrs)
        graph = Graph(self.outputs if outputs is None else outputs, new_attrs)
        same_order = new_attrs.get("visit_order") == self.attrs.get("visit_order")
        if outputs is None and same_order and "indexed" in self.__dict__:
            graph.__dict__["indexed"] = self.__dict__["indexed"]
        return graph

    def __repr__(self):
        return self.indexed.to_text()

    def _repr_pretty_(self, printer, cycle):
        printer.text(repr(self))


@dataclasses.dataclass
class IndexedNode:
    """A node seen through its id: ``inputs`` are entry ids, ``control_deps`` node ids."""
    nid: int
    node: Node
    inputs: list
    control_deps: list

    @property
    def name(self):
        return self.node.name

    @property
    def op(self):
        return self.node.op

    @property
    def is_variable(self):
        return self.node.op is None


class IndexedGraph:
    """Node ids in topological order and entry ids, as nnvm's ``IndexedGraph``.

    Attributes
    ----------
    nodes : list of IndexedNode
    node_row_ptr : list of int
        ``node_row_ptr[nid]`` is the entry id of output 0 of node ``nid``; the last item is the
        entry count.
    input_nodes : list of int
        Variable node ids, in topological order (MXNet's ``list_inputs`` order).
    mutable_input_nodes : set of int
        Variables that feed an op's ``mutate_inputs`` (auxiliary states).
    outputs : list of int
        Entry ids of the graph outputs.
    consumers : list of list of int
        For each entry id, the node ids reading it (a node reading an entry twice is listed
        twice).
    """

    def __init__(self, graph):
        visit = graph.attrs.get("visit_order", range(len(graph.outputs)))
        order = topo_sort([graph.outputs[i] for i in visit])
        self._nid = {id(node): i for i, node in enumerate(order)}
        self.node_row_ptr = [0]
        self._entry_node = []
        for nid, node in enumerate(order):
            self.node_row_ptr.append(self.node_row_ptr[-1] + node.num_outputs)
            self._entry_node.extend([nid] * node.num_outputs)
        self.nodes = [IndexedNode(i, node, [self.entry_id(e) for e in node.inputs],
                                  [self.node_id(d) for d in node.control_deps])
                      for i, node in enumerate(order)]
        self.input_nodes = [n.nid for n in self.nodes if n.is_variable]
        self.mutable_input_nodes = set()
        for n in self.nodes:
            for i in () if n.is_variable else n.op.mutate_inputs:
                source = self.node_of_entry(n.inputs[i])
                if self.nodes[source].is_variable:
                    self.mutable_input_nodes.add(source)
        self.outputs = [self.entry_id(e) for e in graph.outputs]
        self.consumers = [[] for _ in range(self.num_entries)]
        for n in self.nodes:
            for eid in n.inputs:
                self.consumers[eid].append(n.nid)

    # -- numbering ---------------------------------------------------------------------------------
    @property
    def num_nodes(self):
        return len(self.nodes)

    @property
    def num_entries(self):
        return self.node_row_ptr[-1]

    def __getitem__(self, nid):
        return self.nodes[nid]

    def __len__(self):
        return len(self.nodes)

    def node_id(self, node):
        """Id of ``node``; a node that is not in the graph raises an error naming it."""
        try:
            return self._nid[id(node)]
        except KeyError:
            raise MXNetValueError(f"node '{node.name}' is not part of this graph") from None

    def entry_id(self, node_or_entry, index=None):
        """Entry id of ``Entry`` or of ``(node, index)``."""
        if isinstance(node_or_entry, Entry):
            node, index = node_or_entry.node, node_or_entry.index
        else:
            node, index = node_or_entry, index or 0
        return self.node_row_ptr[self.node_id(node)] + index

    def node_of_entry(self, eid):
        """Node id that produces entry ``eid``."""
        return self._entry_node[eid]

    def entry_name(self, eid):
        """``<node>_<output>`` as MXNet lists outputs (``<name>`` for a variable)."""
        nid = self.node_of_entry(eid)
        return self.nodes[nid].node.output_names()[eid - self.node_row_ptr[nid]]

    def entry_label(self, eid):
        """``node[index]`` (the text form used in printouts)."""
        nid = self.node_of_entry(eid)
        return f"{self.nodes[nid].name}[{eid - self.node_row_ptr[nid]}]"

    def output_entries(self, nid):
        """Entry ids of node ``nid``'s outputs."""
        return list(range(self.node_row_ptr[nid], self.node_row_ptr[nid + 1]))

    # -- printing ----------------------------------------------------------------------------------
    def to_text(self, entry_notes=None):
        """One line per node: ``#id name = op(inputs) attrs``; ``entry_notes(eid)`` adds text per
        output."""
        lines = []
        for n in self.nodes:
            if n.is_variable:
                text = f"#{n.nid} {n.name} = var"
            else:
                args = ", ".join(self.entry_label(e) for e in n.inputs)
                attrs = "".join(f" {k}={v}" for k, v in sorted(n.node.attrs.items()))
                text = f"#{n.nid} {n.name} = {n.op.name}({args}){attrs}"
            if n.control_deps:
                text += " after " + ", ".join(self.nodes[d].name for d in n.control_deps)
            if entry_notes is not None:
                text += "".join(f"  [{i}] {entry_notes(e)}"
                                for i, e in enumerate(self.output_entries(n.nid)))
            lines.append(text)
        lines.append("outputs: " + ", ".join(self.entry_label(e) for e in self.outputs))
        return "\n".join(lines)
