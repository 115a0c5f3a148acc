"""hard_sigmoid, L2Normalization, all_finite / multi_all_finite, im2col / col2im, smooth_l1,
softmax_cross_entropy, contrib.allclose, sym.hypot and the contrib aliases of CTCLoss (values
against NumPy; the oracle cases against MXNet 1.9.1)."""
import numpy
import pytest
from helpers import assert_same_results, requires_oracle, run_both

import mxlab as mx
from mxlab.base import MXNetValueError
from mxlab.test_utils import check_numeric_gradient


def _im2col_reference(x, kernel, stride, pad):
    """Windows by explicit loops: rows channel first, then kernel offset (MXNet's order)."""
    n, c, h, w = x.shape
    padded = numpy.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    oh = (h + 2 * pad[0] - kernel[0]) // stride[0] + 1
    ow = (w + 2 * pad[1] - kernel[1]) // stride[1] + 1
    cols = numpy.zeros((n, c * kernel[0] * kernel[1], oh * ow), x.dtype)
    for ci in range(c):
        for ki in range(kernel[0]):
            for kj in range(kernel[1]):
                row = (ci * kernel[0] + ki) * kernel[1] + kj
                patch = padded[:, ci, ki:ki + stride[0] * oh:stride[0],
                               kj:kj + stride[1] * ow:stride[1]]
                cols[:, row] = patch.reshape(n, -1)
    return cols


def test_im2col_matches_loops_and_col2im_is_its_adjoint():
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal((2, 3, 5, 6)).astype("float32")
    args = {"kernel": (2, 3), "stride": (2, 1), "pad": (1, 0)}
    cols = mx.nd.im2col(mx.nd.array(x), **args)
    numpy.testing.assert_allclose(cols.asnumpy(), _im2col_reference(x, (2, 3), (2, 1), (1, 0)))
    y = rng.standard_normal(cols.shape).astype("float32")
    back = mx.nd.col2im(mx.nd.array(y), output_size=(5, 6), **args).asnumpy()
    # <im2col(x), y> == <x, col2im(y)>: col2im adds every window back where it came from
    numpy.testing.assert_allclose((cols.asnumpy() * y).sum(), (x * back).sum(), rtol=1e-4)
    check_numeric_gradient(mx.sym.im2col(mx.sym.var("x"), **args), [x.astype("float64")],
                           rtol=1e-2, atol=1e-3)
    with pytest.raises(MXNetValueError, match="col2im"):   # (the wait: ThreadedEngine's error)
        mx.nd.col2im(mx.nd.array(y[:, :5]), output_size=(5, 6), **args).wait_to_read()


def test_hard_sigmoid_and_l2_normalization_values_and_gradients():
    x = numpy.array([-5.0, -1.0, 0.0, 1.0, 5.0], "float32")
    numpy.testing.assert_allclose(mx.nd.hard_sigmoid(mx.nd.array(x)).asnumpy(),
                                  numpy.clip(0.2 * x + 0.5, 0, 1), rtol=1e-6)
    data = numpy.random.default_rng(1).uniform(0.5, 2.0, (2, 3, 4))
    for mode, axes in (("instance", (1, 2)), ("channel", (1,)), ("spatial", (2,))):
        got = mx.nd.L2Normalization(mx.nd.array(data), mode=mode).asnumpy()
        want = data / numpy.sqrt((data ** 2).sum(axis=axes, keepdims=True) + 1e-10)
        numpy.testing.assert_allclose(got, want, rtol=1e-5)
        check_numeric_gradient(mx.sym.L2Normalization(mx.sym.var("x"), mode=mode), [data],
                               rtol=1e-2, atol=1e-3)
    check_numeric_gradient(mx.sym.hard_sigmoid(mx.sym.var("x")),
                           [numpy.array([[-3.0, -1.2, 0.3], [1.1, 2.0, 4.0]])],
                           rtol=1e-2, atol=1e-3)
    named = mx.sym.L2Normalization(mx.sym.var("x"), name="l2")
    assert named.list_outputs() == ["l2_output"]   # the norm is a hidden output, as in MXNet


def test_all_finite_names_and_aliases():
    assert mx.nd.all_finite(mx.nd.array([1.0, numpy.inf])).asnumpy().tolist() == [0.0]
    ok = mx.nd.multi_all_finite(mx.nd.array([1.0]), mx.nd.array([2.0, 3.0]), num_arrays=2)
    assert (ok.asnumpy().tolist(), ok.dtype) == ([1.0], numpy.float32)
    a, b = mx.sym.var("a"), mx.sym.var("b")
    assert mx.sym.hypot(a, b).eval(a=mx.nd.array([3.0]), b=mx.nd.array([4.0]))[0] \
        .asnumpy().tolist() == [5.0]
    assert mx.nd.contrib.CTCLoss is not None and mx.sym.contrib.ctc_loss is not None


