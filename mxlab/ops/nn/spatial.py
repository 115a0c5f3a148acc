"""Spatial transformer ops: GridGenerator, BilinearSampler and SpatialTransformer (MXNet's).

A sampling grid holds, per output pixel, the source position in normalised coordinates: channel 0
is x, channel 1 is y, -1 the first pixel and +1 the last (MXNet's convention:
``x_src = (x + 1) * (W - 1) / 2``). BilinearSampler reads the four neighbours of each position with
bilinear weights; neighbours outside the image read 0. Gradients follow MXNet's kernels: the data
gradient scatters the weighted output gradient back to the four neighbours, the grid gradient is
the derivative of the interpolation (``bilinear_sampler.cc``).

Example
-------
>>> import numpy
>>> from mxlab.ops.registry import get_op
>>> image = numpy.arange(4, dtype="float32").reshape(1, 1, 2, 2)
>>> identity = get_op("GridGenerator").parse_attrs(
...     {"transform_type": "affine", "target_shape": (2, 2)})
>>> grid = get_op("GridGenerator").forward(
...     numpy, [numpy.array([[1, 0, 0, 0, 1, 0]], "float32")], identity)[0]
>>> get_op("BilinearSampler").forward(numpy, [image, grid], {})[0][0, 0]
array([[0., 1.],
       [2., 3.]], dtype=float32)
"""
from ...base import MXNetValueError
from ..attrs import Attr
from ..infer import known
from ..registry import F, Op, register
from .misc import _scatter_add

__all__ = []


# -- grids ----------------------------------------------------------------------------------------
def _affine_base(xp, height, width, dtype):
    """(3, H*W) target coordinates ``[x; y; 1]``, normalised to [-1, 1] (MXNet's ``grid_dst``)."""
    cols = xp.arange(height * width) % width
    rows = xp.arange(height * width) // width
    x = -1.0 + cols * (2.0 / (width - 1)) if width > 1 else xp.full(cols.shape, -1.0)
    y = -1.0 + rows * (2.0 / (height - 1)) if height > 1 else xp.full(rows.shape, -1.0)
    return xp.stack([x, y, xp.ones(height * width)]).astype(dtype)


def _half_extent(xp, height, width, dtype):
    """Pixels per normalised unit, per channel (x, y), shaped to broadcast over (N, 2, H, W)."""
    return xp.asarray([(width - 1) / 2.0, (height - 1) / 2.0], dtype=dtype).reshape(1, 2, 1, 1)


def _grid_forward(xp, inputs, attrs):
    data = inputs[0]
    _grid_infer(attrs, [data.shape])        # NOTE: imperative calls infer no shapes first
    if attrs["transform_type"] == "affine":
        height, width = attrs["target_shape"]
        base = _affine_base(xp, height, width, data.dtype)
        return (data.reshape(-1, 2, 3) @ base).reshape(data.shape[0], 2, height, width)
    _, _, height, width = data.shape
    pixels = xp.stack(xp.meshgrid(xp.arange(width), xp.arange(height))).astype(data.dtype)
    return (data + pixels[None]) / _half_extent(xp, height, width, data.dtype) - 1


def _grid_backward(xp, inputs, attrs):
    out_grad = inputs[0]
    n, _, height, width = out_grad.shape
    if attrs["transform_type"] == "affine":
        base = _affine_base(xp, height, width, out_grad.dtype)
        return (out_grad.reshape(n, 2, -1) @ base.T).reshape(n, 6)
    return out_grad / _half_extent(xp, height, width, out_grad.dtype)


def _grid_infer(attrs, in_shapes):
    data = in_shapes[0]
    if attrs["transform_type"] == "affine":
        height, width = attrs["target_shape"]
        if height <= 0 or width <= 0:
            raise MXNetValueError(f"GridGenerator: affine needs a positive target_shape (H, W), "
                                  f"got {attrs['target_shape']}")
        if known(data) and (len(data) != 2 or data[1] != 6):
            raise MXNetValueError(f"GridGenerator: affine data must be (batch, 6), got "
                                  f"{tuple(data)}")
        batch = data[0] if data is not None else None
        return [data], [None if batch is None else (batch, 2, height, width)]
    if known(data) and (len(data) != 4 or data[1] != 2):
        raise MXNetValueError(f"GridGenerator: warp data must be a flow (batch, 2, H, W), got "
                              f"{tuple(data)}")
    return [data], [data]


