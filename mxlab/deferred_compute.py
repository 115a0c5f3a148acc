"""Deferred compute (``mx._deferred_compute``, also ``mx.dc``): record array ops as a graph, compute
lazily.

How it works
------------
While the thread-local flag is on, :func:`mxlab.imperative.invoke` hands every op call to
:func:`record`
instead of running it. ``record`` checks that every input has a deferred-compute entry
(``array._dc``: a bound variable or an earlier recorded output), infers the outputs' shapes and
dtypes with the op's rules, adds a
:class:`~mxlab.graph.node.Node` named ``node_<k>`` and returns arrays that have a shape and dtype
but no data yet, their ``_dc`` entries pointing at the new node. :func:`get_symbol` copies the
recorded graph into a Symbol (this is how ``HybridBlock`` traces ``forward``).

A recorded array is computed on demand (``asnumpy()``, ``wait_to_read()``, use by a non-recorded op,
a shape query after a dynamic-shape op) by :func:`evaluate`: it marks the node computed, computes
its inputs recursively, runs the op once for all of its outputs and drops its input references.
Bound variables hold real data, so a traced array can be evaluated at any time, inside or after the
context.

Example
-------
>>> import mxlab as mx
>>> dc = mx._deferred_compute
>>> a = mx.np.array([0.0, 1.0, 2.0])
>>> dc.set_variable(a, mx.sym.var('a'))
>>> with dc.context():
...     b = a * 2 + 1
>>> b.shape
(3,)
>>> dc.get_symbol(b).list_arguments()
['a']
>>> b.asnumpy()
array([1., 3., 5.], dtype=float32)
"""

import contextlib
import dataclasses
import itertools
import threading
import weakref

from . import engine as _engine
from . import name as _name
from .base import MXNetNotImplementedError, MXNetRuntimeError, MXNetValueError
from .device import current_device
from .graph.interpreter import Interpreter
from .graph.node import Entry, Node, post_order
from .imperative import STATE, ValuesNeeded, invoke, set_hooks
from .ops.registry import call_translated

__all__ = [
    "is_deferred_compute",
    "set_deferred_compute",
    "context",
    "get_symbol",
    "set_variable",
    "evaluate",
    "record",
    "record_copy",
    "trace_blocks",
    "block_scope",
    "shapes_only",
    "ValuesNeeded",
]

AUTOGRAD_MSG = "Autograd recording is not supported during deferred compute mode."
INPUTS_MSG = (
    "All inputs to deferred compute recording must be associated with a symbolic variable or be "
    "the output of a deferred compute operator."
)
INPLACE_MSG = (
    "Inplace operations (+=, -=, x[:]=, etc) are not supported when recording in deferred compute "
    "mode."
)
NO_HISTORY_MSG = (
    "output_arrays for GetDeferredComputeSymbol must have a deferred compute history associated "
    "with them."
)

_node_count = itertools.count()  # MXNet's Imperative::node_count_: node_0, node_1, ...


@dataclasses.dataclass(eq=False)
class _Pending:
    """What a recorded node needs to run later: its input arrays and (weakly) the arrays it must
    fill; after the run, the results (for views such as ``as_np_ndarray()`` of an output)."""

    inputs: list
    outputs: list  # weakref.ref per output; an output nobody holds any more need not be filled
    device: object
    cls: type
    computed: bool = False
    results: list = None


_PENDING = weakref.WeakKeyDictionary()  # recorded node -> _Pending


class _Scope(threading.local):
    """The block scope recorded nodes get now (``Node.scope``), and while a HybridBlock traces,
    the scope of each of its blocks by ``id``; in a 1.x trace, each block's name scope by ``id``
    (``names``: recorded nodes are then named by the active ``mx.name`` manager)."""
    path = ()
    paths = None
    names = None


_SCOPE = _Scope()


@contextlib.contextmanager
def shapes_only():
    """While tracing for shapes alone (the recorded arrays stand for data that is not there):
    evaluating a recorded array raises :class:`ValuesNeeded` instead of computing, so a trace
    never allocates the sizes it records."""
    STATE.shapes_only += 1
    try:
        yield
    finally:
        STATE.shapes_only -= 1


@contextlib.contextmanager
def trace_blocks(paths, names=None):
    """While a HybridBlock traces: ``paths`` maps ``id(block)`` to the block's scope; ``names``
    (MXNet 1.x code, traced on ``mx.nd`` arrays) maps it to the block's name scope, a context
    entered around the block's forward, so nodes get 1.x names (``dense0_fwd``) instead of
    ``node_<k>``."""
    saved = _SCOPE.paths, _SCOPE.path, _SCOPE.names
    _SCOPE.paths, _SCOPE.path, _SCOPE.names = paths, (), names
    try:
        yield
    finally:
        _SCOPE.paths, _SCOPE.path, _SCOPE.names = saved


