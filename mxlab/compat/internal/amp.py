"""``mxnet.amp`` / ``mxnet.amp.amp``: the names MXNet's tests import (mxlab has no AMP pass)."""
import sys

import numpy

__all__ = ["bfloat16"]

# NOTE: MXNet's own spelling of bfloat16 for NumPy: a one-field uint16 record dtype.
bfloat16 = numpy.dtype([("bfloat16", numpy.uint16)])

# NOTE: MXNet 1.x's path is mxnet.contrib.amp.amp; `from mxnet.contrib.amp import amp` (MXNet's
#   tests/python/train/test_bucketing.py) takes this module as its own attribute.
amp = sys.modules[__name__]
