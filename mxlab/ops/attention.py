"""MXNet's interleaved multi-head attention products (``contrib.interleaved_matmul_*``, also
``npx.interleaved_matmul_*``), as ops with their backward ops, so ``mx.nd``, ``mx.sym`` and
hybridized transformer blocks (GluonNLP's BERT calls them through ``F.contrib``) all run them.

Projections are laid out as MXNet's transformer ops expect: ``(seq, batch, heads * k * dim)`` with
the ``k`` projections of each head next to each other (``k`` = 3 for self-attention's
queries/keys/values, 2 for encoder-decoder keys/values). Scores are ``(batch * heads, q_seq,
k_seq)``, with the queries scaled by ``1 / sqrt(dim)`` before the product (as MXNet's kernel).

Example
-------
>>> import mxlab as mx
>>> qkv = mx.nd.ones((4, 2, 3 * 8))
>>> mx.nd.contrib.interleaved_matmul_selfatt_qk(qkv, heads=2).shape
(4, 4, 4)
"""
import math

from ..base import MXNetValueError
from .attrs import Attr
from .infer import one_dtype
from .registry import F, Op, register

__all__ = []

_HEADS = (Attr("heads", "int", check=(lambda n: n > 0, "must be positive")),)


def _dim(name, width, heads, parts):
    if width % (heads * parts):
        raise MXNetValueError(f"{name}: the last axis ({width}) is not divisible by heads * "
                              f"{parts} ({heads * parts})")
    return width // (heads * parts)


def _heads(x, heads, parts, index):
    """Part ``index`` of each head of ``(seq, batch, heads * parts * dim)``, as
    ``(batch * heads, seq, dim)``."""
    seq, batch, width = x.shape
    dim = width // (heads * parts)
    part = x.reshape(seq, batch, heads, parts, dim)[:, :, :, index, :]
    return part.transpose(1, 2, 0, 3).reshape(batch * heads, seq, dim)


def _put_heads(out, value, heads, parts, index):
    """The adjoint of :func:`_heads`: write ``value`` ``(batch * heads, seq, dim)`` into part
    ``index`` of ``out`` ``(seq, batch, heads * parts * dim)`` (a contiguous array)."""
    seq, batch, width = out.shape
    dim = width // (heads * parts)
    view = out.reshape(seq, batch, heads, parts, dim)
    view[:, :, :, index, :] = value.reshape(batch, heads, seq, dim).transpose(2, 0, 1, 3)


