"""Basic layers: containers, Dense, Dropout, normalisation, Embedding, Flatten, lambdas.

Built-in layers are written as ``hybrid_forward(F, x, **params)`` with the type-dispatching op
caller (``mxlab.ops.registry.F``), so the same code runs on ``mx.nd`` arrays, ``mx.np`` arrays
(keeping the flavour) and Symbols; each sets its unknown parameter shapes in ``infer_shape``.

Example
-------
>>> import mxlab as mx
>>> net = mx.gluon.nn.Dense(3)
>>> net.initialize()
>>> net(mx.np.ones((2, 5))).shape, net.weight.shape
((2, 3), (3, 5))
"""
import inspect
import warnings

import numpy

from ...base import MXNetValueError
from ...ops.registry import F as _F
from ..block import Block, HybridBlock
from ..gluon1 import layer_child
from ..parameter import Parameter
from .activations import Activation

__all__ = ["Sequential", "HybridSequential", "Concatenate", "HybridConcatenate", "Dense",
           "Dropout", "BatchNorm", "InstanceNorm", "LayerNorm", "GroupNorm", "SyncBatchNorm",
           "Embedding", "Flatten", "Lambda", "HybridLambda", "Identity"]


class _SequentialMixin:
    """``add`` / indexing / ``len`` for the sequential containers."""

    def add(self, *blocks):
        for block in blocks:
            self.register_child(block)

    def __getitem__(self, key):
        children = list(self._children.values())
        if isinstance(key, slice):
            net = type(self)()
            net.add(*children[key])
            return net
        return children[key]

    def __len__(self):
        return len(self._children)

    def forward(self, x, *args):
        for block in self._children.values():
            x = block(x, *args)
            args = ()
            if isinstance(x, (tuple, list)):
                args, x = x[1:], x[0]
        return (x,) + tuple(args) if args else x


class Sequential(_SequentialMixin, Block):
    """Children run in order (imperatively)."""

    def hybridize(self, active=True, **kwargs):
        """Hybridize the children; warns, as MXNet, when every child could run as one graph."""
        if self._children and all(isinstance(c, HybridBlock) for c in self._children.values()):
            warnings.warn(f"All children of this Sequential layer '{self!r}'\n are HybridBlocks. "
                          "Consider using HybridSequential for the best performance.",
                          stacklevel=2)
        super().hybridize(active, **kwargs)


class HybridSequential(_SequentialMixin, HybridBlock):
    """Children (HybridBlocks) run in order; the whole chain can be hybridized."""


class _ConcatenateMixin(_SequentialMixin):
    """Every child sees the same input; their outputs are joined along ``axis`` (Inception,
    DenseNet and SqueezeNet branches)."""

    def __init__(self, axis=-1):
        super().__init__()
        self._axis = axis

    def forward(self, x):
        outs = [block(x) for block in self._children.values()]
        return _F.Concat(*outs, dim=self._axis, num_args=len(outs))


class Concatenate(_ConcatenateMixin, Block):
    """Runs each child on the input and concatenates the results along ``axis``."""


class HybridConcatenate(_ConcatenateMixin, HybridBlock):
    """Hybridizable :class:`Concatenate`."""


def _param(name, shape, init, dtype, **kwargs):
    return Parameter(name, shape=shape, init=init, dtype=dtype, allow_deferred_init=True,
                     **kwargs)


class Dense(HybridBlock):
    """``y = act(x W^T + b)``; ``flatten`` folds all but the first axis of ``x`` into one.

    ``in_units=0`` defers the weight shape to the first input.
    """

    def __init__(self, units, activation=None, use_bias=True, flatten=True, dtype="float32",
                 weight_initializer=None, bias_initializer="zeros", in_units=0):
        super().__init__()
        self._units, self._flatten, self._in_units = units, flatten, in_units
        self.weight = _param("weight", (units, in_units), weight_initializer, dtype)
        self.bias = _param("bias", (units,), bias_initializer, dtype) if use_bias else None
        self.act = (layer_child(self, Activation, activation, prefix=activation + "_")
                    if activation is not None else None)

    def infer_shape(self, x, *args):
        in_units = int(numpy.prod(x.shape[1:])) if self._flatten else x.shape[-1]
        self.weight.shape = (self._units, in_units)

    def hybrid_forward(self, F, x, weight, bias=None):
        inputs = [x, weight] if bias is None else [x, weight, bias]
        out = _F.FullyConnected(*inputs, num_hidden=self._units, no_bias=bias is None,
                                flatten=self._flatten, name="fwd")
        return self.act(out) if self.act is not None else out

    def __repr__(self):
        in_units = self.weight.shape[1] if len(self.weight.shape) > 1 else 0
        return (f"Dense({in_units or None} -> {self._units}, "
                f"{'linear' if self.act is None else self.act._act_type})")