def block_scope(block):
    """A context for running ``block``'s forward: nodes recorded inside take its scope (a no-op
    unless a HybridBlock is tracing ``block``)."""
    paths = _SCOPE.paths
    if not paths or id(block) not in paths:
        return contextlib.nullcontext()
    names = _SCOPE.names
    return _in_scope(paths[id(block)], None if names is None else names.get(id(block)))


@contextlib.contextmanager
def _in_scope(path, names=None):
    saved = _SCOPE.path
    _SCOPE.path = path
    try:
        if names is None:
            yield
        else:
            with names:
                yield
    finally:
        _SCOPE.path = saved


def _node_name(op):
    """``node_<k>``; in a 1.x trace, the name MXNet 1.x gives: the op's ``name=`` or its counted
    hint, under the active ``mx.name`` manager (the innermost Gluon 1 block's prefix)."""
    if _SCOPE.names is None:
        return f"node_{next(_node_count)}"
    explicit, _name.op_name.value = _name.op_name.value, None
    return _name.current().get(explicit, op.name.lower().lstrip("_"))


def _as_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


# -- the mode flag ---------------------------------------------------------------------------------
def is_deferred_compute():
    """Whether op calls on this thread are recorded instead of computed."""
    return STATE.deferred


def set_deferred_compute(state):
    """Turn deferred compute on or off for this thread; returns the previous state.

    It cannot be turned on while autograd records (the reverse is checked by ``mx.autograd``).
    """
    if state and STATE.recording:
        raise MXNetRuntimeError(AUTOGRAD_MSG)
    previous, STATE.deferred = STATE.deferred, bool(state)
    return previous


@contextlib.contextmanager
def context(state=True):
    """Set deferred compute to ``state`` inside the block; the previous value is restored on
    exit."""
    previous = set_deferred_compute(state)
    try:
        yield
    finally:
        set_deferred_compute(previous)


# -- variables and symbols -------------------------------------------------------------------------
def set_variable(arrays, variables):
    """Bind each array to a variable symbol: recorded ops on it become ops on that variable.

    Binding an array to the variable it already has is fine; a different one is a ValueError.
    """
    arrays, variables = _as_list(arrays), _as_list(variables)
    for i, (array, variable) in enumerate(zip(arrays, variables)):
        outputs = variable._outputs
        if len(outputs) != 1:
            raise MXNetValueError(
                f"MXNDArraySetDeferredComputeVariable expects variables as input. Instead got "
                f"a Symbol with {len(outputs)} outputs as input {i}"
            )
        if outputs[0].node.op is not None:
            raise MXNetValueError(
                "MXNDArraySetDeferredComputeVariable expects variables as input. Instead got "
                f"a Symbol associated with an operator as input {i}"
            )
        if array._dc is not None and array._dc.node is not outputs[0].node:
            raise MXNetValueError(
                f"array {i} is already associated with a different variable. You can call "
                f"array.detach() to obtain a copy without the variable"
            )
    for array, variable in zip(arrays, variables):
        array._dc = Entry(variable._outputs[0].node, 0, 0)


def get_symbol(output_arrays, *, sym_cls=None):
    """A Symbol (a deep copy of the recorded graph) whose outputs are ``output_arrays``.

    Example
    -------
    >>> import mxlab as mx
    >>> a = mx.np.ones((2,))
    >>> mx.dc.set_variable(a, mx.sym.var('a'))
    >>> with mx.dc.context():
    ...     b = a + 1
    >>> mx.dc.get_symbol([a, b]).list_outputs()[0]   # an input may also be an output
    'a'
    """
    from .symbol.compose import copy_graph
    from .symbol.symbol import Symbol

    entries = []
    for array in _as_list(output_arrays):
        if array._dc is None:
            raise MXNetValueError(NO_HISTORY_MSG)
        entries.append(Entry(array._dc.node, array._dc.index))
    return (sym_cls or Symbol)(copy_graph(entries))


# -- recording -------------------------------------------------------------------------------------
def _settled(array):
    """The array's data, waiting for a queued engine op (threaded engines) unless the array is a
    traced value (its data comes from lazy evaluation, not the engine)."""
    if array._data is None and (array._dc is None or array._dc.node not in _PENDING):
        _engine.wait_for_var(array._var)
    return array._data


def _known_shape(array):
    if array._shape is None and _settled(array) is not None:
        return tuple(array._data.shape)
    return array._shape if array._data is None else tuple(array._data.shape)


def _known_dtype(array):
    if array._dtype is None and _settled(array) is not None:
        return array._data.dtype.name
    return array._dtype if array._data is None else array._data.dtype.name


