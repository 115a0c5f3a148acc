"""BatchNorm, LayerNorm, GroupNorm, InstanceNorm: values, moving stats, gradients, lean backward."""

import types

import numpy
import pytest

import mxlab as mx
from mxlab.base import MXNetValueError
from mxlab.ops.registry import get_op
from mxlab.test_utils import assert_almost_equal, check_numeric_gradient


def _nd(a):
    return mx.nd.array(a, dtype="float64")


def _bn_inputs(shape=(4, 3, 5, 5), axis=1):
    c = shape[axis]
    return [
        numpy.random.randn(*shape),
        numpy.random.rand(c) + 0.5,
        numpy.random.randn(c),
        numpy.random.randn(c),
        numpy.random.rand(c) + 0.5,
    ]


def _bn_ref(x, gamma, beta, mean, var, eps, axis=1):
    b = [1] * x.ndim
    b[axis] = -1
    return (x - mean.reshape(b)) / numpy.sqrt(var.reshape(b) + eps) * gamma.reshape(
        b
    ) + beta.reshape(b)


@pytest.mark.parametrize("axis", [1, -1])
def test_batchnorm_training_values_and_moving_stats(axis):
    x, gamma, beta, mm, mv = _bn_inputs((4, 3, 5, 6), axis)
    arrays = [_nd(a) for a in (x, gamma, beta, mm, mv)]
    with mx.autograd.train_mode():
        out, mean, inv_std = mx.nd.BatchNorm(
            *arrays, fix_gamma=False, momentum=0.8, axis=axis, eps=1e-3, output_mean_var=True
        )
    axes = tuple(i for i in range(4) if i != axis % 4)
    bmean, bvar = x.mean(axis=axes), x.var(axis=axes)
    assert_almost_equal(
        out, _bn_ref(x, gamma, beta, bmean, bvar, 1e-3, axis), rtol=1e-10, atol=1e-10
    )
    assert_almost_equal(mean, bmean, rtol=1e-12, atol=1e-12)
    assert_almost_equal(inv_std, 1 / numpy.sqrt(bvar + 1e-3), rtol=1e-12, atol=1e-12)
    assert_almost_equal(arrays[3], 0.8 * mm + 0.2 * bmean, rtol=1e-12, atol=1e-12)
    assert_almost_equal(arrays[4], 0.8 * mv + 0.2 * bvar, rtol=1e-12, atol=1e-12)


def test_batchnorm_moving_stats_untouched_outside_training():
    x, gamma, beta, mm, mv = _bn_inputs()
    arrays = [_nd(a) for a in (x, gamma, beta, mm, mv)]
    outs = mx.nd.BatchNorm(*arrays, fix_gamma=False, output_mean_var=True)
    assert_almost_equal(outs[0], _bn_ref(x, gamma, beta, mm, mv, 1e-3), rtol=1e-10, atol=1e-10)
    assert_almost_equal(outs[1], mm, rtol=0, atol=0)
    assert_almost_equal(outs[2], 1 / numpy.sqrt(mv + 1e-3), rtol=1e-12, atol=1e-12)
    with mx.autograd.train_mode():
        mx.nd.BatchNorm(*arrays, use_global_stats=True)
    assert_almost_equal(arrays[3], mm, rtol=0, atol=0)
    assert_almost_equal(arrays[4], mv, rtol=0, atol=0)


def test_batchnorm_fix_gamma_ignores_gamma_and_zeroes_its_gradient():
    x, gamma, beta, mm, mv = _bn_inputs()
    arrays = [_nd(a) for a in (x, gamma, beta, mm, mv)]
    arrays[1].attach_grad()
    with mx.autograd.record():
        out = mx.nd.BatchNorm(*arrays)
    out.backward()
    assert_almost_equal(
        out,
        _bn_ref(x, numpy.ones(3), beta, x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3)), 1e-3),
        rtol=1e-10,
        atol=1e-10,
    )
    assert not arrays[1].grad.asnumpy().any()


