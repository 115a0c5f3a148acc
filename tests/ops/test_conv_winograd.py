"""Winograd convolution (conv_wino) and forward columns kept for the backward (conv_keep):
values against the im2col path, fallbacks, the cost model, the keep/take contract, autograd."""

import numpy
import pytest

import mxlab as mx
from mxlab.ops.nn import conv_algo, conv_keep, conv_wino
from mxlab.ops.nn.conv import ALGORITHMS, conv_plan
from mxlab.ops.registry import get_op
from mxlab.test_utils import assert_almost_equal

SCHEMES = [s.name for s in conv_wino.SCHEMES]
REFERENCE = {"forward": "im2col", "backward_data": "col2im", "backward_weight": "im2col"}


@pytest.fixture(autouse=True)
def _fresh(monkeypatch):
    """Plans built without autotune (tests pick algorithms), nothing kept from other tests."""
    monkeypatch.setenv("MXNET_CUDNN_AUTOTUNE_DEFAULT", "0")
    mx.op_cache.clear()
    conv_keep.clear()
    yield
    conv_keep.clear()


def _conv_attrs(kernel=(3, 3), stride=(1, 1), pad=(1, 1), dilate=(1, 1), nf=4, ng=1):
    return dict(kernel=kernel, stride=stride, pad=pad, dilate=dilate, num_filter=nf,
                num_group=ng, no_bias=True)


