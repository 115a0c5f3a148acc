"""``HybridBlock.register_op_hook`` / ``CachedOp.register_op_hook``: a callback on every node's
outputs (and inputs with ``monitor_all``) while a hybridized block runs forward.

Names follow MXNet's ``ExecuteMonOutputCallback``/``ExecuteMonInputCallback``: ``<node>_<output
name>`` and ``<node>_<input name>``, where an op that declares no input names (MXNet's ops without
``FListInputNames``, such as Activation) names its inputs ``input0``, ``input1``, ..., and one
taking any number of inputs (concat, add_n) ``arg0``, ``arg1``, ...; the callback
gets ``(name, op name, NDArray)``. It runs with its node (a HybridBlock with a hook runs its
CachedOp inline, so the callbacks have run when the call returns, as in MXNet).
"""
import dataclasses

from .. import autograd, engine as _engine
from ..base import MXNetTypeError
from ..ndarray.ndarray import NDArray
from ..ops.registry import Op

__all__ = ["OpHook"]

_DEFAULT_INPUT_NAMES = Op.__dataclass_fields__["input_names"].default


def input_names(op, attrs, count):
    """The names MXNet's monitor gives a node's inputs."""
    if op.input_names is _DEFAULT_INPUT_NAMES:
        return [f"input{i}" for i in range(count)]
    if not callable(op.input_names) and len(op.input_names) == 1 and count != 1:
        return [f"arg{i}" for i in range(count)]   # NOTE: variadic ops (concat, add_n)
    names = list(op.get_input_names(attrs))
    return names + [f"input{i}" for i in range(len(names), count)]


@dataclasses.dataclass
class OpHook:
    """The monitor :meth:`~mxlab.executor.runtime.Program.bind` runs around each node."""
    callback: object
    monitor_all: bool = False

    def __post_init__(self):
        if not callable(self.callback):
            raise MXNetTypeError("invalid callback")

    def before_step(self, step, frame):
        """The call reporting ``step``'s inputs, or None unless ``monitor_all``."""
        if not self.monitor_all:
            return None
        names = input_names(step.op, step.attrs, len(step.ins))
        return self._caller(step, [(f"{step.name}_{n}", e) for n, e in zip(names, step.ins)],
                            frame)

    def after(self, step, frame):
        names = step.op.get_output_names(step.attrs)
        return self._caller(step, [(f"{step.name}_{n}", e) for n, e in zip(names, step.outs)],
                            frame)

    def _caller(self, step, pairs, frame):
        callback, op_name = self.callback, step.op.name

        def call():
            # NOTE: run inside a kernel (an engine thread when threaded): the callback's own ops
            #   run at once, unrecorded, or a wait in it could wait for this very segment
            with _engine.inline(), autograd.pause():
                for name, eid in pairs:
                    data = frame.slots[eid]
                    if data is not None:
                        callback(name, op_name, NDArray._wrap(data, frame.device))
        return call