_GRID_ATTRS = (
    Attr("transform_type", "str", "affine", choices=("affine", "warp")),
    Attr("target_shape", "shape", (0, 0)),
)

register(Op(
    name="GridGenerator",
    compute=_grid_forward,
    attrs=_GRID_ATTRS,
    infer_shape=_grid_infer,
    gradient=lambda node, g: [F._backward_GridGenerator(g[0], **node.attrs)],
    save_inputs=False,
    save_outputs=False,
    nd_names=("GridGenerator",),
    doc="A sampling grid from an affine matrix (batch, 6) or an optical flow (batch, 2, H, W).",
))
register(Op(
    name="_backward_GridGenerator",
    compute=_grid_backward,
    attrs=_GRID_ATTRS,
    input_names=("out_grad",),
    infer_shape=lambda a, s: (s, [None if s[0] is None else
                                  ((s[0][0], 6) if a["transform_type"] == "affine" else s[0])]),
    hidden=True,
    doc="Gradient of GridGenerator with respect to its affine matrix or flow.",
))


# -- bilinear sampling ----------------------------------------------------------------------------
_CORNERS = ((0, 0), (0, 1), (1, 0), (1, 1))   # (dy, dx) from the top-left neighbour


def _neighbours(xp, data, grid):
    """Per corner: (flat row index into an (N*H*W, C) view, in-bounds mask, bilinear weight), and
    the top-left weights (wy, wx), each (N, Ho, Wo)."""
    n, _, height, width = data.shape
    x = (grid[:, 0] + 1) * (width - 1) / 2
    y = (grid[:, 1] + 1) * (height - 1) / 2
    x0, y0 = xp.floor(x), xp.floor(y)
    wx, wy = 1 - (x - x0), 1 - (y - y0)
    x0, y0 = x0.astype("int64"), y0.astype("int64")
    batch = xp.arange(n).reshape(n, 1, 1)
    corners = []
    for dy, dx in _CORNERS:
        yi, xi = y0 + dy, x0 + dx
        inside = (xi >= 0) & (xi < width) & (yi >= 0) & (yi < height)
        row = (batch * height + xp.clip(yi, 0, height - 1)) * width + xp.clip(xi, 0, width - 1)
        weight = (wy if dy == 0 else 1 - wy) * (wx if dx == 0 else 1 - wx)
        corners.append((row, inside, weight))
    return corners, wy, wx


def _rows(data):
    """``data`` (N, C, H, W) as an (N*H*W, C) table, one row per pixel."""
    n, c, height, width = data.shape
    return data.transpose(0, 2, 3, 1).reshape(n * height * width, c)


def _corner_values(xp, table, row, inside):
    """(N, C, Ho, Wo) values of one corner; 0 where the corner is outside the image."""
    values = table[row] * inside[..., None]
    return values.transpose(0, 3, 1, 2)


def _sampler_forward(xp, inputs, attrs):
    data, grid = inputs
    _sampler_infer(attrs, [data.shape, grid.shape])
    corners, _, _ = _neighbours(xp, data, grid)
    table = _rows(data)
    out = 0
    for row, inside, weight in corners:
        out = out + _corner_values(xp, table, row, inside) * weight[:, None]
    return out.astype(data.dtype, copy=False)


def _sampler_backward(xp, inputs, attrs):
    out_grad, data, grid = inputs
    n, c, height, width = data.shape
    corners, wy, wx = _neighbours(xp, data, grid)
    table = _rows(data)
    data_grad = xp.zeros((n * height * width, c), dtype=data.dtype)
    grad_rows = out_grad.transpose(0, 2, 3, 1)                     # (N, Ho, Wo, C)
    values = []
    for row, inside, weight in corners:
        _scatter_add(xp, data_grad, row[inside], (grad_rows * weight[..., None])[inside])
        values.append(_corner_values(xp, table, row, inside))
    tl, tr, bl, br = values
    mixed = tl - tr - bl + br
    gy = -(out_grad * (tr - br + mixed * wx[:, None])).sum(axis=1)
    gx = -(out_grad * (bl - br + mixed * wy[:, None])).sum(axis=1)
    grid_grad = xp.stack([gx * (width - 1) / 2, gy * (height - 1) / 2], axis=1)
    data_grad = data_grad.reshape(n, height, width, c).transpose(0, 3, 1, 2)
    return xp.ascontiguousarray(data_grad), grid_grad.astype(grid.dtype, copy=False)


