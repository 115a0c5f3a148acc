"""``mx.gluon.contrib``: MXNet's contributed Gluon packages.

``contrib.nn`` and ``contrib.rnn`` map onto the layers and cells mxlab already has;
``contrib.cnn`` holds the deformable convolution blocks (also in ``gluon.nn``, as in MXNet 2.0);
``contrib.estimator`` is MXNet master's Estimator with its event handlers; ``contrib.data`` has
MXNet 2.0's bounding-box transforms.
"""
from . import cnn, nn, rnn  # noqa: F401
from . import estimator  # noqa: F401
from . import data  # noqa: F401
