"""``mx.autograd``: record imperative ops on a tape and differentiate them (MXNet 1.9's API).

How it works
------------
While recording, :func:`mxlab.imperative.invoke` calls :func:`record_op` after each op. It adds a
:class:`TapeNode` holding the op, its attributes, the autograd entries of its inputs and only the
arrays the op's gradient rule needs (``Op.save_inputs`` / ``Op.save_outputs``), and points each
output's ``_ag`` slot at that node. Marked variables (``attach_grad``) are tape nodes without an op;
an input with no history becomes a constant node (MXNet's ``null<n>``) that gets no gradient.

:func:`backward` / :func:`grad` walk the tape from the heads in reverse topological order and call
each op's ``gradient(node, out_grads)`` rule. The rules are written with
:data:`mxlab.ops.registry.F`, so they are the very definitions the graph gradient pass uses; with
``create_graph=True`` they run while recording, so the gradients have a history of their own and
can be differentiated again.

Example
-------
>>> import mxlab as mx
>>> x = mx.np.array([1.0, 2.0])
>>> x.attach_grad()
>>> with mx.autograd.record():
...     y = x * x + x
>>> y.backward()
>>> x.grad
array([3., 5.])
"""
import itertools
import weakref

import numpy

from .base import MXNetNotImplementedError, MXNetRuntimeError, MXNetTypeError, MXNetValueError
from .graph.node import Entry, Node
from .imperative import INPLACE_AUTOGRAD_MSG, STATE, invoke, set_hooks
from .ndarray.ndarray import NDArray, array as _array
from .ops.registry import F, NodeView, Op, get_op

__all__ = ["set_recording", "set_training", "is_recording", "is_training", "record", "pause",
           "train_mode", "predict_mode", "mark_variables", "backward", "grad", "get_symbol",
           "Function", "TapeNode", "record_op"]

NOT_IN_GRAPH_MSG = (
    "Cannot differentiate node because it is not in a computational graph. You need to set "
    "is_recording to true or use autograd.record() to save computational graphs for backward. "
    "If you want to differentiate the same graph twice, you need to pass retain_graph=True to "
    "backward.")
DEFERRED_MSG = "Autograd recording is not supported during deferred compute mode."
GRAD_REQS = ("null", "write", "add")

# NOTE: one counter for variables and constants, as MXNet's ``variable_count_`` (var0, null1, ...).
_variable_count = itertools.count()
_node_count = itertools.count()


# -- modes -----------------------------------------------------------------------------------------
def set_recording(is_recording):  # pylint: disable=redefined-outer-name
    """Turn tape recording on or off for this thread; returns the previous state.

    Recording cannot start while deferred compute (hybridize tracing) is on.
    """
    if is_recording and STATE.deferred:
        raise MXNetRuntimeError(DEFERRED_MSG)
    previous, STATE.recording = STATE.recording, bool(is_recording)
    return previous


def set_training(train_mode):  # pylint: disable=redefined-outer-name
    """Set training (``True``) or predicting mode for this thread; returns the previous state.

    Ops such as Dropout and BatchNorm read it.
    """
    previous, STATE.training = STATE.training, bool(train_mode)
    return previous


def is_recording():
    """Whether ops are being recorded for gradient computation."""
    return STATE.recording


def is_training():
    """Whether ops run in training mode."""
    return STATE.training


class _RecordingStateScope:
    """Sets recording and/or training on entry (``None`` leaves a flag alone), restores on exit."""

    def __init__(self, is_record, train_mode):  # pylint: disable=redefined-outer-name
        self._enter_is_record = is_record
        self._enter_train_mode = train_mode
        self._prev_is_record = None
        self._prev_train_mode = None

    def __enter__(self):
        if self._enter_is_record is not None:
            self._prev_is_record = set_recording(self._enter_is_record)
        if self._enter_train_mode is not None:
            self._prev_train_mode = set_training(self._enter_train_mode)
        return self

    def __exit__(self, *exc):
        if self._enter_is_record is not None and self._prev_is_record != self._enter_is_record:
            set_recording(self._prev_is_record)
        if self._enter_train_mode is not None and self._prev_train_mode != self._enter_train_mode:
            set_training(self._prev_train_mode)


