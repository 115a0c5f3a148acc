"""gluon.contrib.estimator: fit / evaluate on a tiny net with the built-in event handlers."""
import logging
import os

import numpy as np
import pytest

import mxlab as mx
from mxlab.gluon.contrib.estimator import (BatchEnd, BatchProcessor, CheckpointHandler,
                                           EarlyStoppingHandler, Estimator, EpochEnd,
                                           LoggingHandler, ValidationHandler)


def _loader(n=8, batch_size=4):
    x = np.tile(np.array([[1.0, 0.0, -1.0]], dtype="float32"), (n, 1))
    y = np.zeros((n,), dtype="float32")
    data = mx.gluon.data.ArrayDataset(mx.nd.array(x), mx.nd.array(y))
    return mx.gluon.data.DataLoader(data, batch_size=batch_size)


def _estimator(lr=0.5, **kwargs):
    net = mx.gluon.nn.Dense(2, in_units=3)
    net.initialize(mx.init.Zero())
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": lr})
    est = Estimator(net, mx.gluon.loss.SoftmaxCrossEntropyLoss(), trainer=trainer, **kwargs)
    est.logger.disabled = True
    return est


class _Counter(BatchEnd, EpochEnd):
    def __init__(self):
        self.batches = self.epochs = 0

    def batch_end(self, estimator, *args, **kwargs):
        self.batches += 1

    def epoch_end(self, estimator, *args, **kwargs):
        self.epochs += 1


def test_fit_trains_and_names_metrics():
    est = _estimator()
    assert [m.name for m in est.train_metrics] == ["training accuracy",
                                                   "training SoftmaxCrossEntropyLoss"]
    assert [m.name for m in est.val_metrics] == ["validation accuracy",
                                                 "validation SoftmaxCrossEntropyLoss"]
    counter = _Counter()
    est.fit(_loader(), epochs=3, event_handlers=[counter])
    assert (counter.batches, counter.epochs) == (6, 3)
    # loss of ln 2 at zero weights, then SGD pushes class 0 up: the epoch-3 loss is lower
    assert est.train_metrics[1].get()[1] < np.log(2) - 0.1
    assert est.train_metrics[0].get()[1] == 1.0


def test_fit_by_batches_stops_mid_epoch():
    counter = _Counter()
    _estimator().fit(_loader(n=16), batches=3, event_handlers=[counter])
    assert (counter.batches, counter.epochs) == (3, 1)


def test_fit_needs_exactly_one_of_epochs_or_batches():
    est = _estimator()
    with pytest.raises(ValueError, match="one and only one"):
        est.fit(_loader(), epochs=1, batches=1)
    with pytest.raises(ValueError, match="DataLoader"):
        est.fit([1, 2], epochs=1)


def test_bad_arguments_are_value_errors():
    net = mx.gluon.nn.Dense(2, in_units=3)
    with pytest.raises(ValueError, match="loss must be a Loss"):
        Estimator(net, loss="mse")
    with pytest.raises(ValueError, match="metrics must be"):
        Estimator(net, mx.gluon.loss.L2Loss(), train_metrics="acc")
    with pytest.raises(ValueError, match="devices must be"):
        Estimator(net, mx.gluon.loss.L2Loss(), device="cpu")
    with pytest.raises(ValueError, match="Trainer"):
        Estimator(net, mx.gluon.loss.L2Loss(), trainer="sgd")
    with pytest.raises(ValueError, match="Batch Processor"):
        Estimator(net, mx.gluon.loss.L2Loss(), batch_processor=object())


def test_evaluate_fills_validation_metrics_and_validation_handler_runs():
    est = _estimator()
    est.evaluate(_loader())
    assert est.val_metrics[1].get()[1] == pytest.approx(np.log(2), rel=1e-5)
    seen = _Counter()
    handler = ValidationHandler(_loader(), est.evaluate, epoch_period=2, event_handlers=[seen])
    est.fit(_loader(), epochs=4, event_handlers=[handler])
    assert seen.epochs == 2  # validated after epochs 2 and 4


