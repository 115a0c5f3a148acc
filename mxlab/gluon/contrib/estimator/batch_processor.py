"""``BatchProcessor``: the per-batch train / evaluate step an :class:`Estimator` calls."""
from .... import autograd
from ....engine import wait_all
from ...utils import split_and_load

__all__ = ["BatchProcessor"]


class BatchProcessor:
    """Splits a ``(data, label)`` batch over the estimator's devices and runs the net and loss.

    Subclass and override :meth:`fit_batch` / :meth:`evaluate_batch` to change one step;
    both return ``(data, label, pred, loss)``, each a list with one entry per device.
    """

    def _get_data_and_label(self, batch, device, batch_axis=0):
        data = split_and_load(batch[0], ctx_list=device, batch_axis=batch_axis)
        label = split_and_load(batch[1], ctx_list=device, batch_axis=batch_axis)
        return data, label

    def evaluate_batch(self, estimator, val_batch, batch_axis=0):
        """Forward ``val_net`` and ``val_loss`` on one validation batch (no autograd)."""
        data, label = self._get_data_and_label(val_batch, estimator.device, batch_axis)
        pred = [estimator.val_net(x) for x in data]
        loss = [estimator.val_loss(y_hat, y) for y_hat, y in zip(pred, label)]
        return data, label, pred, loss

    def fit_batch(self, estimator, train_batch, batch_axis=0):
        """Forward ``net`` and ``loss`` under ``autograd.record`` and run backward; the
        optimizer step is :class:`GradientUpdateHandler` 's, at batch end."""
        data, label = self._get_data_and_label(train_batch, estimator.device, batch_axis)
        with autograd.record():
            pred = [estimator.net(x) for x in data]
            loss = [estimator.loss(y_hat, y) for y_hat, y in zip(pred, label)]
        for each in loss:
            each.backward()
        wait_all()
        return data, label, pred, loss
