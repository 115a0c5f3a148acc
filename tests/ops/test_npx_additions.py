"""MXNet 2.0's ``mx.npx`` names (``broadcast_like``, ``slice_like``, ``add_n``, ``gamma``,
``index_add``, ``index_update``, ``random.seed(seed=...)``) and ``mx.np.broadcast_to``'s NumPy
rule (0 in the target is a size, a scalar fills a new array)."""
import numpy
import pytest
import scipy.special
from helpers import assert_same_results, requires_oracle, run_both

import mxlab as mx
from mxlab.base import MXNetIndexError


def test_np_broadcast_to_zero_is_a_size_and_scalars_fill():
    got = mx.np.broadcast_to(mx.np.ones((1, 1)), (2, 4, 0))
    assert got.shape == (2, 4, 0)
    assert mx.nd.broadcast_to(mx.nd.ones((1, 1)), shape=(2, 0)).shape == (2, 1)   # MXNet 1.x
    numpy.testing.assert_array_equal(mx.np.broadcast_to(1.5, (2, 3)).asnumpy(),
                                     numpy.full((2, 3), 1.5))


def test_npx_broadcast_like_slice_like_add_n_gamma():
    x, y = mx.np.ones((1, 3)), mx.np.zeros((4, 3))
    assert mx.npx.broadcast_like(x, y).shape == (4, 3)
    assert mx.npx.slice_like(y, x).shape == (1, 3)
    numpy.testing.assert_array_equal(mx.npx.add_n(x, x, x).asnumpy(), numpy.full((1, 3), 3.0))
    data = numpy.array([0.5, 1.5, 3.0], dtype="float32")
    numpy.testing.assert_allclose(mx.npx.gamma(mx.np.array(data)).asnumpy(),
                                  scipy.special.gamma(data), rtol=1e-5)


def _reference(a, ind, val, add):
    ind = ind.reshape(1, -1) if ind.ndim < 2 else ind
    key = tuple(ind)
    spread = numpy.broadcast_to(val, (ind.shape[1],) + a.shape[ind.shape[0]:])
    out = a.copy()
    if add:
        numpy.add.at(out, key, spread)
    else:
        out[key] = spread
    return out


@pytest.mark.parametrize("ind, val_shape", [
    (numpy.array([[0, 2, 0], [1, 1, 1]]), (3, 1)),     # repeated position (0, 1)
    (numpy.array([1, 0]), (4,)),
    (numpy.array(2), ()),
])
@pytest.mark.parametrize("name", ["index_add", "index_update"])
def test_index_add_update(name, ind, val_shape):
    rs = numpy.random.RandomState(0)
    a_np = rs.uniform(-1, 1, (3, 2, 4))
    val_np = rs.uniform(-1, 1, val_shape)
    if name == "index_update" and ind.ndim == 2:
        ind = ind[:, :2]                       # NOTE: no repeats: the written value is unique
        val_np = val_np[:2]
    a, val = mx.np.array(a_np, dtype="float64"), mx.np.array(val_np, dtype="float64")
    a.attach_grad()
    val.attach_grad()
    head = rs.uniform(-1, 1, a_np.shape)
    with mx.autograd.record():
        out = getattr(mx.npx, name)(a, mx.np.array(ind, dtype="int32"), val)
    out.backward(mx.np.array(head, dtype="float64"))
    numpy.testing.assert_allclose(out.asnumpy(), _reference(a_np, ind, val_np, name == "index_add"))
    key = tuple(ind.reshape(1, -1) if ind.ndim < 2 else ind)
    want_a = head.copy()
    if name == "index_update":
        want_a[key] = 0
    numpy.testing.assert_allclose(a.grad.asnumpy(), want_a)
    picked = head[key]                                  # (n,) + tail
    lead = picked.ndim - val_np.ndim
    picked = picked.sum(axis=tuple(range(lead)))
    axes = tuple(i for i, d in enumerate(val_np.shape) if d == 1 and picked.shape[i] != 1)
    numpy.testing.assert_allclose(val.grad.asnumpy(), picked.sum(axis=axes, keepdims=True))


def test_index_add_out_of_bounds():
    with pytest.raises(IndexError, match="out of bounds") as info:
        mx.npx.index_add(mx.np.zeros((2, 2)), mx.np.array([[5]], dtype="int32"),
                         mx.np.array(1.0)).wait_to_read()
    assert isinstance(info.value, MXNetIndexError)


def test_npx_random_seed_keyword():
    mx.npx.random.seed(seed=11)
    first = mx.np.random.uniform(size=4).asnumpy()
    mx.npx.random.seed(11, device="all")
    numpy.testing.assert_array_equal(first, mx.np.random.uniform(size=4).asnumpy())


