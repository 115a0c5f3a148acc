"""The autograd tape: :class:`TapeNode` per recorded op, variable or constant, recording
(:func:`record_op`, the imperative dispatcher's record hook), and the recorded graph as a Symbol
(:func:`get_symbol`)."""
import itertools
import weakref

from ..base import MXNetNotImplementedError, MXNetValueError
from ..graph.node import Entry, Node, post_order
from ..imperative import INPLACE_AUTOGRAD_MSG, set_hooks
from ..ndarray.ndarray import NDArray
from ..ops.registry import NodeView

__all__ = ["TapeNode", "mark_variables", "drop_grads", "record_op", "get_symbol", "GRAD_REQS"]

GRAD_REQS = ("null", "write", "add")

# NOTE: one counter for variables and constants, as MXNet's ``variable_count_`` (var0, null1, ...).
_variable_count = itertools.count()
_node_count = itertools.count()


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
        Constants have ``grad_req == 'null'``. An op node whose output was marked after it was
        recorded (``attach_grad`` on an intermediate array, MXNet 2) keeps that output's
        gradient here too, the output being ``grad_index``.
    out_meta : list of (shape, dtype) or None
        Output shapes/dtypes of multi-output ops, for zero gradients of outputs nobody used.
    owners : list of weakref
        The arrays whose ``_ag`` points here; clearing the node resets them.
    saved_vars, saved_versions : tuple or None
        The engine vars of the arrays the gradient rule reads and their write counts when the op
        was recorded; backward refuses to run the rule when one was written since (see
        :func:`~mxlab.autograd.backward.check_saved`).
    saved_labels : tuple of str or None
        What each saved var is, for the error (None: found among ``inputs``/``outputs``).
    alive : bool
        False once :func:`backward` has freed the node (``retain_graph=False``).
    """

    __slots__ = ("entries", "out_meta", "device", "cls", "grad", "grad_req", "grad_index",
                 "owners", "saved_vars", "saved_versions", "saved_labels", "alive",
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
        self.grad_index = 0
        self.owners = []
        self.saved_vars = self.saved_versions = self.saved_labels = None
        self.alive = True

    @property
    def is_variable(self):
        """A marked variable that wants a gradient (not a constant, not an op)."""
        return self.op is None and self.grad_req != "null"

    @property
    def retains_grad(self):
        """An op node one of whose outputs was marked: backward also writes its gradient."""
        return self.op is not None and self.grad_req != "null" and self.grad is not None

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
        self.saved_vars = self.saved_versions = None
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
        entry = _live_entry(var)
        if entry is not None and entry.node.op is not None:
            # NOTE: an intermediate result keeps its history; backward also fills its gradient
            #   (MXNet 2's Imperative::MarkVariables on a non-leaf node).
            node = entry.node
            if node.grad is not None:
                raise MXNetValueError("mark_variables: the node has already been marked. "
                                      "Cannot mark it again.")
            node.grad_index = entry.index
        else:
            node = TapeNode(None, f"var{next(_variable_count)}")
            node.own(var)
        node.grad, node.grad_req = gradient, req
        var._grad, var._grad_req, var._fresh_grad = gradient, req, False


def drop_grads(variables):
    """Free the gradient buffers of marked arrays (``NDArray.drop_grad``): backward no longer
    computes them and ``.grad`` is None."""
    for var in _as_list(variables):
        entry = var._ag
        if entry is not None:
            entry.node.grad, entry.node.grad_req = None, "null"
        var._grad, var._grad_req = None, "null"


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


def _linked_view(node):
    """``node`` as its gradient rule sees it when the rule is recorded (create_graph): saved
    outputs are fresh handles with history ``Entry(node, i)``.

    The handles belong to this view only, never to ``node`` itself (saved at record time without
    history), so the tape has no reference cycle node -> output -> entry -> node and an unused
    graph is freed as soon as its last array goes, as MXNet's conftest checks after every test.
    """
    outputs = [None if handle is None else _saved(handle, Entry(node, i))
               for i, handle in enumerate(node.outputs)]
    return NodeView(node.op, node.attrs, node.inputs, outputs, node.name)


def _constant_entry(arr):
    """Give an input without history a constant node (no gradient), reused by later consumers."""
    node = TapeNode(None, f"null{next(_variable_count)}")
    node.own(arr)
    return arr._ag


def record_op(op, attrs, inputs, outputs, saved=None):
    """Add ``op(inputs) -> outputs`` to the tape; :func:`~mxlab.imperative.invoke` calls this.

    Nothing is recorded when no input has a history: such outputs are constants. The write
    counts of the arrays the gradient rule reads are noted with them: those ``save_inputs`` /
    ``save_outputs`` keep (less inputs the op writes itself, BatchNorm's moving statistics), or,
    for an op keeping its own (a recorded CachedOp run), ``saved``: ``(vars, labels)``.
    """
    entries = [_live_entry(x) for x in inputs]
    if all(e is None for e in entries):
        return None
    # NOTE: as MXNet's RecordOp, which first gives every input an entry: an output that is
    #   also an input (x[i] = y, x += y with y recorded) is an in-place write on the tape
    if any(_live_entry(o) is not None or any(o is x for x in inputs) for o in outputs):
        raise MXNetNotImplementedError(INPLACE_AUTOGRAD_MSG)
    entries = [e if e is not None else _constant_entry(x) for x, e in zip(inputs, entries)]
    node = TapeNode(op, f"node_{next(_node_count)}", attrs, entries, len(inputs), len(outputs))
    checked = []
    values = op.grad_reads_values
    for i in _indices(op.save_inputs, len(inputs)):
        node.inputs[i] = _saved(inputs[i], entries[i])
        if values and i not in op.mutate_inputs:
            checked.append(inputs[i]._var)
    for i in _indices(op.save_outputs, len(outputs)):
        node.outputs[i] = _saved(outputs[i])
        if values:
            checked.append(outputs[i]._var)
    if saved is not None:
        checked, node.saved_labels = saved
    if checked:
        node.saved_vars = tuple(checked)
        node.saved_versions = tuple([v.queued + v.version for v in checked])   # write_count
    node.device, node.cls = outputs[0]._device, type(outputs[0])
    if len(outputs) > 1:
        node.out_meta = [(o.shape, o.dtype) for o in outputs]
    for i, out in enumerate(outputs):
        node.own(out, i)
    return node


set_hooks(record=record_op)


def _as_list(arrays):
    return [arrays] if isinstance(arrays, NDArray) else list(arrays)


def _tape_order(entries):
    """Tape nodes reachable from ``entries``, inputs before consumers."""
    return post_order([e.node for e in entries], lambda node: [e.node for e in node.entries])


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
    from ..symbol import Symbol
    nodes = {}
    for tape_node in _tape_order([entry]):
        inputs = [Entry(nodes[e.node], e.index) for e in tape_node.entries]
        nodes[tape_node] = Node(tape_node.op, tape_node.name, dict(tape_node.attrs), inputs)
    return Symbol([Entry(nodes[entry.node], entry.index)])

