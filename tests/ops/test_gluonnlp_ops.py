"""What GluonNLP (MXNet 2.0's NLP toolkit) needs of ``mx.npx`` and Gluon: ``npx.gather_nd``,
``npx.nonzero``, ``npx.shape_array``, ``Parameter._uuid``,
and hybridized blocks that carry a data-dependent shape (``np.unique``) into broadcasts and
reshapes (its relative-position attention score cell)."""
import numpy
import pytest
from helpers import assert_same_results, requires_oracle, run_both

import mxlab as mx
from mxlab.gluon import HybridBlock, nn
from mxlab.ops.registry import get_op


def test_npx_gather_nd_values_and_scatter_gradient():
    data = numpy.arange(24, dtype="float32").reshape(2, 3, 4)
    idx = numpy.array([[1, 0, 1], [2, 0, 2]])              # (1, 2) picked twice
    x = mx.np.array(data)
    x.attach_grad()
    with mx.autograd.record():
        out = mx.npx.gather_nd(x, mx.np.array(idx, dtype="int32"))
        out.backward(mx.np.ones_like(out))
    numpy.testing.assert_array_equal(out.asnumpy(), data[idx[0], idx[1]])
    grad = numpy.zeros_like(data)
    numpy.add.at(grad, (idx[0], idx[1]), 1.0)
    numpy.testing.assert_array_equal(x.grad.asnumpy(), grad)


def test_npx_nonzero_and_shape_array():
    x = numpy.array([[0, 1.5, 0], [2, 0, -1]], dtype="float32")
    got = mx.npx.nonzero(mx.np.array(x))
    assert got.dtype == numpy.int64
    numpy.testing.assert_array_equal(got.asnumpy(), numpy.argwhere(x))
    assert mx.npx.nonzero(mx.np.array(0.0)).shape == (0, 1)   # MXNet: a 0-d input is 1-d
    assert mx.npx.nonzero(mx.np.zeros((0, 3))).shape == (0, 2)
    shape = mx.npx.shape_array(mx.np.zeros((4, 0, 7)))
    assert shape.dtype == numpy.int64
    numpy.testing.assert_array_equal(shape.asnumpy(), [4, 0, 7])


def test_np_unique_inverse_follows_host_numpy():
    # NOTE: MXNet gives the inverse flat; its master tests compare with the host NumPy's (shaped
    #   like the input under NumPy 2), as mxlab does. GluonNLP reshape_likes it either way.
    x = numpy.array([[3, 1], [3, 2]], dtype="int32")
    u, inv = mx.np.unique(mx.np.array(x), return_inverse=True)
    assert inv.shape == numpy.unique(x, return_inverse=True)[1].shape
    numpy.testing.assert_array_equal(u.asnumpy()[inv.asnumpy()].ravel(), x.ravel())


def test_reshape_like_takes_rhs_dims_when_lhs_is_unknown():
    op = get_op("reshape_like")
    assert op.infer_shapes(op.parse_attrs({}), [(None,), (5, 4)])[1] == [(5, 4)]
    assert op.infer_shapes(op.parse_attrs({}), [None, (5, 4)])[1] == [(5, 4)]
    attrs = op.parse_attrs({"lhs_begin": 1, "rhs_begin": 0, "rhs_end": 2})
    assert op.infer_shapes(attrs, [(None, 20), (4, 5)])[1] == [(None, 4, 5)]
    assert op.infer_shapes(op.parse_attrs({}), [(None,), (5, None)])[1] == [None]


class _RelScore(HybridBlock):
    """GluonNLP's RelAttentionScoreCell (transformer_xl method, NKT layout) in small."""

    def __init__(self, heads=2, units=7):
        super().__init__()
        self._heads, self._units = heads, units
        half = heads * units // 2
        self.base = mx.gluon.Constant(numpy.exp(-numpy.arange(half, dtype="float32")))
        self.proj = nn.Dense(heads * units, in_units=heads * units, flatten=False,
                             use_bias=False)
        self.drop = nn.Dropout(0.0)

    def forward(self, rel, query):
        np, npx = mx.np, mx.npx
        uniq, rev = np.unique(rel, return_inverse=True)
        emb = np.expand_dims(uniq.astype("float32"), axis=-1) * self.base.data()
        emb = self.proj(self.drop(np.concatenate([np.sin(emb), np.cos(emb)], axis=-1)))
        emb = npx.reshape(emb, (-2, self._heads, self._units))
        score = np.transpose(np.matmul(query, np.transpose(emb, (1, 2, 0))), (2, 3, 0, 1))
        rev = npx.reshape_like(rev, rel).astype("int32")
        qidx = np.expand_dims(npx.arange_like(rel, axis=0).astype("int32"), axis=-1) \
            + np.zeros_like(rev)
        score = npx.gather_nd(score, np.stack([qidx, rev]))
        return np.transpose(score, (2, 3, 0, 1))