@pytest.mark.parametrize("axis", [1, 0, -1])  # channel first, leading, last
def test_batchnorm_gradients_training(axis):
    def bn(x, g, b):
        mm, mv = _nd(numpy.zeros(3)), _nd(numpy.ones(3))
        return mx.nd.BatchNorm(x, g, b, mm, mv, fix_gamma=False, axis=axis)

    x, gamma, beta = _bn_inputs((3, 3, 2, 3))[:3]
    check_numeric_gradient(
        bn, [x, gamma, beta], numeric_eps=1e-5, rtol=1e-5, atol=1e-6, dtype=numpy.float64
    )


def test_batchnorm_gradients_global_stats():
    mm, mv = numpy.random.randn(3), numpy.random.rand(3) + 0.5

    def bn(x, g, b):
        return mx.nd.BatchNorm(x, g, b, _nd(mm), _nd(mv), fix_gamma=False, use_global_stats=True)

    x, gamma, beta = _bn_inputs((2, 3, 2, 3))[:3]
    check_numeric_gradient(
        bn, [x, gamma, beta], numeric_eps=1e-5, rtol=1e-5, atol=1e-6, dtype=numpy.float64
    )


def test_batchnorm_lean_backward_layout():
    """Seed 004: backward takes 8 inputs, returns 3; moving stats get none; output not saved."""
    bn, back = get_op("BatchNorm"), get_op("_backward_BatchNorm")
    attrs = bn.parse_attrs({})
    assert back.get_num_inputs(attrs) == 8 and back.get_num_outputs(attrs) == 3
    assert back.get_input_names(attrs) == (
        "out_grad",
        "saved_mean",
        "saved_inv_std",
        "data",
        "gamma",
        "beta",
        "moving_mean",
        "moving_var",
    )
    assert bn.mutate_inputs == (3, 4) and bn.save_outputs == (1, 2)
    assert bn.get_num_visible_outputs(attrs) == 1
    assert bn.get_num_visible_outputs(bn.parse_attrs({"output_mean_var": True})) == 3

    arrays = [_nd(a) for a in _bn_inputs((2, 3, 2, 2))]
    saved = bn.forward(numpy, [a.asnumpy() for a in arrays], attrs)
    node = types.SimpleNamespace(
        op=bn, attrs=attrs, inputs=arrays, outputs=[None] + [_nd(o) for o in saved[1:]]
    )
    grads = bn.gradient(node, [_nd(numpy.ones((2, 3, 2, 2)))])
    assert len(grads) == 5 and grads[3] is None and grads[4] is None
    assert [g.shape for g in grads[:3]] == [(2, 3, 2, 2), (3,), (3,)]


def test_batchnorm_infer_shape_and_errors():
    bn = get_op("BatchNorm")
    attrs = bn.parse_attrs({})
    ins, outs = bn.infer_shapes(attrs, [(2, 5, 3), None, None, None, None])
    assert ins[1:] == [(5,)] * 4 and outs == [(2, 5, 3), (5,), (5,)]
    with pytest.raises(MXNetValueError, match="BatchNorm.*'moving_var'"):
        bn.infer_shapes(attrs, [(2, 5, 3), None, None, None, (4,)])
        mx.engine.wait_all()
    with pytest.raises(MXNetValueError, match="BatchNorm.*'axis'"):
        mx.nd.BatchNorm(*[_nd(a) for a in _bn_inputs((2, 3))], axis=2)
        mx.engine.wait_all()


def _affine_check(fn, location):
    check_numeric_gradient(
        fn, location, numeric_eps=1e-5, rtol=1e-5, atol=1e-6, dtype=numpy.float64
    )


