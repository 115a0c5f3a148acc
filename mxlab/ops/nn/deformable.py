"""Deformable convolution, 2-D (``contrib.DeformableConvolution`` / ``npx.deformable_convolution``)
and its modulated form (``contrib.ModulatedDeformableConvolution`` /
``npx.modulated_deformable_convolution``, "DCNv2").

Each kernel tap of each output position samples the input at its regular place plus a learned
``offset`` (bilinear interpolation; corners outside the image read 0), times ``mask`` when
modulated; the samples are then multiplied with ``weight`` as a convolution's columns. Layouts:
``offset`` is ``(N, dg * kh * kw * 2, Ho, Wo)`` with (dy, dx) pairs per tap, ``mask`` is
``(N, dg * kh * kw, Ho, Wo)``, with ``dg = num_deformable_group`` groups of input channels.
"""
import numpy

from ...base import MXNetValueError
from ..attrs import REQUIRED, Attr
from ..registry import F, Op, register

__all__ = []

_ATTRS = (Attr("kernel", "shape", REQUIRED), Attr("stride", "shape", ()),
          Attr("dilate", "shape", ()), Attr("pad", "shape", ()),
          Attr("num_filter", "int", REQUIRED, check=(lambda v: v > 0, "must be positive")),
          Attr("num_group", "int", 1, check=(lambda v: v > 0, "must be positive")),
          Attr("num_deformable_group", "int", 1, check=(lambda v: v > 0, "must be positive")),
          Attr("no_bias", "bool", False), Attr("layout", "str", None, optional=True,
                                                 choices=("NCHW",)))
_IGNORED = ("workspace", "cudnn_tune", "cudnn_off")


def _geometry(name, attrs, data_shape):
    kernel = tuple(attrs["kernel"])
    if len(kernel) != 2 or len(data_shape) != 4:
        raise MXNetValueError(f"{name}: only 2-D (NCHW data, 2 kernel dims) is supported, got "
                              f"kernel {kernel} and data of shape {data_shape}")
    stride = tuple(attrs["stride"]) or (1, 1)
    dilate = tuple(attrs["dilate"]) or (1, 1)
    pad = tuple(attrs["pad"]) or (0, 0)
    out = tuple((data_shape[2 + i] + 2 * pad[i] - dilate[i] * (kernel[i] - 1) - 1) // stride[i] + 1
                for i in range(2))
    return kernel, stride, dilate, pad, out


def _input_names(modulated):
    def names(attrs):
        head = ("data", "offset", "mask") if modulated else ("data", "offset")
        return head + (("weight",) if attrs["no_bias"] else ("weight", "bias"))
    return names


