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
import math
import numbers

from ..base import MXNetTypeError, MXNetValueError
from ..ndarray.ndarray import ndarray as np_ndarray
from ..ops.registry import F as _F
from .block import HybridBlock

__all__ = ["Loss", "L1Loss", "L2Loss", "SoftmaxCrossEntropyLoss", "SoftmaxCELoss",
           "SigmoidBinaryCrossEntropyLoss", "SigmoidBCELoss", "HuberLoss", "KLDivLoss",
           "HingeLoss", "SquaredHingeLoss", "LogisticLoss", "TripletLoss", "PoissonNLLLoss",
           "CosineEmbeddingLoss", "CTCLoss", "SDMLLoss"]


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

    def _weighted(self, loss, sample_weight):
        """The weights without a reduction (losses that return per-sample values as they are)."""
        if sample_weight is not None:
            loss = loss * sample_weight
        return loss * self._weight if self._weight is not None else loss

    def __repr__(self):
        return f"{type(self).__name__}(batch_axis={self._batch_axis}, w={self._weight})"


def _is_np(x):
    """Whether ``x`` is an ``mx.np`` array, whose losses follow MXNet 2.0 where 1.x differs."""
    return isinstance(x, np_ndarray)


def _like(label, pred):
    return _F.reshape_like(label, pred)


def _apply_weighting(F, loss, weight=None, sample_weight=None):
    """MXNet's loss helper (GluonCV's and GluonNLP's losses import it): ``loss`` times
    ``sample_weight`` (broadcast) and the scalar ``weight``; ``F`` is accepted and unused."""
    if sample_weight is not None:
        loss = _F.broadcast_mul(loss, sample_weight)
    if weight is not None:
        if not isinstance(weight, numbers.Number):
            raise MXNetTypeError(f"weight must be a number, got {type(weight).__name__}")
        loss = loss * weight
    return loss


def _reshape_like(F, x, y):
    """MXNet's loss helper: ``x`` reshaped like ``y``; ``F`` is accepted and unused."""
    return _like(x, y)


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

    def hybrid_forward(self, F, pred, label, sample_weight=None, pos_weight=None):
        """``pos_weight`` (broadcast against ``label``) scales the positive term, as MXNet's."""
        label = _like(label, pred)
        if self._from_sigmoid:
            eps = 1e-12
            positive = _F.log(pred + eps) * label
            if pos_weight is not None:
                positive = _F.broadcast_mul(positive, pos_weight)
            loss = -(positive + _F.log(1.0 - pred + eps) * (1.0 - label))
        elif pos_weight is None:
            # NOTE: max(x, 0) - x * z + log(1 + exp(-|x|)) never overflows.
            loss = (_F.relu(pred) - pred * label
                    + _F.Activation(-_F.abs(pred), act_type="softrelu"))
        else:
            # NOTE: x - x * z + (1 + z * (pos_weight - 1)) * (log(1 + exp(-|x|)) + max(-x, 0))
            log_weight = _F.broadcast_mul(pos_weight - 1, label) + 1
            loss = pred - pred * label + log_weight * (
                _F.Activation(-_F.abs(pred), act_type="softrelu") + _F.relu(-pred))
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


class _MarginLoss(Loss):
    """A loss with a ``margin`` (hinge family, triplet)."""

    def __init__(self, margin=1, weight=None, batch_axis=0):
        super().__init__(weight, batch_axis)
        self._margin = margin


class HingeLoss(_MarginLoss):
    """``max(0, margin - pred * label)`` with labels in {-1, 1}."""

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        return self._finish(_F.relu(self._margin - pred * _like(label, pred)), sample_weight)


class SquaredHingeLoss(_MarginLoss):
    """``max(0, margin - pred * label)^2`` with labels in {-1, 1}."""

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        hinge = _F.relu(self._margin - pred * _like(label, pred))
        return self._finish(_F.square(hinge), sample_weight)


class LogisticLoss(Loss):
    """``log(1 + exp(-pred * label))``; ``label_format`` 'signed' ({-1, 1}) or 'binary'."""

    def __init__(self, weight=None, batch_axis=0, label_format="signed"):
        super().__init__(weight, batch_axis)
        if label_format not in ("signed", "binary"):
            raise MXNetValueError(f"label_format can only be signed or binary, received "
                                  f"{label_format}.")
        self._label_format = label_format

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _like(label, pred)
        if self._label_format == "signed":
            label = (label + 1.0) / 2.0
        loss = (_F.relu(pred) - pred * label
                + _F.Activation(-_F.abs(pred), act_type="softrelu"))
        return self._finish(loss, sample_weight)


class TripletLoss(_MarginLoss):
    """``max(0, |pos - pred|^2 - |neg - pred|^2 + margin)`` summed over the non-batch axes."""

    def hybrid_forward(self, F, pred, positive, negative, sample_weight=None):
        gap = (_F.square(_like(positive, pred) - pred)
               - _F.square(_like(negative, pred) - pred))
        loss = _F.relu(_F.sum(gap, axis=self._batch_axis, exclude=True) + self._margin)
        return self._weighted(loss, sample_weight)


