"""Neural-network op family: convolution, pooling, normalisation, dropout and embedding.

Importing the package registers the ops (``Convolution``/``npx.convolution``, ``Deconvolution``,
``Pooling``, ``BatchNorm``, ``LayerNorm``, ``GroupNorm``, ``InstanceNorm``, ``Dropout``,
``Embedding``) and their hidden ``_backward_*`` ops, which the gradient rules call through ``F``.
"""

from . import conv, misc, norm, pool  # noqa: F401
