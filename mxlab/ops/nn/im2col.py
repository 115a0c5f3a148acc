"""``im2col`` / ``col2im``: MXNet's sliding-window unfold and its adjoint, each the other's
gradient.

``im2col(data (N, C, *spatial))`` gives ``(N, C * prod(kernel), L)``, rows ordered channel first
then kernel offset, as MXNet; ``col2im`` adds the columns back into ``(N, C, *output_size)``.

Example
-------
>>> import mxlab as mx
>>> x = mx.nd.arange(16).reshape((1, 1, 4, 4))
>>> mx.nd.im2col(x, kernel=(2, 2), stride=(2, 2)).shape
(1, 4, 4)
"""
import math

from ...base import MXNetValueError
from ..attrs import REQUIRED, Attr
from ..registry import F, Op, register
from ._window import Window, spatial

__all__ = []

_ATTRS = (Attr("kernel", "shape", REQUIRED), Attr("stride", "shape", ()),
          Attr("dilate", "shape", ()), Attr("pad", "shape", ()))


def _window(op_name, attrs, image_shape):
    """The Window of ``attrs`` over an ``(N, C, *spatial)`` image."""
    kernel = tuple(attrs["kernel"])
    ndim = len(kernel)
    if len(image_shape) != ndim + 2:
        raise MXNetValueError(f"{op_name}: a {ndim}-d kernel needs {ndim + 2}-d data "
                              f"(N, C, *spatial), got shape {tuple(image_shape)}")
    stride = spatial(op_name, "stride", attrs["stride"], ndim, 1, minimum=1)
    dilate = spatial(op_name, "dilate", attrs["dilate"], ndim, 1, minimum=1)
    pad = spatial(op_name, "pad", attrs["pad"], ndim, 0)
    out = tuple((size + 2 * p - d * (k - 1) - 1) // s + 1
                for size, k, s, d, p in zip(image_shape[2:], kernel, stride, dilate, pad))
    if any(o <= 0 for o in out):
        raise MXNetValueError(f"{op_name}: kernel {kernel} does not fit the padded input "
                              f"{tuple(image_shape[2:])} (pad {pad}, dilate {dilate})")
    return Window(tuple(image_shape), kernel, stride, dilate, pad, pad, out)


def _cols_shape(win):
    n, c = win.in_shape[:2]
    return (n, c * math.prod(win.kernel), math.prod(win.out))


def _im2col(xp, inputs, attrs):
    x = inputs[0]
    win = _window("im2col", attrs, x.shape)
    padded = xp.zeros(win.padded_shape, dtype=x.dtype)
    padded[win.interior] = x
    return xp.ascontiguousarray(win.windows(xp, padded)).reshape(_cols_shape(win))


def _image_shape(attrs, cols_shape):
    kernel_size = math.prod(attrs["kernel"])
    if cols_shape[1] % kernel_size:
        raise MXNetValueError(f"col2im: input dim 1 ({cols_shape[1]}) is not a multiple of the "
                              f"kernel size {kernel_size}")
    return (cols_shape[0], cols_shape[1] // kernel_size) + tuple(attrs["output_size"])


def _col2im(xp, inputs, attrs):
    cols = inputs[0]
    win = _window("col2im", attrs, _image_shape(attrs, cols.shape))
    if tuple(cols.shape) != _cols_shape(win):
        raise MXNetValueError(f"col2im: input shape {tuple(cols.shape)} does not match "
                              f"{_cols_shape(win)} for output_size {tuple(attrs['output_size'])}")
    n, c = win.in_shape[:2]
    pieces = cols.reshape((n, c, math.prod(win.kernel)) + win.out)
    padded = xp.zeros(win.padded_shape, dtype=cols.dtype)
    for k, index in enumerate(win.offsets()):
        padded[index] += pieces[:, :, k]
    return padded[win.interior].copy()


def _im2col_infer(attrs, in_shapes):
    if in_shapes[0] is None or None in in_shapes[0]:
        return [None]
    return [_cols_shape(_window("im2col", attrs, in_shapes[0]))]


def _col2im_infer(attrs, in_shapes):
    if in_shapes[0] is None or None in in_shapes[0]:
        return [None]
    return [_image_shape(attrs, in_shapes[0])]


def _conv_attrs(node):
    return {k: node.attrs[k] for k in ("kernel", "stride", "dilate", "pad")}


register(Op(name="im2col", compute=_im2col, attrs=_ATTRS, input_names=("data",),
            infer_shape=_im2col_infer, save_outputs=False,
            gradient=lambda node, g: [F._col2im_like(g[0], node.inputs[0],
                                                     **_conv_attrs(node))],
            doc="Unfold sliding windows into columns (MXNet's ``im2col``)."))
register(Op(name="col2im", compute=_col2im, input_names=("data",),
            attrs=(Attr("output_size", "shape", REQUIRED),) + _ATTRS,
            infer_shape=_col2im_infer, save_outputs=False, save_inputs=False,
            gradient=lambda node, g: [F.im2col(g[0], **_conv_attrs(node))],
            doc="Add columns back into an image, summing overlaps (MXNet's ``col2im``)."))


def _col2im_like_compute(xp, inputs, attrs):
    attrs = dict(attrs, output_size=inputs[1].shape[2:])
    return _col2im(xp, inputs[:1], attrs)


# NOTE: im2col's gradient: col2im to the size of im2col's input, read when it runs
register(Op(name="_col2im_like", compute=_col2im_like_compute, attrs=_ATTRS, num_inputs=2,
            input_names=("data", "like"), infer_shape=lambda attrs, s: [s[1]],
            ignore_inputs=(1,), hidden=True, save_outputs=False,
            gradient=lambda node, g: [F.im2col(g[0], **_conv_attrs(node)), None],
            doc="col2im back to the shape of ``like`` (the gradient of im2col)."))