@pytest.mark.parametrize("axis", [-1, 1])
def test_layer_norm_values_and_gradients(axis):
    x = numpy.random.randn(2, 4, 3)
    c = x.shape[axis]
    gamma, beta = numpy.random.rand(c) + 0.5, numpy.random.randn(c)
    out, mean, std = mx.nd.LayerNorm(_nd(x), _nd(gamma), _nd(beta), axis=axis, output_mean_var=True)
    b = [1, 1, 1]
    b[axis] = c
    m, s = x.mean(axis=axis, keepdims=True), numpy.sqrt(x.var(axis=axis, keepdims=True) + 1e-5)
    assert_almost_equal(
        out, (x - m) / s * gamma.reshape(b) + beta.reshape(b), rtol=1e-10, atol=1e-10
    )
    assert_almost_equal(mean, m, rtol=1e-12, atol=1e-12)
    assert_almost_equal(std, s, rtol=1e-12, atol=1e-12)
    _affine_check(lambda x, g, b: mx.nd.LayerNorm(x, g, b, axis=axis), [x, gamma, beta])


def test_group_norm_values_and_gradients():
    x = numpy.random.randn(2, 4, 3, 2)
    gamma, beta = numpy.random.rand(2) + 0.5, numpy.random.randn(2)
    out, mean, std = mx.nd.GroupNorm(
        _nd(x), _nd(gamma), _nd(beta), num_groups=2, output_mean_var=True
    )
    xr = x.reshape(2, 2, -1)
    m, s = xr.mean(axis=2), numpy.sqrt(xr.var(axis=2) + 1e-5)
    expected = ((xr - m[..., None]) / s[..., None] * gamma[:, None] + beta[:, None]).reshape(
        x.shape
    )
    assert_almost_equal(out, expected, rtol=1e-10, atol=1e-10)
    assert mean.shape == (2, 2) and std.shape == (2, 2)
    _affine_check(lambda x, g, b: mx.nd.GroupNorm(x, g, b, num_groups=2), [x, gamma, beta])


def test_instance_norm_values_and_gradients():
    x = numpy.random.randn(2, 3, 4)
    gamma, beta = numpy.random.rand(3) + 0.5, numpy.random.randn(3)
    out = mx.nd.InstanceNorm(_nd(x), _nd(gamma), _nd(beta), eps=1e-3)
    m, v = x.mean(axis=2, keepdims=True), x.var(axis=2, keepdims=True)
    assert_almost_equal(
        out, (x - m) / numpy.sqrt(v + 1e-3) * gamma[:, None] + beta[:, None], rtol=1e-10, atol=1e-10
    )
    _affine_check(lambda x, g, b: mx.nd.InstanceNorm(x, g, b), [x, gamma, beta])


def test_npx_names_and_group_errors():
    x = mx.np.array(numpy.random.randn(2, 4, 3))
    assert mx.npx.layer_norm(x, mx.np.array(numpy.ones(3)), mx.np.array(numpy.zeros(3))).shape == (
        2,
        4,
        3,
    )
    assert mx.npx.instance_norm(
        x, mx.np.array(numpy.ones(4)), mx.np.array(numpy.zeros(4))
    ).shape == (2, 4, 3)
    assert mx.npx.group_norm(
        x, mx.np.array(numpy.ones(2)), mx.np.array(numpy.zeros(2)), num_groups=2
    ).shape == (2, 4, 3)
    stats = [mx.np.array(numpy.zeros(4)), mx.np.array(numpy.ones(4))]
    assert mx.npx.batch_norm(
        x, mx.np.array(numpy.ones(4)), mx.np.array(numpy.zeros(4)), *stats
    ).shape == (2, 4, 3)
    with pytest.raises(MXNetValueError, match="GroupNorm.*divisible"):
        get_op("GroupNorm").infer_shapes(
            get_op("GroupNorm").parse_attrs({"num_groups": 3}), [(2, 4, 3), None, None]
        )
    with pytest.raises(MXNetValueError, match="GroupNorm.*'gamma'"):   # neither (G,) nor (C,)
        get_op("GroupNorm").infer_shapes(
            get_op("GroupNorm").parse_attrs({"num_groups": 2}), [(2, 4, 3), (3,), None]
        )