def record(train_mode=True):  # pylint: disable=redefined-outer-name
    """Scope that records ops for :func:`backward` (training mode unless ``train_mode=False``).

    Examples
    --------
    >>> import mxlab as mx
    >>> with mx.autograd.record():
    ...     print(mx.autograd.is_recording(), mx.autograd.is_training())
    True True
    """
    return _RecordingStateScope(True, train_mode)


def pause(train_mode=False):  # pylint: disable=redefined-outer-name
    """Scope that stops recording (predicting mode unless ``train_mode=True``), e.g. for metrics.

    Examples
    --------
    >>> import mxlab as mx
    >>> with mx.autograd.record():
    ...     with mx.autograd.pause():
    ...         print(mx.autograd.is_recording())
    False
    """
    return _RecordingStateScope(False, train_mode)


def train_mode():
    """Scope in training mode, recording left as it is."""
    return _RecordingStateScope(None, True)


def predict_mode():
    """Scope in predicting mode, recording left as it is."""
    return _RecordingStateScope(None, False)


# -- the tape --------------------------------------------------------------------------------------
class TapeNode(NodeView):
    """One recorded op application, or a variable / constant (``op is None``).

    A gradient rule reads it as a :class:`~mxlab.ops.registry.NodeView`: ``op``, ``attrs``,
    ``inputs`` and ``outputs`` are the saved arrays, ``None`` where the rule does not need them
    (so they are freed early, as in MXNet).

    Attributes
    ----------
    entries : list of Entry
        Where each input came from (its autograd entry when the op ran).
    grad, grad_req :
        Marked variables: the gradient buffer and ``'write'``/``'add'``/``'null'``.
        Constants have ``grad_req == 'null'``.
    out_meta : list of (shape, dtype) or None
        Output shapes/dtypes of multi-output ops, for zero gradients of outputs nobody used.
    owners : list of weakref
        The arrays whose ``_ag`` points here; clearing the node resets them.
    alive : bool
        False once :func:`backward` has freed the node (``retain_graph=False``).
    """

    __slots__ = ("entries", "out_meta", "device", "cls", "grad", "grad_req", "owners", "alive",
                 "__weakref__")

    def __init__(self, op, name, attrs=None, entries=(), num_inputs=0, num_outputs=0):
        self.op = op
        self.name = name
        self.attrs = attrs if attrs is not None else {}
        self.entries = list(entries)
        self.inputs = [None] * num_inputs
        self.outputs = [None] * num_outputs
        self.out_meta = None
        self.device = None
        self.cls = None
        self.grad = None
        self.grad_req = "null"
        self.owners = []
        self.alive = True

    @property
    def is_variable(self):
        """A marked variable that wants a gradient (not a constant, not an op)."""
        return self.op is None and self.grad_req != "null"

    def own(self, arr, index=0):
        """Point ``arr``'s autograd slot at output ``index`` of this node."""
        arr._ag = Entry(self, index)
        self.owners.append(weakref.ref(arr))

    def clear(self):
        """Free saved arrays and history; arrays that pointed here lose their autograd entry."""
        for ref in self.owners:
            arr = ref()
            if arr is not None and arr._ag is not None and arr._ag.node is self:
                arr._ag = None
        self.entries, self.inputs, self.outputs, self.owners = [], [], [], []
        self.alive = False

    def __repr__(self):
        kind = "var" if self.op is None else self.op.name
        return f"<TapeNode {self.name} ({kind})>"


def _live_entry(arr):
    """``arr``'s autograd entry, or None when it has no (or only a freed) history."""
    entry = arr._ag
    if entry is None or not entry.node.alive:
        return None
    return entry


