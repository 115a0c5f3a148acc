"""``gluon.data.vision.transforms``: MXNet's image transforms as Blocks.

``ToTensor`` and ``Normalize`` are HybridBlocks over the ``_image_*`` ops (they hybridize, as
MXNet's); the others run on the host with the NumPy kernels of :mod:`mxlab.ops.image_kernels`
(data loading is CPU work, and worker processes run them in parallel). All return arrays of the
input's flavour (``mx.nd`` or ``mx.np``). Inputs are HWC images (or NHWC batches); ``ToTensor``
turns them into CHW float32. Random transforms draw from Python's ``random`` module, as
``mx.image`` does (the rotations from NumPy's, as MXNet's).
"""
import random

import numpy

from ....base import MXNetTypeError, MXNetValueError
from ....image import image as _image
from ....ops import image_kernels as kernels
from ...block import Block, HybridBlock
from ...nn import HybridSequential, Sequential

__all__ = ["Compose", "HybridCompose", "Cast", "RandomApply", "HybridRandomApply", "ToTensor",
           "Normalize", "Rotate", "RandomRotation", "RandomResizedCrop", "CropResize",
           "RandomCrop", "CenterCrop", "Resize", "RandomFlipLeftRight", "RandomFlipTopBottom",
           "RandomBrightness", "RandomContrast", "RandomSaturation", "RandomHue",
           "RandomColorJitter", "RandomLighting", "RandomGray"]


def _pair(size):
    return (size, size) if isinstance(size, int) else tuple(size)


def _check_size(who, size):
    """``size``: a positive int or one / two positive ints (MXNet's image.resize rule)."""
    sizes = (size,) if isinstance(size, int) else tuple(size)
    if len(sizes) not in (1, 2) or min(sizes) <= 0:
        raise MXNetValueError(f"{who}: size must be w or (w, h) with w, h > 0, got {size}")
    return sizes * 2 if len(sizes) == 1 else sizes


class _ImageTransform(Block):
    """A transform computed on the host: ``apply(values)`` maps NumPy values to NumPy values;
    the result is wrapped like the input."""

    def forward(self, x):
        values, wrap = _image._host(x)
        return wrap(self.apply(values))

    def apply(self, values):
        raise NotImplementedError


class Compose(Sequential):
    """Apply ``transforms`` in order."""

    def __init__(self, transforms):
        super().__init__()
        self.add(*transforms)


class HybridCompose(HybridSequential):
    """Apply ``transforms`` (HybridBlocks) in order."""

    def __init__(self, transforms):
        super().__init__()
        self.add(*transforms)


class Cast(_ImageTransform):
    """Cast to ``dtype``."""

    def __init__(self, dtype="float32"):
        super().__init__()
        self._dtype = numpy.dtype(dtype)

    def apply(self, values):
        return values.astype(self._dtype)


class RandomApply(Sequential):
    """Apply ``transforms`` with probability ``p``."""

    def __init__(self, transforms, p=0.5):
        super().__init__()
        self.transforms, self.p = transforms, p

    def forward(self, x):
        return self.transforms(x) if random.random() < self.p else x


HybridRandomApply = RandomApply


def _image_ops(x):
    """``mx.npx.image`` for ``mx.np`` arrays, else ``mx.nd.image`` (the same ``_image_*`` ops)."""
    from .... import ndarray, numpy_extension
    from ....ndarray.ndarray import ndarray as np_ndarray

    return numpy_extension.image if isinstance(x, np_ndarray) else ndarray.image


class ToTensor(HybridBlock):
    """(H, W, C) uint8 in [0, 255] -> (C, H, W) float32 in [0, 1] (batches: NHWC -> NCHW); the
    ``_image_to_tensor`` op, so it hybridizes (MXNet's)."""

    def forward(self, x):
        return _image_ops(x).to_tensor(x)


class Normalize(HybridBlock):
    """``(x - mean) / std`` per channel of a (C, H, W) or (N, C, H, W) tensor (the
    ``_image_normalize`` op; one value or one per channel)."""

    def __init__(self, mean=0.0, std=1.0):
        super().__init__()
        self._mean, self._std = mean, std

    def forward(self, x):
        return _image_ops(x).normalize(x, mean=self._mean, std=self._std)


