"""MXNet 1.x's evaluation metrics (``mx.metric``) with MXNet 1.9's formulas. Metrics run on the
host: each ``update`` reads the arrays once (``asnumpy``) and adds to a local sum and count
(``get``, cleared by ``reset_local``) and a global one (``get_global``).

MXNet 2.0's ``mx.gluon.metric`` (:mod:`mxlab.gluon.metric`) shares the base classes, Accuracy,
TopKAccuracy, Loss and CustomMetric with this module and redefines the metrics whose arguments or
formulas changed (F1, MCC, MAE / MSE / RMSE, CrossEntropy, Perplexity, PearsonCorrelation).

Example
-------
>>> import mxlab as mx
>>> acc = mx.metric.Accuracy()
>>> acc.update([mx.nd.array([0, 1, 1])], [mx.nd.array([[0.9, 0.1], [0.3, 0.7], [0.6, 0.4]])])
>>> acc.get()
('accuracy', 0.6666666666666666)
"""
import json
import math
from collections import OrderedDict

import numpy

from ..base import MXNetValueError

__all__ = ["EvalMetric", "CompositeEvalMetric", "Accuracy", "TopKAccuracy", "F1", "MCC",
           "Perplexity", "MAE", "MSE", "RMSE", "CrossEntropy", "NegativeLogLikelihood",
           "PearsonCorrelation", "PCC", "Loss", "CustomMetric", "create", "register", "np",
           "check_label_shapes"]

_REGISTRY = {}


def register(klass, *aliases):
    """Make ``klass`` creatable by its lower-case name (and ``aliases``) with :func:`create`."""
    for name in (klass.__name__.lower(),) + aliases:
        _REGISTRY[name] = klass
    return klass


def _creator(registry, composite):
    """``create`` over ``registry``: a name ('acc', 'f1', ...), a ``get_config()`` dict or its
    JSON text, a callable ``feval(label, pred)``, a metric, or a list (-> ``composite``)."""
    def create(metric, *args, **kwargs):
        """A metric from a name, a config dict or JSON, a callable ``feval(label, pred)``, a
        metric (returned as is) or a list of those (a composite)."""
        if callable(metric) and not isinstance(metric, type):
            return CustomMetric(metric, *args, **kwargs)
        if isinstance(metric, EvalMetric):
            return metric
        if isinstance(metric, list):
            return composite([create(m, *args, **kwargs) for m in metric])
        if isinstance(metric, str) and metric and metric[0] in "[{":
            metric = json.loads(metric)
            if isinstance(metric, list):            # MXNet's '["name", {kwargs}]' form
                metric = dict(metric[1], metric=metric[0])
        if isinstance(metric, dict):
            kwargs = dict(metric, **kwargs)
            metric = kwargs.pop("metric")
        if isinstance(metric, str) and metric.lower() in registry:
            return registry[metric.lower()](*args, **kwargs)
        raise MXNetValueError(f"Cannot find metric {metric!r}; registered: {sorted(registry)}")
    return create


def _host(x):
    return x.asnumpy() if hasattr(x, "asnumpy") else numpy.asarray(x)


def check_label_shapes(labels, preds, wrap=False, shape=False):
    """Equal counts (or shapes, with ``shape``); ``wrap`` turns single arrays into lists."""
    if wrap:
        labels = labels if isinstance(labels, (list, tuple)) else [labels]
        preds = preds if isinstance(preds, (list, tuple)) else [preds]
    got = (labels.shape, preds.shape) if shape else (len(labels), len(preds))
    if got[0] != got[1]:
        raise MXNetValueError(f"Shape of labels {got[0]} does not match shape of predictions "
                              f"{got[1]}")
    return labels, preds


