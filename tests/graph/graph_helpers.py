"""Graph builders and a numeric-gradient helper for the graph tests (numpy is the reference)."""
import numpy

from mxlab.graph.graph import Graph
from mxlab.graph.node import Entry, Node, new_node_name
from mxlab.graph.passes import apply_pass
from mxlab.ops.registry import F, Op, get_op

__all__ = ["var", "apply", "chain", "mlp", "prepared", "planned", "random_inputs",
           "numeric_gradient", "two_output_op", "Graph"]


def var(name):
    """A variable entry."""
    return Entry(Node(None, name))


def apply(op, *inputs, name=None, **attrs):
    """A node applying ``op`` (a name or an unregistered :class:`Op`): its entry or entries."""
    op = get_op(op) if isinstance(op, str) else op
    node = Node(op, name or new_node_name(op.name), op.parse_attrs(attrs), list(inputs))
    outs = [Entry(node, i) for i in range(op.get_num_outputs(node.attrs))]
    return outs[0] if len(outs) == 1 else outs


def chain(x, ops, prefix="n"):
    """Apply unary ops in sequence, naming nodes ``<prefix><i>``."""
    for i, name in enumerate(ops):
        x = apply(name, x, name=f"{prefix}{i}")
    return x


def mlp(depth, hidden):
    """``depth`` x (FullyConnected + tanh) on ``data``; parameters ``fc<i>_weight``/``_bias``."""
    x = var("data")
    for i in range(depth):
        x = apply("FullyConnected", x, var(f"fc{i}_weight"), var(f"fc{i}_bias"), name=f"fc{i}",
                  num_hidden=hidden)
        x = apply("tanh", x, name=f"tanh{i}")
    return Graph([x])


def prepared(graph, shapes, dtype="float64"):
    """``graph`` after infer_shape and infer_type (every input of ``dtype``)."""
    graph = apply_pass(graph, "infer_shape", shapes=shapes)
    names = [graph.indexed[n].name for n in graph.indexed.input_nodes]
    return apply_pass(graph, "infer_type", dtypes={n: dtype for n in names})


def planned(graph, shapes, dtype="float64", addto=False, **options):
    """``graph`` with shapes, dtypes and a memory plan (plus add-to detection when asked)."""
    graph = apply_pass(prepared(graph, shapes, dtype), "plan_memory", **options)
    return apply_pass(graph, "detect_inplace_addto") if addto else graph


def random_inputs(graph, rng=None):
    """Random inputs in [-1, 1] for every variable of a prepared graph."""
    rng = rng or numpy.random.default_rng(0)
    idx, shapes, dtypes = graph.indexed, graph.attrs["shape"], graph.attrs["dtype"]
    entries = {idx[n].name: idx.node_row_ptr[n] for n in idx.input_nodes}
    return {name: rng.uniform(-1, 1, shapes[eid]).astype(dtypes[eid])
            for name, eid in entries.items()}


def numeric_gradient(f, inputs, name, eps=1e-6):
    """Central differences of the scalar ``f(inputs)`` with respect to ``inputs[name]``."""
    base = inputs[name]
    grad = numpy.zeros_like(base)
    for i in numpy.ndindex(base.shape):
        values = []
        for sign in (1, -1):
            shifted = base.copy()
            shifted[i] += sign * eps
            values.append(f({**inputs, name: shifted}))
        grad[i] = (values[0] - values[1]) / (2 * eps)
    return grad


def _sum_diff(xp, ins, attrs):
    return ins[0] + ins[1], ins[0] - ins[1]


def two_output_op():
    """An unregistered two-output op (sum, difference); output 0 may reuse input 0 in place."""
    return Op(name="_test_sum_diff", compute=_sum_diff, num_inputs=2, num_outputs=2,
              input_names=("a", "b"), output_names=("sum", "diff"),
              infer_shape=lambda attrs, s: [s[0], s[0]], infer_type=lambda attrs, d: [d[0], d[0]],
              inplace=((0, 0),),
              gradient=lambda node, g: [F.broadcast_add(g[0], g[1]), F.broadcast_sub(g[0], g[1])])