def test_contrib_sync_batch_norm_is_batch_norm_returning_the_variance():
    rng = numpy.random.default_rng(5)
    data = mx.nd.array(rng.uniform(size=(4, 3, 2)))
    gamma, beta = mx.nd.array(rng.uniform(size=3)), mx.nd.array(rng.uniform(size=3))
    stats = [(mx.nd.zeros(3), mx.nd.ones(3)) for _ in range(2)]
    head = mx.nd.array(rng.uniform(size=(4, 3, 2)))
    outs = []
    for op, (mean, var) in zip((mx.nd.BatchNorm, mx.nd.contrib.SyncBatchNorm), stats):
        x = data.copy()
        x.attach_grad()
        with mx.autograd.record():
            y, _, third = op(x, gamma, beta, mean, var, fix_gamma=False, output_mean_var=True)
        y.backward(head)
        outs.append((y.asnumpy(), third.asnumpy(), mean.asnumpy(), x.grad.asnumpy()))
    numpy.testing.assert_allclose(outs[1][0], outs[0][0], rtol=1e-5)
    numpy.testing.assert_allclose(outs[1][2], outs[0][2], rtol=1e-6)        # moving mean
    numpy.testing.assert_allclose(outs[1][3], outs[0][3], rtol=1e-4, atol=1e-6)  # data gradient
    batch_var = data.asnumpy().var(axis=(0, 2))
    numpy.testing.assert_allclose(outs[1][1], batch_var, rtol=1e-3)         # variance, not 1/std
    numpy.testing.assert_allclose(outs[0][1], 1 / numpy.sqrt(batch_var + 1e-3), rtol=1e-3)
    with pytest.raises(mx.MXNetError, match="ndev"):
        mx.nd.contrib.SyncBatchNorm(data, gamma, beta, *stats[0], ndev=2).asnumpy()


@pytest.mark.parametrize("shape", [(0, 1, 1), (1, 0, 1)])
def test_instance_norm_runs_an_empty_batch_or_no_channels(shape):
    """MXNet's issue 18933: zero-size inputs go forward and backward without an error."""
    x, gamma, beta = mx.np.zeros(shape), mx.np.ones((1,)), mx.np.zeros((1,))
    for v in (x, gamma, beta):
        v.attach_grad()
    with mx.autograd.record():
        y = mx.npx.instance_norm(x, gamma, beta)
    y.backward()
    assert y.shape == shape and x.grad.shape == shape
    assert gamma.grad.asnumpy().tolist() == [0.0]


def test_layer_norm_parameter_gradients_over_many_rows_stay_accurate_in_float32():
    """4096 rows summed one at a time lose about 4e-4 in float32 (MXNet's compensated sums do
    not; test_layer_norm's tolerance is 1e-4): the rows are summed in blocks."""
    rng = numpy.random.default_rng(5)
    x, dy = (rng.standard_normal((4096, 64)).astype("float32") for _ in range(2))
    data, gamma, beta = mx.nd.array(x), mx.nd.ones((64,)), mx.nd.zeros((64,))
    for arr in (gamma, beta):
        arr.attach_grad()
    with mx.autograd.record():
        out = mx.nd.LayerNorm(data, gamma, beta, axis=-1, eps=1e-3)
    out.backward(mx.nd.array(dy))
    x64 = x.astype("float64")
    xhat = (x64 - x64.mean(1, keepdims=True)) / numpy.sqrt(x64.var(1, keepdims=True) + 1e-3)
    numpy.testing.assert_allclose(gamma.grad.asnumpy(), (dy * xhat).sum(0), rtol=0, atol=1e-4)
    numpy.testing.assert_allclose(beta.grad.asnumpy(), dy.astype("float64").sum(0), rtol=0,
                                  atol=1e-4)
