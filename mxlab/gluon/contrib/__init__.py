"""``mx.gluon.contrib``: MXNet's contributed Gluon packages.

``contrib.nn`` and ``contrib.rnn`` map onto the layers and cells mxlab already has;
``contrib.estimator`` is MXNet master's Estimator with its event handlers; ``contrib.data`` has
MXNet 2.0's bounding-box transforms. ``contrib.cnn`` is not built and raises
``NotImplementedError`` naming itself.
"""
from . import nn, rnn  # noqa: F401
from . import estimator  # noqa: F401
from . import data  # noqa: F401

_NOT_BUILT = {
    "cnn": "gluon.contrib.cnn (DeformableConvolution, ModulatedDeformableConvolution)",
}


def __getattr__(name):
    if name in _NOT_BUILT:
        raise NotImplementedError(f"{_NOT_BUILT[name]} is not built in mxlab")
    raise AttributeError(f"module 'mxlab.gluon.contrib' has no attribute {name!r}")
