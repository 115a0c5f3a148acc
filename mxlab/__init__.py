"""mxlab: MXNet's execution core re-made in Python on NumPy/CuPy, built to be watched.

``import mxlab as mx`` gives MXNet's Python API: ``mx.np``, ``mx.npx``, ``mx.nd``, ``mx.autograd``,
``mx.engine``, ``mx.cpu()``/``mx.gpu()``, ``mx.MXNetError`` and more.
"""
__version__ = __mxlab_version__ = "0.1.0"   # NOTE: the mxnet alias reports MXNet's instead

from . import base, device, context, engine  # noqa: E402,F401
from . import profiler  # noqa: E402,F401
from .base import MXNetError  # noqa: E402,F401
from .device import Context, Device, cpu, cpu_pinned, current_context, current_device, gpu, num_gpus  # noqa
from . import ops  # noqa: E402,F401
from . import ndarray as nd  # noqa: E402,F401
from . import ndarray  # noqa: E402,F401
from . import numpy as np  # noqa: E402,F401
from . import numpy_extension as npx  # noqa: E402,F401
from . import symbol, symbol as sym  # noqa: E402,F401
from . import deferred_compute as _deferred_compute, deferred_compute as dc  # noqa: E402,F401
from . import autograd  # noqa: E402,F401
from . import random  # noqa: E402,F401
from .util import (is_np_array, is_np_shape, np_array, np_shape, set_np_shape,  # noqa: E402,F401
                   use_np, use_np_array, use_np_shape)
from . import test_utils, util  # noqa: E402,F401
from . import attribute, name, runtime  # noqa: E402,F401
from .attribute import AttrScope  # noqa: E402,F401
from . import op_cache  # noqa: E402,F401
from . import executor  # noqa: E402,F401
from . import subgraph  # noqa: E402,F401
from . import operator  # noqa: E402,F401  (mx.operator: Python custom ops)
from . import library  # noqa: E402,F401
from . import initializer, initializer as init, lr_scheduler, optimizer  # noqa: E402,F401
from . import kvstore, kvstore as kv  # noqa: E402,F401
from . import gluon  # noqa: E402,F401
from .gluon import metric_v1 as metric  # noqa: E402,F401  (MXNet 1.x: mx.metric)
from . import image, image as img, io, recordio  # noqa: E402,F401  (MXNet: mx.img)
from . import model  # noqa: E402,F401  (MXNet 1.x checkpoints: mx.model)
from . import rnn  # noqa: E402,F401  (MXNet 1.x symbolic cells: mx.rnn)
from . import callback, monitor, monitor as mon  # noqa: E402,F401  (1.x: mx.callback, mx.mon)
from . import module, module as mod  # noqa: E402,F401  (MXNet 1.x: mx.mod)
from . import viz, notebook  # noqa: E402,F401
from . import onnx, contrib  # noqa: E402,F401  (onnx itself is imported on first use)
from .notebook import load_ipython_extension  # noqa: E402,F401  (`%load_ext mxlab`)
