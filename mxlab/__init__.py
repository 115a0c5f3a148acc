"""mxlab: MXNet's execution core re-made in Python on NumPy/CuPy, built to be watched.

``import mxlab as mx`` gives MXNet's Python API: ``mx.np``, ``mx.npx``, ``mx.nd``, ``mx.autograd``,
``mx.engine``, ``mx.cpu()``/``mx.gpu()``, ``mx.MXNetError`` and more.
"""
__version__ = "0.1.0"

from . import base, device, context, engine  # noqa: E402,F401
from .base import MXNetError  # noqa: E402,F401
from .device import Context, Device, cpu, cpu_pinned, current_context, current_device, gpu, num_gpus  # noqa
from . import ops  # noqa: E402,F401
from . import ndarray as nd  # noqa: E402
from . import ndarray  # noqa: E402,F401
from . import numpy as np  # noqa: E402
from . import numpy_extension as npx  # noqa: E402
