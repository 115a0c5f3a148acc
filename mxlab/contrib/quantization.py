"""``mx.contrib.quantization``: MXNet 1.x's INT8 quantization flow, not built in mxlab.

The module imports (``from mxnet.contrib.quantization import *`` works, and brings the names
MXNet's module has at its top, such as ``cpu``, ``DataDesc`` and ``Module``, which scripts such as
MXNet's ``example/quantization`` use afterwards); each quantization entry point raises
``NotImplementedError`` naming itself: mxlab has no quantized operators (``contrib.quantize``,
``quantized_conv``, ...) to run the rewritten graph with.
"""
import logging  # noqa: F401  (MXNet's module has these names at its top; star imports bring them)
import os  # noqa: F401
import warnings  # noqa: F401

import numpy as np  # noqa: F401

from ..base import MXNetNotImplementedError
from ..device import Context, cpu  # noqa: F401
from ..io import DataBatch, DataDesc, DataIter  # noqa: F401
from ..module import Module  # noqa: F401
from ..ndarray import NDArray  # noqa: F401
from ..ndarray import load as nd_load  # noqa: F401
from ..ndarray import save as nd_save  # noqa: F401
from ..symbol import Symbol  # noqa: F401
from ..symbol import load as sym_load  # noqa: F401


def _not_built(name):
    def entry(*args, **kwargs):
        raise MXNetNotImplementedError(
            f"mx.contrib.quantization.{name}: INT8 quantization is not built in mxlab (it has no "
            f"quantized operators to run the quantized graph with); use the float32 model")
    entry.__name__ = entry.__qualname__ = name
    entry.__doc__ = f"Not built: raises ``NotImplementedError`` (MXNet's ``{name}``)."
    return entry


quantize_model = _not_built("quantize_model")
quantize_model_mkldnn = _not_built("quantize_model_mkldnn")
quantize_graph = _not_built("quantize_graph")
calib_graph = _not_built("calib_graph")
quantize_net = _not_built("quantize_net")
quantize_net_v2 = _not_built("quantize_net_v2")
combine_histogram = _not_built("combine_histogram")
