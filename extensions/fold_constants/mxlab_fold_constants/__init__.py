"""An mxlab extension adding the graph pass ``fold_constants`` (and its ``_folded_constant`` op).

A node is constant when it is an op whose inputs are all constant (creation ops such as
``_ones`` have none), not random and mutating nothing. Each constant node read by a non-constant
node or by a graph output is computed once, at pass time, and replaced by a ``_folded_constant``
node holding the value; creation ops alone are left as they are (nothing to save). The pass
works on a copy and records the names it folded in ``graph.attrs["folded"]``.

Usage (from the repository root)::

    mx.library.load("extensions/fold_constants")
    graph = mxlab.graph.apply_pass(Graph(sym._outputs), "fold_constants")
"""
import numpy

from mxlab.graph.graph import Graph
from mxlab.graph.interpreter import run_graph
from mxlab.graph.node import Entry, Node
from mxlab.graph.passes import register_pass
from mxlab.ops.registry import Op, register as register_op
from mxlab.symbol.compose import copy_graph

CONSTANT_OP = "_folded_constant"


def _constant_compute(xp, inputs, attrs):
    return xp.asarray(attrs["value"]).copy()


def make_constant_op():
    """The op of folded values: no inputs, its value in ``attrs["value"]``."""
    return Op(name=CONSTANT_OP, compute=_constant_compute, num_inputs=0, input_names=(),
              infer_shape=lambda attrs, in_shapes: [tuple(attrs["value"].shape)],
              infer_type=lambda attrs, in_dtypes: [attrs["value"].dtype.name],
              gradient=lambda node, out_grads: [], save_inputs=False, save_outputs=False,
              hidden=True, doc="A value computed by the fold_constants pass.")


def _constant_flags(idx):
    flags = []
    for n in idx.nodes:
        op = n.node.op
        flags.append(op is not None and not op.is_random and not op.mutate_inputs
                     and all(flags[idx.node_of_entry(e)] for e in n.inputs))
    return flags


def _frontier(idx, flags):
    """Entry ids of constant values read by non-constant nodes or graph outputs, computed by a
    node with inputs (folding a bare creation op saves nothing)."""
    wanted = set(e for e in idx.outputs if flags[idx.node_of_entry(e)])
    for n in idx.nodes:
        if not flags[n.nid]:
            wanted.update(e for e in n.inputs if flags[idx.node_of_entry(e)])
    return sorted(e for e in wanted if idx.nodes[idx.node_of_entry(e)].inputs)


def fold_constants(graph):
    """The pass: constant subgraphs computed once and replaced by ``_folded_constant`` nodes."""
    from mxlab.ops.registry import get_op

    outputs = copy_graph(graph.outputs)
    work = Graph(outputs)
    idx = work.indexed
    frontier = _frontier(idx, _constant_flags(idx))
    keys = [(idx.nodes[idx.node_of_entry(e)].node, e - idx.node_row_ptr[idx.node_of_entry(e)])
            for e in frontier]
    values = run_graph(Graph([Entry(node, i) for node, i in keys]), {}) if keys else []
    replace = {}
    for (node, i), value in zip(keys, values):
        const = Node(get_op(CONSTANT_OP), f"{node.name}_folded{i}",
                     {"value": numpy.asarray(value)})
        replace[(id(node), i)] = Entry(const)
    for n in idx.nodes:
        n.node.inputs = [replace.get((id(e.node), e.index), e) for e in n.node.inputs]
    outputs = [replace.get((id(e.node), e.index), e) for e in outputs]
    attrs = dict(graph.attrs, pass_log=list(graph.pass_log), folded=[k[0].name for k in keys])
    for key in ("shape", "dtype", "visit_order"):
        attrs.pop(key, None)
    return Graph(outputs, attrs)


def register():
    """Called by ``mx.library.load``: register the constant op and the pass."""
    register_op(make_constant_op())
    register_pass("fold_constants", provides=("folded",))(fold_constants)
