"""``Symbol.eval``'s interpreter: the :class:`~mxlab.graph.interpreter.ValueInterpreter` walk with
one imperative op call per node, so autograd records the calls; CachedOp's inline path runs small
graphs with it.
"""

from .. import imperative
from ..base import MXNetTypeError, MXNetValueError
from ..graph.infer import infer_shapes, legacy_unknown_dims, shape_is_known
from ..graph.interpreter import ValueInterpreter

__all__ = ["evaluate_graph"]


class _ImperativeWalk(ValueInterpreter):
    """Variables are NDArrays by name; an op node is an imperative call (recorded when autograd
    records; the op context comes from ``autograd.is_training()`` at the call)."""

    def __init__(self, heads, arrays, device, cls):
        super().__init__(heads, None)
        self.arrays, self.device, self.cls = arrays, device, cls
        self.heads, self.shapes = heads, None

    def bind(self, node):
        self.values[(node, 0)] = _argument(node.name, self.arrays)

    def call(self, node, inputs):
        attrs = node.attrs
        if not inputs and node.op.zero_dims_unknown:
            attrs = self._sized(node)
        return imperative.invoke(node.op, inputs, attrs,
                                 cls=None if inputs else self.cls, device=self.device)

    def _sized(self, node):
        """A creation op's attributes with the shape the graph infers for it where MXNet 1.x
        leaves dims unknown (``sym.zeros((0, 100))``: an RNN cell's begin state), as MXNet's
        executor sizes it from the bound arrays."""
        attrs = legacy_unknown_dims(node)
        if -1 not in (attrs.get("shape") or ()):
            return node.attrs
        if self.shapes is None:
            known = {k: tuple(v.shape) for k, v in self.arrays.items() if hasattr(v, "shape")}
            self.shapes = infer_shapes(self.heads, known)
        shape = self.shapes.get((node, 0))
        return dict(attrs, shape=shape) if shape_is_known(shape) else node.attrs

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
