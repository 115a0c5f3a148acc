"""The two converter registries (mxlab op -> ONNX nodes, ONNX op -> Symbol) and the small types
converters share; kept apart from the walks so converter modules import only this."""
import dataclasses

from ._common import require

EXPORTERS = {}  # canonical mxlab op name -> (first opset, converter(ctx, node))
IMPORTERS = {}  # ONNX op type -> converter(ctx, node) -> Symbol or list of Symbols


def exports(*op_names, since=None):
    """Register a converter for ``op_names`` (aliases resolve to the op's canonical name)."""
    from ..ops.registry import get_op

    def wrap(fn):
        for name in op_names:
            EXPORTERS[get_op(name).name] = (since or 0, fn)
        return fn
    return wrap


def imports(*op_types):
    """Register an ONNX-node -> Symbol converter for ``op_types``."""
    def wrap(fn):
        for op_type in op_types:
            IMPORTERS[op_type] = fn
        return fn
    return wrap


@dataclasses.dataclass(frozen=True)
class Dim:
    """Axis ``axis`` of tensor ``tensor``: one element of a shape computed with ``Shape``."""
    tensor: str
    axis: int


def attributes(node):
    """ONNX node attributes as Python values."""
    helper = require("onnx.helper")
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}
