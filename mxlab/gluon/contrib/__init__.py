"""``mx.gluon.contrib``: MXNet's contributed Gluon packages.

``contrib.nn`` maps onto the layers mxlab already has; ``contrib.estimator`` is MXNet master's
Estimator with its event handlers; ``contrib.data`` has MXNet 2.0's bounding-box transforms. The
other contrib packages of MXNet 1.9.1 (``rnn``, ``cnn``) are not built and raise
``NotImplementedError`` naming themselves.
"""
from . import nn  # noqa: F401
from . import estimator  # noqa: F401
from . import data  # noqa: F401

_NOT_BUILT = {
    "rnn": "gluon.contrib.rnn (Conv*RNNCell, VariationalDropoutCell, LSTMPCell)",
    "cnn": "gluon.contrib.cnn (DeformableConvolution, ModulatedDeformableConvolution)",
}


def __getattr__(name):
    if name in _NOT_BUILT:
        raise NotImplementedError(f"{_NOT_BUILT[name]} is not built in mxlab")
    raise AttributeError(f"module 'mxlab.gluon.contrib' has no attribute {name!r}")
