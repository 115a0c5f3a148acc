"""``Symbol.eval``'s interpreter: the :class:`~mxlab.graph.interpreter.ValueInterpreter` walk with
one imperative op call per node, so autograd records the calls; CachedOp's inline path runs small
graphs with it.
"""

from .. import imperative
from ..base import MXNetTypeError, MXNetValueError
from ..graph.interpreter import ValueInterpreter

__all__ = ["evaluate_graph"]


class _ImperativeWalk(ValueInterpreter):
    """Variables are NDArrays by name; an op node is an imperative call (recorded when autograd
    records; the op context comes from ``autograd.is_training()`` at the call)."""

    def __init__(self, heads, arrays, device, cls):
        super().__init__(heads, None)
        self.arrays, self.device, self.cls = arrays, device, cls

    def bind(self, node):
        self.values[(node, 0)] = _argument(node.name, self.arrays)

    def call(self, node, inputs):
        return imperative.invoke(node.op, inputs, node.attrs,
                                 cls=None if inputs else self.cls, device=self.device)

    def missing(self, node, entry):
        """A missing output means its op failed (on a threaded engine the error is still
        pending: surface it) or declares fewer outputs than the graph reads."""
        from .. import engine
        engine.wait_all()
        super().missing(node, entry)


def evaluate_graph(heads, arrays, device=None, cls=None, traced=False):
    """Values of ``heads`` given ``arrays`` (variable name -> NDArray); returns a list of arrays.

    Runs with deferred compute off, so it works inside a ``dc.context()`` too, unless ``traced``:
    then inside a trace each op is recorded into it (a graph inlined into a traced block).
    ``device``/``cls`` place ops without inputs (``arange``, ``zeros``).
    """
    state = imperative.STATE
    previous = state.deferred
    state.deferred = previous and traced
    try:
        return _ImperativeWalk(heads, arrays, device, cls).run()
    finally:
        state.deferred = previous


def _argument(name, arrays):
    from ..ndarray.ndarray import NDArray

    if name not in arrays:
        raise MXNetValueError(f"key `{name}` is missing in `args`")
    value = arrays[name]
    if not isinstance(value, NDArray):
        raise MXNetTypeError("Only accept list of NDArrays or dict of str to NDArray")
    return value
