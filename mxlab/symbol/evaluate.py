"""A small interpreter over a node graph: one imperative op call per node in topological order.

``Symbol.eval`` uses it; it is also the reference the executors are checked against (same results,
no planning).
"""

from .. import imperative
from ..base import MXNetTypeError, MXNetValueError
from ..graph.node import topo_sort

__all__ = ["evaluate_graph"]


def evaluate_graph(heads, arrays, device=None, cls=None):
    """Values of ``heads`` given ``arrays`` (variable name -> NDArray); returns a list of arrays.

    Runs with deferred compute off, so it works inside a ``dc.context()`` too. ``device``/``cls``
    place ops without inputs (``arange``, ``zeros``).
    """
    values = {}
    state = imperative.STATE
    previous = state.deferred
    state.deferred = False
    try:
        for node in topo_sort(heads):
            if node.op is None:
                values[(node, 0)] = _argument(node.name, arrays)
                continue
            inputs = [_value(values, node, e) for e in node.inputs]
            outputs = imperative.invoke(
                node.op, inputs, node.attrs, cls=None if inputs else cls, device=device
            )
            values.update({(node, i): out for i, out in enumerate(outputs)})
    finally:
        state.deferred = previous
    return [values[(e.node, e.index)] for e in heads]


def _value(values, node, entry):
    """An input's value; a missing output means its op failed (on a threaded engine the error is
    still pending: surface it) or declares fewer outputs than the graph reads."""
    key = (entry.node, entry.index)
    if key not in values:
        from .. import engine
        engine.wait_all()
        raise MXNetValueError(f"{node.name} reads output {entry.index} of {entry.node.name}, "
                              f"which produced {entry.node.num_outputs} output(s)")
    return values[key]


def _argument(name, arrays):
    from ..ndarray.ndarray import NDArray

    if name not in arrays:
        raise MXNetValueError(f"key `{name}` is missing in `args`")
    value = arrays[name]
    if not isinstance(value, NDArray):
        raise MXNetTypeError("Only accept list of NDArrays or dict of str to NDArray")
    return value
