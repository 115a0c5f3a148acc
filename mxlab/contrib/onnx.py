"""``mx.contrib.onnx``: MXNet 1.x's names for ONNX import and export (see ``mx.onnx``)."""
from ..onnx import export_model, get_model_metadata, import_model, import_to_gluon

__all__ = ["export_model", "get_model_metadata", "import_model", "import_to_gluon"]
