"""``mx.gluon.contrib.estimator``: MXNet's high-level training loop.

:class:`Estimator` runs ``fit`` / ``evaluate`` over Gluon ``DataLoader`` s; event handlers
(:mod:`.event_handler`) hook the train / epoch / batch begin and end events (metrics, validation,
logging, checkpoints, early stopping, the optimizer step), and a :class:`BatchProcessor`
(:mod:`.batch_processor`) does the per-batch forward / backward. Names, signatures, defaults and
log texts follow MXNet master's ``python/mxnet/gluon/contrib/estimator``.

Example
-------
>>> import mxlab as mx
>>> from mxlab.gluon.contrib.estimator import Estimator
>>> net = mx.gluon.nn.Dense(2, in_units=3)
>>> est = Estimator(net, mx.gluon.loss.SoftmaxCrossEntropyLoss(),
...                 trainer=mx.gluon.Trainer(net.collect_params(), "sgd"))
>>> [m.name for m in est.train_metrics]
['training accuracy', 'training SoftmaxCrossEntropyLoss']
"""
from . import estimator  # noqa: F401
from . import event_handler  # noqa: F401
from . import batch_processor  # noqa: F401
from .estimator import *  # noqa: F401,F403
from .event_handler import *  # noqa: F401,F403
from .batch_processor import *  # noqa: F401,F403

__all__ = estimator.__all__ + event_handler.__all__ + batch_processor.__all__
