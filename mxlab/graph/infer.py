"""Shape and dtype inference over a node graph: MXNet's ``InferShape`` / ``InferType`` passes.

:func:`infer_shapes` / :func:`infer_types` are plain functions over the nodes reachable from some
head entries (each op's own rules, run to a fixed point, with MXNet's error texts), so
``Symbol.infer_shape``, deferred compute and a notebook cell can call them on any graph. The
registered passes ``infer_shape`` / ``infer_type`` wrap them for a :class:`~mxlab.graph.Graph`:
results go where the planners read them, ``graph.attrs["shape"]`` / ``graph.attrs["dtype"]`` by
entry id, with ``shape_num_unknown_nodes`` / ``dtype_num_unknown_nodes`` counting the entries left
unknown (``None``). The per-op rule helpers (``same_shape``, ...) live in :mod:`mxlab.ops.infer`.

Conventions
-----------
* An *entry key* is ``(node, output_index)``; results are dicts ``{(node, index): value}`` covering
  every output of every node reachable from the heads (invisible outputs included).
* Shapes are tuples of ints; ``None`` is a wholly unknown shape and a ``None`` dim an unknown dim
  (the registry's convention). :func:`shape_from_user` / :func:`shape_to_user` translate MXNet's
  user-facing forms: in legacy mode ``0`` marks an unknown dim and ``()`` an unknown shape; in
  NumPy-shape mode (``mx.util.is_np_shape()``) ``-1`` marks an unknown dim and ``None`` an unknown
  shape.
* Dtypes are canonical names (``'float32'``); ``None`` is unknown.
* ``known`` maps a variable name, a variable :class:`~mxlab.graph.node.Node` or an entry key to a
  value. Variables without a known value use their ``__shape__`` / ``__dtype__`` attributes as
  hints.

Example
-------
>>> import mxlab as mx
>>> from mxlab.graph.infer import infer_shapes
>>> y = mx.sym.var('x') * 2
>>> shapes = infer_shapes(y._outputs, {'x': (2, 3)})
>>> shapes[(y._outputs[0].node, 0)]
(2, 3)
>>> from mxlab.graph.passes import apply_pass
>>> from mxlab.graph.graph import Graph
>>> apply_pass(Graph(y._outputs), "infer_shape", shapes={"x": (2, 3)}).attrs["shape"]
[(2, 3), (2, 3)]
"""

import ast

import numpy

from ..base import MXNetError, MXNetValueError
from .node import Entry, topo_sort
from .passes import register_pass

__all__ = [
    "infer_shapes",
    "infer_types",
    "shape_from_user",
    "shape_to_user",
    "shape_is_known",
    "DTYPE_TO_CODE",
    "CODE_TO_DTYPE",
    "unknown_shapes_message",
    "unknown_types_message",
    "entry_key",
    "infer_shape",
    "infer_type",
]

# MXNet's type flags (mshadow): the ``__dtype__`` attribute stores these codes as strings.
DTYPE_TO_CODE = {
    "float32": 0,
    "float64": 1,
    "float16": 2,
    "uint8": 3,
    "int32": 4,
    "int8": 5,
    "int64": 6,
    "bool": 7,
    "int16": 8,
    "uint16": 9,
    "uint32": 10,
    "uint64": 11,
    "bfloat16": 12,
}
CODE_TO_DTYPE = {code: name for name, code in DTYPE_TO_CODE.items()}
_MAX_ROUNDS = 64


def shape_is_known(shape):
    """True when the shape and all of its dims are known (internal form)."""
    return shape is not None and all(d is not None for d in shape)


def shape_from_user(shape, np_shape):
    """Internal form of a user shape (tuple with 0 or -1 for unknown dims, ``()`` or ``None``)."""
    if shape is None:
        return None
    if isinstance(shape, int):   # NOTE: var(shape=(1)) is the int 1; MXNet reads it as (1,)
        shape = (shape,)
    shape = tuple(int(d) for d in shape)
    if np_shape:
        return tuple(None if d < 0 else d for d in shape)
    if not shape:
        return None
    return tuple(None if d <= 0 else d for d in shape)


def shape_to_user(shape, np_shape):
    """User form of an internal shape: unknown dims as 0 (legacy) or -1 (np-shape); unknown shape as
    ``()`` (legacy) or ``None`` (np-shape)."""
    if shape is None:
        return None if np_shape else ()
    unknown = -1 if np_shape else 0
    return tuple(unknown if d is None else d for d in shape)


