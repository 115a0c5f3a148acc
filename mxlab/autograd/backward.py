"""``backward`` and ``grad``: walk the tape from the heads in reverse topological order and call
each op's gradient rule (with ``create_graph`` while recording, so gradients have a history).

During ``backward`` an op's gradient rule may write a variable's gradient straight into its
``.grad`` buffer (:func:`direct_grad_buffer`: grad_req 'write', reached through this one input
only), as MXNet's ops write a kWriteTo gradient; the copy into ``.grad`` is then skipped."""
import threading

import numpy

from .. import engine as _engine
from ..base import MXNetNotImplementedError, MXNetRuntimeError, MXNetValueError, env_int
from ..imperative import STATE, invoke
from ..ndarray.ndarray import _hooks as _ndarray_hooks, array as _array
from ..ops.registry import F, get_op
from ..graph.node import Entry
from .modes import _RecordingStateScope
from .tape import _as_list, _linked_view, _live_entry, _tape_order

__all__ = ["backward", "grad", "direct_grad_buffer", "check_saved", "NOT_IN_GRAPH_MSG",
           "INPLACE_CHECK_ENV"]

_DIRECT = threading.local()   # .nodes: variable nodes whose buffer a rule may write (backward)

NOT_IN_GRAPH_MSG = (
    "Cannot differentiate node because it is not in a computational graph. You need to set "
    "is_recording to true or use autograd.record() to save computational graphs for backward. "
    "If you want to differentiate the same graph twice, you need to pass retain_graph=True to "
    "backward.")


INPLACE_CHECK_ENV = "MXNET_AUTOGRAD_INPLACE_CHECK"


def _checking():
    """Whether backward checks saved arrays (read per backward call, as MXNet reads its knobs)."""
    return env_int(INPLACE_CHECK_ENV, 1) != 0


def check_saved(node):
    """Refuse to run ``node``'s gradient rule on a saved array written since it was recorded.

    The rule would read the new value and give a silently wrong gradient (MXNet's behaviour);
    the tape noted each saved array's engine write count at record time (``record_op``).
    """
    versions = node.saved_versions
    if versions is None:
        return
    for k, (var, then) in enumerate(zip(node.saved_vars, versions)):
        if var.queued + var.version > then:   # NOTE: write_count, inlined (per node)
            _inplace_error(node, k, var, then)


def _inplace_error(node, k, var, then):
    """Raise for saved var ``k`` -- unless an asynchronous write just finishing inflated the count
    (``write_count``), which a wait on the var settles."""
    if var.queued:
        _engine.wait_for_var(var)
        if var.queued + var.version <= then:
            return
    now = var.queued + var.version
    raise MXNetRuntimeError(
        f"backward: an array saved by '{node.op.name}' (node '{node.name}', "
        f"{_saved_label(node, k, var)}, version {then} at record, {now} now) was modified in "
        f"place after it was recorded; its gradient would be wrong. Write to a copy "
        f"(x = x.copy()) or change the array after backward ({INPLACE_CHECK_ENV}=0 restores "
        f"MXNet's silent behaviour).")


def _saved_label(node, k, var):
    """Which saved array var ``k`` is: its label, else its place among the saved handles."""
    if node.saved_labels is not None:
        return node.saved_labels[k]
    for kind, handles in (("input", node.inputs), ("output", node.outputs)):
        for i, handle in enumerate(handles):
            if handle is not None and handle._var is var:
                return f"{kind} {i}, shape {handle.shape}"
    return f"saved array {k}"


def _head_entries(heads):
    entries = [_live_entry(h) for h in heads]
    if any(e is None for e in entries):
        raise MXNetRuntimeError(NOT_IN_GRAPH_MSG)
    return entries


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


def _node_input_grads(node, grads, check=True):
    """Run ``node``'s rule on its output gradients; None when no gradient reaches the node.
    ``check``: first refuse saved arrays written since they were recorded (:func:`check_saved`).
    """
    out_grads = [grads.pop(Entry(node, i), None) for i in range(len(node.outputs))]
    if all(g is None for g in out_grads):
        return None
    if check:
        check_saved(node)
    op = node.op
    if op.gradient is None:
        raise MXNetNotImplementedError(f"{op.name}: operator is non-differentiable because it "
                                       "has no gradient rule")
    with _RecordingStateScope(False, None):
        out_grads = [_zeros(node, i) if g is None else g for i, g in enumerate(out_grads)]
    view = _linked_view(node) if STATE.recording else node
    in_grads = list(op.gradient(view, out_grads))
    if len(in_grads) != len(node.entries):
        raise MXNetValueError(f"{op.name}: gradient rule returned {len(in_grads)} gradients "
                              f"for {len(node.entries)} inputs")
    return in_grads


def direct_grad_buffer(entry):
    """The ``.grad`` buffer a gradient rule running inside ``backward`` may write the gradient of
    input ``entry`` into (and return), or None: only a variable with grad_req 'write' that no
    other input on the tape reaches qualifies, so nothing is summed into it later."""
    nodes = getattr(_DIRECT, "nodes", None)
    if not nodes or entry is None or entry.node not in nodes:
        return None
    return entry.node.grad


def _single_use_variables(order, needed):
    """Variable nodes with grad_req 'write' feeding exactly one input of the needed op nodes."""
    uses = {}
    for node in order:
        if node.op is not None and node in needed:
            for entry in node.entries:
                uses[entry.node] = uses.get(entry.node, 0) + 1
    return {n for n, count in uses.items() if count == 1 and n.op is None
            and n.grad_req == "write" and n.grad is not None}