class PoissonNLLLoss(Loss):
    """Negative log-likelihood of ``target`` under Poisson(``exp(pred)``) (``from_logits``) or
    Poisson(``pred``); ``compute_full`` adds Stirling's term for targets > 1."""

    def __init__(self, weight=None, from_logits=True, batch_axis=0, compute_full=False):
        super().__init__(weight, batch_axis)
        self._from_logits, self._compute_full = from_logits, compute_full

    def hybrid_forward(self, F, pred, target, sample_weight=None, epsilon=1e-08):
        target = _like(target, pred)
        if self._from_logits:
            loss = _F.exp(pred) - target * pred
        else:
            loss = pred - target * _F.log(pred + epsilon)
        if self._compute_full:
            stirling = (target * _F.log(target) - target
                        + 0.5 * _F.log(2 * math.pi * target))
            loss = loss + stirling * (target > 1)
        if _is_np(pred):  # NOTE: MXNet 2.0 averages per sample; 1.x over everything
            return self._finish(loss, sample_weight)
        return _F.mean(self._weighted(loss, sample_weight))


class CosineEmbeddingLoss(Loss):
    """``1 - cos(x1, x2)`` for label 1, ``max(0, cos(x1, x2) - margin)`` for label -1."""

    def __init__(self, weight=None, batch_axis=0, margin=0):
        super().__init__(weight, batch_axis)
        self._margin = margin

    def hybrid_forward(self, F, input1, input2, label, sample_weight=None):
        input1 = _like(input1, input2)
        dot = _F.sum(input1 * input2, axis=-1)
        norms = _F.norm(input1, axis=-1) * _F.norm(input2, axis=-1)
        cos_sim = _F.reshape(dot / _F._maximum_scalar(norms, scalar=1e-12), shape=(-1, 1))
        label = _F.reshape(label, shape=(-1, 1))
        dissimilar = _F.relu(cos_sim - self._margin)
        if _is_np(input2):  # NOTE: MXNet 2.0 clips at 1 - margin and averages per sample
            dissimilar = _F.clip(dissimilar, a_min=0, a_max=1 - self._margin)
            loss = _F.where(label == 1, 1 - cos_sim, dissimilar)
            return self._finish(loss, sample_weight)
        loss = (1 - cos_sim) * (label == 1) + dissimilar * (label == -1)
        return self._weighted(loss, sample_weight)


class CTCLoss(Loss):
    """Connectionist Temporal Classification loss (the ``CTCLoss`` op; blank is the last class).

    ``pred``: activations in ``layout`` 'NTC' or 'TNC'; ``label``: class indices padded with -1
    in ``label_layout`` 'NT' or 'TN'; optional ``pred_lengths`` / ``label_lengths`` per sample.
    """

    def __init__(self, layout="NTC", label_layout="NT", weight=None):
        if layout not in ("NTC", "TNC"):
            raise MXNetValueError(f"Only 'NTC' and 'TNC' layouts for pred are supported. "
                                  f"Got: {layout}")
        if label_layout not in ("NT", "TN"):
            raise MXNetValueError(f"Only 'NT' and 'TN' layouts for label are supported. "
                                  f"Got: {label_layout}")
        super().__init__(weight, label_layout.find("N"))
        self._layout, self._label_layout = layout, label_layout

    def hybrid_forward(self, F, pred, label, pred_lengths=None, label_lengths=None,
                       sample_weight=None):
        if self._layout == "NTC":
            pred = _F.swapaxes(pred, dim1=0, dim2=1)
        if self._batch_axis == 1:
            label = _F.swapaxes(label, dim1=0, dim2=1)
        inputs = [pred, label] + [x for x in (pred_lengths, label_lengths) if x is not None]
        loss, _ = _F.CTCLoss(*inputs, use_data_lengths=pred_lengths is not None,
                             use_label_lengths=label_lengths is not None, blank_label="last")
        return self._weighted(loss, sample_weight)


class SDMLLoss(Loss):
    """Smoothed Deep Metric Learning: each row of ``x1`` should be nearest its own row of
    ``x2`` (KL divergence between softmax(-distances) and smoothed identity labels)."""

    def __init__(self, smoothing_parameter=0.3, weight=1.0, batch_axis=0):
        super().__init__(weight, batch_axis)
        self.kl_loss = KLDivLoss(from_logits=True)
        self.smoothing_parameter = smoothing_parameter

    def hybrid_forward(self, F, x1, x2):
        batch_size = x1.shape[0]
        distances = _F.sum(_F.square(_F.expand_dims(x1, axis=1) - _F.expand_dims(x2, axis=0)),
                           axis=2)
        gold = _F.diag(_F.ones_like(_F.diag(distances)))  # NOTE: identity shaped like the batch
        off = self.smoothing_parameter / (batch_size - 1)
        labels = gold * (1 - self.smoothing_parameter) + (1 - gold) * off
        return self.kl_loss(_F.log_softmax(-distances, axis=1), labels)