def _hint_shape(node, np_shape):
    """The variable's ``__shape__`` hint in internal form; the caller's np-shape scope is read only
    here, when a hint is used (a graph handed every shape reads no scope: engine workers plan
    subgraphs that way)."""
    text = node.extra.get("__shape__")
    if text is None:
        return None
    if np_shape is None:
        from ..util import is_np_shape

        np_shape = is_np_shape()
    return shape_from_user(ast.literal_eval(text), np_shape)


def _hint_dtype(node):
    text = node.extra.get("__dtype__")
    return None if text is None else CODE_TO_DTYPE[int(text)]


def _lookup(known, node, index):
    """The caller's value for an entry: by entry key, by node, or (variables) by name."""
    if not known:
        return None
    for key in ((node, index), node, node.name if node.op is None else None):
        if key is not None and key in known:
            return known[key]
    return None


def _merge_shape(old, new):
    """The more precise of two compatible shapes; raises ValueError when they conflict."""
    if old is None:
        return new
    if new is None:
        return old
    if len(old) != len(new):
        raise ValueError
    merged = []
    for a, b in zip(old, new):
        if a is not None and b is not None and a != b:
            raise ValueError
        merged.append(a if a is not None else b)
    return tuple(merged)


def _merge_dtype(old, new):
    if old is None or new is None or old == new:
        return old if new is None else new
    raise ValueError


def _fmt_shape(shape):
    return (
        "None"
        if shape is None
        else "[" + ",".join("-1" if d is None else str(d) for d in shape) + "]"
    )


def _assign(values, key, new, merge, fmt, node, where):
    """Store ``new`` for ``key``; returns True when it added information. Conflicts raise MXNet's
    text."""
    old = values.get(key)
    try:
        merged = merge(old, new)
    except ValueError:
        if where.endswith("input") and key[0].op is None:
            detail = (
                f"Shape inconsistent, Provided = {fmt(old)}, inferred shape={fmt(new)}"
                if fmt is _fmt_shape
                else f"Type inconsistent, Provided = {old}, inferred type={new}"
            )
        else:
            detail = (
                f"Incompatible attr in node {node.name} at {where}: "
                f"expected {fmt(old)}, got {fmt(new)}"
            )
        raise MXNetValueError(f"Error in operator {node.name}: {detail}") from None
    values[key] = merged
    return merged != old


def _store(values, node, found, convert, merge, fmt):
    """Merge what a rule found, ``(in_keys, new_in, out_keys, new_out)``, into ``values``; True when
    anything was learned (shared by the shape and the dtype pass)."""
    in_keys, new_in, out_keys, new_out = found
    changed = False
    for where, keys, values_found in (("input", in_keys, new_in), ("output", out_keys, new_out)):
        for i, (key, value) in enumerate(zip(keys, values_found)):
            changed |= _assign(values, key, convert(value), merge, fmt, node, f"{i}-th {where}")
    return changed


def _run_rule(node, rule):
    """Call an op's rule; any failure becomes an MXNetError naming the node (MXNet's wording)."""
    try:
        return rule()
    except MXNetError as exc:
        raise type(exc)(f"Error in operator {node.name}: {exc}") from exc
    except (ValueError, TypeError, IndexError) as exc:
        raise MXNetValueError(f"Error in operator {node.name}: {exc}") from exc


def _propagate(order, values, step):
    """Run ``step(node)`` over the op nodes of ``order`` (topological) until no step adds
    information."""
    order = [n for n in order if n.op is not None]
    for _ in range(_MAX_ROUNDS):
        if not any([step(node) for node in order]):
            return
    raise MXNetValueError("inference did not converge")


def _init_variables(order, known, hint):
    values = {}
    for node in order:
        if node.op is None:
            given = _lookup(known, node, 0)
            values[(node, 0)] = given if given is not None else hint(node)
        elif known:
            for i in range(node.num_outputs):
                given = _lookup(known, node, i)
                if given is not None:
                    values[(node, i)] = given
    return values