class Dropout(HybridBlock):
    """Zeroes elements with probability ``rate`` while training (``axes``: shared mask axes)."""

    def __init__(self, rate, axes=()):
        super().__init__()
        self._rate, self._axes = rate, tuple(axes)

    def hybrid_forward(self, F, x):
        if self._rate == 0:
            return x
        return _visible("Dropout", x, p=self._rate, axes=self._axes, name="fwd")

    def __repr__(self):
        return f"Dropout(p = {self._rate}, axes={self._axes})"


def _visible(op_name, *inputs, **attrs):
    """Apply a registry op and keep its visible output (``F`` also returns hidden mean/var/mask
    outputs)."""
    out = getattr(_F, op_name)(*inputs, **attrs)
    return out[0] if isinstance(out, (list, tuple)) else out


class _Norm(HybridBlock):
    """Shared gamma/beta handling of the normalisation layers (channel count from ``axis``)."""

    def __init__(self, axis, in_channels, center, scale, beta_initializer, gamma_initializer):
        super().__init__()
        self._axis, self._center, self._scale = axis, center, scale
        self.gamma = _param("gamma", (in_channels,), gamma_initializer, "float32",
                            grad_req="write" if scale else "null")
        self.beta = _param("beta", (in_channels,), beta_initializer, "float32",
                           grad_req="write" if center else "null")

    def _channels(self, x):
        return x.shape[self._axis]

    def infer_shape(self, x, *args):
        for param in self._reg_params.values():
            param.shape = (self._channels(x),)


class BatchNorm(_Norm):
    """Batch normalisation; ``running_mean``/``running_var`` are updated while training."""

    def __init__(self, axis=1, momentum=0.9, epsilon=1e-5, center=True, scale=True,
                 use_global_stats=False, beta_initializer="zeros", gamma_initializer="ones",
                 running_mean_initializer="zeros", running_variance_initializer="ones",
                 in_channels=0):
        super().__init__(axis, in_channels, center, scale, beta_initializer, gamma_initializer)
        self._kwargs = {"axis": axis, "eps": epsilon, "momentum": momentum,
                        "fix_gamma": not scale, "use_global_stats": use_global_stats}
        self.running_mean = _param("running_mean", (in_channels,), running_mean_initializer,
                                   "float32", grad_req="null", differentiable=False)
        self.running_var = _param("running_var", (in_channels,), running_variance_initializer,
                                  "float32", grad_req="null", differentiable=False)

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        return _visible("BatchNorm", x, gamma, beta, running_mean, running_var, name="fwd",
                        **self._kwargs)

    def __repr__(self):
        return f"BatchNorm(axis={self._axis}, in_channels={self.gamma.shape[0] or None})"


class SyncBatchNorm(BatchNorm):
    """BatchNorm whose statistics MXNet gathers across ``num_devices`` GPUs. In one process on one
    device that is BatchNorm itself; several devices are refused rather than silently
    normalising each device's slice alone."""

    def __init__(self, in_channels=0, num_devices=None, momentum=0.9, epsilon=1e-5, center=True,
                 scale=True, use_global_stats=False, beta_initializer="zeros",
                 gamma_initializer="ones", running_mean_initializer="zeros",
                 running_variance_initializer="ones"):
        if num_devices not in (None, 1):
            raise NotImplementedError(
                f"SyncBatchNorm(num_devices={num_devices}): statistics synchronised across "
                f"devices are not implemented in mxlab; use num_devices=1")
        super().__init__(1, momentum, epsilon, center, scale, use_global_stats,
                         beta_initializer, gamma_initializer, running_mean_initializer,
                         running_variance_initializer, in_channels)


class InstanceNorm(_Norm):
    """Normalises each sample and channel over the spatial axes."""

    def __init__(self, axis=1, epsilon=1e-5, center=True, scale=False, beta_initializer="zeros",
                 gamma_initializer="ones", in_channels=0):
        super().__init__(axis, in_channels, center, scale, beta_initializer, gamma_initializer)
        self._eps = epsilon

    def hybrid_forward(self, F, x, gamma, beta):
        if self._axis == 1:
            return _visible("InstanceNorm", x, gamma, beta, eps=self._eps)
        moved = _F.swapaxes(x, dim1=1, dim2=self._axis)
        out = _visible("InstanceNorm", moved, gamma, beta, eps=self._eps)
        return _F.swapaxes(out, dim1=1, dim2=self._axis)


