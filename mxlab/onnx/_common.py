"""What export and import share: loading the optional ``onnx`` package, dtype tables, the opset
range and the error for an op without a mapping."""
import importlib

import numpy

from ..base import MXNetError, MXNetNotImplementedError, MXNetValueError

DEFAULT_OPSET = 17     # NOTE: LayerNormalization exists from 17; runtimes widely support it
MIN_OPSET = 13         # NOTE: Split/Squeeze/ReduceSum take axes as inputs from 13 on


class OnnxMissingError(MXNetError, ImportError):
    """``onnx`` (or ``onnxruntime``) is not installed."""


class UnmappedOpError(MXNetNotImplementedError):
    """An op (or one of its settings) has no ONNX mapping at the requested opset."""


def require(module="onnx"):
    """Import ``onnx`` (or one of its submodules) or say which extra provides it."""
    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise OnnxMissingError(
            f"mx.onnx needs the '{module.split('.')[0]}' package: pip install 'mxlab[onnx]'"
        ) from err


def unmapped(op_name, node_name, opset, why=""):
    """The error for an op (or an op setting) that cannot be written at ``opset``."""
    detail = f": {why}" if why else ""
    return UnmappedOpError(
        f"no ONNX mapping for op '{op_name}' (node '{node_name}') at opset {opset}{detail}")


def check_opset(opset_version):
    """The opset to write: ``None`` gives DEFAULT_OPSET; others must lie in what onnx knows."""
    if opset_version is None:
        return DEFAULT_OPSET
    newest = require("onnx.defs").onnx_opset_version()
    if not isinstance(opset_version, int) or not MIN_OPSET <= opset_version <= newest:
        raise MXNetValueError(f"opset_version must be an int in [{MIN_OPSET}, {newest}] (the "
                              f"installed onnx's newest), got {opset_version!r}")
    return opset_version


def tensor_type(dtype):
    """ONNX TensorProto element type of a NumPy dtype."""
    helper = require("onnx.helper")
    return helper.np_dtype_to_tensor_dtype(numpy.dtype(dtype))


def numpy_type(tensor_type_id):
    """NumPy dtype of an ONNX TensorProto element type."""
    helper = require("onnx.helper")
    return numpy.dtype(helper.tensor_dtype_to_np_dtype(tensor_type_id))
