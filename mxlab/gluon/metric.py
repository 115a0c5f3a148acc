"""MXNet 2.0's ``mx.gluon.metric``: the evaluation metrics of MXNet master.

The base classes, ``Accuracy``, ``TopKAccuracy``, ``Loss`` and ``CustomMetric`` are MXNet 1.x's
(:mod:`.metric_v1`, which stays ``mx.metric``); these metrics changed in 2.0 and are redefined
here, with their own :func:`create` registry:

* ``F1`` / ``Fbeta`` take ``class_type`` ('binary', 'multiclass', 'multilabel'), ``threshold``
  and ``average`` ('micro' by default: counts over everything seen; 'macro': the mean over
  classes, not over updates as in 1.x); ``MCC`` is binary over all counts, ``PCC`` its
  multiclass form; ``BinaryAccuracy`` thresholds.
* ``MAE`` / ``MSE`` average per example (1.x: per update); ``RMSE`` is the root of the mean MSE.
* ``CrossEntropy`` / ``Perplexity`` take ``ignore_label``, ``axis`` and ``from_logits``;
  ``PearsonCorrelation`` streams over every update (1.x ``average='micro'``).
* ``MeanPairwiseDistance``, ``MeanCosineSimilarity`` and ``Torch`` are new.

Metrics run on the host (one ``asnumpy`` per array and update), as in :mod:`.metric_v1`.

Example
-------
>>> import mxlab as mx
>>> f1 = mx.gluon.metric.F1()
>>> f1.update([mx.np.array([0., 1., 1.])], [mx.np.array([[0.3, 0.7], [0., 1.], [0.4, 0.6]])])
>>> name, value = f1.get()
>>> name, round(value, 6)
('f1', 0.8)
"""
import math

import numpy

from ..base import MXNetValueError
from . import metric_v1 as _v1
from .metric_v1 import (Accuracy, CustomMetric, EvalMetric, Loss, TopKAccuracy, _host,
                        check_label_shapes, np)

__all__ = ["EvalMetric", "CompositeEvalMetric", "Accuracy", "TopKAccuracy", "F1", "Fbeta",
           "BinaryAccuracy", "MCC", "PCC", "MAE", "MSE", "RMSE", "MeanPairwiseDistance",
           "MeanCosineSimilarity", "CrossEntropy", "Perplexity", "PearsonCorrelation", "Loss",
           "Torch", "CustomMetric", "create", "register", "np", "check_label_shapes",
           "predict_with_threshold", "one_hot"]

_REGISTRY = dict(_v1._REGISTRY)


def register(klass, *aliases):
    """Make ``klass`` creatable by its lower-case name (and ``aliases``) with :func:`create`."""
    for name in (klass.__name__.lower(),) + aliases:
        _REGISTRY[name] = klass
    return klass


class CompositeEvalMetric(_v1.CompositeEvalMetric):
    """Several metrics updated together (names resolved by this module's :func:`create`)."""

    @staticmethod
    def _create(metric):
        return create(metric)


def predict_with_threshold(pred, threshold=0.5):
    """``pred > threshold`` (a float, or one threshold per category on the last axis)."""
    if isinstance(threshold, float):
        return pred > threshold
    if hasattr(threshold, "shape"):
        threshold = _host(threshold)
        if threshold.shape[-1] != pred.shape[-1]:
            raise MXNetValueError(f"shape mismatch: {pred.shape[-1]} vs. {threshold.shape[-1]}")
        return pred > threshold
    raise MXNetValueError(f"{type(threshold)} is a wrong type for threshold!")


def one_hot(idx, num):
    return (numpy.arange(num) == idx[:, None]).astype("int32")