class EvalMetric:
    """Base class: ``update(labels, preds)``, ``get()`` -> (name, value), ``reset()``."""

    def __init__(self, name, output_names=None, label_names=None, **kwargs):
        self.name, self.output_names, self.label_names = str(name), output_names, label_names
        self._kwargs = kwargs
        self.reset()

    def __str__(self):
        return f"EvalMetric: {dict(self.get_name_value())}"

    def get_config(self):
        config = dict(self._kwargs, metric=type(self).__name__, name=self.name,
                      output_names=self.output_names, label_names=self.label_names)
        return config

    def update_dict(self, label, pred):
        """Update from dicts keyed by output / label names."""
        pred = [pred[n] for n in self.output_names] if self.output_names else list(pred.values())
        label = ([label[n] for n in self.label_names] if self.label_names
                 else list(label.values()))
        self.update(label, pred)

    def update(self, labels, preds):
        raise NotImplementedError(f"{type(self).__name__} must implement update")

    def _add(self, total, count):
        self.sum_metric += total
        self.global_sum_metric += total
        self.num_inst += count
        self.global_num_inst += count

    def reset(self):
        self.num_inst, self.sum_metric = 0, 0.0
        self.global_num_inst, self.global_sum_metric = 0, 0.0

    def reset_local(self):
        self.num_inst, self.sum_metric = 0, 0.0

    def _value(self, total, count):
        return float("nan") if count == 0 else total / count

    def get(self):
        return self.name, self._value(self.sum_metric, self.num_inst)

    def get_global(self):
        return self.name, self._value(self.global_sum_metric, self.global_num_inst)

    def get_name_value(self):
        return _pairs(*self.get())

    def get_global_name_value(self):
        return _pairs(*self.get_global())


def _pairs(name, value):
    names = name if isinstance(name, list) else [name]
    values = value if isinstance(value, list) else [value]
    return list(zip(names, values))


class CompositeEvalMetric(EvalMetric):
    """Several metrics updated together; ``get`` returns lists of names and values."""

    def __init__(self, metrics=None, name="composite", output_names=None, label_names=None):
        self.metrics = [self._create(m) for m in (metrics or [])]
        super().__init__(name, output_names, label_names)

    @staticmethod
    def _create(metric):
        return create(metric)

    def add(self, metric):
        self.metrics.append(self._create(metric))

    def get_metric(self, index):
        return self.metrics[index]

    def update_dict(self, labels, preds):
        if self.label_names is not None:
            labels = OrderedDict((k, v) for k, v in labels.items() if k in self.label_names)
        if self.output_names is not None:
            preds = OrderedDict((k, v) for k, v in preds.items() if k in self.output_names)
        for metric in self.metrics:
            metric.update_dict(labels, preds)

    def update(self, labels, preds):
        for metric in self.metrics:
            metric.update(labels, preds)

    def reset(self):
        for metric in getattr(self, "metrics", ()):
            metric.reset()

    def reset_local(self):
        for metric in self.metrics:
            metric.reset_local()

    def _collect(self, getter):
        names, values = [], []
        for metric in self.metrics:
            name, value = getter(metric)
            names.extend(name if isinstance(name, list) else [name])
            values.extend(value if isinstance(value, list) else [value])
        return names, values

    def get(self):
        return self._collect(lambda m: m.get())

    def get_global(self):
        return self._collect(lambda m: m.get_global())

    def get_config(self):
        return dict(super().get_config(), metrics=[m.get_config() for m in self.metrics])


class Accuracy(EvalMetric):
    """Fraction of predictions (argmax along ``axis`` when shapes differ) equal to the label."""

    def __init__(self, axis=1, name="accuracy", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names, axis=axis)
        self.axis = axis

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            pred, label = _host(pred), _host(label)
            if pred.shape != label.shape:
                pred = numpy.argmax(pred, axis=self.axis)
            pred, label = pred.astype("int32").ravel(), label.astype("int32").ravel()
            check_label_shapes(label, pred)
            self._add(int((pred == label).sum()), len(pred))