def _propagate(order, needed, grads, retained=None):
    """The reverse walk: push gradients from each op node's outputs to its inputs; the complete
    gradients of ``retained`` op nodes' marked outputs are kept in that dict."""
    check = _checking()
    for node in reversed(order):
        if node.op is None or node not in needed:
            continue
        if retained is not None and node.retains_grad:
            retained[node] = grads.get(Entry(node, node.grad_index))
        in_grads = _node_input_grads(node, grads, check)
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
        return [_ones_like(h) if g is None else g if g.dtype == h.dtype else g.astype(h.dtype)
                for h, g in zip(heads, head_grads)]


def _ones_like(head):
    """A head's default gradient: a constant made directly (no op to dispatch, push or record)."""
    device, data = head._device, head._data
    ones = device.xp.empty(*((data.shape, data.dtype) if data is not None else
                             (head.shape, head.dtype)))
    ones.fill(1)   # NOTE: empty + fill: xp.ones' Python wrapper costs as much again
    return type(head)._produced(ones, device)


def _targets(order, variables):
    """Variable nodes to differentiate for: ``variables``, or every marked one in the graph
    (with op nodes whose output was marked, for backward)."""
    if variables is None:
        targets = [n for n in order if n.is_variable or n.retains_grad]
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


def _differentiate(heads, head_grads, variables, retain_graph, create_graph, train_mode,
                   direct=False):
    """Gradients of ``heads`` per target variable node (None where none flows) and head grads;
    ``direct``: rules may write into ``.grad`` buffers (see :func:`direct_grad_buffer`)."""
    entries = _head_entries(heads)
    order = _tape_order(entries)
    targets = _targets(order, variables)
    seeds = _head_grads(heads, head_grads)
    grads = {}
    retained = {} if variables is None else None
    with _RecordingStateScope(bool(create_graph), train_mode):
        for entry, seed in zip(entries, seeds):
            _accumulate(grads, entry, seed)
        needed = _leading_to(order, targets)
        _DIRECT.nodes = _single_use_variables(order, needed) if direct else None
        try:
            _propagate(order, needed, grads, retained)
        finally:
            _DIRECT.nodes = None
    results = [retained.get(node) if node.op is not None else grads.get(Entry(node, 0))
               for node in targets]
    if not retain_graph:
        for node in order:
            if not node.is_variable:
                node.clear()
    return targets, results, seeds


def _one_node_gradients(heads, head_grads, retain_graph, train_mode):
    """``_differentiate``'s ``(targets, gradients)`` for ``backward`` where the tape is one op
    node whose inputs are all leaves -- a hybridized model called on its data and parameters,
    the common training step -- without the general walk (order, reachability, use counts); None
    for any other tape (the general walk then runs, raising what it raises)."""
    if head_grads is not None or len(heads) != 1:
        return None
    entry = _live_entry(heads[0])
    node = None if entry is None else entry.node
    if node is None or node.op is None or node.retains_grad:
        return None
    uses = {}
    for e in node.entries:
        if e.node.op is not None:
            return None
        uses[e.node] = uses.get(e.node, 0) + 1
    # NOTE: a leaf (op None) is a marked variable when it wants a gradient (``is_variable``)
    targets = [leaf for leaf in uses if leaf.grad_req != "null"]
    if not targets:
        return None
    grads = {}
    with _RecordingStateScope(False, train_mode):
        _accumulate(grads, entry, _ones_like(heads[0]))
        _DIRECT.nodes = {leaf for leaf in targets if uses[leaf] == 1
                         and leaf.grad_req == "write" and leaf.grad is not None}
        try:
            in_grads = _node_input_grads(node, grads, _checking())
        finally:
            _DIRECT.nodes = None
        for e, value in zip(node.entries, in_grads or ()):
            if value is not None and e.node.grad_req != "null":
                _accumulate(grads, e, value)
    results = [grads.get(Entry(leaf, 0)) for leaf in targets]
    if not retain_graph:
        node.clear()
        for leaf in uses:
            if leaf.grad_req == "null":
                leaf.clear()
    return targets, results


def _write_grad(node, value):
    """Store ``value`` into a variable's gradient buffer as its grad_req says (same buffer)."""
    buffer = node.grad
    if node.grad_req == "add":
        if value is not None:
            _into("broadcast_add", [buffer, value], buffer)
    elif value is None:
        _into("zeros_like", [buffer], buffer)
    elif value is not buffer:   # NOTE: the rule wrote it there (direct_grad_buffer)
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
    found = _one_node_gradients(heads, head_grads, retain_graph, train_mode)
    targets, results = found if found is not None else _differentiate(
        heads, head_grads, None, retain_graph, False, train_mode, direct=True)[:2]
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
    with _RecordingStateScope(False, train_mode):
        # NOTE: a variable the heads reach only through ops with a zero gradient (relu's
        # mask, a constant first derivative) gets zeros, as in MXNet, not None.
        results = [F.zeros_like(v) if g is None else g for v, g in zip(variables, results)]
    with _RecordingStateScope(bool(create_graph), train_mode):
        # NOTE: a gradient that is a head gradient itself (y = x + 1) must not alias the caller's.
        return [F._copy(g) if any(g is s for s in seeds) else g for g in results]


_ndarray_hooks["backward"] = backward   # NOTE: NDArray.backward (no import per call)
