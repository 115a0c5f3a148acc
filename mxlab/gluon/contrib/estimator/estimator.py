"""``Estimator``: ``fit`` / ``evaluate`` loops that fire event-handler hooks (MXNet master's API).

Example
-------
>>> import mxlab as mx
>>> from mxlab.gluon.contrib.estimator import Estimator
>>> x, y = mx.nd.ones((8, 3)), mx.nd.zeros((8,))
>>> data = mx.gluon.data.DataLoader(mx.gluon.data.ArrayDataset(x, y), batch_size=4)
>>> net = mx.gluon.nn.Dense(2, in_units=3)
>>> est = Estimator(net, mx.gluon.loss.SoftmaxCrossEntropyLoss(),
...                 trainer=mx.gluon.Trainer(net.collect_params(), "sgd"))
>>> est.logger.disabled = True
>>> est.fit(data, epochs=2)
>>> est.train_metrics[0].get()
('training accuracy', 1.0)
"""
import copy
import logging
import sys
import warnings

from ....device import Device, cpu, gpu, num_gpus
from ...data import DataLoader
from ...loss import Loss as _GluonLoss
from ...metric import Loss as _LossMetric
from ...trainer import Trainer
from ...utils import split_and_load
from .batch_processor import BatchProcessor
from .event_handler import (BatchBegin, BatchEnd, EpochBegin, EpochEnd, GradientUpdateHandler,
                            LoggingHandler, MetricHandler, StoppingHandler, TrainBegin, TrainEnd,
                            ValidationHandler, _check_event_handlers)
from .utils import _check_handler_metric_ref, _check_metrics, _suggest_metric_for_loss

__all__ = ["Estimator"]

_HOOKS = ((TrainBegin, "train_begin"), (EpochBegin, "epoch_begin"), (BatchBegin, "batch_begin"),
          (BatchEnd, "batch_end"), (EpochEnd, "epoch_end"), (TrainEnd, "train_end"))
_HOOK_NAMES = [hook for _, hook in _HOOKS]