class TopKAccuracy(EvalMetric):
    """Fraction of labels among the ``top_k`` highest predictions."""

    def __init__(self, top_k=1, name="top_k_accuracy", output_names=None, label_names=None):
        if top_k <= 1:
            raise MXNetValueError("Please use Accuracy if top_k is no more than 1")
        super().__init__(f"{name}_{top_k}", output_names, label_names, top_k=top_k)
        self.top_k = top_k

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            pred, label = _host(pred).astype("float32"), _host(label).astype("int32").ravel()
            if pred.ndim > 2:
                raise MXNetValueError("Predictions should be no more than 2 dims")
            if pred.ndim == 1:
                hits = numpy.argpartition(pred, -self.top_k) == label  # NOTE: MXNet's 1-d rule
                self._add(int(hits.sum()), pred.shape[0])
                continue
            top = numpy.argsort(-pred, axis=1, kind="stable")[:, :min(self.top_k, pred.shape[1])]
            self._add(int((top == label[:, None]).any(axis=1).sum()), pred.shape[0])


class _Binary(EvalMetric):
    """Confusion counts of a binary classifier (argmax of 2-class predictions), local and
    global; ``average='macro'`` averages per update, 'micro' over all examples."""

    def __init__(self, name, output_names, label_names, average):
        self.average = average
        self._counts = numpy.zeros(4)          # tp, fp, fn, tn since the last macro step
        self._global_counts = numpy.zeros(4)
        super().__init__(name, output_names, label_names, average=average)

    def _count(self, label, pred):
        label = _host(label).astype("int32").ravel()
        if len(numpy.unique(label)) > 2:
            raise MXNetValueError(f"{type(self).__name__} currently only supports binary "
                                  f"classification.")
        predicted = numpy.argmax(_host(pred), axis=1) == 1
        actual = label == 1
        counts = numpy.array([(predicted & actual).sum(), (predicted & ~actual).sum(),
                              (~predicted & actual).sum(), (~predicted & ~actual).sum()])
        self._counts += counts
        self._global_counts += counts

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            self._count(label, pred)
        if self.average == "macro":  # NOTE: MXNet clears every count after a macro step
            self._add(self.score(self._counts), 1)
            self._counts[:] = 0
            self._global_counts[:] = 0
        else:
            self.sum_metric = self.score(self._counts) * self._counts.sum()
            self.num_inst = self._counts.sum()
            self.global_sum_metric = self.score(self._global_counts) * self._global_counts.sum()
            self.global_num_inst = self._global_counts.sum()

    def reset(self):
        super().reset()
        if hasattr(self, "_counts"):
            self._counts[:] = 0
            self._global_counts[:] = 0

    def reset_local(self):
        super().reset_local()
        self._counts[:] = 0


class F1(_Binary):
    """F1 score of the positive class."""

    def __init__(self, name="f1", output_names=None, label_names=None, average="macro"):
        super().__init__(name, output_names, label_names, average)

    @staticmethod
    def score(counts):
        tp, fp, fn, _ = counts
        precision = tp / (tp + fp) if tp + fp > 0 else 0.0
        recall = tp / (tp + fn) if tp + fn > 0 else 0.0
        return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


class MCC(_Binary):
    """Matthews correlation coefficient."""

    def __init__(self, name="mcc", output_names=None, label_names=None, average="macro"):
        super().__init__(name, output_names, label_names, average)

    @staticmethod
    def score(counts):
        tp, fp, fn, tn = (float(c) for c in counts)
        if not counts.sum():
            return 0.0
        denom = 1.0
        for term in (tp + fp, tp + fn, tn + fp, tn + fn):
            denom *= term if term != 0.0 else 1.0
        return (tp * tn - fp * fn) / math.sqrt(denom)


