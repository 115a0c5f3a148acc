"""Normalisation ops: BatchNorm, LayerNorm, GroupNorm, InstanceNorm, each with a lean backward op.

BatchNorm follows the seed's (004) lean layout: the moving statistics are aux inputs the op mutates
in place when training (``mutate_inputs=(3, 4)``), the saved outputs are the batch mean and the
*inverse* standard deviation, and ``_backward_BatchNorm`` takes exactly ``[out_grad, saved_mean,
saved_inv_std, data, gamma, beta, moving_mean, moving_var]`` and returns ``[d_data, d_gamma,
d_beta]``: no gradient to the moving statistics, and the forward output itself is not kept for
backward. Unlike MXNet's CPU kernel (which updates the moving statistics during the backward pass)
the update happens in the training forward, as with cuDNN; after forward+backward both agree.

LayerNorm, GroupNorm (MXNet 1.x: ``gamma``/``beta`` per group) and InstanceNorm (GroupNorm with one
group per channel, ``gamma`` per channel) share one affine-normalisation backward.

Example
-------
>>> import mxlab as mx
>>> x = mx.nd.array([[1., 2.], [3., 4.]])
>>> out = mx.nd.LayerNorm(x, mx.nd.ones((2,)), mx.nd.zeros((2,)))
>>> out.asnumpy().round(3).tolist()
[[-1.0, 1.0], [-1.0, 1.0]]
"""

import dataclasses

from ... import op_cache
from ...base import MXNetValueError
from ..attrs import Attr
from ..infer import known
from ..registry import F, Op, register

__all__ = ["BatchNormPlan", "bn_plan"]


def _affine_backward(xp, dy, xhat, inv_std, gamma_b, red_axes, param_axes):
    """Gradients of ``y = xhat * gamma + beta`` with ``xhat`` normalised over ``red_axes``."""
    dxhat = dy * gamma_b
    mean_d = dxhat.mean(axis=red_axes, keepdims=True)
    mean_dx = (dxhat * xhat).mean(axis=red_axes, keepdims=True)
    dx = (dxhat - mean_d - xhat * mean_dx) * inv_std
    return dx, _param_sum(dy * xhat, param_axes), _param_sum(dy, param_axes)


_BLOCK = 64