def _infer(op, attrs, inputs):
    """Output shapes and dtypes at record time; ``None`` shapes for dynamic-shape ops (found by
    computing)."""
    in_shapes = [_known_shape(x) for x in inputs]
    count = op.get_num_outputs(attrs)
    if op.dynamic_shape or any(s is None for s in in_shapes):
        # NOTE: an input of a data-dependent shape (downstream of np.unique, nonzero) stays
        #   unknown until computed: rules that fill an unknown operand from the other (the
        #   legacy elemwise ops' symbol inference, shared by broadcast_mul) would guess wrong.
        shapes = [None] * count
    else:
        shapes = op.infer_shapes(attrs, in_shapes)[1]
    dtypes = op.infer_types(
        attrs, [_known_dtype(x) for x in inputs], None if op.dynamic_shape else in_shapes
    )[1]
    return shapes, dtypes


def record(op, inputs, attrs, out=None, cls=None, device=None):
    """The deferred-compute hook of :func:`mxlab.imperative.invoke`: add a node, return data-less
    outputs."""
    if STATE.recording:
        raise MXNetRuntimeError(AUTOGRAD_MSG)
    if any(x._dc is None for x in inputs):
        raise MXNetValueError(INPUTS_MSG)
    if out is not None:
        raise MXNetNotImplementedError(INPLACE_MSG)
    device = device or (inputs[0]._device if inputs else current_device())
    cls = cls or type(inputs[0])
    shapes, dtypes = call_translated(op, inputs, _infer, op, attrs, inputs)
    node = Node(op, _node_name(op), attrs, [x._dc for x in inputs], scope=_SCOPE.path)
    outputs = []
    for i, (shape, dtype) in enumerate(zip(shapes, dtypes)):
        shape = None if shape is None or None in shape else tuple(shape)
        array = cls._empty_handle(device, shape, dtype)
        array._dc = Entry(node, i)
        outputs.append(array)
    _PENDING[node] = _Pending(list(inputs), [weakref.ref(o) for o in outputs], device, cls)
    return outputs


def record_copy(array, device):
    """``array.as_in_context(device)`` while recording: a ``_copy`` node whose output lives on
    ``device``."""
    from .ops.registry import get_op

    return record(get_op("_copy"), [array], {}, device=device)[0]


# -- lazy evaluation -------------------------------------------------------------------------------
class _Lazy(Interpreter):
    """Deferred compute's evaluation on the interpreter template: the order is the pending nodes
    ``node`` needs (inputs first), an op node's inputs are the arrays recorded with it, the call
    is an imperative call with recording and deferred compute off (this is computing, not
    tracing), and storing gives the arrays handed out at record time their data."""

    def __init__(self, node):
        self.node = node

    def order(self):
        return post_order([self.node], _pending_inputs)

    def is_variable(self, node):
        return False  # NOTE: bound variables hold data; they are never pending

    def gather(self, node):
        pending = _PENDING[node]
        pending.computed = True
        for x in pending.inputs:
            if x._data is None and x._dc is not None:
                evaluate(x)  # NOTE: a view of a computed output (``as_np_ndarray()``)
        return pending.inputs

    def call(self, node, inputs):
        pending = _PENDING[node]
        return invoke(node.op, inputs, node.attrs, cls=pending.cls, device=pending.device)

    def store(self, node, outputs):
        pending = _PENDING[node]
        pending.results = outputs
        for ref, result in zip(pending.outputs, outputs):
            target = ref()
            if target is not None:
                _adopt(target, result)
        pending.inputs, pending.outputs = [], []

    def run(self):
        state = STATE
        saved = state.deferred, state.recording
        state.deferred = state.recording = False
        try:
            return super().run()
        finally:
            state.deferred, state.recording = saved


def _pending_inputs(node):
    """The recorded nodes not computed yet whose outputs ``node``'s op reads."""
    return [x._dc.node for x in _PENDING[node].inputs
            if x._data is None and x._dc is not None and _needs_run(x._dc.node)]


def _needs_run(node):
    pending = _PENDING.get(node)
    return pending is not None and not pending.computed


def evaluate(array):
    """Compute a recorded array (and what it depends on) now; a no-op for computed or unrecorded
    arrays."""
    entry = array._dc
    pending = None if entry is None else _PENDING.get(entry.node)
    if pending is None:
        return
    if not pending.computed:
        if STATE.shapes_only:
            raise ValuesNeeded(f"{entry.node.name}: its values are needed, and this trace "
                               "records shapes only")
        _Lazy(entry.node).run()
    if array._data is None:
        _adopt(array, pending.results[entry.index])


def _adopt(target, result):
    """Give ``target`` (the array handed out at record time) the computed data of ``result``."""
    if result._device != target._device:
        result = result.as_in_context(target._device)
    _engine.wait_for_var(result._var)
    target._data, target._var = result._data, result._var
    target._shape = tuple(result._data.shape)
    target._dtype = result._data.dtype.name


set_hooks(deferred=record)
