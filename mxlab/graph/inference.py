"""The ``infer_shape`` and ``infer_type`` passes: per-entry shapes and dtypes as lists by entry id.

Both wrap :mod:`mxlab.graph.infer` (each op's own rules, run to a fixed point, with MXNet's error
texts) and store the results where the planners read them: ``graph.attrs["shape"]`` /
``graph.attrs["dtype"]`` indexed by entry id, with ``shape_num_unknown_nodes`` /
``dtype_num_unknown_nodes`` counting the entries left unknown (``None``).

Example
-------
>>> from mxlab.graph.node import Node, Entry
>>> from mxlab.graph.graph import Graph
>>> from mxlab.graph.passes import apply_pass
>>> from mxlab.ops.registry import get_op
>>> x = Node(None, "x")
>>> g = Graph([Entry(Node(get_op("tanh"), "t", {}, [Entry(x)]))])
>>> apply_pass(g, "infer_shape", shapes={"x": (2, 3)}).attrs["shape"]
[(2, 3), (2, 3)]
"""
from ..base import MXNetValueError
from . import infer
from .passes import register_pass

__all__ = ["infer_shape", "infer_type"]


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


def _user_shape(shape):
    return infer.shape_to_user(shape, False)


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
    found = infer.infer_shapes(graph.outputs, _known_by_name(idx, shapes))
    values = [found.get(key) for key in _entry_keys(idx)]
    missing = _unknown_inputs(idx, values, infer.shape_is_known, _user_shape)
    if strict and missing:
        raise MXNetValueError(infer.unknown_shapes_message(missing))
    values = [v if infer.shape_is_known(v) else None for v in values]
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
    found = infer.infer_types(graph.outputs, _known_by_name(idx, dtypes), shapes=shape_of)
    values = [found.get(key) for key in keys]
    missing = _unknown_inputs(idx, values, _dtype_known, _user_dtype)
    if strict and missing:
        raise MXNetValueError(infer.unknown_types_message(missing))
    return graph.copy(dtype=values, dtype_num_unknown_nodes=sum(1 for v in values if v is None))
