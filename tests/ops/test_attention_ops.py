"""The interleaved attention products as ops: gradients of all four against central
differences, the same values through ``mx.nd.contrib``, ``mx.sym`` executors and a hybridized
block, and MXNet's ``ElemwiseType`` rule that lets ``scores + sonde`` type a dtype-less var."""
import numpy
import pytest

import mxlab as mx

RNG = numpy.random.default_rng(21)
HEADS = 2
# name -> input shapes (seq 3 queries, 4 keys, batch 2, dim 2 per head)
SHAPES = {
    "selfatt_qk": [(4, 2, 3 * HEADS * 2)],
    "selfatt_valatt": [(4, 2, 3 * HEADS * 2), (2 * HEADS, 4, 4)],
    "encdec_qk": [(3, 2, HEADS * 2), (4, 2, 2 * HEADS * 2)],
    "encdec_valatt": [(4, 2, 2 * HEADS * 2), (2 * HEADS, 3, 4)],
}


def _call(ns, name, args):
    return getattr(ns.contrib, f"interleaved_matmul_{name}")(*args, heads=HEADS)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_gradients_match_central_differences(name):
    values = [RNG.standard_normal(s) for s in SHAPES[name]]
    arrays = [mx.nd.array(v, dtype="float64") for v in values]
    for a in arrays:
        a.attach_grad()
    with mx.autograd.record():
        out = _call(mx.nd, name, arrays)
    head = RNG.standard_normal(out.shape)
    out.backward(mx.nd.array(head, dtype="float64"))

    def loss(vals):
        return (_call(mx.nd, name, [mx.nd.array(v, dtype="float64") for v in vals]).asnumpy()
                * head).sum()
    for k, value in enumerate(values):
        numeric = numpy.zeros_like(value)
        for idx in numpy.ndindex(value.shape):
            plus, minus = [v.copy() for v in values], [v.copy() for v in values]
            plus[k][idx] += 1e-6
            minus[k][idx] -= 1e-6
            numeric[idx] = (loss(plus) - loss(minus)) / 2e-6
        numpy.testing.assert_allclose(arrays[k].grad.asnumpy(), numeric, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_symbol_executor_matches_the_array_op(name):
    values = [RNG.standard_normal(s).astype("float32") for s in SHAPES[name]]
    names = [f"x{i}" for i in range(len(values))]
    sym = _call(mx.sym, name, [mx.sym.var(n) for n in names])
    exe = sym.simple_bind(mx.cpu(), **{n: v.shape for n, v in zip(names, values)})
    for n, v in zip(names, values):
        exe.arg_dict[n][:] = v
    out = exe.forward(is_train=True)[0]
    head = RNG.standard_normal(out.shape).astype("float32")
    exe.backward([mx.nd.array(head)])
    arrays = [mx.nd.array(v) for v in values]
    for a in arrays:
        a.attach_grad()
    with mx.autograd.record():
        want = _call(mx.nd, name, arrays)
    want.backward(mx.nd.array(head))
    numpy.testing.assert_allclose(out.asnumpy(), want.asnumpy(), rtol=1e-6)
    for n, a in zip(names, arrays):
        numpy.testing.assert_allclose(exe.grad_dict[n].asnumpy(), a.grad.asnumpy(), rtol=1e-5,
                                      atol=1e-6)


class _SelfAttention(mx.gluon.HybridBlock):
    """GluonNLP's pattern: projection, interleaved scores, softmax, weighted values."""

    def __init__(self):
        super().__init__()
        self.proj = mx.gluon.nn.Dense(3 * HEADS * 2, flatten=False)

    def hybrid_forward(self, F, x):
        qkv = self.proj(x)
        att = F.softmax(F.contrib.interleaved_matmul_selfatt_qk(qkv, heads=HEADS), axis=-1)
        return F.contrib.interleaved_matmul_selfatt_valatt(qkv, att, heads=HEADS)


def test_a_hybridized_attention_block_matches_imperative():
    block = _SelfAttention()
    block.initialize()
    x = mx.nd.array(RNG.standard_normal((4, 2, 5)).astype("float32"))
    eager = block(x).asnumpy()
    block.hybridize(static_alloc=True)
    numpy.testing.assert_allclose(block(x).asnumpy(), eager, rtol=1e-5, atol=1e-6)
    assert eager.shape == (4, 2, HEADS * 2)


def test_a_dtypeless_addend_takes_the_known_dtype():
    scores = mx.sym.contrib.interleaved_matmul_selfatt_qk(mx.sym.var("qkv"), heads=HEADS)
    arg_types, out_types, _ = (scores + mx.sym.var("sonde")).infer_type(qkv="float16")
    assert [numpy.dtype(t) for t in arg_types + out_types] == [numpy.dtype("float16")] * 3


def test_heads_must_divide_the_projection_width():
    with pytest.raises(mx.base.MXNetError, match="divisible"):
        mx.sym.contrib.interleaved_matmul_selfatt_qk(mx.sym.var("x"), heads=5).infer_shape(
            x=(4, 2, 12))


def test_amp_multicast_casts_to_the_widest_or_narrowest_float():
    half, single, ints = (mx.nd.ones(2, dtype=d) for d in ("float16", "float32", "int32"))
    wide = mx.nd.amp_multicast(half, single, ints, num_outputs=3)
    assert [o.dtype for o in wide] == [numpy.float32, numpy.float32, numpy.int32]
    narrow = mx.nd.amp_multicast(half, single, num_outputs=2, cast_narrow=True)
    assert [o.dtype for o in narrow] == [numpy.float16, numpy.float16]
    half.attach_grad()
    with mx.autograd.record():
        out = mx.nd.amp_multicast(half, single, num_outputs=2)[0]
    out.backward()
    assert half.grad.dtype == numpy.float16 and half.grad.asnumpy().tolist() == [1, 1]
