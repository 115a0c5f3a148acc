"""The hook classes event handlers subclass, and checks shared by the handlers."""
import warnings

import numpy as np


class EventHandler:
    """Base of all event handlers."""


def _check_event_handlers(handlers):
    if isinstance(handlers, EventHandler):
        return [handlers]
    handlers = list(handlers or [])
    if not all(isinstance(handler, EventHandler) for handler in handlers):
        raise ValueError("handlers must be an EventHandler or a list of EventHandler, "
                         f"got: {handlers}")
    return handlers


class TrainBegin(EventHandler):
    def train_begin(self, estimator, *args, **kwargs):
        pass


class TrainEnd(EventHandler):
    def train_end(self, estimator, *args, **kwargs):
        pass


class EpochBegin(EventHandler):
    def epoch_begin(self, estimator, *args, **kwargs):
        pass


class EpochEnd(EventHandler):
    def epoch_end(self, estimator, *args, **kwargs):
        return False


class BatchBegin(EventHandler):
    def batch_begin(self, estimator, *args, **kwargs):
        pass


class BatchEnd(EventHandler):
    def batch_end(self, estimator, *args, **kwargs):
        return False


def _monitor_op(monitor, mode, who):
    """``np.less`` or ``np.greater`` for ``mode`` in min / max / auto.

    auto picks greater for accuracy / f1-like names and less otherwise (MXNet's intent; its
    code's ``'acc' or 'f1' in name`` is always true, so MXNet picks greater for every metric).
    """
    if mode not in ("auto", "min", "max"):
        warnings.warn(f"{who} mode {mode} is unknown, fallback to auto mode. CheckpointHandler "
                      "will use max mode for f1 and accuracy metric comparison and use min mode "
                      "other wise", RuntimeWarning)
        mode = "auto"
    if mode != "auto":
        return np.less if mode == "min" else np.greater
    name = monitor.get()[0]
    if any(key in name.lower() for key in ("acc", "f1")):
        warnings.warn(f"`greater` operator will be used to determine if {name} has improved. "
                      "Please specify `mode='min'` to use the `less` operator. "
                      "Specify `mode='max' to disable this warning.`")
        return np.greater
    warnings.warn(f"`less` operator will be used to determine if {name} has improved. "
                  "Please specify `mode='max'` to use the `greater` operator. "
                  "Specify `mode='min' to disable this warning.`")
    return np.less
