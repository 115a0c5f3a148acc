"""``mx.contrib.autograd``: MXNet 1.x's first autograd API (before ``mx.autograd``).

``train_section()`` turns recording *and* training on together (one flag in that API),
``mark_variables`` attaches gradient buffers, ``backward``/``compute_gradient`` differentiate
marked variables and ``grad``/``grad_and_loss`` wrap a function. Everything runs on
:mod:`mxlab.autograd`'s tape.

Example
-------
>>> import mxlab as mx
>>> from mxlab.contrib import autograd as cag
>>> x = mx.nd.array([1.0, 2.0])
>>> cag.grad(lambda v: v * v)(x)[0]
<BLANKLINE>
[2. 4.]
<NDArray 2 @cpu(0)>
"""
import functools

from .. import autograd as _ag
from ..ndarray import NDArray, zeros_like

__all__ = ["set_is_training", "TrainingStateScope", "train_section", "test_section",
           "mark_variables", "backward", "compute_gradient", "grad_and_loss", "grad"]


def set_is_training(is_train):
    """Set recording and training together (``True`` or ``False``); returns the previous
    training state."""
    previous = _ag.set_training(is_train)
    _ag.set_recording(is_train)
    return previous


class TrainingStateScope:
    """A ``with`` scope that sets :func:`set_is_training` on entry and restores it on exit."""

    def __init__(self, enter_state):
        self._enter_state = enter_state
        self._prev = None

    def __enter__(self):
        self._prev = set_is_training(self._enter_state)

    def __exit__(self, ptype, value, trace):
        if self._prev != self._enter_state:
            set_is_training(self._prev)


def train_section():
    """Scope in which ops are recorded and run in training mode."""
    return TrainingStateScope(True)


def test_section():
    """Scope in which ops are neither recorded nor run in training mode."""
    return TrainingStateScope(False)


def mark_variables(variables, gradients, grad_reqs="write"):
    """Attach gradient buffers ``gradients`` to ``variables`` (``grad_reqs``: one request
    string for all or one per variable)."""
    _ag.mark_variables(variables, gradients, grad_reqs)


def backward(outputs, out_grads=None, retain_graph=False):
    """Differentiate ``outputs`` (a list or tuple of NDArrays) w.r.t. the marked variables."""
    if not isinstance(outputs, (list, tuple)):
        raise AssertionError("outputs must be a list or tuple of NDArrays")
    if out_grads is not None and len(out_grads) != len(outputs):
        raise AssertionError("outputs and out_grads must have the same length")
    _ag.backward(list(outputs), None if out_grads is None else list(out_grads),
                 retain_graph=retain_graph)


def compute_gradient(outputs):
    """Deprecated name of :func:`backward` without head gradients."""
    backward(outputs)


def grad_and_loss(func, argnum=None):
    """Wrap ``func`` so a call returns ``(gradients of the arguments, func's value)``;
    ``argnum`` (an int or a list of ints) picks the arguments to differentiate."""
    @functools.wraps(func)
    def wrapped(*args):
        variables = args
        if argnum is not None:
            picks = argnum if isinstance(argnum, list) else [argnum]
            variables = [args[i] for i in picks]
        for x in variables:
            if not isinstance(x, NDArray):
                raise AssertionError("type of autograd input should NDArray.")
        grads = [zeros_like(x) for x in variables]
        mark_variables(variables, grads)
        with train_section():
            outputs = func(*args)
        compute_gradient([outputs] if isinstance(outputs, NDArray) else outputs)
        return grads, outputs
    return wrapped


def grad(func, argnum=None):
    """Wrap ``func`` so a call returns the gradients of its (``argnum``-picked) arguments."""
    grad_with_loss = grad_and_loss(func, argnum)

    @functools.wraps(grad_with_loss)
    def wrapped(*args):
        return grad_with_loss(*args)[0]
    return wrapped
