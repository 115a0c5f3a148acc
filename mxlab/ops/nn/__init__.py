"""Neural-network op family: convolution, pooling, normalisation, dropout, embedding and spatial
transformers.

Importing the package registers the ops (``Convolution``/``npx.convolution``, ``Deconvolution``,
``Pooling``, ``BatchNorm``, ``LayerNorm``, ``GroupNorm``, ``InstanceNorm``, ``Dropout``,
``Embedding``, ``GridGenerator``, ``BilinearSampler``, ``SpatialTransformer``, ``UpSampling``,
``ROIPooling``, ``contrib.ROIAlign``/``RROIAlign``, ``contrib.AdaptiveAvgPooling2D``/
``BilinearResize2D``, ``Correlation``) and
their hidden ``_backward_*`` ops, which the gradient rules call through ``F``.
"""

from . import (conv, correlation, deformable, im2col, misc, norm, pool, resize, roi,  # noqa: F401
               spatial, upsampling)
