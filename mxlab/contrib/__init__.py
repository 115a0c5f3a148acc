"""``mx.contrib``: MXNet 1.x's contrib namespace (``mx.contrib.onnx``)."""
from . import onnx  # noqa: F401