class _ClassificationMetrics:
    """Per-class true / false positive / negative counts over every update, and the scores
    (precision, recall, F-beta, MCC) computed from them."""

    def __init__(self, class_type="binary", threshold=0.5, beta=1):
        if class_type not in ("binary", "multiclass", "multilabel"):
            raise MXNetValueError(f"Wrong class_type {class_type}! Only supports "
                                  "['binary', 'multiclass', 'multilabel']")
        self.class_type, self.threshold, self.beta = class_type, threshold, beta
        self.reset_stats()

    def reset_stats(self):
        self.num_classes = None
        self.counts = None          # rows: tp, fp, fn, tn; one column per class

    def _set(self, num):
        if self.num_classes is None:
            self.num_classes, self.counts = num, numpy.zeros((4, num), dtype="float64")
        elif self.num_classes != num:
            raise MXNetValueError(f"Input number of classes has changed from "
                                  f"{self.num_classes} to {num}")

    def update_stats(self, label, pred):
        pred, label = _host(pred), _host(label).astype("int32")
        if self.class_type == "binary":
            self._set(1)
            if label.size and label.max() > 1:
                raise MXNetValueError("Wrong label for binary classification.")
            if pred.shape != label.shape:
                if pred.shape[-1] > 2:
                    raise MXNetValueError(f"The shape of prediction {pred.shape} is wrong for "
                                          "binary classification.")
                if pred.shape[-1] == 2:
                    pred = pred.reshape(-1, 2)[:, 1]
            pred_label = predict_with_threshold(pred, self.threshold).reshape(-1, 1)
            label = label.reshape(-1, 1)
        elif self.class_type == "multiclass":
            num = pred.shape[-1]
            self._set(num)
            if label.size and label.max() >= num:
                raise MXNetValueError("pred contains fewer classes than label!")
            pred_label = one_hot(pred.argmax(axis=-1).reshape(-1), num)
            label = one_hot(label.reshape(-1), num)
        else:
            num = pred.shape[-1]
            self._set(num)
            if pred.shape != label.shape:
                raise MXNetValueError("The shape of label should be same as that of prediction "
                                      f"for multilabel classification: {label.shape} vs. "
                                      f"{pred.shape}")
            pred_label = predict_with_threshold(pred, self.threshold).reshape(-1, num)
            label = label.reshape(-1, num)
        check_label_shapes(label, pred_label)
        predicted, actual = pred_label == 1, label == 1
        self.counts += numpy.stack([(predicted & actual).sum(0), (predicted & ~actual).sum(0),
                                    (~predicted & actual).sum(0),
                                    (~predicted & ~actual).sum(0)])

    @property
    def total_examples(self):
        return 0 if self.num_classes is None else int(self.counts[:, 0].sum())

    def _fbeta(self, tp, fp, fn):
        precision = tp / numpy.maximum(tp + fp, 1e-12)
        recall = tp / numpy.maximum(tp + fn, 1e-12)
        b2 = self.beta ** 2
        return (1 + b2) * precision * recall / numpy.maximum(b2 * precision + recall, 1e-12)

    @property
    def fscore(self):
        """Per-class F-beta scores."""
        tp, fp, fn, _ = self.counts
        return self._fbeta(tp, fp, fn)

    @property
    def micro_fscore(self):
        if self.num_classes is None:
            return 0.0
        tp, fp, fn, _ = self.counts.sum(axis=1)
        return float(self._fbeta(tp, fp, fn))

    def binary_matthewscc(self):
        """MCC of the binary counts; zero terms of the denominator count as 1."""
        if not self.total_examples:
            return 0.0
        tp, fp, fn, tn = (float(c) for c in self.counts[:, 0])
        denom = 1.0
        for term in (tp + fp, tp + fn, tn + fp, tn + fn):
            denom *= term if term != 0.0 else 1.0
        return (tp * tn - fp * fn) / math.sqrt(denom)


class F1(EvalMetric):
    """F1 score over every example seen ('micro'), its per-class mean ('macro') or the
    per-class scores (``average=None``)."""

    def __init__(self, name="f1", output_names=None, label_names=None, class_type="binary",
                 threshold=0.5, average="micro"):
        self.average = average
        self.metrics = _ClassificationMetrics(class_type=class_type, threshold=threshold)
        EvalMetric.__init__(self, name, output_names, label_names, class_type=class_type,
                            threshold=threshold, average=average)

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            self.metrics.update_stats(label, pred)
        total = self.metrics.total_examples
        if self.average == "micro":
            score = self.metrics.micro_fscore
        elif self.average == "macro":
            score = float(self.metrics.fscore.mean())
        else:
            score = self.metrics.fscore
        self.sum_metric, self.num_inst = score * total, total

    def reset(self):
        super().reset()
        if hasattr(self, "metrics"):
            self.metrics.reset_stats()


class Fbeta(F1):
    """F-beta score: ``(1 + beta^2) P R / (beta^2 P + R)``."""

    def __init__(self, name="fbeta", output_names=None, label_names=None, class_type="binary",
                 beta=1, threshold=0.5, average="micro"):
        super().__init__(name, output_names, label_names, class_type, threshold, average)
        self._kwargs["beta"] = beta
        self.metrics = _ClassificationMetrics(class_type=class_type, threshold=threshold,
                                              beta=beta)


