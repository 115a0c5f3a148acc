"""An mxlab extension adding the subgraph backend ``fc_act``: each FullyConnected followed by an
Activation becomes one ``_sg_fc_act`` node computing ``act(x @ W.T + b)`` in one kernel (the
activation applied to the matmul result in place of a second pass over a new array).

The selector seeds on FullyConnected, grows only to an Activation consuming it, and its filter
keeps exactly that pair. Gradients come from the subgraph op (the inner graph's gradient rules).

Usage (from the repository root)::

    mx.library.load("extensions/fc_act")
    fused = sym.optimize_for("fc_act")            # or block.hybridize(backend="fc_act")
"""
from mxlab.ops.registry import get_op
from mxlab.subgraph import (SubgraphProperty, SubgraphRunner, SubgraphSelector,
                            register_subgraph_property)

OP_NAME = "_sg_fc_act"


def _is(node, op_name):
    return node.op is not None and node.op.name == op_name


class FCActSelector(SubgraphSelector):
    """FullyConnected seeds; only an Activation reading it joins; keep exactly the pair."""

    def select(self, node):
        return _is(node, "FullyConnected")

    def select_output(self, node, output_node):
        return _is(node, "FullyConnected") and _is(output_node, "Activation")

    def filter(self, candidates):
        return list(candidates) if len(candidates) == 2 else []


class FCActRunner(SubgraphRunner):
    """Computes the pair as one matmul + bias + in-place activation."""

    def __init__(self, sym, copy_mutated=False):
        super().__init__(sym, copy_mutated)
        ops = [n.node for n in self.graph.indexed.nodes if not n.is_variable]
        self.fc = next(n for n in ops if _is(n, "FullyConnected"))
        self.act = next(n for n in ops if _is(n, "Activation"))
        position = {id(n): i for i, n in enumerate(self.input_nodes)}
        self.fc_inputs = [position[id(e.node)] for e in self.fc.inputs]
        self.outputs = [e.node is self.act for e in self.graph.outputs]

    def compute(self, xp, inputs, attrs):
        x, w, *bias = [inputs[i] for i in self.fc_inputs]
        if self.fc.attrs.get("flatten", True):
            x = x.reshape(x.shape[0], -1)
        pre = xp.matmul(x, w.T)
        if bias and not self.fc.attrs.get("no_bias", False):
            pre += bias[0]
        kept = pre.copy() if not all(self.outputs) else None
        act = get_op("Activation")
        (out,) = act.forward(xp, [pre], self.act.attrs, outs=[pre])
        return tuple(out if is_act else kept for is_act in self.outputs)

    def backward_runner(self, bsym):
        return SubgraphRunner(bsym, copy_mutated=True)


class FCActProperty(SubgraphProperty):
    """The ``fc_act`` backend."""

    subgraph_op_name = OP_NAME
    runner_cls = FCActRunner

    def create_subgraph_selector(self):
        return FCActSelector()


def register():
    """Called by ``mx.library.load``: register the backend."""
    register_subgraph_property("fc_act")(FCActProperty)