def infer_shapes(heads, known=None, *, np_shape=None):
    """Infer every entry's shape from the known ones (MXNet's ``InferShape`` pass).

    Parameters
    ----------
    heads : list of Entry or Node
        The graph outputs; every node reachable from them is covered.
    known : dict, optional
        Known shapes in internal form (tuples, ``None`` dims unknown) keyed by variable name, Node
        or ``(node, index)``. Use :func:`shape_from_user` to convert user shapes.
    np_shape : bool, optional
        How ``__shape__`` hints are read (default: ``mx.util.is_np_shape()``).

    Returns
    -------
    dict
        ``{(node, index): shape or None}`` for every output of every reachable node.

    Raises
    ------
    MXNetValueError
        ``Error in operator <name>: ...`` when shapes conflict or an op rejects its input shapes.
    """
    order = topo_sort(heads)      # NOTE: sorted once; the graph walks below reuse it
    values = _init_variables(order, known, lambda node: _hint_shape(node, np_shape))

    def step(node):
        in_keys = [(e.node, e.index) for e in node.inputs]
        out_keys = [(node, i) for i in range(node.num_outputs)]
        in_shapes = [values.get(k) for k in in_keys]
        out_now = [values.get(k) for k in out_keys]
        if all(map(shape_is_known, in_shapes)) and all(map(shape_is_known, out_now)):
            return False
        attrs = legacy_unknown_dims(node, np_shape)
        new_in, new_out = _run_rule(
            node, lambda: node.op.infer_shapes(attrs, in_shapes, out_now)
        )
        found = (in_keys, new_in, out_keys, new_out)
        return _store(values, node, found, _tuple, _merge_shape, _fmt_shape)

    _propagate(order, values, step)
    return _complete(order, values)


def legacy_unknown_dims(node, np_shape=None):
    """``node.attrs`` with the 0 dims of its ``shape`` attribute as -1 (unknown) where MXNet 1.x
    reads them so: creation ops (``sym.zeros((0, 100))``, an RNN cell's begin state) outside
    NumPy-shape mode; the scope is read only for such a node."""
    attrs = node.attrs
    if not node.op.zero_dims_unknown or 0 not in (attrs.get("shape") or ()):
        return attrs
    if np_shape is None:
        from ..util import is_np_shape

        np_shape = is_np_shape()
    if np_shape:
        return attrs
    return dict(attrs, shape=tuple(-1 if d == 0 else d for d in attrs["shape"]))


def _tuple(shape):
    return None if shape is None else tuple(shape)


def infer_types(heads, known=None, *, shapes=None):
    """Infer every entry's dtype from the known ones (MXNet's ``InferType`` pass).

    ``known`` maps like in :func:`infer_shapes`, with dtype names as values; ``shapes`` (a result of
    :func:`infer_shapes`) lets ops without a dtype rule infer by running on dummies. Returns
    ``{(node, index): dtype name or None}``.

    Example
    -------
    >>> import mxlab as mx
    >>> from mxlab.graph.infer import infer_types
    >>> y = mx.sym.var('x') + 1
    >>> infer_types(y._outputs, {'x': 'float16'})[(y._outputs[0].node, 0)]
    'float16'
    """
    known = {k: _dtype_name(v) for k, v in (known or {}).items()}
    order = topo_sort(heads)
    values = _init_variables(order, known, _hint_dtype)
    shapes = shapes or {}

    def step(node):
        in_keys = [(e.node, e.index) for e in node.inputs]
        out_keys = [(node, i) for i in range(node.num_outputs)]
        in_dtypes = [values.get(k) for k in in_keys]
        if all(d is not None for d in in_dtypes) and all(
            values.get(k) is not None for k in out_keys
        ):
            return False
        in_shapes = [shapes.get(k) for k in in_keys]
        new_in, new_out = _run_rule(
            node, lambda: node.op.infer_types(node.attrs, in_dtypes, in_shapes)
        )
        if node.op.infer_type is None:
            new_in, new_out = _same_type(new_in, new_out)
        found = (in_keys, new_in, out_keys, new_out)
        return _store(values, node, found, _dtype_name, _merge_dtype, str)

    _propagate(order, values, step)
    return _complete(order, values)


def _same_type(in_dtypes, out_dtypes):
    """nnvm's default for ops without a dtype rule: unknown inputs take the inputs' dtype, unknown
    outputs the outputs' (or the inputs') one."""
    first_in = next((d for d in in_dtypes if d is not None), None)
    first_out = next((d for d in out_dtypes if d is not None), first_in)
    first_in = first_in or first_out
    return [first_in if d is None else d for d in in_dtypes], [
        first_out if d is None else d for d in out_dtypes
    ]


_DTYPE_NAMES = {}   # dtype (object or name) -> canonical name: numpy's .name is slow per node


def _dtype_name(dtype):
    if dtype is None or dtype == "bfloat16":
        return dtype
    try:
        return _DTYPE_NAMES[dtype]
    except KeyError:
        name = _DTYPE_NAMES[dtype] = numpy.dtype(dtype).name
        return name
    except TypeError:   # an unhashable dtype description
        return numpy.dtype(dtype).name


def _complete(order, values):
    """Every output of every reachable node, ``None`` where nothing is known."""
    return {
        (node, i): values.get((node, i))
        for node in order
        for i in range(node.num_outputs)
    }