def _plan(x_shape, dtype="float64", **kw):
    attrs = _conv_attrs(**kw)
    w_shape = (attrs["num_filter"], x_shape[1] // attrs["num_group"]) + attrs["kernel"]
    parsed = get_op("Convolution").parse_attrs(attrs)
    x, w = numpy.zeros(x_shape, dtype), numpy.zeros(w_shape, dtype)
    return conv_plan("Convolution", numpy, parsed, x, w), w_shape


def _operands(plan, w_shape, dtype, seed=0):
    rng = numpy.random.default_rng(seed)
    x = rng.standard_normal(plan.win.in_shape).astype(dtype)
    w = rng.standard_normal(w_shape).astype(dtype)
    dy = rng.standard_normal(plan.out_shape).astype(dtype)
    return {"forward": (x, w), "backward_data": (dy, w), "backward_weight": (dy, x)}


WINOGRAD_CASES = [
    # (x shape, pad, filters): whole 4x4 tiles (both schemes), 2x2 only, no padding, padding 2,
    # batch 1, non-square maps, channels that widen and narrow
    ((2, 3, 8, 12), (1, 1), 5),
    ((1, 4, 4, 4), (1, 1), 2),
    ((3, 2, 6, 10), (0, 0), 3),
    ((2, 3, 6, 6), (2, 2), 4),
    ((2, 5, 6, 6), (1, 1), 6),
    ((2, 6, 8, 4), (1, 0), 3),
]


@pytest.mark.parametrize("chunk_bytes", [None, 1])
@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("x_shape,pad,nf", WINOGRAD_CASES)
def test_winograd_matches_im2col(scheme, x_shape, pad, nf, chunk_bytes, monkeypatch):
    """Forward and both gradients agree with the im2col path in float64 (to rounding), whether
    the scheme applies or falls back (``chunk_bytes=1``: one sample at a time, as for large
    maps)."""
    if chunk_bytes is not None:
        monkeypatch.setattr(conv_wino, "CHUNK_BYTES", chunk_bytes)
    plan, w_shape = _plan(x_shape, pad=pad, nf=nf)
    operands = _operands(plan, w_shape, "float64")
    for direction, reference in REFERENCE.items():
        expected = ALGORITHMS[direction][reference](plan, numpy, *operands[direction])
        got = ALGORITHMS[direction][scheme](plan, numpy, *operands[direction])
        assert_almost_equal(got, expected, rtol=1e-10, atol=1e-10,
                            names=(f"{direction} {scheme}", reference))


def test_winograd_float32_error_is_small():
    """The transforms' constants cost float32 precision, within cuDNN-Winograd-like bounds."""
    plan, w_shape = _plan((4, 16, 8, 8), dtype="float32", nf=16)
    operands = _operands(plan, w_shape, "float32")
    for direction, reference in REFERENCE.items():
        expected = ALGORITHMS[direction][reference](plan, numpy, *operands[direction])
        for scheme in SCHEMES:
            got = ALGORITHMS[direction][scheme](plan, numpy, *operands[direction])
            assert got.dtype == numpy.float32
            error = numpy.abs(got - expected).max() / numpy.abs(expected).max()
            assert error < 1e-4, (direction, scheme, error)


@pytest.mark.parametrize("x_shape,kw", [
    ((2, 4, 8, 8), {"stride": (2, 2)}),
    ((2, 4, 8, 8), {"ng": 2}),
    ((2, 4, 8, 8), {"dilate": (2, 2), "pad": (2, 2)}),
    ((2, 4, 8, 8), {"kernel": (5, 5), "pad": (2, 2)}),
    ((2, 4, 8), {"kernel": (3,), "stride": (1,), "pad": (1,), "dilate": (1,)}),
    ((1, 2, 4, 4, 4), {"kernel": (3, 3, 3), "stride": (1, 1, 1), "pad": (1, 1, 1),
                       "dilate": (1, 1, 1)}),
    ((2, 4, 7, 7), {}),  # 7x7 outputs: no whole tiles
])
def test_winograd_falls_back_where_it_does_not_apply(x_shape, kw):
    """Strides, groups, dilation, other kernels, 1-D/3-D, ragged maps: the Winograd entries
    compute with the fallback and the cost model does not offer them."""
    plan, w_shape = _plan(x_shape, **kw)
    operands = _operands(plan, w_shape, "float64")
    viable = conv_algo.viable_candidates(plan, numpy)
    for direction, reference in REFERENCE.items():
        assert not set(SCHEMES) & set(viable[direction])
        expected = ALGORITHMS[direction][reference](plan, numpy, *operands[direction])
        for scheme in SCHEMES:
            got = ALGORITHMS[direction][scheme](plan, numpy, *operands[direction])
            assert_almost_equal(got, expected, rtol=1e-10, atol=1e-10)


def test_winograd_cost_model():
    """Offered where it applies with enough tiles; the data gradient also needs whole input
    tiles (no padding: the input is 2 wider than the output)."""
    plan, _ = _plan((2, 3, 16, 16), nf=4)
    viable = conv_algo.viable_candidates(plan, numpy)
    assert all(set(SCHEMES) <= set(viable[d]) for d in REFERENCE)
    few, _ = _plan((1, 8, 4, 4), nf=8)  # one 4x4 tile, four 2x2 tiles
    assert conv_wino.tiles(few) < conv_algo.WINOGRAD_MIN_TILES
    assert not set(SCHEMES) & set(conv_algo.viable_candidates(few, numpy)["forward"])
    unpadded, _ = _plan((2, 3, 18, 18), pad=(0, 0))
    viable = conv_algo.viable_candidates(unpadded, numpy)
    assert "winograd" in viable["forward"] and "winograd" not in viable["backward_data"]


# -- columns kept by a training forward ------------------------------------------------------------
@pytest.mark.parametrize("layout", ["im2col", "folded", "cn", "winograd"])
def test_kept_columns_give_the_same_weight_gradient(layout):
    """A training forward keeps its columns in the shared layout, the backward takes them
    (once), and the gradient equals the one built from scratch."""
    plan, w_shape = _plan((4, 3, 8, 8), nf=5)
    (x, w), (dy, _) = _operands(plan, w_shape, "float64")["forward"], \
        _operands(plan, w_shape, "float64")["backward_data"]
    plan.algorithms = {"forward": layout, "backward_data": "col2im", "backward_weight": layout}
    assert plan.shared_layout == layout
    expected = ALGORITHMS["backward_weight"]["im2col"](plan, numpy, dy, x)
    plan.forward(numpy, x, w, train=True)
    assert conv_keep.kept_bytes() > 0
    _, dw = plan.backward(numpy, dy, x, w, need=(False, True))
    assert conv_keep.kept_bytes() == 0
    assert_almost_equal(dw, expected, rtol=1e-10, atol=1e-10)


def test_kept_columns_are_not_used_once_x_changed():
    """The columns of an ``x`` that changed in place since the forward are rebuilt."""
    plan, w_shape = _plan((2, 3, 8, 8), nf=4)
    plan.algorithms = dict(plan.algorithms, forward="cn", backward_weight="cn")
    ops = _operands(plan, w_shape, "float64")
    (x, w), dy = ops["forward"], ops["backward_data"][0]
    plan.forward(numpy, x, w, train=True)
    x *= 2.0
    assert conv_keep.take(plan, numpy, x, "cn") is None
    plan.forward(numpy, x, w, train=True)
    x[0, 0, 0, 0] += 1.0
    dw = plan.backward_weight(numpy, dy, x)
    expected = ALGORITHMS["backward_weight"]["im2col"](plan, numpy, dy, x)
    assert_almost_equal(dw, expected, rtol=1e-10, atol=1e-10)


def test_nothing_is_kept_outside_training_or_over_budget(monkeypatch):
    plan, w_shape = _plan((2, 3, 8, 8), nf=4)
    plan.algorithms = dict(plan.algorithms, forward="folded", backward_weight="folded")
    x, w = _operands(plan, w_shape, "float64")["forward"]
    plan.forward(numpy, x, w)  # inference
    assert conv_keep.kept_bytes() == 0
    monkeypatch.setenv("MXLAB_CONV_KEEP_MB", "0")
    plan.forward(numpy, x, w, train=True)
    assert conv_keep.kept_bytes() == 0
    plan.algorithms = dict(plan.algorithms, backward_weight="cn")  # layouts differ
    monkeypatch.delenv("MXLAB_CONV_KEEP_MB")
    assert plan.shared_layout is None
    plan.forward(numpy, x, w, train=True)
    assert conv_keep.kept_bytes() == 0


def test_keep_skips_columns_that_alias_a_workspace():
    """A 1x1 kernel whose window view is the padded workspace itself: no private copy, so
    nothing is kept (the next call overwrites the workspace)."""
    plan, w_shape = _plan((1, 2, 3, 3), kernel=(1, 1), pad=(1, 1), nf=2)
    x, _ = _operands(plan, w_shape, "float64")["forward"]
    cols = conv_algo._folded_x_cols(plan, numpy, x)
    assert numpy.shares_memory(cols, plan.workspace)
    conv_keep.keep(plan, numpy, x, "folded", cols)
    assert conv_keep.kept_bytes() == 0


def test_autotune_weighs_forward_and_weight_gradient_together(monkeypatch):
    """The chosen forward / backward-weight pair has the least summed time, counting a shared
    layout's backward at its time with the forward's columns kept."""
    monkeypatch.setenv("MXNET_CUDNN_AUTOTUNE_DEFAULT", "1")
    plan, _ = _plan((4, 4, 8, 8), dtype="float32", nf=4)
    fwd, bwd = plan.tune_times["forward"], plan.tune_times["backward_weight"]
    assert plan.kept_times and set(plan.kept_times) <= set(fwd) & set(bwd)
    sums = {(f, b): fwd[f] + bwd[b] for f in fwd for b in bwd}
    sums.update({(k, k): fwd[k] + t for k, t in plan.kept_times.items()})
    chosen = (plan.algorithms["forward"], plan.algorithms["backward_weight"])
    assert sums[chosen] == min(sums.values())


@pytest.fixture
def naive_engine():
    """Kept columns live per thread: the forward and backward of this test must run on the
    calling thread (under ThreadedEngine they may run on two workers, and are not reused)."""
    previous = mx.engine.get_engine()
    yield mx.engine.set_engine("NaiveEngine")
    mx.engine.set_engine(previous)


def test_training_step_through_autograd_keeps_and_takes(naive_engine):
    """mx.nd.Convolution under autograd.record keeps the columns; backward takes them; the
    gradients equal the default algorithms' ones."""
    rng = numpy.random.default_rng(3)
    x = rng.standard_normal((2, 3, 8, 8)).astype("float32")
    w = rng.standard_normal((4, 3, 3, 3)).astype("float32")
    attrs = _conv_attrs()
    grads = {}
    for algorithm in ("im2col", "winograd"):
        xs, ws = mx.nd.array(x), mx.nd.array(w)
        xs.attach_grad()
        ws.attach_grad()
        plan = conv_plan("Convolution", numpy, get_op("Convolution").parse_attrs(attrs), x, w)
        plan.algorithms = {"forward": algorithm, "backward_data": REFERENCE["backward_data"],
                           "backward_weight": algorithm}
        with mx.autograd.record():
            y = mx.nd.Convolution(xs, ws, **attrs)
        y.wait_to_read()
        kept = conv_keep.kept_bytes()
        y.backward(mx.nd.ones(y.shape))
        grads[algorithm] = (xs.grad.asnumpy(), ws.grad.asnumpy(), kept, conv_keep.kept_bytes())
    assert grads["winograd"][2] > 0 and grads["winograd"][3] == 0
    for got, expected in zip(grads["winograd"][:2], grads["im2col"][:2]):
        assert_almost_equal(got, expected, rtol=1e-4, atol=1e-4)
