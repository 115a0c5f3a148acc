"""Graph executors: :class:`CachedOp` (hybridized blocks) and :class:`GraphExecutor`
(``Symbol.bind``), on one planned runtime (:mod:`.runtime`) and one planning pipeline
(:mod:`.planning`)."""
from .runtime import ReplanEvent, BufferPool, Frame, Program  # noqa: F401
from .planning import PlannedGraph, plan_graph, infer_graph  # noqa: F401
from .config import CachedOpConfig  # noqa: F401
from .cached_op import CachedOp  # noqa: F401
from .graph_executor import GraphExecutor, Executor  # noqa: F401
from . import np_call as _np_call  # noqa: F401,E402  (registers the _np_call op)
from . import custom_op as _custom_op  # noqa: F401,E402  (registers Custom, _backward_Custom)
from . import custom_frontend as _custom_frontend  # noqa: F401,E402  (mx.nd.Custom, ...)