def test_npx_deconvolution_takes_a_bias():
    x = mx.np.array(numpy.random.RandomState(0).uniform(size=(1, 2, 3, 3)))
    w = mx.np.array(numpy.random.RandomState(1).uniform(size=(2, 3, 2, 2)))
    b = mx.np.array([1.0, -2.0, 0.5])
    with_bias = mx.npx.deconvolution(x, w, b, (2, 2), num_filter=3)
    without = mx.npx.deconvolution(x, w, kernel=(2, 2), num_filter=3)
    numpy.testing.assert_allclose(with_bias.asnumpy() - without.asnumpy(),
                                  numpy.broadcast_to(b.asnumpy()[:, None, None], (1, 3, 4, 4)),
                                  rtol=1e-5)
    with pytest.raises(ValueError, match="no_bias=False"):
        mx.npx.deconvolution(x, w, kernel=(2, 2), num_filter=3, no_bias=False)


@pytest.mark.parametrize("start_axis", [0, 1])
def test_boolean_mask_assign(start_axis):
    from mxlab.compat.internal import numpy_internal as _npi
    data = numpy.random.RandomState(3).uniform(size=(2, 3, 4))
    mask = numpy.random.RandomState(4).uniform(size=data.shape[start_axis:start_axis + 2]) > 0.4
    key = (slice(None),) * start_axis + (mask,)
    want = data.copy()
    want[key] = 5.0
    got = _npi.boolean_mask_assign_scalar(mx.np.array(data), mx.np.array(mask), 5.0,
                                          start_axis=start_axis)
    numpy.testing.assert_allclose(got.asnumpy(), want)
    values = numpy.arange(want[key].size, dtype="float64").reshape(want[key].shape)
    want[key] = values
    got = _npi.boolean_mask_assign_tensor(mx.np.array(data), mx.np.array(mask),
                                          mx.np.array(values), start_axis=start_axis)
    numpy.testing.assert_allclose(got.asnumpy(), want)


def _selfatt_qk_reference(qkv, heads):
    seq, batch, width = qkv.shape
    dim = width // (3 * heads)
    parts = qkv.reshape(seq, batch, heads, 3, dim)
    q, k = parts[..., 0, :] / numpy.sqrt(dim), parts[..., 1, :]
    return numpy.einsum("ibhd,jbhd->bhij", q, k).reshape(batch * heads, seq, seq)


def test_interleaved_selfatt_qk_values_and_gradient():
    qkv = numpy.random.RandomState(6).uniform(-1, 1, (3, 2, 3 * 2 * 2))
    head = numpy.random.RandomState(7).uniform(-1, 1, (4, 3, 3))
    x = mx.np.array(qkv, dtype="float64")
    x.attach_grad()
    with mx.autograd.record():
        out = mx.npx.interleaved_matmul_selfatt_qk(x, heads=2)
        loss = (out * mx.np.array(head)).sum()
    loss.backward()
    numpy.testing.assert_allclose(out.asnumpy(), _selfatt_qk_reference(qkv, 2), rtol=1e-12)
    numeric = numpy.zeros_like(qkv)
    for i in numpy.ndindex(qkv.shape):
        step = numpy.zeros_like(qkv)
        step[i] = 1e-6
        numeric[i] = ((_selfatt_qk_reference(qkv + step, 2) * head).sum()
                      - (_selfatt_qk_reference(qkv - step, 2) * head).sum()) / 2e-6
    numpy.testing.assert_allclose(x.grad.asnumpy(), numeric, rtol=1e-6, atol=1e-8)


ORACLE_ATTENTION = """
C = mx.npx if hasattr(mx.npx, 'interleaved_matmul_selfatt_qk') else mx.nd.contrib
A = mx.np.array if C is mx.npx else mx.nd.array
qkv, q, kv = A(inputs['qkv']), A(inputs['q']), A(inputs['kv'])
att, att2 = A(inputs['att']), A(inputs['att2'])
outputs['sq'] = C.interleaved_matmul_selfatt_qk(qkv, heads=2).asnumpy()
outputs['sv'] = C.interleaved_matmul_selfatt_valatt(qkv, att, heads=2).asnumpy()
outputs['eq'] = C.interleaved_matmul_encdec_qk(q, kv, heads=2).asnumpy()
outputs['ev'] = C.interleaved_matmul_encdec_valatt(kv, att2, heads=2).asnumpy()
"""


@requires_oracle
def test_interleaved_attention_matches_mxnet():
    rs = numpy.random.RandomState(0)
    inputs = {"qkv": rs.uniform(-1, 1, (5, 2, 24)).astype("float32"),
              "q": rs.uniform(-1, 1, (3, 2, 8)).astype("float32"),
              "kv": rs.uniform(-1, 1, (5, 2, 16)).astype("float32"),
              "att": rs.uniform(-1, 1, (4, 5, 5)).astype("float32"),
              "att2": rs.uniform(-1, 1, (4, 3, 5)).astype("float32")}
    assert_same_results(*run_both(ORACLE_ATTENTION, inputs))