def mark_variables(variables, gradients, grad_reqs="write"):
    """Make arrays autograd variables whose gradients :func:`backward` writes into ``gradients``.

    ``NDArray.attach_grad`` calls this with a zero buffer.

    Parameters
    ----------
    variables : NDArray or list of NDArray
    gradients : NDArray or list of NDArray
    grad_reqs : str or list of str
        ``'write'`` (overwrite), ``'add'`` (accumulate) or ``'null'`` (no gradient).
    """
    if isinstance(variables, NDArray):
        variables, gradients = [variables], [gradients]
    if len(variables) != len(gradients):
        raise MXNetValueError(f"mark_variables: got {len(variables)} variables but "
                              f"{len(gradients)} gradients")
    reqs = [grad_reqs] * len(variables) if isinstance(grad_reqs, str) else list(grad_reqs)
    for var, gradient, req in zip(variables, gradients, reqs):
        if req not in GRAD_REQS:
            raise MXNetValueError(f"mark_variables: grad_req must be one of {GRAD_REQS}, "
                                  f"got {req!r}")
        node = TapeNode(None, f"var{next(_variable_count)}")
        node.grad, node.grad_req = gradient, req
        node.own(var)
        var._grad, var._grad_req, var._fresh_grad = gradient, req, False


def _indices(spec, count):
    """Which of ``count`` arrays an ``Op.save_inputs``/``save_outputs`` spec keeps (a spec may
    name an optional input the call lacks: SequenceMask's ``sequence_length``)."""
    if spec is True:
        return range(count)
    return () if spec is False else [i for i in spec if i < count]


def _saved(arr, entry=None):
    """A handle sharing ``arr``'s data, with history ``entry`` (for rules run with create_graph)."""
    if arr._data is None and arr._dc is None:
        # NOTE: detach() copies the data slot, which an async engine fills only when the op ends.
        arr.wait_to_read()
    handle = arr.detach()
    handle._ag = entry
    return handle


def _link_outputs(node):
    """Give saved outputs their history (only when a rule is recorded, i.e. create_graph).

    Saved at record time without it, so that node and handle do not form a reference cycle and an
    unused graph is freed as soon as its last array goes.
    """
    for i, handle in enumerate(node.outputs):
        if handle is not None:
            handle._ag = Entry(node, i)


def _constant_entry(arr):
    """Give an input without history a constant node (no gradient), reused by later consumers."""
    node = TapeNode(None, f"null{next(_variable_count)}")
    node.own(arr)
    return arr._ag


def record_op(op, attrs, inputs, outputs):
    """Add ``op(inputs) -> outputs`` to the tape; :func:`~mxlab.imperative.invoke` calls this.

    Nothing is recorded when no input has a history: such outputs are constants.
    """
    entries = [_live_entry(x) for x in inputs]
    if all(e is None for e in entries):
        return None
    if any(_live_entry(o) is not None for o in outputs):
        raise MXNetNotImplementedError(INPLACE_AUTOGRAD_MSG)
    entries = [e if e is not None else _constant_entry(x) for x, e in zip(inputs, entries)]
    node = TapeNode(op, f"node_{next(_node_count)}", attrs, entries, len(inputs), len(outputs))
    for i in _indices(op.save_inputs, len(inputs)):
        node.inputs[i] = _saved(inputs[i], entries[i])
    for i in _indices(op.save_outputs, len(outputs)):
        node.outputs[i] = _saved(outputs[i])
    node.device, node.cls = outputs[0]._device, type(outputs[0])
    if len(outputs) > 1:
        node.out_meta = [(o.shape, o.dtype) for o in outputs]
    for i, out in enumerate(outputs):
        node.own(out, i)
    return node


set_hooks(record=record_op)


# -- backward --------------------------------------------------------------------------------------
def _as_list(arrays):
    return [arrays] if isinstance(arrays, NDArray) else list(arrays)


def _head_entries(heads):
    entries = [_live_entry(h) for h in heads]
    if any(e is None for e in entries):
        raise MXNetRuntimeError(NOT_IN_GRAPH_MSG)
    return entries


