"""MXNet's interleaved multi-head attention products (``npx.interleaved_matmul_*``), composed from
reshapes, transposes and batched matmuls (so they differentiate).

Projections are laid out as MXNet's transformer ops expect: ``(seq, batch, heads * k * dim)`` with
the ``k`` projections of each head next to each other (``k`` = 3 for self-attention's
queries/keys/values, 2 for encoder-decoder keys/values). Scores are ``(batch * heads, q_seq,
k_seq)``, with the queries scaled by ``1 / sqrt(dim)``.

Example
-------
>>> import mxlab as mx
>>> qkv = mx.np.ones((4, 2, 3 * 8))
>>> mx.npx.interleaved_matmul_selfatt_qk(qkv, heads=2).shape
(4, 4, 4)
"""
import math

from ..numpy import matmul, swapaxes

__all__ = ["interleaved_matmul_selfatt_qk", "interleaved_matmul_selfatt_valatt",
           "interleaved_matmul_encdec_qk", "interleaved_matmul_encdec_valatt"]


def _heads(x, heads, parts, index):
    """Part ``index`` of each head of ``(seq, batch, heads * parts * dim)``, as
    ``(batch * heads, seq, dim)``."""
    seq, batch, width = x.shape
    dim = width // (heads * parts)
    part = x.reshape(seq, batch, heads, parts, dim)[:, :, :, index, :]
    return part.transpose(1, 2, 0, 3).reshape(batch * heads, seq, dim)


def _merge(x, heads):
    """``(batch * heads, seq, dim)`` back to ``(seq, batch, heads * dim)``."""
    bh, seq, dim = x.shape
    return x.reshape(bh // heads, heads, seq, dim).transpose(2, 0, 1, 3).reshape(
        seq, bh // heads, heads * dim)


def _scores(q, k):
    return matmul(q / math.sqrt(q.shape[-1]), swapaxes(k, -1, -2))


def interleaved_matmul_selfatt_qk(queries_keys_values, heads):
    """Scaled ``q @ k^T`` per head from interleaved ``(seq, batch, heads * 3 * dim)``."""
    return _scores(_heads(queries_keys_values, heads, 3, 0),
                   _heads(queries_keys_values, heads, 3, 1))


def interleaved_matmul_selfatt_valatt(queries_keys_values, attention, heads):
    """``attention @ v`` per head, merged back to ``(seq, batch, heads * dim)``."""
    return _merge(matmul(attention, _heads(queries_keys_values, heads, 3, 2)), heads)


def interleaved_matmul_encdec_qk(queries, keys_values, heads):
    """Scaled ``q @ k^T`` per head: ``queries`` ``(q_seq, batch, heads * dim)``, interleaved
    ``keys_values`` ``(k_seq, batch, heads * 2 * dim)``."""
    return _scores(_heads(queries, heads, 1, 0), _heads(keys_values, heads, 2, 0))


def interleaved_matmul_encdec_valatt(keys_values, attention, heads):
    """``attention @ v`` per head, merged back to ``(q_seq, batch, heads * dim)``."""
    return _merge(matmul(attention, _heads(keys_values, heads, 2, 1)), heads)
