"""``mx.gluon.contrib``: MXNet 1.x's contributed Gluon layers (``contrib.nn``, ``contrib.rnn``).

``contrib.nn`` and ``contrib.rnn`` map onto the layers and cells mxlab already has; the other
contrib packages of MXNet 1.9.1 (``estimator``, ``cnn``, ``data``) are not built and raise
``NotImplementedError`` naming themselves.
"""
from . import nn, rnn  # noqa: F401

_NOT_BUILT = {
    "estimator": "gluon.contrib.estimator (Estimator, event handlers, BatchProcessor)",
    "cnn": "gluon.contrib.cnn (DeformableConvolution, ModulatedDeformableConvolution)",
    "data": "gluon.contrib.data (IntervalSampler, text datasets)",
}


def __getattr__(name):
    if name in _NOT_BUILT:
        raise NotImplementedError(f"{_NOT_BUILT[name]} is not built in mxlab")
    raise AttributeError(f"module 'mxlab.gluon.contrib' has no attribute {name!r}")
