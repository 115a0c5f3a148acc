"""MXNet 1.x training callbacks (``mx.callback``), called by ``Module.fit``.

Epoch-end callbacks receive ``(epoch, symbol, arg_params, aux_params)``; batch-end callbacks one
:class:`~mxlab.model.BatchEndParam` (``epoch``, ``nbatch``, ``eval_metric``, ``locals``). The log
lines keep MXNet's wording, since scripts and notebooks grep them.
"""
import logging
import math
import time

from .model import save_checkpoint

__all__ = ["LogValidationMetricsCallback", "ProgressBar", "Speedometer", "do_checkpoint",
           "log_train_metric", "module_checkpoint"]


def module_checkpoint(mod, prefix, period=1, save_optimizer_states=False):
    """Epoch-end callback: ``mod.save_checkpoint(prefix, epoch + 1)`` every ``period`` epochs
    (optimizer states too when asked, which a plain checkpoint cannot carry)."""
    period = int(max(1, period))

    def _callback(iter_no, sym=None, arg=None, aux=None):
        if (iter_no + 1) % period == 0:
            mod.save_checkpoint(prefix, iter_no + 1, save_optimizer_states)
    return _callback


def do_checkpoint(prefix, period=1):
    """Epoch-end callback writing ``prefix-symbol.json`` and ``prefix-%04d.params`` (epoch + 1)
    every ``period`` epochs."""
    period = int(max(1, period))

    def _callback(iter_no, sym, arg, aux):
        if (iter_no + 1) % period == 0:
            save_checkpoint(prefix, iter_no + 1, sym, arg, aux)
    return _callback


def log_train_metric(period, auto_reset=False):
    """Batch-end callback logging the training metric every ``period`` batches."""
    def _callback(param):
        if param.nbatch % period == 0 and param.eval_metric is not None:
            for name, value in param.eval_metric.get_name_value():
                logging.info("Iter[%d] Batch[%d] Train-%s=%f", param.epoch, param.nbatch,
                             name, value)
            if auto_reset:
                param.eval_metric.reset_local()
    return _callback


class Speedometer:
    """Batch-end callback logging samples/sec (and the metric) every ``frequent`` batches.

    The first call only starts the clock; a batch count lower than the last one means a new
    epoch began, so the clock restarts. With ``auto_reset`` the metric's local part is reset
    after each log, so each line reports the batches since the previous one.
    """

    def __init__(self, batch_size, frequent=50, auto_reset=True):
        self.batch_size, self.frequent, self.auto_reset = batch_size, frequent, auto_reset
        self.init = False
        self.tic = 0
        self.last_count = 0

    def __call__(self, param):
        count = param.nbatch
        if self.last_count > count:
            self.init = False
        self.last_count = count
        if not self.init:
            self.init, self.tic = True, time.time()
            return
        if count % self.frequent != 0:
            return
        elapsed = time.time() - self.tic
        speed = self.frequent * self.batch_size / elapsed if elapsed > 0 else float("inf")
        self._log(param, count, speed)
        self.tic = time.time()

    def _log(self, param, count, speed):
        if param.eval_metric is None:
            logging.info("Iter[%d] Batch [%d]\tSpeed: %.2f samples/sec", param.epoch, count,
                         speed)
            return
        name_value = param.eval_metric.get_name_value()
        values = sum(name_value, ())
        if self.auto_reset:
            param.eval_metric.reset_local()
            msg = "Epoch[%d] Batch [%d-%d]\tSpeed: %.2f samples/sec" + "\t%s=%f" * len(name_value)
            logging.info(msg, param.epoch, count - self.frequent, count, speed, *values)
        else:
            msg = "Epoch[%d] Batch [0-%d]\tSpeed: %.2f samples/sec" + "\t%s=%f" * len(name_value)
            logging.info(msg, param.epoch, count, speed, *values)


class ProgressBar:
    """Batch-end callback logging a text bar of the share of ``total`` batches done."""

    def __init__(self, total, length=80):
        self.bar_len, self.total = length, total

    def __call__(self, param):
        count = param.nbatch
        filled = int(round(self.bar_len * count / float(self.total)))
        percents = math.ceil(100.0 * count / float(self.total))
        logging.info("[%s] %s%s\r", "=" * filled + "-" * (self.bar_len - filled), percents, "%")


class LogValidationMetricsCallback:
    """Eval-end callback logging each validation metric of the epoch."""

    def __call__(self, param):
        if not param.eval_metric:
            return
        for name, value in param.eval_metric.get_name_value():
            logging.info("Epoch[%d] Validation-%s=%f", param.epoch, name, value)
