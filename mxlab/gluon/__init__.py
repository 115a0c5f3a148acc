"""``mx.gluon``: blocks, parameters, layers, losses, the Trainer and data loading.

Example
-------
>>> import mxlab as mx
>>> net = mx.gluon.nn.Dense(1, in_units=2)
>>> net.initialize(mx.init.One())
>>> net(mx.nd.array([[1.0, 2.0]])).asnumpy()
array([[3.]], dtype=float32)
"""
from .parameter import Constant, DeferredInitializationError, Parameter  # noqa
from .parameter_dict import ParameterDict  # noqa
from .block import Block, HybridBlock  # noqa: F401
from .symbol_block import SymbolBlock  # noqa: F401
from . import nn  # noqa: F401
from . import loss  # noqa: F401
from . import data  # noqa: F401
from . import utils  # noqa: F401
from . import model_zoo  # noqa: F401
from . import rnn  # noqa: F401
from . import metric  # noqa: F401
from . import contrib  # noqa: F401
from .trainer import Trainer  # noqa: F401


def __getattr__(name):
    # NOTE: mx.gluon.probability (MXNet 2.0's distributions, ~40 modules) loads on first use
    if name == "probability":
        import importlib
        return importlib.import_module(f"{__name__}.probability")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