def _tape_order(entries):
    """Tape nodes reachable from ``entries``, inputs before consumers (iterative post-order DFS)."""
    order, seen = [], set()
    for root in (e.node for e in entries):
        stack = [(root, False)]
        while stack:
            node, done = stack.pop()
            if done:
                order.append(node)
            elif node not in seen:
                seen.add(node)
                stack.append((node, True))
                stack.extend((e.node, False) for e in reversed(node.entries) if e.node not in seen)
    return order


def _leading_to(order, targets):
    """Nodes from which some target is reachable: only these need gradients."""
    needed = set(targets)
    for node in order:
        if any(e.node in needed for e in node.entries):
            needed.add(node)
    return needed


def _accumulate(grads, entry, value):
    """Sum gradients of an entry reached several ways."""
    previous = grads.get(entry)
    grads[entry] = value if previous is None else F.broadcast_add(previous, value)


def _zeros(node, index):
    """Zero gradient for an output of a multi-output op that no head depends on."""
    shape, dtype = node.out_meta[index]
    return _array(numpy.zeros(shape, dtype), dtype=dtype, device=node.device, cls=node.cls)


def _node_input_grads(node, grads):
    """Run ``node``'s rule on its output gradients; None when no gradient reaches the node."""
    out_grads = [grads.pop(Entry(node, i), None) for i in range(len(node.outputs))]
    if all(g is None for g in out_grads):
        return None
    op = node.op
    if op.gradient is None:
        raise MXNetNotImplementedError(f"{op.name}: operator is non-differentiable because it "
                                       "has no gradient rule")
    with _RecordingStateScope(False, None):
        out_grads = [_zeros(node, i) if g is None else g for i, g in enumerate(out_grads)]
    if STATE.recording:
        _link_outputs(node)
    in_grads = list(op.gradient(node, out_grads))
    if len(in_grads) != len(node.entries):
        raise MXNetValueError(f"{op.name}: gradient rule returned {len(in_grads)} gradients "
                              f"for {len(node.entries)} inputs")
    return in_grads


def _propagate(order, needed, grads):
    """The reverse walk: push gradients from each op node's outputs to its inputs."""
    for node in reversed(order):
        if node.op is None or node not in needed:
            continue
        in_grads = _node_input_grads(node, grads)
        for entry, value in zip(node.entries, in_grads or ()):
            if value is not None and entry.node in needed:
                _accumulate(grads, entry, value)


def _head_grads(heads, head_grads):
    """The given head gradients, ones where None (created unrecorded: they are constants), in
    each head's dtype (MXNet copies a head gradient into the head's gradient buffer)."""
    head_grads = [None] * len(heads) if head_grads is None else _as_list(head_grads)
    if len(head_grads) != len(heads):
        raise MXNetValueError(f"heads and head_grads must be lists of the same length, got "
                              f"{len(heads)} heads and {len(head_grads)} head_grads")
    with _RecordingStateScope(False, None):
        return [F.ones_like(h) if g is None else g if g.dtype == h.dtype else g.astype(h.dtype)
                for h, g in zip(heads, head_grads)]


def _targets(order, variables):
    """Variable nodes to differentiate for: ``variables``, or every marked one in the graph."""
    if variables is None:
        targets = [n for n in order if n.is_variable]
        if not targets:
            raise MXNetValueError("There are no inputs in computation graph that require "
                                  "gradients.")
        return targets
    reachable = set(order)
    targets = []
    for i, var in enumerate(variables):
        entry = _live_entry(var)
        prefix = f"Cannot differentiate with respect to the {i + 1}-th variable because it"
        if entry is None or not entry.node.is_variable:
            raise MXNetValueError(f"{prefix} does not require gradient.")
        if entry.node not in reachable:
            raise MXNetValueError(f"{prefix} is unreachable from the outputs.")
        targets.append(entry.node)
    return targets