def _unknown_list(items, limit=10):
    parts = []
    for name, value in items:
        if len(parts) == limit:
            parts.append("...")
            break
        parts.append(f"{name}: {value}")
    return parts


def _join_unknown(items):
    return "".join(p if p == "..." else p + ", " for p in _unknown_list(items))


def unknown_shapes_message(items):
    """MXNet's executor error text for arguments whose shapes stay unknown; ``items``: (name, user
    shape)."""
    return (
        "InferShape pass cannot decide shapes for the following arguments "
        "(0s means unknown dimensions). Please consider providing them as inputs:\n"
        + _join_unknown(items)
    )


def unknown_types_message(items):
    """MXNet's executor error text for arguments whose dtypes stay unknown; ``items``: (name,
    dtype)."""
    return (
        "InferType pass cannot decide dtypes for the following arguments (-1 means unknown dtype). "
        "Please consider providing them as inputs:\n" + _join_unknown(items)
    )


def entry_key(entry):
    """``(node, index)`` of an :class:`~mxlab.graph.node.Entry` (the key of inference results)."""
    return (entry.node, entry.index) if isinstance(entry, Entry) else (entry, 0)


# -- the passes ------------------------------------------------------------------------------------
def _known_by_name(idx, given):
    """Variable values keyed by name, from a dict or a list in ``input_nodes`` order."""
    if given is None or isinstance(given, dict):
        return given
    return {idx[nid].name: value for nid, value in zip(idx.input_nodes, given)}


def _entry_keys(idx):
    """``(node, index)`` keys (as :mod:`~mxlab.graph.infer` returns them) in entry-id order."""
    return [(n.node, i) for n in idx.nodes for i in range(n.node.num_outputs)]


def _unknown_inputs(idx, values, is_known, to_user):
    return [(idx[nid].name, to_user(values[idx.node_row_ptr[nid]])) for nid in idx.input_nodes
            if not is_known(values[idx.node_row_ptr[nid]])]


def _unknown_input_ids(idx, values):
    return [nid for nid in idx.input_nodes if not shape_is_known(values[idx.node_row_ptr[nid]])]


def _user_shape(shape):
    return shape_to_user(shape, False)


def _user_dtype(dtype):
    return -1 if dtype is None else dtype


def _dtype_known(dtype):
    return dtype is not None


@register_pass("infer_shape", provides=("shape", "shape_num_unknown_nodes"))
def infer_shape(graph, shapes=None, strict=False):
    """Fill ``graph.attrs["shape"]`` (tuples by entry id; ``None`` when unknown).

    ``shapes``: variable shapes (internal form, ``None`` for unknown dims) by name, or a list in
    ``input_nodes`` order; ``__shape__`` attributes are used otherwise. ``strict=True`` raises
    MXNet's "InferShape pass cannot decide shapes ..." error when an input stays unknown.
    """
    idx = graph.indexed
    found = infer_shapes(graph.outputs, _known_by_name(idx, shapes))
    values = [found.get(key) for key in _entry_keys(idx)]
    missing = _unknown_inputs(idx, values, shape_is_known, _user_shape)
    # NOTE: the head gradient of an output whose shape depends on values (dynamic_reshape) is
    #   known only when backward is handed it: not an error.
    heads = {id(node) for node in graph.attrs.get("head_grad_nodes", ())}
    missing = [m for m, nid in zip(missing, _unknown_input_ids(idx, values))
               if id(idx[nid].node) not in heads]
    if strict and missing:
        raise MXNetValueError(unknown_shapes_message(missing))
    values = [v if shape_is_known(v) else None for v in values]
    return graph.copy(shape=values, shape_num_unknown_nodes=sum(1 for v in values if v is None))


@register_pass("infer_type", provides=("dtype", "dtype_num_unknown_nodes"))
def infer_type(graph, dtypes=None, strict=False):
    """Fill ``graph.attrs["dtype"]`` (dtype names by entry id; ``None`` when unknown).

    Like :func:`infer_shape`; uses ``graph.attrs["shape"]`` when present (ops without a dtype rule
    infer by running on dummies of those shapes).
    """
    idx = graph.indexed
    keys = _entry_keys(idx)
    shapes = graph.attrs.get("shape")
    shape_of = None if shapes is None else dict(zip(keys, shapes))
    found = infer_types(graph.outputs, _known_by_name(idx, dtypes), shapes=shape_of)
    values = [found.get(key) for key in keys]
    missing = _unknown_inputs(idx, values, _dtype_known, _user_dtype)
    if strict and missing:
        raise MXNetValueError(unknown_types_message(missing))
    return graph.copy(dtype=values, dtype_num_unknown_nodes=sum(1 for v in values if v is None))
