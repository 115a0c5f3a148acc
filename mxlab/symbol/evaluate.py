"""``Symbol.eval``'s interpreter: one imperative op call per node in topological order (the
:func:`~mxlab.graph.interpreter.interpret` walk), so autograd records the calls; CachedOp's
inline path runs small graphs with it.
"""

from .. import imperative
from ..base import MXNetTypeError, MXNetValueError
from ..graph.interpreter import interpret

__all__ = ["evaluate_graph"]


def evaluate_graph(heads, arrays, device=None, cls=None):
    """Values of ``heads`` given ``arrays`` (variable name -> NDArray); returns a list of arrays.

    Runs with deferred compute off, so it works inside a ``dc.context()`` too. ``device``/``cls``
    place ops without inputs (``arange``, ``zeros``).
    """
    def apply(node, inputs):
        return imperative.invoke(node.op, inputs, node.attrs, cls=None if inputs else cls,
                                 device=device)

    state = imperative.STATE
    previous = state.deferred
    state.deferred = False
    try:
        values = interpret(heads, lambda node: _argument(node.name, arrays), apply, _missing)
    finally:
        state.deferred = previous
    return [values[(e.node, e.index)] for e in heads]


def _missing(node, entry):
    """A missing output means its op failed (on a threaded engine the error is still pending:
    surface it) or declares fewer outputs than the graph reads."""
    from .. import engine
    engine.wait_all()
    raise MXNetValueError(f"{node.name} reads output {entry.index} of {entry.node.name}, "
                          f"which produced {entry.node.num_outputs} output(s)")


def _argument(name, arrays):
    from ..ndarray.ndarray import NDArray

    if name not in arrays:
        raise MXNetValueError(f"key `{name}` is missing in `args`")
    value = arrays[name]
    if not isinstance(value, NDArray):
        raise MXNetTypeError("Only accept list of NDArrays or dict of str to NDArray")
    return value