class Rotate(Block):
    """Rotate float32 CHW images (NCHW batches) by ``rotation_degrees`` (``mx.image.imrotate``)."""

    def __init__(self, rotation_degrees, zoom_in=False, zoom_out=False):
        super().__init__()
        self._args = (rotation_degrees, zoom_in, zoom_out)

    def forward(self, x):
        if numpy.dtype(x.dtype) != numpy.float32:
            raise MXNetTypeError("Rotate only supports float32 images; call it after ToTensor")
        return _image.imrotate(x, *self._args)


class RandomRotation(Block):
    """Rotate by an angle drawn from ``angle_limits`` (degrees), with probability
    ``rotate_with_proba`` (``mx.image.random_rotate``)."""

    def __init__(self, angle_limits, zoom_in=False, zoom_out=False, rotate_with_proba=1.0):
        super().__init__()
        lower, upper = angle_limits
        if lower >= upper:
            raise MXNetValueError(f"RandomRotation: angle_limits {angle_limits} must be "
                                  f"(lower, upper) with lower < upper")
        if not 0 <= rotate_with_proba <= 1:
            raise MXNetValueError(f"RandomRotation: rotate_with_proba must be in [0, 1], got "
                                  f"{rotate_with_proba}")
        self._args, self._proba = (angle_limits, zoom_in, zoom_out), rotate_with_proba

    def forward(self, x):
        if numpy.random.random() > self._proba:
            return x
        if numpy.dtype(x.dtype) != numpy.float32:
            raise MXNetTypeError("RandomRotation only supports float32 images; call it after "
                                 "ToTensor")
        return _image.random_rotate(x, *self._args)


class _PerImage(_ImageTransform):
    """Applies ``apply_one`` to an image or to each image of a batch."""

    def apply(self, values):
        if values.ndim == 4:
            return numpy.stack([self.apply_one(v) for v in values])
        return self.apply_one(values)


