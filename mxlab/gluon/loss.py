"""Losses (``mx.gluon.loss``) with MXNet's formulas: each returns one value per sample, the mean
(KLDiv: the sum) over every axis but ``batch_axis``, scaled by ``weight`` and an optional
``sample_weight``. ``tests/gluon/test_oracle_gluon.py`` checks them against MXNet 1.9.1.

Example
-------
>>> import mxlab as mx
>>> loss = mx.gluon.loss.L2Loss()
>>> loss(mx.nd.array([[1.0, 2.0]]), mx.nd.array([[1.0, 4.0]])).asnumpy()
array([1.], dtype=float32)
"""
from ..ops.registry import F as _F
from .block import HybridBlock

__all__ = ["Loss", "L1Loss", "L2Loss", "SoftmaxCrossEntropyLoss", "SoftmaxCELoss",
           "SigmoidBinaryCrossEntropyLoss", "SigmoidBCELoss", "HuberLoss", "KLDivLoss"]


class Loss(HybridBlock):
    """Base class: ``weight`` (a scalar) and the ``batch_axis`` kept by the final mean."""

    def __init__(self, weight=None, batch_axis=0):
        super().__init__()
        self._weight, self._batch_axis = weight, batch_axis

    def _finish(self, loss, sample_weight, weight=None, reduce="mean"):
        """Apply the weights, then reduce (``mean``, KLDiv: ``sum``) every axis but the batch
        axis."""
        if sample_weight is not None:
            loss = _F.broadcast_mul(loss, sample_weight)
        weight = self._weight if weight is None else weight
        if weight is not None:
            loss = loss * weight
        return getattr(_F, reduce)(loss, axis=self._batch_axis, exclude=True)

    def __repr__(self):
        return f"{type(self).__name__}(batch_axis={self._batch_axis}, w={self._weight})"


def _like(label, pred):
    return _F.reshape_like(label, pred)


class L2Loss(Loss):
    """``weight / 2 * (label - pred)^2``."""

    def __init__(self, weight=1.0, batch_axis=0):
        super().__init__(weight, batch_axis)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        loss = _F.square(_like(label, pred) - pred)
        return self._finish(loss, sample_weight, self._weight / 2)


class L1Loss(Loss):
    """``weight * |label - pred|``."""

    def __init__(self, weight=None, batch_axis=0):
        super().__init__(weight, batch_axis)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        return self._finish(_F.abs(_like(label, pred) - pred), sample_weight)


class SigmoidBinaryCrossEntropyLoss(Loss):
    """Binary cross-entropy on logits (stable form) or, with ``from_sigmoid``, probabilities."""

    def __init__(self, from_sigmoid=False, weight=None, batch_axis=0):
        super().__init__(weight, batch_axis)
        self._from_sigmoid = from_sigmoid

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _like(label, pred)
        if self._from_sigmoid:
            eps = 1e-12
            loss = -(_F.log(pred + eps) * label + _F.log(1.0 - pred + eps) * (1.0 - label))
        else:
            # NOTE: max(x, 0) - x * z + log(1 + exp(-|x|)) never overflows.
            loss = (_F.relu(pred) - pred * label
                    + _F.Activation(-_F.abs(pred), act_type="softrelu"))
        return self._finish(loss, sample_weight)


SigmoidBCELoss = SigmoidBinaryCrossEntropyLoss


class SoftmaxCrossEntropyLoss(Loss):
    """``-sum(label * log_softmax(pred))``; sparse labels are class indices along ``axis``."""

    def __init__(self, axis=-1, sparse_label=True, from_logits=False, weight=None, batch_axis=0):
        super().__init__(weight, batch_axis)
        self._axis, self._sparse_label, self._from_logits = axis, sparse_label, from_logits

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = _F.log_softmax(pred, axis=self._axis)
        if self._sparse_label:
            loss = -_F.pick(pred, label, axis=self._axis, keepdims=True)
        else:
            loss = -_F.sum(pred * _like(label, pred), axis=self._axis, keepdims=True)
        return self._finish(loss, sample_weight)


SoftmaxCELoss = SoftmaxCrossEntropyLoss


class KLDivLoss(Loss):
    """``sum(label * (log(label) - pred))`` over the non-batch axes, with ``pred``
    log-probabilities (``from_logits=True``)."""

    def __init__(self, from_logits=True, axis=-1, weight=None, batch_axis=0):
        super().__init__(weight, batch_axis)
        self._from_logits, self._axis = from_logits, axis

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = _F.log_softmax(pred, axis=self._axis)
        loss = label * (_F.log(label + 1e-12) - pred)
        return self._finish(loss, sample_weight, reduce="sum")


class HuberLoss(Loss):
    """``|d| - rho/2`` where ``|d| > rho``, else ``d^2 / (2 rho)`` (``d = label - pred``)."""

    def __init__(self, rho=1, weight=None, batch_axis=0):
        super().__init__(weight, batch_axis)
        self._rho = rho

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        loss = _F.abs(_like(label, pred) - pred)
        loss = _F.where(loss > self._rho, loss - 0.5 * self._rho,
                        (0.5 / self._rho) * _F.square(loss))
        return self._finish(loss, sample_weight)
