"""Connectionist Temporal Classification loss (``CTCLoss``, MXNet's ``ctc_loss``).

The kernel runs the forward-backward recursion in log space over the label sequence with blanks
interleaved, per sample, on the host. It returns the negative log-likelihood and, as a hidden
second output, its gradient with respect to the activations (softmax is applied inside, as in
MXNet), so backward is one broadcast multiply.

Example
-------
>>> import mxlab as mx
>>> data = mx.nd.zeros((3, 1, 3))                 # T=3, N=1, C=3 uniform activations
>>> round(float(mx.nd.CTCLoss(data, mx.nd.array([[0, 1]]), blank_label="last")[0].asscalar()), 4)
1.6864
"""
import numpy

from ..base import MXNetValueError
from .attrs import Attr
from .registry import F, Op, register

__all__ = []


def _labels(label, length, blank_first):
    """The label sequence of one sample: up to ``length`` entries, else up to the padding."""
    values = label.astype(numpy.int64)
    if length is not None:
        return values[:int(length)]
    pad = 0 if blank_first else -1
    stop = numpy.flatnonzero(values == pad)
    return values[:stop[0]] if stop.size else values


def _logsumexp(a, b):
    return numpy.logaddexp(a, b)


def _one_sample(logp, seq, blank):
    """(nll, gradient of nll w.r.t. the activations) for log-probabilities ``logp`` (T, C)."""
    steps, classes = logp.shape
    ext = numpy.full(2 * len(seq) + 1, blank, dtype=numpy.int64)
    ext[1::2] = seq
    width = len(ext)
    skip = numpy.zeros(width, dtype=bool)   # s may come from s-2 (a new, different label)
    skip[2:] = (ext[2:] != blank) & (ext[2:] != ext[:-2])
    alpha = numpy.full((steps, width), -numpy.inf)
    alpha[0, :2] = logp[0, ext[:2]]
    for t in range(1, steps):
        prev = alpha[t - 1]
        acc = _logsumexp(prev, numpy.concatenate(([-numpy.inf], prev[:-1])))
        acc = numpy.where(skip, _logsumexp(acc, numpy.concatenate(([-numpy.inf] * 2,
                                                                   prev[:-2]))), acc)
        alpha[t] = acc + logp[t, ext]
    beta = numpy.full((steps, width), -numpy.inf)   # without the emission at t
    beta[-1, -2:] = 0.0
    skip_next = numpy.zeros(width, dtype=bool)
    skip_next[:-2] = skip[2:]
    for t in range(steps - 2, -1, -1):
        nxt = beta[t + 1] + logp[t + 1, ext]
        acc = _logsumexp(nxt, numpy.concatenate((nxt[1:], [-numpy.inf])))
        acc = numpy.where(skip_next, _logsumexp(acc, numpy.concatenate((nxt[2:],
                                                                        [-numpy.inf] * 2))), acc)
        beta[t] = acc
    log_like = _logsumexp(alpha[-1, -1], alpha[-1, -2]) if width > 1 else alpha[-1, -1]
    if numpy.isneginf(log_like):
        return numpy.inf, numpy.zeros_like(logp)
    occupancy = numpy.exp(alpha + beta - log_like)             # (T, S): gamma_t(s)
    expected = numpy.zeros((steps, classes))
    numpy.add.at(expected.T, ext, occupancy.T)
    return -log_like, numpy.exp(logp) - expected


def _ctc_forward(xp, inputs, attrs):
    data = numpy.asarray(inputs[0].get() if hasattr(inputs[0], "get") else inputs[0],
                         dtype=numpy.float64)
    host = [numpy.asarray(x.get() if hasattr(x, "get") else x) for x in inputs[1:]]
    label, rest = host[0], host[1:]
    data_lengths = rest.pop(0) if attrs["use_data_lengths"] else None
    label_lengths = rest.pop(0) if attrs["use_label_lengths"] else None
    steps, batch, classes = data.shape
    blank_first = attrs["blank_label"] == "first"
    blank = 0 if blank_first else classes - 1
    shifted = data - data.max(axis=2, keepdims=True)
    logp = shifted - numpy.log(numpy.exp(shifted).sum(axis=2, keepdims=True))
    loss, grad = numpy.zeros(batch), numpy.zeros_like(data)
    for n in range(batch):
        used = steps if data_lengths is None else int(data_lengths[n])
        seq = _labels(label[n], None if label_lengths is None else label_lengths[n], blank_first)
        # NOTE: a label equal to the blank is computed as MXNet computes it (no skip over it)
        if ((seq < 0) | (seq >= classes)).any():
            raise MXNetValueError(f"CTCLoss: label {seq.tolist()} of sample {n} holds a class "
                                  f"outside [0, {classes})")
        loss[n], grad[:used, n] = _one_sample(logp[:used, n], seq, blank)
    dtype = inputs[0].dtype
    return xp.asarray(loss.astype(dtype)), xp.asarray(grad.astype(dtype))


def _num_inputs(attrs):
    return 2 + int(attrs["use_data_lengths"]) + int(attrs["use_label_lengths"])


def _input_names(attrs):
    return (("data", "label") + (("data_lengths",) if attrs["use_data_lengths"] else ())
            + (("label_lengths",) if attrs["use_label_lengths"] else ()))


def _infer_shape(attrs, shapes):
    data = shapes[0]
    return [(data[1],), tuple(data)]


register(Op(
    name="CTCLoss",
    aliases=("ctc_loss", "_contrib_CTCLoss", "_contrib_ctc_loss", "_npx_ctc_loss"),
    compute=_ctc_forward,
    attrs=(Attr("use_data_lengths", "bool", False), Attr("use_label_lengths", "bool", False),
           Attr("blank_label", "str", "first", choices=("first", "last"))),
    num_inputs=_num_inputs,
    input_names=_input_names,
    num_outputs=2,
    output_names=("output", "grad"),
    num_visible_outputs=1,
    infer_shape=_infer_shape,
    infer_type=lambda attrs, d: (d, [d[0], d[0]]),
    gradient=lambda node, g: [F.broadcast_mul(F.reshape(g[0], shape=(1, -1, 1)),
                                              node.outputs[1])]
    + [None] * (len(node.inputs) - 1),
    save_inputs=False,
    save_outputs=(1,),
    never_mirror=True,
    npx_name="ctc_loss",
    doc="CTC loss of activations (T, N, C) against padded labels; softmax is applied inside.",
))
