"""``mx.onnx``: export models to ONNX and import ONNX models (MXNet 1.9's ``mx.onnx`` and
``mx.contrib.onnx``), on the optional ``onnx`` package (``pip install 'mxlab[onnx]'``).

Export walks the Symbol and writes each op through a converter from a registry
(``_export_nn``, ``_export_tensor``); import builds a Symbol from ONNX nodes through a second
registry (``_import_ops``), so an imported model runs, trains and opens in ``mx.notebook.explore``
like any other Symbol.
"""
from ._common import DEFAULT_OPSET, OnnxMissingError, UnmappedOpError
from ._export import export_model
from ._export import operator_support as get_operator_support
from ._import import get_model_metadata, import_model, import_to_gluon

__all__ = [
           "DEFAULT_OPSET",
           "OnnxMissingError",
           "UnmappedOpError",
           "export_model",
           "get_model_metadata",
           "get_operator_support",
           "import_model",
           "import_to_gluon",
]