def _run_rel_score(hybridize, static=False):
    mx.random.seed(7)
    block = _RelScore()
    block.initialize(mx.init.Uniform(0.5))
    if hybridize:
        block.hybridize(static_alloc=static, static_shape=static)
    rs = numpy.random.RandomState(0)
    query = mx.np.array(rs.normal(size=(3, 2, 5, 7)).astype("float32"))
    rel = mx.np.expand_dims(mx.np.arange(5, dtype="int32"), -1) \
        - mx.np.expand_dims(mx.np.arange(4, dtype="int32"), 0)
    head = mx.np.array(rs.normal(size=(3, 2, 5, 4)).astype("float32"))
    query.attach_grad()
    results = []
    for _ in range(2):                           # the second call runs the cached graph
        with mx.autograd.record():
            out = block(rel, query)
        out.backward(head)
        results.append((out.asnumpy(), query.grad.asnumpy(),
                        block.proj.weight.grad().asnumpy()))
    return results


@pytest.mark.parametrize("static", [False, True])
def test_hybridized_unique_gather_nd_block_matches_imperative(static):
    imperative = _run_rel_score(False)
    hybridized = _run_rel_score(True, static)
    out, qgrad, wgrad = imperative[0]
    assert out.shape == (3, 2, 5, 4)
    # the score at (query i, memory j) depends only on i - j and query i: check against NumPy
    for got in imperative[1:] + hybridized:
        numpy.testing.assert_allclose(got[0], out, rtol=1e-5, atol=1e-6)
        numpy.testing.assert_allclose(got[1], qgrad, rtol=1e-5, atol=1e-6)
        numpy.testing.assert_allclose(got[2], wgrad, rtol=1e-5, atol=1e-6)
    assert numpy.abs(wgrad).sum() > 0


def test_rel_score_values_against_numpy():
    out = _run_rel_score(False)[0][0]
    mx.random.seed(7)
    block = _RelScore()
    block.initialize(mx.init.Uniform(0.5))
    weight = block.proj.weight.data().asnumpy()
    query = numpy.random.RandomState(0).normal(size=(3, 2, 5, 7)).astype("float32")
    rel = numpy.arange(5)[:, None] - numpy.arange(4)[None, :]
    emb = rel[..., None].astype("float32") * numpy.exp(-numpy.arange(7, dtype="float32"))
    emb = numpy.concatenate([numpy.sin(emb), numpy.cos(emb)], -1) @ weight.T   # (5, 4, 14)
    emb = emb.reshape(5, 4, 2, 7)
    want = numpy.einsum("bnid,ijnd->bnij", query, emb)
    numpy.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-5)


def test_hybridized_nonzero_matches_imperative():
    class NonZero(HybridBlock):
        def forward(self, x):
            return mx.npx.nonzero(x) * 2

    x = mx.np.array([[0, 1, 0], [3, 0, 4]], dtype="float32")
    block = NonZero()
    want = block(x).asnumpy()
    block.hybridize()
    for _ in range(2):
        numpy.testing.assert_array_equal(block(x).asnumpy(), want)
    numpy.testing.assert_array_equal(want, 2 * numpy.argwhere(x.asnumpy()))


def test_parameter_uuid_tells_parameters_apart():
    dense = nn.Dense(3, in_units=2)
    params = list(dense.collect_params().values())
    uuids = {p._uuid for p in params}
    assert len(uuids) == len(params) == 2
    assert all(isinstance(u, str) and len(u) == 36 for u in uuids)


def test_dataloader_module_names_gluonnlp_imports():
    from mxlab.gluon.data import dataloader

    assert dataloader.ForkingPickler.__name__ == "ForkingPickler"
    moved = dataloader._as_in_context([mx.np.ones(2), (mx.np.zeros(1),), 3], mx.cpu())
    assert moved[0].device == mx.cpu() and moved[1][0].shape == (1,) and moved[2] == 3


ORACLE_GLUONNLP = """
mx.npx.set_np()
x = mx.np.array(inputs["x"])
outputs["gather"] = mx.npx.gather_nd(x, mx.np.array(inputs["idx"])).asnumpy()
outputs["nonzero"] = mx.npx.nonzero(x > 0).asnumpy()
u, inv = mx.np.unique(mx.np.array(inputs["ints"]), return_inverse=True)
outputs["unique"], outputs["inverse"] = u.asnumpy(), inv.asnumpy().ravel()
outputs["shape"] = mx.npx.shape_array(x).asnumpy()
"""


@requires_oracle
@pytest.mark.oracle
def test_gluonnlp_ops_match_mxnet():
    rs = numpy.random.RandomState(3)
    inputs = {"x": rs.uniform(-1, 1, (3, 4)).astype("float32"),
              "idx": numpy.array([[0, 2, 2], [1, 3, 3]], dtype="int32"),
              "ints": rs.randint(0, 5, (4, 3)).astype("int32")}
    mine, theirs = run_both(ORACLE_GLUONNLP, inputs)
    mine["inverse"] = mine["inverse"].ravel()     # NOTE: flat in MXNet, NumPy 2's shape here
    assert_same_results(mine, theirs)