def _differentiate(heads, head_grads, variables, retain_graph, create_graph, train_mode):
    """Gradients of ``heads`` per target variable node (None where none flows) and head grads."""
    entries = _head_entries(heads)
    order = _tape_order(entries)
    targets = _targets(order, variables)
    seeds = _head_grads(heads, head_grads)
    grads = {}
    with _RecordingStateScope(bool(create_graph), train_mode):
        for entry, seed in zip(entries, seeds):
            _accumulate(grads, entry, seed)
        _propagate(order, _leading_to(order, targets), grads)
    results = [grads.get(Entry(node, 0)) for node in targets]
    if not retain_graph:
        for node in order:
            if not node.is_variable:
                node.clear()
    return targets, results, seeds


def _write_grad(node, value):
    """Store ``value`` into a variable's gradient buffer as its grad_req says (same buffer)."""
    buffer = node.grad
    if node.grad_req == "add":
        if value is not None:
            _into("broadcast_add", [buffer, value], buffer)
    elif value is None:
        _into("zeros_like", [buffer], buffer)
    else:
        _into("_copy", [value], buffer)
    for ref in node.owners:
        arr = ref()
        if arr is not None:
            arr._fresh_grad = True


def _into(op_name, inputs, out):
    op = get_op(op_name)
    invoke(op, inputs, op.parse_attrs({}), out=[out])


def backward(heads, head_grads=None, retain_graph=False,
             train_mode=True):  # pylint: disable=redefined-outer-name
    """Compute gradients of ``heads`` into ``.grad`` of every marked variable in their history.

    Parameters
    ----------
    heads : NDArray or list of NDArray
    head_grads : NDArray or list of (NDArray or None), optional
        Gradients with respect to the heads (ones where None).
    retain_graph : bool
        Keep the recorded graph to differentiate it again; otherwise it is freed.
    train_mode : bool
        Mode the gradient computation runs in.

    Examples
    --------
    >>> import mxlab as mx
    >>> x = mx.nd.array([1.0, 2.0])
    >>> x.attach_grad(grad_req='add')
    >>> for _ in range(2):
    ...     with mx.autograd.record():
    ...         y = x * 3
    ...     mx.autograd.backward(y)
    >>> x.grad.asnumpy()
    array([6., 6.], dtype=float32)
    """
    heads = _as_list(heads)
    targets, results, _ = _differentiate(heads, head_grads, None, retain_graph, False,
                                         train_mode)
    with _RecordingStateScope(False, train_mode):
        for node, value in zip(targets, results):
            _write_grad(node, value)


def grad(heads, variables, head_grads=None, retain_graph=None, create_graph=False,
         train_mode=True):  # pylint: disable=redefined-outer-name
    """Gradients of ``heads`` with respect to ``variables`` as new arrays (``.grad`` untouched).

    Parameters
    ----------
    heads : NDArray or list of NDArray
    variables : NDArray or list of NDArray
        Marked variables (``attach_grad``) reachable from the heads.
    head_grads : NDArray or list of (NDArray or None), optional
    retain_graph : bool, optional
        Keep the graph; defaults to ``create_graph``.
    create_graph : bool
        Record the gradient computation, so the results can be differentiated again.
    train_mode : bool

    Returns
    -------
    list of NDArray
        One gradient per variable (a list even for a single variable, as in MXNet 1.9).

    Examples
    --------
    >>> import mxlab as mx
    >>> x = mx.np.array([0.5])
    >>> x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = mx.np.sin(x)
    ...     dy = mx.autograd.grad(y, [x], create_graph=True)[0]
    >>> dy.backward()
    >>> x.grad  # -sin(0.5)
    array([-0.47942555])
    """
    heads, variables = _as_list(heads), _as_list(variables)
    if not variables:
        raise MXNetValueError("grad: variables cannot be an empty list.")
    retain_graph = create_graph if retain_graph is None else retain_graph
    _, results, seeds = _differentiate(heads, head_grads, variables, retain_graph, create_graph,
                                       train_mode)
    with _RecordingStateScope(bool(create_graph), train_mode):
        # NOTE: a gradient that is a head gradient itself (y = x + 1) must not alias the caller's.
        return [F._copy(g) if any(g is s for s in seeds) else g for g in results]


