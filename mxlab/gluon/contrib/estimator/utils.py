"""Checks shared by :mod:`.estimator` and :mod:`.event_handler` (metric lists, handler refs)."""
from ...loss import SoftmaxCrossEntropyLoss
from ...metric import Accuracy, CompositeEvalMetric, EvalMetric


def _check_metrics(metrics):
    """One metric, a list of metrics or None -> a flat list (composites are unpacked)."""
    if isinstance(metrics, CompositeEvalMetric):
        return [m for metric in metrics.metrics for m in _check_metrics(metric)]
    if isinstance(metrics, EvalMetric):
        return [metrics]
    metrics = list(metrics or [])
    bad = [m for m in metrics if not isinstance(m, EvalMetric)]
    if bad:
        raise ValueError("metrics must be a Metric or a list of Metric, "
                         f"refer to mxnet.gluon.metric.EvalMetric: {bad}")
    return metrics


def _check_handler_metric_ref(handler, known_metrics):
    """A handler's ``*metric*`` / ``monitor`` attributes must name the estimator's own metrics."""
    for attribute in dir(handler):
        if "metric" not in attribute and "monitor" not in attribute:
            continue
        reference = getattr(handler, attribute)
        if not isinstance(reference, (list, EvalMetric)):
            continue
        for metric in reference if isinstance(reference, list) else [reference]:
            _check_metric_known(handler, metric, known_metrics)


def _check_metric_known(handler, metric, known_metrics):
    if metric not in known_metrics:
        raise ValueError(
            f"Event handler {type(handler).__name__} refers to a metric instance {metric} outside "
            "of the known training and validation metrics. Please use the metrics from "
            "estimator.train_metrics and estimator.val_metrics instead.")


def _suggest_metric_for_loss(loss):
    return Accuracy() if isinstance(loss, SoftmaxCrossEntropyLoss) else None