def test_checkpoint_handler_writes_files_and_keeps_max(tmp_path):
    est = _estimator()
    est.net.hybridize()
    acc = est.train_metrics[0]
    ckpt = CheckpointHandler(str(tmp_path), model_prefix="m", monitor=acc, save_best=True,
                             max_checkpoints=2)
    est.fit(_loader(), epochs=3, event_handlers=[ckpt])
    names = sorted(os.listdir(tmp_path))
    assert names == ["m-best.params", "m-best.states", "m-epoch1batch4.params",
                     "m-epoch1batch4.states", "m-epoch2batch6.params", "m-epoch2batch6.states",
                     "m-symbol.json"]
    restored = mx.gluon.nn.Dense(2, in_units=3)
    restored.load_parameters(str(tmp_path / "m-epoch2batch6.params"))
    np.testing.assert_allclose(restored.weight.data().asnumpy(),
                               est.net.weight.data().asnumpy())


def test_checkpoint_resume_trains_remaining_epochs(tmp_path):
    est = _estimator()
    est.fit(_loader(), epochs=2, event_handlers=[CheckpointHandler(str(tmp_path))])
    est2 = _estimator()
    resume = CheckpointHandler(str(tmp_path), resume_from_checkpoint=True)
    counter = _Counter()
    est2.fit(_loader(), epochs=3, event_handlers=[resume, counter])
    assert counter.epochs == 1 and est2.max_epoch == 1
    assert os.path.isfile(tmp_path / "model-epoch2batch6.params")


def test_early_stopping_triggers():
    est = _estimator()
    acc = est.train_metrics[0]
    # accuracy is 1.0 from the first epoch on, so with mode='max' it never improves again
    stop = EarlyStoppingHandler(monitor=acc, patience=1, mode="max")
    est.fit(_loader(), epochs=10, event_handlers=[stop])
    assert (stop.current_epoch, stop.stopped_epoch) == (2, 1)
    with pytest.raises(ValueError, match="CompositeEvalMetric"):
        EarlyStoppingHandler(monitor=mx.gluon.metric.CompositeEvalMetric())


def test_auto_mode_is_min_for_losses():
    est = _estimator()
    with pytest.warns(UserWarning, match="`less` operator"):
        stop = EarlyStoppingHandler(monitor=est.train_metrics[1], patience=1)
    est.fit(_loader(), epochs=4, event_handlers=[stop])
    assert stop.stopped_epoch == 0 and stop.current_epoch == 4  # the loss keeps falling


def test_logging_handler_lines(caplog):
    est = _estimator()
    est.logger.disabled = False
    est.logger.propagate = True
    est.logger.parent = logging.getLogger()
    with caplog.at_level(logging.INFO):
        est.fit(_loader(), epochs=1,
                event_handlers=[LoggingHandler(log_interval=1, metrics=est.train_metrics)])
    text = caplog.text
    assert "Training begin: using optimizer SGD with current learning rate 0.5000" in text
    assert "[Epoch 0][Batch 1][Samples 8] time/interval:" in text
    assert "Train finished using total" in text
    with pytest.raises(ValueError, match="log_interval"):
        LoggingHandler(log_interval="batch")


def test_handler_metric_outside_estimator_is_refused():
    est = _estimator()
    foreign = mx.gluon.metric.Accuracy()
    with pytest.raises(ValueError, match="outside of the known"):
        est.fit(_loader(), epochs=1, event_handlers=[LoggingHandler(metrics=[foreign])])


def test_custom_batch_processor_is_used():
    class Doubling(BatchProcessor):
        calls = 0

        def fit_batch(self, estimator, train_batch, batch_axis=0):
            Doubling.calls += 1
            return super().fit_batch(estimator, train_batch, batch_axis)

    _estimator(batch_processor=Doubling()).fit(_loader(), epochs=2)
    assert Doubling.calls == 4