# -- the recorded graph as a Symbol ----------------------------------------------------------------
def get_symbol(x):
    """The recorded history of ``x`` as a :class:`~mxlab.symbol.Symbol`.

    Variables keep their tape names (``var0``; constants ``null1``), op nodes are ``node_<n>``.

    Examples
    --------
    >>> import mxlab as mx
    >>> x = mx.nd.array([1.0])
    >>> x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = mx.nd.exp(x)
    >>> mx.autograd.get_symbol(y).list_arguments() == [x._ag.node.name]
    True
    """
    entry = _live_entry(x)
    if entry is None:
        raise MXNetValueError("NDArray is not part of a computation graph. Did you forget to turn "
                              "on recording?")
    from .symbol import Symbol
    nodes = {}
    for tape_node in _tape_order([entry]):
        inputs = [Entry(nodes[e.node], e.index) for e in tape_node.entries]
        nodes[tape_node] = Node(tape_node.op, tape_node.name, dict(tape_node.attrs), inputs)
    return Symbol([Entry(nodes[entry.node], entry.index)])


# -- custom differentiation ------------------------------------------------------------------------
def _not_runnable(xp, inputs, attrs):
    raise MXNetNotImplementedError("_CustomFunction: an autograd.Function runs only through its "
                                   "Python forward()")


class Function:
    """Custom differentiation: define ``forward`` and ``backward`` on arrays.

    ``forward`` runs unrecorded; called while recording, it adds one tape node whose gradient
    calls ``backward(*output_grads)``, which returns one gradient per input. Each instance is
    called once.

    Examples
    --------
    >>> import mxlab as mx
    >>> class sigmoid(mx.autograd.Function):
    ...     def forward(self, x):
    ...         y = 1 / (1 + mx.nd.exp(-x))
    ...         self.save_for_backward(y)
    ...         return y
    ...     def backward(self, dy):
    ...         y, = self.saved_tensors
    ...         return dy * y * (1 - y)
    >>> x = mx.nd.array([0.0])
    >>> x.attach_grad()
    >>> with mx.autograd.record():
    ...     m = sigmoid()(x)
    >>> m.backward()
    >>> x.grad.asnumpy()
    array([0.25], dtype=float32)
    """

    def __init__(self):
        self._used = False
        self.saved_tensors = ()

    def save_for_backward(self, *args):
        """Keep arrays for :meth:`backward` (read back as ``saved_tensors``)."""
        self.saved_tensors = args

    def __call__(self, *inputs):
        if self._used:
            raise MXNetRuntimeError("Each Function instance can only be called once. Please "
                                    "create another instance.")
        self._used = True
        for i, x in enumerate(inputs):
            if not isinstance(x, NDArray):
                raise MXNetTypeError(f"{type(self).__name__}: input {i} must be an NDArray, "
                                     f"got {type(x).__name__}")
        previous = set_recording(False)
        try:
            outputs = self.forward(*inputs)
        finally:
            set_recording(previous)
        if previous:
            outs = _as_list(outputs)
            op = Op(name="_CustomFunction", compute=_not_runnable, num_inputs=len(inputs),
                    num_outputs=len(outs), gradient=self._gradient, save_inputs=False,
                    save_outputs=False)
            record_op(op, {}, list(inputs), outs)
        return outputs

    def _gradient(self, node, out_grads):
        grads = _as_list(self.backward(*out_grads))
        if len(grads) != len(node.entries):
            raise MXNetValueError(
                f"{type(self).__name__}.backward must return exactly the same number of NDArrays "
                f"as the number of NDArrays arguments to forward. Expecting {len(node.entries)} "
                f"got {len(grads)}")
        for g in grads:
            if not isinstance(g, NDArray):
                raise MXNetTypeError("autograd.Function.backward must return NDArrays, not "
                                     f"{type(g).__name__}")
        return grads

    def forward(self, *inputs):
        """Forward computation (override)."""
        raise MXNetNotImplementedError(f"{type(self).__name__}.forward is not defined")

    def backward(self, *output_grads):
        """Gradients of the inputs given those of the outputs (override)."""
        raise MXNetNotImplementedError(f"{type(self).__name__}.backward is not defined")