def _merge(x, heads):
    """``(batch * heads, seq, dim)`` back to ``(seq, batch, heads * dim)``."""
    bh, seq, dim = x.shape
    return x.reshape(bh // heads, heads, seq, dim).transpose(2, 0, 1, 3).reshape(
        seq, bh // heads, heads * dim)


def _scale(q):
    return 1.0 / math.sqrt(q.shape[-1])


# -- forward -------------------------------------------------------------------------------------
def _qk(xp, q, k):
    return xp.matmul(q * _scale(q), k.swapaxes(-1, -2))


def _selfatt_qk(xp, inputs, a):
    qkv, h = inputs[0], a["heads"]
    return _qk(xp, _heads(qkv, h, 3, 0), _heads(qkv, h, 3, 1))


def _selfatt_valatt(xp, inputs, a):
    qkv, att = inputs
    return _merge(xp.matmul(att, _heads(qkv, a["heads"], 3, 2)), a["heads"])


def _encdec_qk(xp, inputs, a):
    queries, kv = inputs
    return _qk(xp, _heads(queries, a["heads"], 1, 0), _heads(kv, a["heads"], 2, 0))


def _encdec_valatt(xp, inputs, a):
    kv, att = inputs
    return _merge(xp.matmul(att, _heads(kv, a["heads"], 2, 1)), a["heads"])


# -- backward ------------------------------------------------------------------------------------
def _qk_grads(xp, g, q, k):
    """Of ``S = (q s) k^T``: ``dq = (g k) s``, ``dk = g^T (q s)``."""
    s = _scale(q)
    return xp.matmul(g, k) * s, xp.matmul(g.swapaxes(-1, -2), q * s)


def _selfatt_qk_backward(xp, inputs, a):
    g, qkv = inputs
    h = a["heads"]
    dq, dk = _qk_grads(xp, g, _heads(qkv, h, 3, 0), _heads(qkv, h, 3, 1))
    out = xp.zeros(qkv.shape, qkv.dtype)
    _put_heads(out, dq, h, 3, 0)
    _put_heads(out, dk, h, 3, 1)
    return out


def _valatt_grads(xp, g, att, v, heads):
    """Of ``O = merge(att v)``: ``datt = g' v^T``, ``dv = att^T g'`` with ``g'`` = g per head."""
    gh = _heads(g, heads, 1, 0)
    return xp.matmul(gh, v.swapaxes(-1, -2)), xp.matmul(att.swapaxes(-1, -2), gh)


def _valatt_backward(parts, index):
    """Backward of a ``*_valatt`` product whose values are part ``index`` of ``parts``."""
    def backward(xp, inputs, a):
        g, projections, att = inputs
        h = a["heads"]
        datt, dv = _valatt_grads(xp, g, att, _heads(projections, h, parts, index), h)
        dprojections = xp.zeros(projections.shape, projections.dtype)
        _put_heads(dprojections, dv, h, parts, index)
        return dprojections, datt
    return backward


_selfatt_valatt_backward = _valatt_backward(3, 2)
_encdec_valatt_backward = _valatt_backward(2, 1)


def _encdec_qk_backward(xp, inputs, a):
    g, queries, kv = inputs
    h = a["heads"]
    dq, dk = _qk_grads(xp, g, _heads(queries, h, 1, 0), _heads(kv, h, 2, 0))
    dqueries, dkv = xp.empty(queries.shape, queries.dtype), xp.zeros(kv.shape, kv.dtype)
    _put_heads(dqueries, dq, h, 1, 0)
    _put_heads(dkv, dk, h, 2, 0)
    return dqueries, dkv


# -- shapes --------------------------------------------------------------------------------------
def _known(*shapes):
    return all(s is not None and len(s) == 3 and all(d and d > 0 for d in s) for s in shapes)


def _selfatt_qk_shape(a, s):
    if not _known(s[0]):
        return [None]
    seq, batch, width = s[0]
    _dim("interleaved_matmul_selfatt_qk", width, a["heads"], 3)
    return [(batch * a["heads"], seq, seq)]


def _selfatt_valatt_shape(a, s):
    if not _known(s[0]):
        return [None]
    seq, batch, width = s[0]
    return [(seq, batch, a["heads"] * _dim("interleaved_matmul_selfatt_valatt", width,
                                           a["heads"], 3))]


def _encdec_qk_shape(a, s):
    if not _known(s[0], s[1]):
        return [None]
    _dim("interleaved_matmul_encdec_qk", s[1][2], a["heads"], 2)
    return [(s[0][1] * a["heads"], s[0][0], s[1][0])]


def _encdec_valatt_shape(a, s):
    if not _known(s[0], s[1]):
        return [None]
    width = _dim("interleaved_matmul_encdec_valatt", s[0][2], a["heads"], 2) * a["heads"]
    return [(s[1][1], s[0][1], width)]


def _backward_shapes(a, s):
    return [tuple(x) if x is not None else None for x in s[1:]]


def _backward_type(name, names):
    rule = one_dtype(name, names)

    def infer_type(attrs, in_dtypes):
        ins, outs = rule(attrs, in_dtypes)
        return ins, outs * (len(names) - 1)
    return infer_type


def _gradient(full):
    def gradient(node, g):
        grads = getattr(F, f"_backward_{full}")(g[0], *node.inputs, **node.attrs)
        return list(grads) if len(node.inputs) > 1 else [grads]
    return gradient


# name, input names, forward, backward, output shape rule
_OPS = (
    ("selfatt_qk", ("queries_keys_values",), _selfatt_qk, _selfatt_qk_backward,
     _selfatt_qk_shape),
    ("selfatt_valatt", ("queries_keys_values", "attention"), _selfatt_valatt,
     _selfatt_valatt_backward, _selfatt_valatt_shape),
    ("encdec_qk", ("queries", "keys_values"), _encdec_qk, _encdec_qk_backward, _encdec_qk_shape),
    ("encdec_valatt", ("keys_values", "attention"), _encdec_valatt, _encdec_valatt_backward,
     _encdec_valatt_shape),
)

for _name, _inputs, _forward, _backward, _shape in _OPS:
    _full = f"interleaved_matmul_{_name}"
    register(Op(name=f"_backward_{_full}", compute=_backward, num_inputs=len(_inputs) + 1,
                num_outputs=len(_inputs), input_names=("ograd",) + _inputs, attrs=_HEADS,
                infer_shape=_backward_shapes,
                infer_type=_backward_type(f"_backward_{_full}", ("ograd",) + _inputs),
                hidden=True, doc=f"Gradients of ``{_full}``."))
    register(Op(name=f"_contrib_{_full}", aliases=(f"_npx_{_full}",), compute=_forward,
                num_inputs=len(_inputs), input_names=_inputs, attrs=_HEADS, infer_shape=_shape,
                infer_type=one_dtype(_full, _inputs), npx_name=_full,
                gradient=_gradient(_full),
                doc=f"MXNet's ``{_full}`` (multi-head attention on interleaved projections)."))