class LayerNorm(_Norm):
    """Normalises over ``axis`` (default the last) for each sample."""

    def __init__(self, axis=-1, epsilon=1e-5, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", in_channels=0):
        super().__init__(axis, in_channels, center, scale, beta_initializer, gamma_initializer)
        self._eps = epsilon

    def hybrid_forward(self, F, x, gamma, beta):
        return _visible("LayerNorm", x, gamma, beta, axis=self._axis, eps=self._eps)


class GroupNorm(_Norm):
    """Normalises each of ``num_groups`` channel groups per sample (channels on axis 1)."""

    def __init__(self, num_groups=1, epsilon=1e-5, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", in_channels=0):
        # NOTE: MXNet 1.x's GroupNorm op scales per group: gamma/beta have num_groups entries.
        super().__init__(1, num_groups, center, scale, beta_initializer, gamma_initializer)
        self._num_groups, self._eps = num_groups, epsilon

    def infer_shape(self, x, *args):
        """gamma/beta shapes are fixed by ``num_groups``."""

    def hybrid_forward(self, F, x, gamma, beta):
        return _visible("GroupNorm", x, gamma, beta, num_groups=self._num_groups,
                        eps=self._eps)


class Embedding(HybridBlock):
    """Row lookup: integer indices -> rows of a ``(input_dim, output_dim)`` weight."""

    def __init__(self, input_dim, output_dim, dtype="float32", weight_initializer=None,
                 sparse_grad=False):
        super().__init__()
        self._kwargs = {"input_dim": input_dim, "output_dim": output_dim, "dtype": dtype,
                        "sparse_grad": sparse_grad}
        self.weight = _param("weight", (input_dim, output_dim), weight_initializer, dtype,
                             grad_stype="row_sparse" if sparse_grad else "default")

    def hybrid_forward(self, F, x, weight):
        return _F.Embedding(x, weight, name="fwd", **self._kwargs)


class Flatten(HybridBlock):
    """``(N, ...)`` -> ``(N, prod(...))``."""

    def hybrid_forward(self, F, x):
        return _F.Flatten(x)


class Identity(HybridBlock):
    """Returns its input."""

    def hybrid_forward(self, F, x):
        return x


def _resolve(function, what):
    """A callable from a function or an op name (looked up in ``mx.nd``)."""
    if callable(function):
        return function
    from ... import ndarray as nd

    if isinstance(function, str) and hasattr(nd, function):
        return getattr(nd, function)
    raise MXNetValueError(f"{what}: unrecognized function {function!r}")


class Lambda(Block):
    """A Block around a function (or an ``mx.nd`` op name), e.g. ``Lambda('tanh')``."""

    def __init__(self, function):
        super().__init__()
        self._func = _resolve(function, "Lambda")

    def forward(self, *args):
        return self._func(*args)


class HybridLambda(HybridBlock):
    """A HybridBlock around a function or an op name. MXNet 1.x calls ``function(F, x, *args)``,
    MXNet 2.0 ``function(x, *args)``: a function whose first parameter is named ``F`` gets ``F``;
    any other gets it on ``mx.nd`` arrays and symbols only, not on ``mx.np`` arrays (2.0 code).
    An op name is looked up in ``F`` (in ``mx.np``, then ``mx.npx``, for ``mx.np`` arrays)."""

    def __init__(self, function):
        super().__init__()
        if not isinstance(function, str) and not callable(function):
            raise MXNetValueError(f"HybridLambda: unrecognized function {function!r}")
        self._func = function
        self._takes_F = callable(function) and _first_parameter(function) == "F"

    def hybrid_forward(self, F, x, *args):
        legacy = getattr(x, "_flavour", None) != "np"
        if isinstance(self._func, str):
            return _named_op(self._func, F if legacy else None)(x, *args)
        if self._takes_F or legacy:
            return self._func(F, x, *args)
        return self._func(x, *args)


def _named_op(name, F):
    """Op ``name`` from ``F`` (else mxlab's registry), or from mx.np / mx.npx when F is None."""
    if F is not None:
        return getattr(F if hasattr(F, name) else _F, name)
    from ... import numpy as np, numpy_extension as npx

    for namespace in (np, npx):
        if hasattr(namespace, name):
            return getattr(namespace, name)
    raise MXNetValueError(f"HybridLambda: no op {name!r} in mx.np or mx.npx")


def _first_parameter(function):
    """The name of ``function``'s first parameter (None when it has none or cannot be read)."""
    try:
        names = list(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return None
    return names[0] if names else None