def _infer_shape(name, modulated):
    def infer(attrs, shapes):
        data = shapes[0]
        if data is None:
            return shapes, [None]
        kernel, _, _, _, out = _geometry(name, attrs, data)
        n, c = data[0], data[1]
        taps, dg = kernel[0] * kernel[1], attrs["num_deformable_group"]
        if c % attrs["num_group"] or c % dg:
            raise MXNetValueError(f"{name}: {c} input channels do not split into num_group="
                                  f"{attrs['num_group']} and num_deformable_group={dg}")
        known = [data, (n, dg * taps * 2) + out]
        if modulated:
            known.append((n, dg * taps) + out)
        known.append((attrs["num_filter"], c // attrs["num_group"]) + kernel)
        if not attrs["no_bias"]:
            known.append((attrs["num_filter"],))
        return known, [(n, attrs["num_filter"]) + out]
    return infer


def _sample(xp, name, attrs, data, offset, mask):
    """The sampling state: columns ``(N, C, K, L)`` (K taps, L output positions) and what the
    backward pass needs."""
    kernel, stride, dilate, pad, out = _geometry(name, attrs, data.shape)
    n, c, h, w = data.shape
    dg, taps, length = attrs["num_deformable_group"], kernel[0] * kernel[1], out[0] * out[1]
    ki, kj = numpy.meshgrid(numpy.arange(kernel[0]), numpy.arange(kernel[1]), indexing="ij")
    oi, oj = numpy.meshgrid(numpy.arange(out[0]), numpy.arange(out[1]), indexing="ij")
    base_h = (oi.reshape(1, -1) * stride[0] - pad[0] + ki.reshape(-1, 1) * dilate[0])
    base_w = (oj.reshape(1, -1) * stride[1] - pad[1] + kj.reshape(-1, 1) * dilate[1])
    for label, given, per_tap in (("offset", offset, 2), ("mask", mask, 1)):
        if given is not None and tuple(given.shape) != (n, dg * taps * per_tap) + out:
            raise MXNetValueError(f"{name}: input '{label}' has shape {tuple(given.shape)} but "
                                  f"{(n, dg * taps * per_tap) + out} is expected")
    off = offset.reshape(n, dg, taps, 2, length).astype(numpy.float64)
    ph = xp.asarray(base_h, dtype=numpy.float64) + off[:, :, :, 0]     # (N, dg, K, L)
    pw = xp.asarray(base_w, dtype=numpy.float64) + off[:, :, :, 1]
    if mask is None:   # DCNv1 (MXNet's CPU kernel): inside [0, H) x [0, W), clamped at the far edge
        inside = (ph >= 0) & (ph < h) & (pw >= 0) & (pw < w)
        ph, pw = xp.minimum(ph, h - 1), xp.minimum(pw, w - 1)
    else:              # DCNv2: inside (-1, H) x (-1, W), corners outside the image read 0
        inside = (ph > -1) & (ph < h) & (pw > -1) & (pw < w)
    h0, w0 = xp.floor(ph), xp.floor(pw)
    lh, lw = ph - h0, pw - w0
    h0, w0 = h0.astype(numpy.int64), w0.astype(numpy.int64)
    flat = data.reshape(n, dg, c // dg, h * w).astype(numpy.float64)
    corners = []
    for dh, dw, weight in ((0, 0, (1 - lh) * (1 - lw)), (0, 1, (1 - lh) * lw),
                           (1, 0, lh * (1 - lw)), (1, 1, lh * lw)):
        hi, wi = h0 + dh, w0 + dw
        if mask is None:
            hi, wi = xp.minimum(hi, h - 1), xp.minimum(wi, w - 1)
        valid = inside & (hi >= 0) & (hi < h) & (wi >= 0) & (wi < w)
        index = xp.where(valid, hi * w + wi, 0).reshape(n, dg, 1, taps * length)
        values = xp.take_along_axis(flat, index, axis=3).reshape(n, dg, c // dg, taps, length)
        values = values * valid[:, :, None]
        corners.append((index, valid, weight, values))
    sampled = sum(wt[:, :, None] * v for _, _, wt, v in corners)           # (N, dg, Cg, K, L)
    modulation = None if mask is None else \
        mask.reshape(n, dg, 1, taps, length).astype(numpy.float64)
    cols = sampled if modulation is None else sampled * modulation
    state = dict(shape=(n, c, h, w), dg=dg, taps=taps, length=length, out=out, lh=lh, lw=lw,
                 inside=inside,
                 corners=corners, sampled=sampled, modulation=modulation)
    return cols.reshape(n, c, taps, length), state


def _group_matmul(attrs, cols, weight):
    n, c, taps, length = cols.shape
    g, f = attrs["num_group"], weight.shape[0]
    return numpy.einsum("ngfk,ngkl->ngfl", weight.reshape(1, g, f // g, -1).astype(cols.dtype),
                        cols.reshape(n, g, (c // g) * taps, length)).reshape(n, f, length)


def _forward(name, modulated):
    def compute(xp, inputs, attrs):
        data, offset = inputs[0], inputs[1]
        mask = inputs[2] if modulated else None
        weight = inputs[3 if modulated else 2]
        cols, state = _sample(xp, name, attrs, data, offset, mask)
        out = _group_matmul(attrs, cols, weight)
        if not attrs["no_bias"]:
            out = out + inputs[-1].reshape(1, -1, 1).astype(out.dtype)
        return out.reshape(out.shape[:2] + state["out"]).astype(data.dtype)
    return compute


def _backward(name, modulated):
    def compute(xp, inputs, attrs):
        dy, data, offset = inputs[0], inputs[1], inputs[2]
        mask = inputs[3] if modulated else None
        weight = inputs[-1]
        cols, s = _sample(xp, name, attrs, data, offset, mask)
        n, c, h, w = s["shape"]
        dg, taps, length, g = s["dg"], s["taps"], s["length"], attrs["num_group"]
        f = weight.shape[0]
        dy = dy.reshape(n, g, f // g, length).astype(numpy.float64)
        w_g = weight.reshape(g, f // g, -1).astype(numpy.float64)
        dweight = numpy.einsum("ngfl,ngkl->gfk", dy, cols.reshape(n, g, -1, length))
        dcols = numpy.einsum("gfk,ngfl->ngkl", w_g, dy).reshape(n, dg, c // dg, taps, length)
        grads = []
        dsampled = dcols if s["modulation"] is None else dcols * s["modulation"]
        ddata = numpy.zeros((n * dg * (c // dg), h * w))
        rows = numpy.arange(n * dg * (c // dg)).reshape(n, dg, c // dg, 1)
        lh, lw = s["lh"], s["lw"]
        dpos_h = dpos_w = 0
        for (index, valid, weight_c, values), sign_h, sign_w, other_h, other_w in zip(
                s["corners"], (-1, -1, 1, 1), (-1, 1, -1, 1),
                (1 - lw, lw, 1 - lw, lw), (1 - lh, 1 - lh, lh, lh)):
            contribution = (dsampled * (weight_c * valid)[:, :, None]).reshape(n, dg, c // dg, -1)
            cells = numpy.broadcast_to(index, contribution.shape)
            numpy.add.at(ddata, (numpy.broadcast_to(rows, cells.shape), cells), contribution)
            dpos_h = dpos_h + sign_h * other_h[:, :, None] * values
            dpos_w = dpos_w + sign_w * other_w[:, :, None] * values
        grads.append(ddata.reshape(n, c, h, w).astype(data.dtype))
        inside = s["inside"]
        doff_h = (dsampled * dpos_h).sum(axis=2)
        doff_w = (dsampled * dpos_w).sum(axis=2)
        doffset = numpy.stack([doff_h, doff_w], axis=3) * inside[:, :, :, None]
        grads.append(doffset.reshape(offset.shape).astype(offset.dtype))
        if modulated:
            dmask = (dcols * s["sampled"]).sum(axis=2)
            grads.append(dmask.reshape(mask.shape).astype(mask.dtype))
        grads.append(dweight.reshape(weight.shape).astype(weight.dtype))
        if not attrs["no_bias"]:
            grads.append(dy.sum(axis=(0, 3)).reshape(f).astype(weight.dtype))
        return tuple(grads)
    return compute


def _same_dtype(n_out):
    def infer(attrs, dtypes):
        dtype = next((d for d in dtypes if d is not None), None)
        return [dtype] * len(dtypes), [dtype] * n_out(attrs)
    return infer


def _register(name, npx_name, modulated, doc):
    n_data = 3 if modulated else 2
    n_grads = lambda a: n_data + (1 if a["no_bias"] else 2)   # noqa: E731
    backward = f"_backward_contrib_{name}"
    register(Op(name=f"_contrib_{name}", aliases=(f"_npx_{npx_name}",), npx_name=npx_name,
                compute=_forward(name, modulated), attrs=_ATTRS, ignored_attrs=_IGNORED,
                num_inputs=n_grads, input_names=_input_names(modulated),
                infer_shape=_infer_shape(name, modulated), infer_type=_same_dtype(lambda a: 1),
                save_outputs=False,
                gradient=lambda node, g: list(getattr(F, backward)(
                    g[0], *node.inputs[:n_data + 1], **node.attrs)),
                doc=doc))
    register(Op(name=backward, compute=_backward(name, modulated),
                attrs=_ATTRS, ignored_attrs=_IGNORED, hidden=True, num_inputs=n_data + 2,
                input_names=("out_grad",) + _input_names(modulated)({"no_bias": True}),
                num_outputs=n_grads,
                output_names=lambda a: tuple(f"{x}_grad" for x in _input_names(modulated)(a)),
                infer_shape=lambda attrs, s: (s, s[1:] + (
                    [] if attrs["no_bias"] else [(attrs["num_filter"],)])),
                infer_type=_same_dtype(n_grads),
                doc=f"Gradients of {name} for its data, offset, mask, weight and bias."))


_register("DeformableConvolution", "deformable_convolution", False,
          "Convolution sampling each kernel tap at its place plus a learned offset (2-D).")
_register("ModulatedDeformableConvolution", "modulated_deformable_convolution", True,
          "Deformable convolution whose samples are also scaled by a learned mask (DCNv2, 2-D).")
