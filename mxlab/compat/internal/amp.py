"""``mxnet.amp`` / ``mxnet.amp.amp``: the names MXNet's tests import (mxlab has no AMP pass)."""
import numpy

__all__ = ["bfloat16"]

# NOTE: MXNet's own spelling of bfloat16 for NumPy: a one-field uint16 record dtype.
bfloat16 = numpy.dtype([("bfloat16", numpy.uint16)])