def _sampler_infer(attrs, in_shapes):
    data, grid = in_shapes
    if known(data) and len(data) != 4:
        raise MXNetValueError(f"BilinearSampler: data must be (batch, C, H, W), got {tuple(data)}")
    if known(grid) and (len(grid) != 4 or grid[1] != 2):
        raise MXNetValueError(f"BilinearSampler: grid must be (batch, 2, H, W), got {tuple(grid)}")
    if known(data) and known(grid) and data[0] != grid[0]:
        raise MXNetValueError(f"BilinearSampler: data batch {data[0]} != grid batch {grid[0]}")
    if not (known(data) and known(grid)):
        return [data, grid], [None]
    return [data, grid], [(data[0], data[1], grid[2], grid[3])]


def _sampler_gradient(node, out_grads):
    return list(F._backward_BilinearSampler(out_grads[0], *node.inputs))


register(Op(
    name="BilinearSampler",
    compute=_sampler_forward,
    num_inputs=2,
    input_names=("data", "grid"),
    infer_shape=_sampler_infer,
    gradient=_sampler_gradient,
    save_outputs=False,
    ignored_attrs=("cudnn_off",),
    nd_names=("BilinearSampler",),
    doc="Sample data (N, C, H, W) at the grid's normalised positions with bilinear weights.",
))
register(Op(
    name="_backward_BilinearSampler",
    compute=_sampler_backward,
    num_inputs=3,
    input_names=("out_grad", "data", "grid"),
    num_outputs=2,
    infer_shape=lambda a, s: (s, [s[1], s[2]]),
    infer_type=lambda a, d: (d, [d[1], d[2]]),
    hidden=True,
    doc="Gradients of BilinearSampler with respect to data and grid.",
))


# -- spatial transformer --------------------------------------------------------------------------
def _transformer_forward(xp, inputs, attrs):
    data, loc = inputs
    _transformer_infer(attrs, [data.shape, loc.shape])
    grid = _grid_forward(xp, [loc], {"transform_type": "affine",
                                      "target_shape": attrs["target_shape"]})
    return _sampler_forward(xp, [data, grid], {})


def _transformer_infer(attrs, in_shapes):
    data, loc = in_shapes
    height, width = attrs["target_shape"]
    if height <= 0 or width <= 0:
        raise MXNetValueError(f"SpatialTransformer: target_shape must be positive (H, W), got "
                              f"{attrs['target_shape']}")
    batch = data[0] if data is not None else (loc[0] if loc is not None else None)
    loc = loc if loc is not None or batch is None else (batch, 6)
    out = None if data is None else (data[0], data[1], height, width)
    return [data, loc], [out]


def _transformer_gradient(node, out_grads):
    data, loc = node.inputs
    shape = node.attrs["target_shape"]
    grid = F.GridGenerator(loc, transform_type="affine", target_shape=shape)
    data_grad, grid_grad = F._backward_BilinearSampler(out_grads[0], data, grid)
    loc_grad = F._backward_GridGenerator(grid_grad, transform_type="affine", target_shape=shape)
    return [data_grad, loc_grad]


register(Op(
    name="SpatialTransformer",
    compute=_transformer_forward,
    attrs=(Attr("target_shape", "shape", (0, 0)),
           Attr("transform_type", "str", "affine", choices=("affine",)),
           Attr("sampler_type", "str", "bilinear", choices=("bilinear",))),
    num_inputs=2,
    input_names=("data", "loc"),
    infer_shape=_transformer_infer,
    gradient=_transformer_gradient,
    save_outputs=False,
    ignored_attrs=("cudnn_off",),
    nd_names=("SpatialTransformer",),
    doc="Warp data with the affine grid of loc (batch, 6), sampled bilinearly (Jaderberg 2015).",
))