@requires_oracle
@pytest.mark.oracle
def test_legacy_misc_ops_match_mxnet():
    rng = numpy.random.default_rng(2)
    inputs = {"x": rng.standard_normal((2, 3, 4, 5)).astype("float32")}
    code = """
x = mx.nd.array(inputs['x'])
x.attach_grad()
with mx.autograd.record():
    c = mx.nd.im2col(x, kernel=(2, 2), stride=(1, 2), dilate=(2, 1), pad=(1, 1))
    h = mx.nd.hard_sigmoid(x, alpha=0.3, beta=0.4)
    l = mx.nd.L2Normalization(x, mode='channel')
    total = (c * c).sum() + (h * 2).sum() + (l * mx.nd.arange(120).reshape((2, 3, 4, 5))).sum()
total.backward()
back = mx.nd.col2im(c, output_size=(4, 5), kernel=(2, 2), stride=(1, 2), dilate=(2, 1),
                    pad=(1, 1))
outputs.update(cols=c.asnumpy(), hard=h.asnumpy(), l2=l.asnumpy(), grad=x.grad.asnumpy(),
               back=back.asnumpy(), finite=mx.nd.all_finite(x).asnumpy())
"""
    mine, theirs = run_both(code, inputs)
    assert_same_results(mine, theirs, rtol=1e-4, atol=1e-5)


def test_gelu_tanh_and_prelu_with_per_sample_slopes():
    """MXNet 2.0's act_type='gelu_tanh' (nn.GELU(approximation='tanh')), and PReLU's gamma
    aligned with the data's first two axes (one slope per sample and channel)."""
    x = numpy.linspace(-3, 3, 12).reshape(3, 4)
    k = numpy.sqrt(2 / numpy.pi)
    want = 0.5 * x * (1 + numpy.tanh(k * (x + 0.044715 * x ** 3)))
    got = mx.nd.LeakyReLU(mx.nd.array(x, dtype="float64"), act_type="gelu_tanh").asnumpy()
    numpy.testing.assert_allclose(got, want, rtol=1e-12)
    block = mx.gluon.nn.GELU(approximation="tanh")
    numpy.testing.assert_allclose(block(mx.nd.array(x, dtype="float64")).asnumpy(), want,
                                  rtol=1e-12)
    check_numeric_gradient(mx.sym.LeakyReLU(mx.sym.var("x"), act_type="gelu_tanh"), [x],
                           numeric_eps=1e-6, rtol=1e-4, atol=1e-6, dtype=numpy.float64)
    gamma = numpy.linspace(0.1, 1.2, 12).reshape(3, 4)
    data = numpy.random.default_rng(3).uniform(-1, 1, (3, 4, 2, 2))
    y = mx.nd.LeakyReLU(mx.nd.array(data), mx.nd.array(gamma), act_type="prelu").asnumpy()
    slopes = gamma[:, :, None, None]
    numpy.testing.assert_allclose(y, numpy.where(data > 0, data, slopes * data), rtol=1e-6)
    check_numeric_gradient(mx.sym.LeakyReLU(mx.sym.var("x"), mx.sym.var("g"), act_type="prelu"),
                           [data, gamma], rtol=1e-2, atol=1e-4)
    with pytest.raises(MXNetValueError, match="approximation"):
        mx.gluon.nn.GELU(approximation="fast")


def test_group_norm_takes_per_group_or_per_channel_parameters():
    """MXNet 1.x's GroupNorm has a gamma/beta entry per group, 2.0's per channel: the shape of
    the given gamma decides (MXNet test_operator::test_groupnorm is 2.0's)."""
    rng = numpy.random.default_rng(4)
    x = rng.standard_normal((2, 6, 3, 2))
    groups = x.reshape(2, 3, -1)
    xhat = ((groups - groups.mean(-1, keepdims=True))
            / numpy.sqrt(groups.var(-1, keepdims=True) + 1e-5)).reshape(x.shape)
    for gamma in (rng.uniform(0.5, 1.5, 3), rng.uniform(0.5, 1.5, 6)):
        beta = rng.standard_normal(gamma.shape)
        view = (1, 3, 1, 1, 1) if gamma.size == 3 else (1, 6, 1, 1)
        shaped = xhat.reshape(2, 3, 2, 3, 2) if gamma.size == 3 else xhat
        want = (shaped * gamma.reshape(view) + beta.reshape(view)).reshape(x.shape)
        got = mx.nd.GroupNorm(mx.nd.array(x, dtype="float64"), mx.nd.array(gamma, dtype="float64"),
                              mx.nd.array(beta, dtype="float64"), num_groups=3)
        numpy.testing.assert_allclose(got.asnumpy(), want, rtol=1e-10, atol=1e-12)
        sym = mx.sym.GroupNorm(mx.sym.var("x"), mx.sym.var("g"), mx.sym.var("b"), num_groups=3)
        check_numeric_gradient(sym, [x, gamma, beta], rtol=1e-4, atol=1e-6,
                               numeric_eps=1e-6, dtype=numpy.float64)