class Perplexity(EvalMetric):
    """``exp`` of the mean negative log-probability of the labels (``ignore_label`` skipped)."""

    def __init__(self, ignore_label, axis=-1, name="perplexity", output_names=None,
                 label_names=None):
        super().__init__(name, output_names, label_names, ignore_label=ignore_label)
        self.ignore_label, self.axis = ignore_label, axis

    def update(self, labels, preds):
        if len(labels) != len(preds):
            raise MXNetValueError("Perplexity: as many labels as predictions are needed")
        for label, pred in zip(labels, preds):
            pred, label = _host(pred), _host(label).ravel().astype("int64")
            rows = pred.reshape(-1, pred.shape[-1])
            # NOTE: MXNet picks with mode='clip': an out-of-range label reads the last class
            picked = numpy.take_along_axis(rows, numpy.clip(label, 0, rows.shape[-1] - 1)[:, None],
                                           axis=-1)[:, 0]
            count = picked.size
            if self.ignore_label is not None:
                ignore = label == self.ignore_label
                count -= int(ignore.sum())
                picked = numpy.where(ignore, 1.0, picked)
            self._add(-float(numpy.log(numpy.maximum(1e-10, picked)).sum()), count)

    def _value(self, total, count):
        return float("nan") if count == 0 else math.exp(total / count)


class _Regression(EvalMetric):
    """Mean over updates of a per-update error between labels and predictions."""

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label, pred = _host(label), _host(pred)
            label = label.reshape(label.shape[0], 1) if label.ndim == 1 else label
            pred = pred.reshape(pred.shape[0], 1) if pred.ndim == 1 else pred
            self._add(float(self.error(label, pred)), 1)