class Estimator:
    """Trains and validates ``net`` with ``loss``, ``trainer`` and event handlers.

    Parameters
    ----------
    net : gluon.Block
    loss : gluon.loss.Loss
    train_metrics, val_metrics : EvalMetric or list of EvalMetric, optional
        Default: ``Accuracy`` for a softmax cross-entropy loss, plus a ``Loss`` metric;
        validation metrics default to copies of the training ones. Names get a ``training`` /
        ``validation`` prefix (handlers tell them apart by it).
    initializer : Initializer, optional
        Used when ``net`` is not fully initialized (a warning if it already is).
    trainer : gluon.Trainer, optional
        Default: SGD with learning rate 0.001 (with a warning).
    device : Device or list of Device, optional
        Default: ``gpu(0)`` when a GPU is visible, else ``cpu()``.
    val_net, val_loss : optional
        Net and loss for validation (default: ``net`` and ``loss``).
    batch_processor : BatchProcessor, optional
        Anything with ``fit_batch`` and ``evaluate_batch``.

    ``logger`` is a ``logging.Logger`` writing INFO and above to stdout; add handlers to it
    (``est.logger.addHandler(logging.FileHandler(path))``) to log elsewhere too.
    """

    logger = None

    def __init__(self, net, loss, train_metrics=None, val_metrics=None, initializer=None,
                 trainer=None, device=None, val_net=None, val_loss=None, batch_processor=None,
                 context=None):
        if context is not None:   # NOTE: MXNet 1.x's name of `device`
            if device is not None:
                raise ValueError("Estimator takes device= or its MXNet 1.x name context=, not both")
            device = context
        self.net = net
        self.loss = self._check_loss(loss)
        self._train_metrics = _check_metrics(train_metrics)
        self._val_metrics = _check_metrics(val_metrics)
        self._add_default_training_metrics()
        self._add_validation_metrics()
        self.val_loss = self.loss if val_loss is None else self._check_loss(val_loss)
        self.val_net = self.net if val_net is None else val_net

        self.logger = logging.Logger(name="Estimator", level=logging.INFO)
        self.logger.addHandler(logging.StreamHandler(sys.stdout))

        self.device = self._check_devices(device)
        self._initialize(initializer)
        self.trainer = self._check_trainer(trainer)
        self.batch_processor = self._check_batch_processor(batch_processor)
        self.max_epoch = self.max_batch = None
        self.batch_axis = 0

    @property
    def context(self):
        """MXNet 1.x's name for :attr:`device`."""
        return self.device

    @staticmethod
    def _check_loss(loss):
        if not isinstance(loss, _GluonLoss):
            raise ValueError(f"loss must be a Loss, refer to gluon.loss.Loss:{loss}")
        return loss

    def _check_context(self, context):
        """Deprecated name of :meth:`_check_devices`."""
        warnings.warn("Estimator._check_context has been renamed to Estimator._check_devices",
                      DeprecationWarning)
        return self._check_devices(context)

    @staticmethod
    def _check_devices(devices):
        available_gpus = [gpu(i) for i in range(num_gpus())]
        if not devices:
            if len(available_gpus) > 1:
                warnings.warn("You have multiple GPUs, gpu(0) will be used by default."
                              "To utilize all your GPUs, specify device as a list of gpus, "
                              "e.g. devices=[mx.gpu(0), mx.gpu(1)] ")
            return available_gpus[:1] or [cpu()]
        if isinstance(devices, Device):
            devices = [devices]
        elif not (isinstance(devices, list) and all(isinstance(d, Device) for d in devices)):
            raise ValueError("devices must be a Device or a list of Device, "
                             "for example mx.cpu() or [mx.gpu(0), mx.gpu(1)], "
                             f"refer to mxnet.Device:{devices}")
        for device in devices:
            # NOTE: AssertionError, as MXNet's test_device expects for gpu(100)
            assert device in available_gpus or device.device_type == "cpu", (
                f"{device} is not available, please make sure your device is in one of: "
                f"mx.cpu(), {', '.join(str(g) for g in available_gpus)}")
        return devices

    @staticmethod
    def _check_batch_processor(batch_processor):
        if batch_processor is None:
            return BatchProcessor()
        if not (callable(getattr(batch_processor, "fit_batch", None))
                and callable(getattr(batch_processor, "evaluate_batch", None))):
            raise ValueError("Customized Batch Processor must contain fit_batch()"
                             " and evaluate_batch() methods")
        return batch_processor

    def _initialize(self, initializer):
        if not self._is_initialized():
            # NOTE: partly initialized nets keep their initialized layers (initialize skips them)
            if initializer:
                self.net.initialize(init=initializer, device=self.device)
            else:
                self.net.initialize(device=self.device)
        elif initializer:
            warnings.warn("Network already fully initialized, skipping initialization. "
                          "You don't need to pass initializer if you already "
                          "initialized your net. "
                          "You can use net.initialize(init=your_initializer, force_reinit=True)"
                          "to force re-initialize.")

    def _check_trainer(self, trainer):
        if not trainer:
            warnings.warn("No trainer specified, default SGD optimizer "
                          "with learning rate 0.001 is used.")
            return Trainer(self.net.collect_params(), "sgd", {"learning_rate": 0.001})
        if not isinstance(trainer, Trainer):
            raise ValueError(f"Trainer must be a Gluon Trainer instance, refer to "
                             f"gluon.Trainer:{trainer}")
        return trainer

    def _is_initialized(self):
        for param in self.net.collect_params().values():
            try:
                param.list_device()
            except RuntimeError:
                return False
        return True

    def _get_data_and_label(self, batch, device, batch_axis=0):
        data = split_and_load(batch[0], device, batch_axis=batch_axis)
        label = split_and_load(batch[1], device, batch_axis=batch_axis)
        return data, label

    def _add_default_training_metrics(self):
        if not self._train_metrics:
            suggested = _suggest_metric_for_loss(self.loss)
            if suggested:
                self._train_metrics = [suggested]
            self._train_metrics.append(_LossMetric(type(self.loss).__name__))
        for metric in self._train_metrics:
            metric.name = "training " + metric.name

    def _add_validation_metrics(self):
        if not self._val_metrics:
            self._val_metrics = [copy.deepcopy(metric) for metric in self._train_metrics]
        for metric in self._val_metrics:
            if "training" in metric.name:
                metric.name = metric.name.replace("training", "validation")
            else:
                metric.name = "validation " + metric.name

    @property
    def train_metrics(self):
        return self._train_metrics

    @property
    def val_metrics(self):
        return self._val_metrics

    def evaluate(self, val_data, batch_axis=0, event_handlers=None):
        """Run :meth:`BatchProcessor.evaluate_batch` over ``val_data``, firing the epoch and
        batch hooks of ``event_handlers`` (a MetricHandler and a LoggingHandler on the
        validation metrics are added unless given)."""
        if not isinstance(val_data, DataLoader):
            raise ValueError("Estimator only support input as Gluon DataLoader. Alternatively, you "
                             "can transform your DataIter or any NDArray into Gluon DataLoader. "
                             "Refer to gluon.data.DataLoader")
        for metric in self.val_metrics:
            metric.reset()
        handlers = dict(zip(_HOOK_NAMES, self._categorize_handlers(
            self._prepare_default_validation_handlers(event_handlers))))
        for handler in handlers["epoch_begin"]:
            handler.epoch_begin(self)
        for batch in val_data:
            for handler in handlers["batch_begin"]:
                handler.batch_begin(self, batch=batch)
            _, label, pred, loss = self.batch_processor.evaluate_batch(self, batch, batch_axis)
            for handler in handlers["batch_end"]:
                handler.batch_end(self, batch=batch, pred=pred, label=label, loss=loss)
        for handler in handlers["epoch_end"]:
            handler.epoch_end(self)

    def fit(self, train_data, val_data=None, epochs=None, event_handlers=None, batches=None,
            batch_axis=0):
        """Train for exactly one of ``epochs`` or ``batches``.

        A StoppingHandler, GradientUpdateHandler, MetricHandler, LoggingHandler and (with
        ``val_data``) ValidationHandler are added unless ``event_handlers`` has one of that
        kind; handlers run in ascending ``priority``. Any ``batch_end`` / ``epoch_end``
        returning True stops the batch loop / training.
        """
        if not isinstance(train_data, DataLoader):
            raise ValueError("Estimator only support input as Gluon DataLoader. Alternatively, you "
                             "can transform your DataIter or any NDArray into Gluon DataLoader. "
                             "Refer to gluon.data.dataloader")
        if (not epochs) == (not batches):
            raise ValueError("Fit only support exactly one type of iteration, "
                             "train by number of epochs or number of batches."
                             "Please specify one and only one of: epochs or batches.")
        self.max_epoch, self.max_batch, self.batch_axis = epochs, batches, batch_axis
        handlers = dict(zip(_HOOK_NAMES, self._categorize_handlers(
            self._prepare_default_handlers(val_data, event_handlers))))
        for handler in handlers["train_begin"]:
            handler.train_begin(self)
        while True:
            for handler in handlers["epoch_begin"]:
                handler.epoch_begin(self)
            for batch in train_data:
                for handler in handlers["batch_begin"]:
                    handler.batch_begin(self, batch=batch)
                _, label, pred, loss = self.batch_processor.fit_batch(self, batch, batch_axis)
                # NOTE: every handler runs (a list, not any() over a generator) before stopping
                stops = [handler.batch_end(self, batch=batch, pred=pred, label=label, loss=loss)
                         for handler in handlers["batch_end"]]
                if any(stops):
                    break
            if any([handler.epoch_end(self) for handler in handlers["epoch_end"]]):
                break
        for handler in handlers["train_end"]:
            handler.train_end(self)

    def _prepare_default_handlers(self, val_data, event_handlers):
        event_handlers = _check_event_handlers(event_handlers)
        added = [StoppingHandler(self.max_epoch, self.max_batch)]

        def missing(kind):
            return not any(isinstance(handler, kind) for handler in event_handlers)

        if missing(GradientUpdateHandler):
            added.append(GradientUpdateHandler())
        if missing(MetricHandler):
            added.append(MetricHandler(metrics=self.train_metrics))
        if missing(ValidationHandler) and val_data:
            added.append(ValidationHandler(val_data=val_data, eval_fn=self.evaluate))
        if missing(LoggingHandler):
            added.append(LoggingHandler(metrics=self.train_metrics))
        mixing = bool(event_handlers)
        event_handlers.extend(added)
        if mixing:
            # user handlers next to default ones must refer to the same metric objects
            known = set(self.train_metrics + self.val_metrics)
            for handler in event_handlers:
                _check_handler_metric_ref(handler, known)
        event_handlers.sort(key=lambda handler: getattr(handler, "priority", 0))
        return event_handlers

    def _prepare_default_validation_handlers(self, event_handlers):
        event_handlers = _check_event_handlers(event_handlers)
        added = []
        if not any(isinstance(handler, MetricHandler) for handler in event_handlers):
            added.append(MetricHandler(metrics=self.val_metrics))
        if not any(isinstance(handler, LoggingHandler) for handler in event_handlers):
            added.append(LoggingHandler(metrics=self.val_metrics))
        mixing = bool(event_handlers and added)
        event_handlers.extend(added)
        if mixing:
            known = set(self.val_metrics)
            for handler in event_handlers:
                _check_handler_metric_ref(handler, known)
        event_handlers.sort(key=lambda handler: getattr(handler, "priority", 0))
        return event_handlers

    @staticmethod
    def _categorize_handlers(event_handlers):
        """``(train_begin, epoch_begin, batch_begin, batch_end, epoch_end, train_end)`` lists of
        the handlers implementing each hook, so empty hooks are never called."""
        return tuple([h for h in event_handlers if isinstance(h, kind)] for kind, _ in _HOOKS)