class BinaryAccuracy(EvalMetric):
    """Accuracy of thresholded predictions (binary or multilabel)."""

    def __init__(self, name="binary_accuracy", output_names=None, label_names=None,
                 threshold=0.5):
        self.threshold = threshold
        EvalMetric.__init__(self, name, output_names, label_names, threshold=threshold)

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            pred = predict_with_threshold(_host(pred), self.threshold).astype("int32").ravel()
            label = _host(label).astype("int32").ravel()
            check_label_shapes(label, pred)
            self._add(int((pred == label).sum()), len(pred))


class MCC(EvalMetric):
    """Matthews correlation coefficient of a binary classifier over every example seen."""

    def __init__(self, name="mcc", output_names=None, label_names=None):
        self._metrics = _ClassificationMetrics()
        EvalMetric.__init__(self, name, output_names, label_names)

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            self._metrics.update_stats(label, pred)
        total = self._metrics.total_examples
        self.sum_metric, self.num_inst = self._metrics.binary_matthewscc() * total, total

    def reset(self):
        super().reset()
        if hasattr(self, "_metrics"):
            self._metrics.reset_stats()


class PCC(EvalMetric):
    """Multiclass MCC (Pearson correlation of the one-hot confusion matrix); the matrix
    grows with the largest class seen. ``nan`` while a row or column sum is degenerate."""

    def __init__(self, name="pcc", output_names=None, label_names=None):
        self.k = 2
        EvalMetric.__init__(self, name, output_names, label_names)

    def _calc_mcc(self, cmat):
        n = cmat.sum()
        x, y = cmat.sum(axis=1), cmat.sum(axis=0)
        cov_xx, cov_yy = numpy.sum(x * (n - x)), numpy.sum(y * (n - y))
        if cov_xx == 0 or cov_yy == 0:
            return float("nan")
        cov_xy = numpy.sum(numpy.diag(cmat) * n - x * y)
        return cov_xy / (cov_xx * cov_yy) ** 0.5

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label, pred = _host(label).astype("int32"), _host(pred)
            pred = pred.argmax(axis=1) if pred.shape != label.shape else pred
            pred, label = pred.astype("int32").ravel(), label.ravel()
            n = int(max(pred.max(initial=0), label.max(initial=0)))
            if n >= self.k:
                grow = n + 1 - self.k
                self.lcm = numpy.pad(self.lcm, ((0, grow), (0, grow)), "constant")
                self.k += grow
            numpy.add.at(self.lcm, (pred, label), 1)
        self.num_inst += 1

    @property
    def sum_metric(self):
        return self._calc_mcc(self.lcm) * self.num_inst

    @sum_metric.setter
    def sum_metric(self, _):
        pass  # NOTE: derived from the confusion matrix; EvalMetric.reset assigns it

    def reset(self):
        super().reset()
        self.lcm = numpy.zeros((self.k, self.k), dtype="float64")


def _pairs_2d(label, pred):
    label, pred = _host(label), _host(pred)
    return label, pred.astype(numpy.result_type(label, pred))


