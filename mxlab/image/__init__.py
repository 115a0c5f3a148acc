"""``mx.image``: decode, resize, crop and colour-adjust HWC images, as MXNet's ``mx.image``.

Images are arrays of shape ``(height, width, channels)`` (uint8 from the decoders). Decoding uses
Pillow; the geometric and colour kernels are NumPy (``ops/image_kernels.py``) and are shared with
``gluon.data.vision.transforms``.

Example
-------
>>> import mxlab as mx
>>> img = mx.nd.array(mx.np.arange(48).reshape(4, 4, 3).asnumpy(), dtype="uint8")
>>> mx.image.imresize(img, 2, 3).shape
(3, 2, 3)
>>> mx.image.center_crop(img, (2, 2))[1]
(1, 1, 2, 2)
"""
from .image import *  # noqa: F401,F403
from .augment import *  # noqa: F401,F403
from .detection import *  # noqa: F401,F403
from . import detection, detection as det  # noqa: F401