class MAE(_Regression):
    """Mean absolute error."""

    def __init__(self, name="mae", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def error(label, pred):
        return numpy.abs(label - pred).mean()


class MSE(_Regression):
    """Mean squared error."""

    def __init__(self, name="mse", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def error(label, pred):
        return ((label - pred) ** 2.0).mean()


class RMSE(_Regression):
    """Root mean squared error (per update, then averaged)."""

    def __init__(self, name="rmse", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def error(label, pred):
        return numpy.sqrt(((label - pred) ** 2.0).mean())


class CrossEntropy(EvalMetric):
    """Mean ``-log(p[label] + eps)`` of probability predictions."""

    def __init__(self, eps=1e-12, name="cross-entropy", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names, eps=eps)
        self.eps = eps

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label, pred = _host(label).ravel(), _host(pred)
            if label.shape[0] != pred.shape[0]:
                raise MXNetValueError(f"{type(self).__name__}: {label.shape[0]} labels for "
                                      f"{pred.shape[0]} predictions")
            prob = pred[numpy.arange(label.shape[0]), label.astype("int64")]
            self._add(float((-numpy.log(prob + self.eps)).sum()), label.shape[0])


class NegativeLogLikelihood(CrossEntropy):
    """The same sum as CrossEntropy under MXNet's 'nll-loss' name."""

    def __init__(self, eps=1e-12, name="nll-loss", output_names=None, label_names=None):
        super().__init__(eps, name, output_names, label_names)


class PearsonCorrelation(EvalMetric):
    """Pearson's r between predictions and labels ('macro': averaged per update; 'micro': over
    everything seen)."""

    def __init__(self, name="pearsonr", output_names=None, label_names=None, average="macro"):
        self.average = average
        self._seen = ([], [])
        super().__init__(name, output_names, label_names, average=average)

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            check_label_shapes(label, pred, False, True)
            label = _host(label).ravel().astype(numpy.float64)
            pred = _host(pred).ravel().astype(numpy.float64)
            if self.average == "macro":
                self._add(float(numpy.corrcoef(pred, label)[0, 1]), 1)
            else:
                self._seen[0].append(label)
                self._seen[1].append(pred)
                self._add(0.0, 1)

    def reset(self):
        super().reset()
        self._seen = ([], [])

    def get(self):
        if self.average == "macro" or self.num_inst == 0:
            return super().get()
        labels, preds = (numpy.concatenate(part) for part in self._seen)
        return self.name, float(numpy.corrcoef(preds, labels)[0, 1])


class PCC(EvalMetric):
    """Multiclass MCC: the Pearson correlation of the one-hot confusion matrix, which grows with
    the largest class seen; ``nan`` while a row or column sum is degenerate. Local and global
    matrices, as MXNet 1.9's."""

    def __init__(self, name="pcc", output_names=None, label_names=None):
        self.k = 2
        super().__init__(name, output_names, label_names)

    @staticmethod
    def _calc_mcc(cmat):
        n = cmat.sum()
        x, y = cmat.sum(axis=1), cmat.sum(axis=0)
        cov_xx, cov_yy = numpy.sum(x * (n - x)), numpy.sum(y * (n - y))
        if cov_xx == 0 or cov_yy == 0:
            return float("nan")
        return numpy.sum(numpy.diag(cmat) * n - x * y) / (cov_xx * cov_yy) ** 0.5

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label, pred = _host(label).astype("int32"), _host(pred)
            pred = pred.argmax(axis=1) if pred.shape != label.shape else pred
            pred, label = pred.astype("int32").ravel(), label.ravel()
            grow = int(max(pred.max(initial=0), label.max(initial=0))) + 1 - self.k
            if grow > 0:
                self.lcm, self.gcm = (numpy.pad(m, ((0, grow), (0, grow))) for m in
                                      (self.lcm, self.gcm))
                self.k += grow
            counts = numpy.zeros((self.k, self.k))
            numpy.add.at(counts, (pred, label), 1)
            self.lcm += counts
            self.gcm += counts
        self.num_inst += 1
        self.global_num_inst += 1

    sum_metric = property(lambda self: self._calc_mcc(self.lcm) * self.num_inst,
                          lambda self, _: None)   # NOTE: derived; reset assigns it
    global_sum_metric = property(lambda self: self._calc_mcc(self.gcm) * self.global_num_inst,
                                 lambda self, _: None)

    def reset(self):
        super().reset()
        self.gcm = numpy.zeros((self.k, self.k))
        self.lcm = numpy.zeros((self.k, self.k))

    def reset_local(self):
        super().reset_local()
        self.lcm = numpy.zeros((self.k, self.k))


class Loss(EvalMetric):
    """The mean of the given loss values (labels are ignored)."""

    def __init__(self, name="loss", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    def update(self, _, preds):
        for pred in (preds if isinstance(preds, (list, tuple)) else [preds]):
            values = _host(pred)
            self._add(float(values.sum()), values.size)


class CustomMetric(EvalMetric):
    """``feval(label, pred)`` on NumPy arrays, returning a value or ``(sum, count)``."""

    def __init__(self, feval, name=None, allow_extra_outputs=False, output_names=None,
                 label_names=None):
        if name is None:
            name = feval.__name__
            name = f"custom({name})" if "<" in name else name
        super().__init__(name, output_names, label_names, feval=feval,
                         allow_extra_outputs=allow_extra_outputs)
        self._feval, self._allow_extra_outputs = feval, allow_extra_outputs

    def update(self, labels, preds):
        if not self._allow_extra_outputs:
            labels, preds = check_label_shapes(labels, preds, True)
        for pred, label in zip(preds, labels):
            value = self._feval(_host(label), _host(pred))
            self._add(*(value if isinstance(value, tuple) else (value, 1)))

    def get_config(self):
        raise NotImplementedError("CustomMetric cannot be serialized")


create = _creator(_REGISTRY, CompositeEvalMetric)


def np(numpy_feval, name=None, allow_extra_outputs=False):
    """A :class:`CustomMetric` from a function of NumPy arrays."""
    def feval(label, pred):
        return numpy_feval(label, pred)
    feval.__name__ = numpy_feval.__name__
    return CustomMetric(feval, name, allow_extra_outputs)


for _cls, _aliases in ((CompositeEvalMetric, ("composite",)), (Accuracy, ("acc",)),
                       (TopKAccuracy, ("top_k_accuracy", "top_k_acc")), (F1, ()), (MCC, ()),
                       (Perplexity, ()), (MAE, ()), (MSE, ()), (RMSE, ()),
                       (CrossEntropy, ("ce",)), (NegativeLogLikelihood, ("nll_loss",)),
                       (PearsonCorrelation, ("pearsonr",)), (PCC, ()), (Loss, ()),
                       (CustomMetric, ())):
    register(_cls, *_aliases)
