"""``mx.contrib``: MXNet 1.x's contrib namespace: ``mx.contrib.onnx``, ``mx.contrib.io``
(``DataLoaderIter``), ``mx.contrib.svrg_optimization`` (``SVRGModule``), and ``mx.contrib.nd`` /
``mx.contrib.ndarray`` / ``mx.contrib.sym`` /
``mx.contrib.symbol``, the contrib ops of ``mx.nd.contrib`` and ``mx.sym.contrib`` under MXNet
1.x's other names; ``mx.contrib.text`` (vocabularies and token embeddings from local files);
``mx.contrib.autograd`` (the API before ``mx.autograd``); ``mx.contrib.quantization`` imports,
and its entry points raise ``NotImplementedError`` (INT8 quantization is not built)."""
from ..ndarray import contrib as ndarray  # noqa: F401
from ..ndarray import contrib as nd  # noqa: F401
from ..symbol import contrib as sym  # noqa: F401
from ..symbol import contrib as symbol  # noqa: F401
from . import onnx  # noqa: F401
from . import io  # noqa: F401
from . import text  # noqa: F401
from . import svrg_optimization  # noqa: F401
from . import autograd  # noqa: F401
from . import quantization  # noqa: F401
