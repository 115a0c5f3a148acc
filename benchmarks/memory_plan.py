"""Planned intermediate memory of a deep MLP's training graph, with and without sublinear recompute.

The network is ``depth`` x (FullyConnected(hidden) + tanh) at batch ``batch`` (defaults 100, 1024,
256: the setting of MXNet's memory-cost example). The training graph is the forward graph plus the
gradients of every parameter; inputs, parameters, head gradients, the forward output and the
parameter gradients are external (the caller's arrays), so the planned bytes are the intermediate
activations and backward temporaries: the figure MXNet's executor prints as "Total <n> MB
allocated". Targets: <= 101 MB plain, <= 25 MB with recompute. Measured: 101.0 MB and 22.0 MB
(real MXNet 1.9.1 prints 201 MB for this network: its tanh backward also keeps the FC output).

Run from the repository root: ``python -m benchmarks.memory_plan [--depth 100] [--hidden 1024]
[--batch 256]``
"""
import argparse
import time

from mxlab.graph import Entry, Graph, Node, apply_pass, plan_sublinear
from mxlab.graph.gradient import build_gradient_graph
from mxlab.ops.registry import get_op

MB = 1 << 20


def mlp(depth, hidden):
    """``depth`` x (FullyConnected + tanh) on ``data``; parameters ``fc<i>_weight``/``_bias``."""
    fc, tanh = get_op("FullyConnected"), get_op("tanh")
    x = Entry(Node(None, "data"))
    for i in range(depth):
        params = [Entry(Node(None, f"fc{i}_{p}")) for p in ("weight", "bias")]
        fc_node = Node(fc, f"fc{i}", fc.parse_attrs({"num_hidden": hidden}), [x] + params)
        x = Entry(Node(tanh, f"tanh{i}", {}, [Entry(fc_node)]))
    return Graph([x])


def infer(graph, batch, hidden):
    """Shapes from ``data``; float32 everywhere."""
    graph = apply_pass(graph, "infer_shape", shapes={"data": (batch, hidden)}, strict=True)
    names = [graph.indexed[n].name for n in graph.indexed.input_nodes]
    return apply_pass(graph, "infer_type", dtypes=dict.fromkeys(names, "float32"), strict=True)


def planned_training_graph(depth, hidden, batch, recompute):
    """The planned training graph (forward + parameter gradients), optionally recomputing."""
    forward = infer(mlp(depth, hidden), batch, hidden)
    mirror = plan_sublinear(forward).mirrored if recompute else ()
    idx = forward.indexed
    params = [idx[n].name for n in idx.input_nodes if idx[n].name != "data"]
    full = infer(build_gradient_graph(forward, xs=params, mirror=mirror), batch, hidden)
    full = apply_pass(full, "plan_memory", external_outputs=True)
    return apply_pass(full, "detect_inplace_addto")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--hidden", type=int, default=1024)
    parser.add_argument("--batch", type=int, default=256)
    args = parser.parse_args()
    for recompute in (False, True):
        start = time.perf_counter()
        graph = planned_training_graph(args.depth, args.hidden, args.batch, recompute)
        plan = graph.attrs["memory_plan"]
        print(f"recompute={'sublinear' if recompute else 'off':9s}  "
              f"nodes={graph.indexed.num_nodes:5d}  mirrored={len(graph.attrs['mirrored']):4d}  "
              f"planned={plan.planned_bytes / MB:7.1f} MB  naive={plan.naive_bytes / MB:7.1f} MB  "
              f"blocks={len(plan.blocks):4d}  ({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