def _param_sum(x, axes):
    """``x.sum(axis=axes)``; over many leading rows (LayerNorm's gamma of a (4096, 512) input)
    blocks of 64 rows are summed first.

    NOTE: NumPy adds a non-contiguous axis one row at a time, so float32 error grows with the row
    count (1e-4 on 4096 rows, MXNet test_layer_norm's tolerance); MXNet's compensated sums do not.
    Blocks keep the error to that of two short sums, at the same cost.
    """
    lead = len(axes)
    if tuple(axes) != tuple(range(lead)) or not x.flags.c_contiguous:
        return x.sum(axis=axes)
    rows = x.reshape((-1,) + x.shape[lead:])
    count = rows.shape[0]
    if count <= 4 * _BLOCK:
        return rows.sum(axis=0)
    head = count - count % _BLOCK
    total = rows[:head].reshape((head // _BLOCK, _BLOCK) + rows.shape[1:]).sum(axis=1).sum(axis=0)
    return total + rows[head:].sum(axis=0) if head < count else total


def _check_param(op_name, name, given, expected):
    if known(given) and tuple(given) != tuple(expected):
        raise MXNetValueError(
            f"{op_name}: input '{name}' has shape {tuple(given)} but {tuple(expected)} is "
            f"expected from 'data'"
        )


def _fill_params(op_name, names, in_shapes, param_shape):
    shapes = [tuple(in_shapes[0])] + [param_shape] * (len(in_shapes) - 1)
    for name, given, expected in zip(names[1:], in_shapes[1:], shapes[1:]):
        _check_param(op_name, name, given, expected)
    return shapes


def _axis(op_name, attrs, ndim):
    """The ``axis`` attribute made non-negative, with an error naming the op when out of range."""
    axis = attrs["axis"]
    if not -ndim <= axis < ndim:
        raise MXNetValueError(
            f"{op_name}: attribute 'axis' {axis} is out of range for {ndim}-d input 'data'"
        )
    return axis % ndim


def _fill_dtypes(n_out):
    def infer(attrs, in_dtypes):
        dtype = next((d for d in in_dtypes if d is not None), None)
        return [dtype if d is None else d for d in in_dtypes], [dtype] * n_out

    return infer


def _visible(attrs):
    return 3 if attrs["output_mean_var"] else 1


# -- BatchNorm -------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class BatchNormPlan:
    """Channel axis, reduced axes, broadcast shape and count per channel of one signature."""

    axis: int
    axes: tuple
    bshape: tuple
    count: int
    view: tuple  # (before the channel axis, channels, after it): per-channel sums as einsum

    def channel_dot(self, xp, a, b):
        """``sum(a * b)`` per channel in one pass, without the product as a temporary."""
        return xp.einsum("icj,icj->c", a.reshape(self.view), b.reshape(self.view))


def _build_bn(attrs, shape):
    axis = _axis("BatchNorm", attrs, len(shape))
    axes = tuple(i for i in range(len(shape)) if i != axis)
    bshape = tuple(shape[axis] if i == axis else 1 for i in range(len(shape)))
    count = 1
    for i in axes:
        count *= shape[i]
    before = 1
    for size in shape[:axis]:
        before *= size
    view = (before, shape[axis], count // max(before, 1) if count else 0)
    return BatchNormPlan(axis, axes, bshape, count, view)


def bn_plan(xp, attrs, data):
    """The cached :class:`BatchNormPlan` (forward and ``_backward_BatchNorm`` share the entry)."""
    key = op_cache.signature("BatchNorm", attrs, (data,), op_cache.device_key(xp, data))
    return op_cache.get_or_build(key, lambda: _build_bn(attrs, data.shape))


def _batch_stats(attrs, ctx):
    """Batch statistics when training and not told to use the global (moving) ones."""
    return ctx.is_train and not attrs["use_global_stats"]


def _bn_forward(xp, inputs, attrs, ctx):
    x, gamma, beta, moving_mean, moving_var = inputs
    plan = bn_plan(xp, attrs, x)
    if _batch_stats(attrs, ctx) and _lean(x, moving_var, plan):
        return _bn_train_lean(xp, plan, attrs, inputs)
    if _batch_stats(attrs, ctx):
        mean = x.mean(axis=plan.axes, dtype=moving_mean.dtype)
        var = ((x - mean.reshape(plan.bshape)) ** 2).mean(axis=plan.axes, dtype=moving_var.dtype)
        _update_moving(attrs, moving_mean, moving_var, mean, var)
    else:
        mean, var = moving_mean.copy(), moving_var
    inv_std = 1 / xp.sqrt(var + attrs["eps"])
    scale = inv_std if attrs["fix_gamma"] else gamma * inv_std
    out = (x - mean.reshape(plan.bshape)) * scale.reshape(plan.bshape) + beta.reshape(plan.bshape)
    return out.astype(x.dtype, copy=False), mean, inv_std.astype(moving_var.dtype, copy=False)


def _lean(x, stats, plan):
    """The in-place paths need the data in the statistics' dtype and a non-empty batch."""
    return x.dtype == stats.dtype and plan.count > 0 and x.flags.c_contiguous


def _update_moving(attrs, moving_mean, moving_var, mean, var):
    momentum = attrs["momentum"]
    moving_mean *= momentum
    moving_mean += (1 - momentum) * mean
    moving_var *= momentum
    moving_var += (1 - momentum) * var


def _bn_train_lean(xp, plan, attrs, inputs):
    """Training forward in five passes over the data: sum, centre, squared sum (einsum, no
    temporary), scale and shift in place on the one centred buffer."""
    x, gamma, beta, moving_mean, moving_var = inputs
    b = plan.bshape
    mean = x.sum(axis=plan.axes) / plan.count
    centred = x - mean.reshape(b)
    var = plan.channel_dot(xp, centred, centred) / plan.count
    _update_moving(attrs, moving_mean, moving_var, mean, var)
    inv_std = 1 / xp.sqrt(var + attrs["eps"])
    scale = inv_std if attrs["fix_gamma"] else gamma * inv_std
    centred *= scale.reshape(b)
    centred += beta.reshape(b)
    return centred, mean, inv_std


def _bn_backward(xp, inputs, attrs, ctx):
    dy, mean, inv_std, x, gamma, _beta, _moving_mean, _moving_var = inputs
    plan = bn_plan(xp, attrs, x)
    if _batch_stats(attrs, ctx) and _lean(x, inv_std, plan) and dy.dtype == x.dtype:
        return _bn_backward_lean(xp, plan, attrs, inputs)
    b = plan.bshape
    inv_b = inv_std.reshape(b)
    xhat = (x - mean.reshape(b)) * inv_b
    gamma_b = 1 if attrs["fix_gamma"] else gamma.reshape(b)
    if _batch_stats(attrs, ctx):
        dx, dgamma, dbeta = _affine_backward(xp, dy, xhat, inv_b, gamma_b, plan.axes, plan.axes)
    else:
        dx = dy * gamma_b * inv_b
        dgamma, dbeta = (dy * xhat).sum(axis=plan.axes), dy.sum(axis=plan.axes)
    if attrs["fix_gamma"]:
        dgamma = xp.zeros_like(gamma)
    return dx.astype(x.dtype, copy=False), dgamma.astype(gamma.dtype), dbeta.astype(gamma.dtype)


def _bn_backward_lean(xp, plan, attrs, inputs):
    """Training backward as ``dx = a * dy + b * x + c`` per channel: the normalisation's
    gradient folded into three coefficients from two one-pass sums (``sum(dy)`` and
    ``sum(dy * x)``), so no normalised copy of the data is made."""
    dy, mean, inv_std, x, gamma = inputs[:5]
    m = plan.count
    sum_dy = dy.sum(axis=plan.axes)
    sum_dy_xhat = (plan.channel_dot(xp, dy, x) - mean * sum_dy) * inv_std
    a = inv_std if attrs["fix_gamma"] else gamma * inv_std
    coef_x = -a * inv_std * sum_dy_xhat / m
    shift = -a * sum_dy / m - coef_x * mean
    dx = dy * a.reshape(plan.bshape)
    dx += x * coef_x.reshape(plan.bshape)
    dx += shift.reshape(plan.bshape)
    dgamma = xp.zeros_like(gamma) if attrs["fix_gamma"] else sum_dy_xhat.astype(gamma.dtype)
    return dx, dgamma, sum_dy.astype(gamma.dtype)


_BN_INPUTS = ("data", "gamma", "beta", "moving_mean", "moving_var")


def _bn_infer(attrs, in_shapes):
    data = in_shapes[0]
    if data is None:
        return in_shapes, [None, None, None]
    param = (data[_axis("BatchNorm", attrs, len(data))],)
    return _fill_params("BatchNorm", _BN_INPUTS, in_shapes, param), [tuple(data), param, param]


def _bn_grad(node, out_grads):
    """Seed 004's lean layout: out_grad, the saved mean and inv_std, then the five inputs."""
    saved_mean, saved_inv_std = node.outputs[1], node.outputs[2]
    grads = F._backward_BatchNorm(
        out_grads[0], saved_mean, saved_inv_std, *node.inputs, **node.attrs
    )
    return list(grads) + [None, None]


_BN_ATTRS = (
    Attr("eps", "float", 1e-3, check=(lambda v: v > 0, "must be positive")),
    Attr("momentum", "float", 0.9),
    Attr("fix_gamma", "bool", True),
    Attr("use_global_stats", "bool", False),
    Attr("output_mean_var", "bool", False),
    Attr("axis", "int", 1),
)
_BN_IGNORED = ("cudnn_off", "min_calib_range", "max_calib_range")

def _register_batch_norm(name, compute, attrs, gradient, **fields):
    """BatchNorm's op shape (five inputs, moving statistics mutated, three outputs) for
    ``BatchNorm`` and ``contrib.SyncBatchNorm``."""
    register(Op(name=name, compute=compute, attrs=attrs, num_inputs=5, input_names=_BN_INPUTS,
                num_outputs=3, output_names=("output", "mean", "var"),
                num_visible_outputs=_visible, infer_shape=_bn_infer, infer_type=_fill_dtypes(3),
                gradient=gradient, mutate_inputs=(3, 4), save_outputs=(1, 2),
                never_mirror=True, ignored_attrs=_BN_IGNORED, **fields))


_register_batch_norm("BatchNorm", _bn_forward, _BN_ATTRS, _bn_grad, npx_name="batch_norm",
                     nd_names=("BatchNorm",),
                     doc="Batch normalisation with moving statistics as mutable aux state.")
register(
    Op(
        name="_backward_BatchNorm",
        compute=_bn_backward,
        attrs=_BN_ATTRS,
        num_inputs=8,
        input_names=("out_grad", "saved_mean", "saved_inv_std") + _BN_INPUTS,
        num_outputs=3,
        output_names=("data_grad", "gamma_grad", "beta_grad"),
        infer_shape=lambda attrs, s: (s, [s[3], s[4], s[5]]),
        infer_type=lambda attrs, d: (d, [d[3], d[4], d[5]]),
        ignored_attrs=_BN_IGNORED,
        hidden=True,
        doc="Lean BatchNorm backward: 8 inputs, 3 outputs, no gradient to the moving statistics.",
    )
)


_SYNC_ATTRS = _BN_ATTRS + (
    Attr("ndev", "int", 1, check=(lambda v: v == 1, "must be 1: statistics shared across "
                                                    "devices are not built in mxlab")),
    Attr("key", "str", ""),
)


def _sync_bn_forward(xp, inputs, attrs, ctx):
    """BatchNorm, whose third output is the batch variance here (BatchNorm's is 1/std)."""
    out, mean, inv_std = _bn_forward(xp, inputs, attrs, ctx)
    return out, mean, (1 / (inv_std * inv_std) - attrs["eps"]).astype(inv_std.dtype)


def _sync_bn_grad(node, out_grads):
    """BatchNorm's gradient, from the saved variance (the backward op takes BatchNorm's
    attributes only)."""
    attrs = {k: v for k, v in node.attrs.items() if k not in ("ndev", "key")}
    inv_std = F.rsqrt(F._plus_scalar(node.outputs[2], scalar=attrs["eps"]))
    grads = F._backward_BatchNorm(out_grads[0], node.outputs[1], inv_std, *node.inputs, **attrs)
    return list(grads) + [None, None]


_register_batch_norm(
    "_contrib_SyncBatchNorm", _sync_bn_forward, _SYNC_ATTRS, _sync_bn_grad,
    doc="contrib.SyncBatchNorm on one device: BatchNorm returning the batch variance (ndev "
        "devices sharing statistics under key are not built; ndev must be 1).")


# MXNet 1.x's BatchNorm_v1: BatchNorm over axis 1 with no ``axis`` parameter, whose third output
# is the batch variance (as SyncBatchNorm's here).
def _v1_attrs(attrs):
    return dict(attrs, axis=1)


def _bn_v1_grad(node, out_grads):
    attrs = _v1_attrs(node.attrs)
    inv_std = F.rsqrt(F._plus_scalar(node.outputs[2], scalar=attrs["eps"]))
    grads = F._backward_BatchNorm(out_grads[0], node.outputs[1], inv_std, *node.inputs, **attrs)
    return list(grads) + [None, None]


register(Op(name="BatchNorm_v1", attrs=_BN_ATTRS[:-1],
            compute=lambda xp, inputs, attrs, ctx: _sync_bn_forward(xp, inputs, _v1_attrs(attrs),
                                                                     ctx),
            num_inputs=5, input_names=_BN_INPUTS, num_outputs=3,
            output_names=("output", "mean", "var"), num_visible_outputs=_visible,
            infer_shape=lambda attrs, s: _bn_infer(_v1_attrs(attrs), s),
            infer_type=_fill_dtypes(3), gradient=_bn_v1_grad, mutate_inputs=(3, 4),
            save_outputs=(1, 2), never_mirror=True, ignored_attrs=_BN_IGNORED,
            doc="MXNet 1.x's BatchNorm_v1: BatchNorm over axis 1 returning the batch variance."))


# -- LayerNorm -------------------------------------------------------------------------------------
def _ln_shape(x, axis):
    return tuple(x.shape[axis] if i == axis else 1 for i in range(x.ndim))


def _ln_forward(xp, inputs, attrs):
    x, gamma, beta = inputs
    axis = _axis("LayerNorm", attrs, x.ndim)
    mean = x.mean(axis=axis, keepdims=True)
    std = xp.sqrt(((x - mean) ** 2).mean(axis=axis, keepdims=True) + attrs["eps"])
    b = _ln_shape(x, axis)
    out = (x - mean) / std * gamma.reshape(b) + beta.reshape(b)
    return out.astype(x.dtype, copy=False), mean, std


def _ln_backward(xp, inputs, attrs):
    dy, x, gamma, mean, std = inputs
    axis = _axis("LayerNorm", attrs, x.ndim)
    others = tuple(i for i in range(x.ndim) if i != axis)
    xhat = (x - mean) / std
    dx, dgamma, dbeta = _affine_backward(
        xp, dy, xhat, 1 / std, gamma.reshape(_ln_shape(x, axis)), (axis,), others
    )
    return dx.astype(x.dtype, copy=False), dgamma.astype(gamma.dtype), dbeta.astype(gamma.dtype)


def _ln_infer(attrs, in_shapes):
    data = in_shapes[0]
    if data is None:
        return in_shapes, [None, None, None]
    axis = _axis("LayerNorm", attrs, len(data))
    stat = tuple(1 if i == axis else d for i, d in enumerate(data))
    shapes = _fill_params("LayerNorm", ("data", "gamma", "beta"), in_shapes, (data[axis],))
    return shapes, [tuple(data), stat, stat]


# -- GroupNorm and InstanceNorm: normalise (N, G, rest) over rest ----------------------------------
def _param_view(x, groups, gamma):
    """``(N, G, C/G, rest)`` of ``x`` and ``gamma``'s broadcast view: one value per group (MXNet
    1.x) or, when gamma has one per channel (MXNet 2.0), per channel."""
    per_channel = gamma.size == x.shape[1] != groups
    x4 = x.reshape(x.shape[0], groups, x.shape[1] // groups, -1)
    return x4, gamma.reshape((1, groups, -1 if per_channel else 1, 1)), per_channel


def _group_forward(groups_of):
    def forward(xp, inputs, attrs):
        x, gamma, beta = inputs
        if x.size == 0:     # NOTE: MXNet runs empty batches and channels (its issue 18933)
            stats = (x.shape[0], groups_of(attrs, x.shape))
            return xp.empty_like(x), xp.zeros(stats, x.dtype), xp.ones(stats, x.dtype)
        groups = groups_of(attrs, x.shape)
        x4, gamma_b, _ = _param_view(x, groups, gamma)
        mean = x4.mean(axis=(2, 3))
        centred = x4 - mean[..., None, None]
        std = xp.sqrt((centred ** 2).mean(axis=(2, 3)) + attrs["eps"])
        out = centred / std[..., None, None] * gamma_b + beta.reshape(gamma_b.shape)
        return out.reshape(x.shape).astype(x.dtype, copy=False), mean, std

    return forward


def _group_backward(groups_of):
    def backward(xp, inputs, attrs):
        dy, x, gamma, mean, std = inputs
        if x.size == 0:
            return xp.empty_like(x), xp.zeros_like(gamma), xp.zeros_like(gamma)
        groups = groups_of(attrs, x.shape)
        x4, gamma_b, per_channel = _param_view(x, groups, gamma)
        xhat = (x4 - mean[..., None, None]) / std[..., None, None]
        dx, dgamma, dbeta = _affine_backward(
            xp, dy.reshape(x4.shape), xhat, 1 / std[..., None, None], gamma_b, (2, 3),
            (0, 3) if per_channel else (0, 2, 3)
        )
        return (
            dx.reshape(x.shape).astype(x.dtype, copy=False),
            dgamma.reshape(gamma.shape).astype(gamma.dtype),
            dbeta.reshape(gamma.shape).astype(gamma.dtype),
        )

    return backward


def _group_infer(op_name, groups_of):
    def infer(attrs, in_shapes):
        data = in_shapes[0]
        if data is None:
            return in_shapes, [None, None, None]
        if len(data) < 2 or data[1] is None:
            raise MXNetValueError(
                f"{op_name}: input 'data' must be (N, C, ...), got shape {tuple(data)}"
            )
        groups = groups_of(attrs, data)
        if data[1] == 0:    # NOTE: no channels: nothing to normalise, parameters unchecked
            return in_shapes, [tuple(data), (data[0], groups), (data[0], groups)]
        if groups < 1 or data[1] % groups:
            raise MXNetValueError(
                f"{op_name}: channels ({data[1]}) must be divisible by num_groups ({groups})"
            )
        # NOTE: MXNet 1.x has a gamma/beta entry per group, 2.0 per channel: a given shape says
        per_channel = any(known(s) and tuple(s) == (data[1],) for s in in_shapes[1:])
        shapes = _fill_params(op_name, ("data", "gamma", "beta"), in_shapes,
                              (data[1],) if per_channel else (groups,))
        return shapes, [tuple(data), (data[0], groups), (data[0], groups)]

    return infer


def _norm_grad(backward_name):
    def gradient(node, out_grads):
        x, gamma = node.inputs[0], node.inputs[1]
        grads = getattr(F, backward_name)(
            out_grads[0], x, gamma, node.outputs[1], node.outputs[2], **node.attrs
        )
        return list(grads)

    return gradient


def _register_norm(name, attrs, forward, backward, infer, visible, npx_name, doc):
    register(
        Op(
            name=name,
            compute=forward,
            attrs=attrs,
            num_inputs=3,
            input_names=("data", "gamma", "beta"),
            num_outputs=3,
            output_names=("output", "mean", "std"),
            num_visible_outputs=visible,
            infer_shape=infer,
            infer_type=_fill_dtypes(3),
            gradient=_norm_grad(f"_backward_{name}"),
            save_inputs=(0, 1),
            save_outputs=(1, 2),
            npx_name=npx_name,
            nd_names=(name,),
            doc=doc,
        )
    )
    register(
        Op(
            name=f"_backward_{name}",
            compute=backward,
            attrs=attrs,
            num_inputs=5,
            input_names=("out_grad", "data", "gamma", "mean", "std"),
            num_outputs=3,
            output_names=("data_grad", "gamma_grad", "beta_grad"),
            infer_shape=lambda a, s: (s, [s[1], s[2], s[2]]),
            infer_type=lambda a, d: (d, [d[1], d[2], d[2]]),
            hidden=True,
            doc=f"Gradients of {name} for data, gamma and beta from the saved mean and std.",
        )
    )


def _num_groups(attrs, shape):
    return attrs["num_groups"]


def _channels(attrs, shape):
    return shape[1]


_register_norm(
    "LayerNorm",
    (Attr("axis", "int", -1), Attr("eps", "float", 1e-5), Attr("output_mean_var", "bool", False)),
    _ln_forward,
    _ln_backward,
    _ln_infer,
    _visible,
    "layer_norm",
    "Normalise over one axis, then scale by gamma and shift by beta (both along that axis).",
)
_register_norm(
    "GroupNorm",
    (
        Attr("num_groups", "int", 1),
        Attr("eps", "float", 1e-5),
        Attr("output_mean_var", "bool", False),
    ),
    _group_forward(_num_groups),
    _group_backward(_num_groups),
    _group_infer("GroupNorm", _num_groups),
    _visible,
    "group_norm",
    "Normalise each group of channels; gamma and beta have one entry per group (MXNet 1.x).",
)
_register_norm(
    "InstanceNorm",
    (Attr("eps", "float", 1e-3),),
    _group_forward(_channels),
    _group_backward(_channels),
    _group_infer("InstanceNorm", _channels),
    1,
    "instance_norm",
    "Normalise each channel of each sample over its spatial positions.",
)
