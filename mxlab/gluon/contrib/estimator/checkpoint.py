"""``CheckpointHandler``: saves parameters and trainer states during ``Estimator.fit``.

Files in ``model_dir``: ``{prefix}-symbol.json`` (after the first batch, for a hybridized net),
``{prefix}-epoch{E}batch{B}.params`` / ``.states`` every ``epoch_period`` epochs or
``batch_period`` batches (the oldest removed past ``max_checkpoints``) and, with
``save_best``, ``{prefix}-best.params`` / ``.states``.
"""
import math
import os
import warnings

import numpy as np

from ...metric import EvalMetric
from .hooks import BatchEnd, EpochEnd, TrainBegin, _monitor_op

__all__ = ["CheckpointHandler"]


class CheckpointHandler(TrainBegin, BatchEnd, EpochEnd):
    """Save the model every ``epoch_period`` epochs / ``batch_period`` batches.

    Parameters
    ----------
    model_dir : str
        Directory for the files (created if missing).
    model_prefix : str, default 'model'
    monitor : EvalMetric, optional
        Metric that decides the best model (needed for ``save_best``).
    verbose : int, default 0
        1 logs every save.
    save_best : bool, default False
    mode : {'auto', 'min', 'max'}, default 'auto'
        Comparison for ``save_best`` (auto: max for accuracy / f1 names, min otherwise).
    epoch_period : int, default 1
    batch_period : int, optional
    max_checkpoints : int, default 5
        Periodic checkpoints kept (the best one is not counted).
    resume_from_checkpoint : bool, default False
        Load the newest ``epoch{E}batch{B}`` checkpoint at train begin and train only the
        remaining epochs / batches.
    """

    def __init__(self, model_dir, model_prefix="model", monitor=None, verbose=0, save_best=False,
                 mode="auto", epoch_period=1, batch_period=None, max_checkpoints=5,
                 resume_from_checkpoint=False):
        self.monitor = monitor
        self.verbose = verbose
        os.makedirs(model_dir, exist_ok=True)
        self.model_dir, self.model_prefix = model_dir, model_prefix
        self.save_best = save_best
        if save_best and not isinstance(monitor, EvalMetric):
            raise ValueError("To save best model only, please provide one of the metric objects "
                             "from estimator.train_metrics and estimator.val_metrics as monitor.")
        self.epoch_period, self.batch_period = epoch_period, batch_period
        self.current_batch = self.current_epoch = 0
        self.max_checkpoints = max_checkpoints
        self.resume_from_checkpoint = resume_from_checkpoint
        self.saved_checkpoints = []
        self.trained_epoch = self.trained_batch = -1
        if save_best:
            self.monitor_op = _monitor_op(monitor, mode, "ModelCheckpoint")
            self.best = np.inf if self.monitor_op is np.less else -np.inf

    def train_begin(self, estimator, *args, **kwargs):
        self.current_epoch = self.current_batch = 0
        if self.save_best:
            self.best = np.inf if self.monitor_op is np.less else -np.inf
        if self.resume_from_checkpoint:
            error_msg = ("To use resume from checkpoint, you must only specify "
                         "the same type of period you used for training."
                         "For example, if you are training based on number of epochs,"
                         "you must save only based on epochs, and set batch_period to None.")
            if estimator.max_batch:
                assert self.batch_period, error_msg
                assert not self.epoch_period, error_msg
            if estimator.max_epoch:
                assert self.epoch_period, error_msg
                assert not self.batch_period, error_msg
            self._resume_from_checkpoint(estimator)

    def batch_end(self, estimator, *args, **kwargs):
        if self.current_batch == 0:
            self._save_symbol(estimator)
        if self.batch_period and (self.current_batch + 1) % self.batch_period == 0:
            self._save_checkpoint(estimator)
        self.current_batch += 1

    def epoch_end(self, estimator, *args, **kwargs):
        if self.epoch_period and (self.current_epoch + 1) % self.epoch_period == 0:
            self._save_checkpoint(estimator)
        self.current_epoch += 1

    def _save_checkpoint(self, estimator):
        if self.resume_from_checkpoint:
            epoch = self.current_epoch + self.trained_epoch + 1
            # NOTE: at epoch end the batch counter has already moved past the last batch
            batch = self.current_batch + self.trained_batch + (0 if estimator.max_epoch else 1)
        else:
            epoch, batch = self.current_epoch, self.current_batch
        prefix = f"{self.model_prefix}-epoch{epoch}batch{batch}"
        self._save_params_and_trainer(estimator, prefix)
        if self.verbose > 0:
            estimator.logger.info(f"[Epoch {self.current_epoch}] CheckpointHandler: trained total "
                                  f"{self.current_batch + 1} batches, saving model at "
                                  f"{self.model_dir} with prefix: {prefix}")
        if self.save_best:
            self._save_best(estimator)

    def _save_best(self, estimator):
        name, value = self.monitor.get()
        if isinstance(value, float) and math.isnan(value):
            warnings.warn(RuntimeWarning(
                f"Skipping save best because {name} is not updated, make sure you pass one of "
                "the metric objects estimator.train_metrics and estimator.val_metrics as "
                "monitor"))
        elif self.monitor_op(value, self.best):
            prefix = self.model_prefix + "-best"
            self._save_params_and_trainer(estimator, prefix)
            if self.verbose > 0:
                estimator.logger.info("[Epoch %d] CheckpointHandler: %s improved from %0.5f to "
                                      "%0.5f, updating best model at %s with prefix: %s",
                                      self.current_epoch, name, self.best, value,
                                      self.model_dir, prefix)
            self.best = value
        elif self.verbose > 0:
            estimator.logger.info("[Epoch %d] CheckpointHandler: %s did not improve from %0.5f, "
                                  "skipping updating best model",
                                  self.current_batch, name, self.best)

    def _save_symbol(self, estimator):
        symbol_file = os.path.join(self.model_dir, self.model_prefix + "-symbol.json")
        graph = getattr(estimator.net, "_cached_graph", None)
        if graph:
            graph[1].save(symbol_file)
        else:
            estimator.logger.info(
                "Model architecture(symbol file) is not saved, please use HybridBlock "
                "to construct your model, and call net.hybridize() before passing to "
                "Estimator in order to save model architecture as %s.", symbol_file)

    def _save_params_and_trainer(self, estimator, file_prefix):
        estimator.net.save_parameters(os.path.join(self.model_dir, file_prefix + ".params"))
        estimator.trainer.save_states(os.path.join(self.model_dir, file_prefix + ".states"))
        if "best" not in file_prefix:
            self.saved_checkpoints.append(file_prefix)
        if len(self.saved_checkpoints) > self.max_checkpoints:
            oldest = self.saved_checkpoints.pop(0)
            for fname in os.listdir(self.model_dir):
                if fname.startswith(oldest):
                    os.remove(os.path.join(self.model_dir, fname))

    def _resume_from_checkpoint(self, estimator):
        prefix = self.model_prefix + "-epoch"
        self.trained_epoch = self._find_max_iteration(self.model_dir, prefix, "epoch", "batch",
                                                      self.saved_checkpoints)
        prefix += str(self.trained_epoch)
        self.trained_batch = self._find_max_iteration(self.model_dir, prefix, "batch", ".params")
        if self.trained_epoch == -1:
            msg = "CheckpointHandler: No checkpoint found, training from scratch for "
            msg += (f"{estimator.max_batch} batches" if estimator.max_batch
                    else f"{estimator.max_epoch} epochs")
            estimator.logger.info(msg)
            return
        msg = (f"CheckpointHandler: Checkpoint resumed from epoch {self.trained_epoch} batch "
               f"{self.trained_batch}, continue to train for ")
        if estimator.max_epoch:
            if self.trained_epoch >= estimator.max_epoch - 1:
                raise ValueError(f"Found checkpoint with maximum number of epoch "
                                 f"{estimator.max_epoch} reached, please specify "
                                 "resume_from_checkpoint=False (default value) if you wan to "
                                 "train from scratch.")
            estimator.max_epoch = estimator.max_epoch - self.trained_epoch - 1
            msg += f"{estimator.max_epoch} epochs "
        if estimator.max_batch:
            if self.trained_batch >= estimator.max_batch - 1:
                raise ValueError(f"Found checkpoint with maximum number of batch "
                                 f"{self.trained_batch} reached, please specify"
                                 "resume_from_checkpoint=False (default value) if you wan to "
                                 "train from scratch.")
            estimator.max_batch = estimator.max_batch - self.trained_batch - 1
            msg += f"{estimator.max_batch} batches "
        stem = os.path.join(self.model_dir, f"{self.model_prefix}-epoch{self.trained_epoch}"
                                            f"batch{self.trained_batch}")
        for path in (stem + ".params", stem + ".states"):
            assert os.path.exists(path), f"Failed to load checkpoint, {path} does not exist"
        estimator.net.load_parameters(stem + ".params", ctx=estimator.device)
        estimator.trainer.load_states(stem + ".states")
        estimator.logger.warning(msg)

    @staticmethod
    def _find_max_iteration(dir, prefix, start, end, saved_checkpoints=None):
        """Largest integer between ``start`` and ``end`` in the ``prefix*.params`` file names
        of ``dir`` (-1 if none); their stems are appended to ``saved_checkpoints``."""
        max_iter = -1
        for fname in os.listdir(dir):
            if not (fname.startswith(prefix) and ".params" in fname):
                continue
            if saved_checkpoints is not None:
                saved_checkpoints.append(fname[:fname.find(".params")])
            try:
                max_iter = max(max_iter, int(fname[fname.find(start) + len(start):
                                                   fname.find(end)]))
            except ValueError:
                raise ValueError("Error parsing checkpoint file, please check your "
                                 "checkpoints have the format: "
                                 "{model_name}-epoch{epoch_number}batch{batch_number}.params, "
                                 "there should also be a .states file for each .params "
                                 "file ") from None
        return max_iter
