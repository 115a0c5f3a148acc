"""``mx.autograd``: record imperative ops on a tape and differentiate them (MXNet 1.9's API).

How it works
------------
While recording, :func:`mxlab.imperative.invoke` calls :func:`record_op` after each op. It adds a
:class:`TapeNode` holding the op, its attributes, the autograd entries of its inputs and only the
arrays the op's gradient rule needs (``Op.save_inputs`` / ``Op.save_outputs``), and points each
output's ``_ag`` slot at that node. Marked variables (``attach_grad``) are tape nodes without an op;
an input with no history becomes a constant node (MXNet's ``null<n>``) that gets no gradient.

:func:`backward` / :func:`grad` walk the tape from the heads in reverse topological order and call
each op's ``gradient(node, out_grads)`` rule. The rules are written with
:data:`mxlab.ops.registry.F`, so they are the very definitions the graph gradient pass uses; with
``create_graph=True`` they run while recording, so the gradients have a history of their own and
can be differentiated again.

Modules: :mod:`.modes` (recording and training flags), :mod:`.tape` (tape nodes, recording,
the recorded graph as a Symbol), :mod:`.backward` (:func:`backward`, :func:`grad`),
:mod:`.function` (custom differentiation).

Example
-------
>>> import mxlab as mx
>>> x = mx.np.array([1.0, 2.0])
>>> x.attach_grad()
>>> with mx.autograd.record():
...     y = x * x + x
>>> y.backward()
>>> x.grad
array([3., 5.])
"""
from .backward import NOT_IN_GRAPH_MSG, backward, grad  # noqa: F401 (MXNet's message)
from .function import Function
from .modes import (DEFERRED_MSG, is_recording, is_training, pause,  # noqa: F401
                    predict_mode, record, set_recording, set_training, train_mode)
from .tape import (GRAD_REQS, TapeNode, drop_grads, get_symbol, mark_variables,  # noqa: F401
                   record_op)

__all__ = ["set_recording", "set_training", "is_recording", "is_training", "record", "pause",
           "train_mode", "predict_mode", "mark_variables", "backward", "grad", "get_symbol",
           "Function", "TapeNode", "record_op"]