class Resize(_PerImage):
    """Resize to ``size`` (w, h); an int with ``keep_ratio`` sets the shorter side."""

    def __init__(self, size, keep_ratio=False, interpolation=1):
        super().__init__()
        self._size, self._keep, self._interp = size, keep_ratio, interpolation

    def apply_one(self, img):
        new_w, new_h = _check_size("Resize", self._size)
        h, w = img.shape[:2]
        if isinstance(self._size, int) and self._keep:
            new_w, new_h = (self._size, self._size * h // w) if h > w else \
                (self._size * w // h, self._size)
        return kernels.resize(img, new_w, new_h, self._interp)


class CropResize(_PerImage):
    """Crop the (width, height) box at (x, y), then resize to ``size`` if given."""

    def __init__(self, x, y, width, height, size=None, interpolation=None):
        super().__init__()
        self._box, self._size = (x, y, width, height), size
        self._interp = 1 if interpolation is None else interpolation

    def apply_one(self, img):
        x, y, w, h = self._box
        if w <= 0 or h <= 0 or x < 0 or y < 0 or x + w > img.shape[1] or y + h > img.shape[0]:
            raise MXNetValueError(f"CropResize: the box (x={x}, y={y}, width={w}, height={h}) "
                                  f"must be non-empty and inside the {img.shape[1]}x"
                                  f"{img.shape[0]} image")
        out = img[y:y + h, x:x + w]
        if self._size is None:
            return out
        return kernels.resize(out, *_check_size("CropResize", self._size), self._interp)


class _CropWith(_PerImage):
    """Shared by the crops that call an ``mx.image`` crop function on the host values."""

    def apply_one(self, img):
        out = self.crop(img)
        return out[0] if isinstance(out, tuple) else out


class CenterCrop(_CropWith):
    """The centred crop of ``size`` (w, h), resized up if the image is smaller."""

    def __init__(self, size, interpolation=1):
        super().__init__()
        self._size, self._interp = _pair(size), interpolation

    def crop(self, img):
        return _image.center_crop(img, self._size, self._interp)


class RandomCrop(_CropWith):
    """A random crop of ``size`` after optional zero padding ``pad`` on every side."""

    def __init__(self, size, pad=None, pad_value=0, interpolation=1):
        super().__init__()
        self._size, self._pad, self._value, self._interp = _pair(size), pad, pad_value, \
            interpolation

    def crop(self, img):
        if self._pad:
            pad = ((self._pad, self._pad),) * 2 + ((0, 0),) * (img.ndim - 2)
            img = numpy.pad(img, pad, constant_values=self._value)
        return _image.random_crop(img, self._size, self._interp)


class RandomResizedCrop(_CropWith):
    """A crop of random area fraction ``scale`` and aspect ``ratio``, resized to ``size``."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), interpolation=1):
        super().__init__()
        self._args = (_pair(size), scale, ratio, interpolation)

    def crop(self, img):
        return _image.random_size_crop(img, *self._args)


class _RandomFlip(_ImageTransform):
    axis = None

    def __init__(self, p=0.5):
        super().__init__()
        self._p = p

    def apply(self, values):
        axis = self.axis + (1 if values.ndim == 4 else 0)
        return numpy.flip(values, axis).copy() if random.random() < self._p else values


class RandomFlipLeftRight(_RandomFlip):
    """Mirror horizontally with probability ``p``."""

    axis = 1


class RandomFlipTopBottom(_RandomFlip):
    """Flip vertically with probability ``p``."""

    axis = 0


class _Jitter(_PerImage):
    """A colour adjustment by a factor drawn uniformly from ``[1 - amount, 1 + amount]``."""

    def __init__(self, amount):
        super().__init__()
        self._amount = amount

    def apply_one(self, img):
        alpha = 1.0 + random.uniform(-self._amount, self._amount)
        return kernels._like(self.adjust(img, alpha), img.dtype)


class RandomBrightness(_Jitter):
    """Scale intensities by ``1 + U(-brightness, brightness)``."""

    adjust = staticmethod(kernels.adjust_brightness)


class RandomContrast(_Jitter):
    """Blend with the mean grey level."""

    adjust = staticmethod(kernels.adjust_contrast)


class RandomSaturation(_Jitter):
    """Blend with the grey image."""

    adjust = staticmethod(kernels.adjust_saturation)


class RandomHue(_PerImage):
    """Rotate the hue by ``U(-hue, hue)`` of a half turn (YIQ space)."""

    def __init__(self, hue):
        super().__init__()
        self._hue = hue

    def apply_one(self, img):
        return kernels._like(kernels.adjust_hue(img, random.uniform(-self._hue, self._hue)),
                             img.dtype)


class RandomColorJitter(_PerImage):
    """Brightness, contrast, saturation and hue jitter, in a random order."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        super().__init__()
        self._steps = [step(amount) for amount, step in
                       ((brightness, RandomBrightness), (contrast, RandomContrast),
                        (saturation, RandomSaturation), (hue, RandomHue)) if amount]

    def apply_one(self, img):
        for step in random.sample(self._steps, len(self._steps)):
            img = step.apply_one(img)
        return img


class RandomLighting(_PerImage):
    """AlexNet-style PCA lighting noise with ImageNet's eigenvectors, strength ``alpha``."""

    _eigval = numpy.array([55.46, 4.794, 1.148], dtype=numpy.float32)
    _eigvec = numpy.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140],
                           [-0.5836, -0.6948, 0.4203]], dtype=numpy.float32)

    def __init__(self, alpha):
        super().__init__()
        self._alpha = alpha

    def apply_one(self, img):
        weights = numpy.random.normal(0, self._alpha, size=3).astype(numpy.float32)
        shift = self._eigvec @ (weights * self._eigval)
        return kernels._like(img.astype(numpy.float32) + shift, img.dtype)


class RandomGray(_PerImage):
    """With probability ``p``, the grey version of the image (3 equal channels, MXNet's weights
    0.2989, 0.587, 0.114); float32 either way, as MXNet's RandomGray (Gluon 2 only) returns.

    NOTE: MXNet's matrix gives channel j = w_j * (R + G + B), a transposed luma matrix; here every
    channel is the luma itself."""

    _weights = numpy.array([0.2989, 0.587, 0.114], dtype=numpy.float32)

    def __init__(self, p=0.5):
        super().__init__()
        self._p = p

    def apply_one(self, img):
        img = img.astype(numpy.float32)
        if random.random() >= self._p:
            return img
        return numpy.repeat((img @ self._weights)[..., None], img.shape[-1], -1)