class MAE(EvalMetric):
    """Mean absolute error, averaged per example."""

    def __init__(self, name="mae", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def _errors(label, pred):
        return numpy.abs(label - pred)

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label, pred = _pairs_2d(label, pred)
            num = label.shape[0] if label.ndim else 1
            per_example = self._errors(label, pred).reshape(num, -1).mean(axis=-1)
            self._add(float(per_example.sum()), num)


class MSE(MAE):
    """Mean squared error, averaged per example."""

    def __init__(self, name="mse", output_names=None, label_names=None):
        EvalMetric.__init__(self, name, output_names, label_names)

    @staticmethod
    def _errors(label, pred):
        return (label - pred) ** 2.0


class RMSE(MSE):
    """Root of the per-example mean squared error."""

    def __init__(self, name="rmse", output_names=None, label_names=None):
        EvalMetric.__init__(self, name, output_names, label_names)

    def _value(self, total, count):
        return float("nan") if count == 0 else math.sqrt(total / count)


class MeanPairwiseDistance(EvalMetric):
    """Mean p-norm distance between each example's label and prediction."""

    def __init__(self, name="mpd", output_names=None, label_names=None, p=2):
        super().__init__(name, output_names, label_names, p=p)
        self.p = p

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label, pred = _pairs_2d(label, pred)
            label, pred = label.reshape(label.shape[0], -1), pred.reshape(pred.shape[0], -1)
            dist = (((label - pred) ** self.p).sum(axis=-1)) ** (1.0 / self.p)
            self._add(float(dist.sum()), label.shape[0])


class MeanCosineSimilarity(EvalMetric):
    """Mean cosine similarity along the last axis (norms floored at ``eps``)."""

    def __init__(self, name="cos_sim", output_names=None, label_names=None, eps=1e-8):
        super().__init__(name, output_names, label_names, eps=eps)
        self.eps = eps

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label, pred = _pairs_2d(label, pred)
            label = label.reshape(1, -1) if label.ndim == 1 else label
            pred = pred.reshape(1, -1) if pred.ndim == 1 else pred
            norms = numpy.linalg.norm(pred, axis=-1) * numpy.linalg.norm(label, axis=-1)
            sim = (label * pred).sum(axis=-1) / numpy.maximum(norms, self.eps)
            self._add(float(sim.sum()), label.reshape(-1, label.shape[-1]).shape[0])


def _softmax(x, axis):
    e = numpy.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


class CrossEntropy(EvalMetric):
    """Mean ``-log(max(eps, p[label]))`` along ``axis`` (``from_logits``: softmax first);
    labels equal to ``ignore_label`` are skipped."""

    def __init__(self, eps=1e-12, ignore_label=None, axis=-1, from_logits=False,
                 name="cross-entropy", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names, eps=eps, ignore_label=ignore_label,
                         axis=axis, from_logits=from_logits)
        self.eps, self.ignore_label = eps, ignore_label
        self.axis, self.from_logits = axis, from_logits

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label, pred = _host(label), _host(pred).astype("float64")
            if label.size * pred.shape[self.axis] != pred.size:
                raise MXNetValueError(f"{type(self).__name__}: shape mismatch: {label.shape} "
                                      f"vs. {pred.shape}")
            if self.from_logits:
                pred = _softmax(pred, self.axis)
            index = numpy.expand_dims(label.reshape(numpy.delete(pred.shape, self.axis % pred.ndim))
                                      .astype("int64"), self.axis)
            picked = numpy.take_along_axis(pred, index, axis=self.axis).ravel()
            label, count = label.ravel(), picked.size
            if self.ignore_label is not None:
                ignore = label == self.ignore_label
                count -= int(ignore.sum())
                picked = numpy.where(ignore, 1.0, picked)
            self._add(-float(numpy.log(numpy.maximum(self.eps, picked)).sum()), count)


class Perplexity(CrossEntropy):
    """``exp`` of :class:`CrossEntropy`."""

    def __init__(self, eps=1e-12, ignore_label=None, axis=-1, from_logits=False,
                 name="perplexity", output_names=None, label_names=None):
        super().__init__(eps, ignore_label, axis, from_logits, name, output_names, label_names)

    def _value(self, total, count):
        return float("nan") if count == 0 else math.exp(total / count)


class PearsonCorrelation(EvalMetric):
    """Pearson's r of all predictions and labels seen, streamed: each update's means, sums of
    squared deviations and co-moment are merged into the running ones (Chan et al.)."""

    def __init__(self, name="pearsonr", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    def reset(self):
        super().reset()
        self._n = 0
        self._mean = numpy.zeros(2)     # label, prediction
        self._m2 = numpy.zeros(2)
        self._cov = 0.0

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            check_label_shapes(label, pred, False, True)
            both = numpy.stack([_host(label).ravel(), _host(pred).ravel()]).astype("float64")
            n_b = both.shape[1]
            mean_b = both.mean(axis=1)
            dev = both - mean_b[:, None]
            n = self._n + n_b
            delta = mean_b - self._mean
            self._m2 += (dev ** 2).sum(axis=1) + delta ** 2 * self._n * n_b / n
            self._cov += float((dev[0] * dev[1]).sum() + delta[0] * delta[1] * self._n * n_b / n)
            self._mean += delta * n_b / n
            self._n = n
            self.num_inst += 1

    def get(self):
        if self.num_inst == 0:
            return self.name, float("nan")
        return self.name, float(self._cov / math.sqrt(self._m2[0] * self._m2[1]))


class Torch(Loss):
    """MXNet 2.0's name for a :class:`Loss` metric over torch-module outputs."""

    def __init__(self, name="torch", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)


for _cls, _aliases in ((CompositeEvalMetric, ("composite",)), (F1, ()), (Fbeta, ()),
                       (BinaryAccuracy, ()), (MCC, ()), (PCC, ()), (MAE, ()), (MSE, ()),
                       (RMSE, ()), (MeanPairwiseDistance, ("mpd",)),
                       (MeanCosineSimilarity, ("cos_sim",)), (CrossEntropy, ("ce",)),
                       (Perplexity, ()), (PearsonCorrelation, ("pearsonr",)), (Torch, ())):
    register(_cls, *_aliases)
for _gone in ("negativeloglikelihood", "nll_loss"):  # NOTE: not in MXNet 2.0's gluon.metric
    _REGISTRY.pop(_gone, None)

create = _v1._creator(_REGISTRY, CompositeEvalMetric)