def test_an_input_passed_as_none_is_left_out():
    """MXNet's generated functions take every input by position or name with None meaning
    absent: ``Convolution(x, w, None, no_bias=True)``, ``SequenceReverse(sequence_length=None)``;
    a None after the inputs is still an attribute (``sum(x, None)``: axis=None)."""
    x, w = mx.sym.var("x"), mx.sym.var("w")
    conv = mx.sym.Convolution(x, w, None, num_filter=2, kernel=(3,), no_bias=True)
    assert conv.list_arguments() == ["x", "w"]
    out = mx.nd.Convolution(mx.nd.ones((1, 2, 5)), mx.nd.ones((2, 2, 3)), None, num_filter=2,
                            kernel=(3,), no_bias=True)
    assert out.asnumpy().tolist() == [[[6.0] * 3] * 2]
    seq = mx.nd.array(numpy.arange(6.0).reshape(3, 2))
    rev = mx.nd.SequenceReverse(data=seq, sequence_length=None, use_sequence_length=False)
    assert rev.asnumpy().tolist() == [[4.0, 5.0], [2.0, 3.0], [0.0, 1.0]]
    assert mx.nd.sum(seq, None).asnumpy().tolist() == [15.0]
    assert mx.nd.one_hot(mx.nd.array([1, 2]), depth=0).shape == (2, 0)


def test_smooth_l1_softmax_cross_entropy_and_allclose():
    x = numpy.array([-2.0, -0.1, 0.0, 0.3, 3.0])
    sigma2 = 4.0
    want = numpy.where(abs(x) < 1 / sigma2, 0.5 * sigma2 * x * x, abs(x) - 0.5 / sigma2)
    got = mx.nd.smooth_l1(mx.nd.array(x, dtype="float64"), scalar=2.0).asnumpy()
    numpy.testing.assert_allclose(got, want, rtol=1e-12)
    check_numeric_gradient(mx.sym.smooth_l1(mx.sym.var("x"), scalar=2.0),
                           [numpy.array([-2.0, -0.1, 0.2, 0.3, 3.0])], rtol=1e-3, atol=1e-5,
                           numeric_eps=1e-6, dtype=numpy.float64)
    data = numpy.random.default_rng(5).standard_normal((4, 3))
    label = numpy.array([2, 0, 1, 1])
    log_p = data - numpy.log(numpy.exp(data).sum(axis=1, keepdims=True))
    loss = mx.nd.softmax_cross_entropy(mx.nd.array(data, dtype="float64"), mx.nd.array(label))
    numpy.testing.assert_allclose(loss.asnumpy(), [-log_p[range(4), label].sum()], rtol=1e-12)
    x = mx.nd.array(data)
    x.attach_grad()
    with mx.autograd.record():
        out = mx.nd.softmax_cross_entropy(x, mx.nd.array(label))
    out.backward(mx.nd.array([2.0]))
    numpy.testing.assert_allclose(x.grad.asnumpy(),
                                  2 * (numpy.exp(log_p) - numpy.eye(3)[label]), rtol=1e-5)
    flag = mx.nd.contrib.allclose(mx.nd.array([1.0, numpy.nan]), mx.nd.array([1.0, numpy.nan]))
    assert (flag.shape, flag.dtype, int(flag.asnumpy())) == ((), numpy.uint8, 1)
    assert int(mx.nd.contrib.allclose(mx.nd.array([1.0]), mx.nd.array([1.1])).asnumpy()) == 0


@requires_oracle
@pytest.mark.oracle
def test_losses_and_allclose_match_mxnet():
    rng = numpy.random.default_rng(6)
    inputs = {"x": rng.standard_normal((3, 4)).astype("float32"),
              "label": numpy.array([3, 0, 2], "float32")}
    code = """
x, label = mx.nd.array(inputs['x']), mx.nd.array(inputs['label'])
x.attach_grad()
with mx.autograd.record():
    ce = mx.nd.softmax_cross_entropy(x, label)
    l1 = mx.nd.smooth_l1(x, scalar=1.5)
    total = ce * 3 + (l1 * mx.nd.arange(12).reshape((3, 4))).sum()
total.backward()
outputs.update(ce=ce.asnumpy(), l1=l1.asnumpy(), grad=x.grad.asnumpy(),
               close=mx.nd.contrib.allclose(x, x + 1e-9).asnumpy())
"""
    mine, theirs = run_both(code, inputs)
    assert_same_results(mine, theirs, rtol=1e-5, atol=1e-6)
