"""MXNet 1.x layers (SVMOutput, LRN, BatchNorm_v1), mx.operator.get_operator_arguments and the
executor's monitor names, as MXNet 1.9.1's test_operator uses them; oracle tests compare values
with MXNet 1.9.1."""
import pathlib
import sys

import numpy as np
import pytest

import mxlab as mx
from mxlab.base import MXNetValueError
from mxlab.test_utils import check_numeric_gradient

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "oracle"))
from mxnet_oracle import requires_mxnet, run_mxlab, run_mxnet  # noqa: E402


# -- SVMOutput -------------------------------------------------------------------------------------
def _svm_grad(x, label, use_linear, margin=1.0, coef=1.0):
    sign = np.where(np.arange(x.shape[1])[None, :] == label[:, None], 1.0, -1.0)
    if use_linear:
        return -coef * sign * (margin - sign * x > 0)
    return -2 * coef * sign * np.maximum(margin - sign * x, 0)


@pytest.mark.parametrize("use_linear", [True, False])
def test_svm_output_forward_is_identity_backward_is_hinge_gradient(use_linear):
    rng = np.random.default_rng(0)
    x = rng.uniform(-2, 2, (6, 4)).astype(np.float32)
    label = rng.integers(0, 4, 6).astype(np.float32)
    sym = mx.sym.SVMOutput(mx.sym.var("x"), mx.sym.var("l"), use_linear=use_linear, margin=0.5,
                           regularization_coefficient=2.0)
    assert sym.infer_shape(x=(6, 4))[0] == [(6, 4), (6,)]
    grad = mx.nd.zeros((6, 4))
    exe = sym.bind(mx.cpu(), args=[mx.nd.array(x), mx.nd.array(label)], args_grad={"x": grad})
    np.testing.assert_array_equal(exe.forward(is_train=True)[0].asnumpy(), x)
    exe.backward()   # NOTE: a loss head: no head gradient needed, the given one is ignored
    expected = _svm_grad(x, label.astype(int), use_linear, margin=0.5, coef=2.0)
    np.testing.assert_allclose(grad.asnumpy(), expected, rtol=1e-6)


# -- LRN -------------------------------------------------------------------------------------------
def _lrn(x, nsize, alpha, beta, knorm):
    half = nsize // 2
    sq = np.pad(x * x, [(0, 0), (half, half), (0, 0), (0, 0)])
    window = sum(sq[:, i:i + x.shape[1]] for i in range(nsize))
    return x * (knorm + alpha / nsize * window) ** -beta


def test_lrn_forward_and_numeric_gradient():
    x = np.random.default_rng(1).uniform(-1, 1, (2, 5, 3, 3))
    got = mx.nd.LRN(mx.nd.array(x, dtype="float64"), nsize=3, alpha=0.5, beta=0.75, knorm=1.0)
    np.testing.assert_allclose(got.asnumpy(), _lrn(x, 3, 0.5, 0.75, 1.0), rtol=1e-12)
    sym = mx.sym.LRN(mx.sym.var("data"), nsize=3, alpha=0.5, beta=0.75, knorm=1.0)
    assert sym.list_outputs() == ["lrn0_output"]
    check_numeric_gradient(sym, [x], numeric_eps=1e-4, rtol=1e-3, atol=1e-5, dtype=np.float64)


def test_lrn_rejects_even_windows_and_non_4d_data():
    with pytest.raises(MXNetValueError, match="nsize"):
        mx.nd.LRN(mx.nd.ones((1, 3, 2, 2)), nsize=2).wait_to_read()
    with pytest.raises(MXNetValueError, match="4-D"):
        mx.nd.LRN(mx.nd.ones((3, 2)), nsize=1).wait_to_read()


# -- BatchNorm_v1 ----------------------------------------------------------------------------------
def test_batchnorm_v1_is_batchnorm_returning_the_batch_variance():
    x = mx.nd.array(np.random.default_rng(2).uniform(size=(4, 3, 2, 2)))
    gamma, beta = mx.nd.array([1.0, 2.0, 3.0]), mx.nd.array([0.0, 0.5, 1.0])
    outs = {}
    for name in ("BatchNorm_v1", "BatchNorm"):
        mean, var = mx.nd.zeros(3), mx.nd.ones(3)
        with mx.autograd.train_mode():
            outs[name] = [o.asnumpy() for o in getattr(mx.nd, name)(
                x, gamma, beta, mean, var, fix_gamma=False, output_mean_var=True)]
        outs[name].append(var.asnumpy())
    v1, bn = outs["BatchNorm_v1"], outs["BatchNorm"]
    np.testing.assert_allclose(v1[0], bn[0], rtol=1e-6)
    np.testing.assert_allclose(v1[2], x.asnumpy().var(axis=(0, 2, 3)), rtol=1e-5)
    np.testing.assert_allclose(v1[3], bn[3], rtol=1e-6)   # the same moving variance
    assert "axis" not in mx.operator.get_operator_arguments("BatchNorm_v1").names


def test_batchnorm_v1_numeric_gradient():
    data = np.random.default_rng(3).normal(-0.1, 0.1, (2, 3, 2, 2))
    sym = mx.sym.BatchNorm_v1(mx.sym.var("data"), fix_gamma=False)
    check_numeric_gradient(sym, [data, np.array([1.0, 3.0, 1.0]), np.ones(3)],
                           [np.zeros(3), np.ones(3)], numeric_eps=1e-2, rtol=0.16, atol=1e-2)


# -- get_operator_arguments ------------------------------------------------------------------------
def test_get_operator_arguments_lists_inputs_then_parameters():
    args = mx.operator.get_operator_arguments("Activation")
    assert isinstance(args, mx.operator.OperatorArguments)
    assert args.names == ["data", "act_type"] and args.narg == 2
    assert args.types[0] == "NDArray-or-Symbol"
    assert args.types[1].startswith("{'log_sigmoid', 'mish', 'relu'") and \
        args.types[1].endswith("}, required")
    reshape = mx.operator.get_operator_arguments("Reshape")
    assert reshape.types[1:3] == ["Shape(tuple), optional, default=[]",
                                  "boolean, optional, default=0"]
    assert mx.operator.get_operator_arguments("add_n").types[0] == "NDArray-or-Symbol[]"


# -- executor: _ctx and monitor names --------------------------------------------------------------
def _monitored(sym):
    names = []
    exe = sym.simple_bind(ctx=mx.cpu(), grad_req="null")
    exe.set_monitor_callback(lambda name, arr: names.append(name), monitor_all=True)
    exe.forward()
    mx.nd.waitall()   # NOTE: the callbacks run with their ops (on engine threads when threaded)
    return names


def test_executor_ctx_is_the_bound_device():
    exe = (mx.sym.var("a") * 2).simple_bind(mx.cpu(), a=(2,))
    assert exe._ctx == mx.cpu()


def test_monitor_all_runs_ops_taking_the_op_context():
    """Convolution, BatchNorm and Dropout kernels take the op context: the inserted input
    callback used to shift the kernels' context flags, so forward failed with a TypeError."""
    data = mx.sym.Variable("data", shape=(2, 3, 4, 4))
    assert _monitored(mx.sym.Convolution(data, kernel=(2, 2), num_filter=1, name="conv")) == [
        "data", "conv_data", "conv_weight", "conv_weight", "conv_bias", "conv_bias",
        "conv_output"]
    assert _monitored(mx.sym.Dropout(data, name="drop")) == [
        "data", "drop_data", "drop_output", "drop_mask"]


def test_monitor_all_input_names_follow_mxnet():
    data = mx.sym.Variable("data", shape=(2, 3, 4, 4))
    assert _monitored(mx.sym.Activation(data, act_type="relu", name="act")) == [
        "data", "act_input0", "act_output"]
    assert _monitored(mx.sym.concat(data, data, dim=0, name="cat")) == [
        "data", "cat_arg0", "data", "cat_arg1", "cat_output"]
    assert _monitored(mx.sym.LRN(data, nsize=1, name="lrn")) == [
        "data", "lrn_data", "lrn_output", "lrn_tmp_norm"]
    assert _monitored(mx.sym.softmax(data, name="sm")) == ["data", "sm_data", "sm_output"]


# -- the oracle: MXNet 1.9.1 -----------------------------------------------------------------------
ORACLE_CODE = """
x = mx.nd.array(inputs['x'])
label = mx.nd.array(inputs['label'])
for i, linear in enumerate([True, False]):
    sym = mx.sym.SVMOutput(mx.sym.var('x'), mx.sym.var('l'), use_linear=linear, margin=0.7,
                           regularization_coefficient=1.5)
    g = mx.nd.zeros(x.shape)
    exe = sym.bind(mx.cpu(), args=[x, label], args_grad={'x': g})
    exe.forward(is_train=True)
    exe.backward()
    outputs['svm%d' % i] = g.asnumpy()
img = mx.nd.array(inputs['img'])
img.attach_grad()
with mx.autograd.record():
    y = mx.nd.LRN(img, nsize=5, alpha=0.3, beta=0.6, knorm=1.5)
y.backward(mx.nd.array(inputs['head']))
outputs['lrn'] = y.asnumpy()
outputs['lrn_grad'] = img.grad.asnumpy()
d = mx.sym.var('data')
sym = mx.sym.BatchNorm_v1(d, fix_gamma=False, output_mean_var=True, name='bn')
exe = sym.simple_bind(mx.cpu(), data=img.shape)
exe.arg_dict['data'][:] = img
exe.arg_dict['bn_gamma'][:] = mx.nd.array([1.0, 2.0, 0.5, 1.5, 3.0, 1.0])
exe.forward(is_train=True)
for i, out in enumerate(exe.outputs):
    outputs['bn%d' % i] = out.asnumpy()
exe.backward([mx.nd.array(inputs['head']), mx.nd.zeros(6), mx.nd.zeros(6)])
for k in ('data', 'bn_gamma', 'bn_beta'):
    outputs['bn_grad_' + k] = exe.grad_dict[k].asnumpy()
outputs['bn_moving_var'] = exe.aux_dict['bn_moving_var'].asnumpy()
"""


@pytest.mark.oracle
@requires_mxnet
def test_legacy_layers_against_mxnet():
    rng = np.random.default_rng(4)
    inputs = {"x": rng.uniform(-2, 2, (5, 4)).astype(np.float32),
              "label": rng.integers(0, 4, 5).astype(np.float32),
              "img": rng.uniform(-1, 1, (2, 6, 3, 3)).astype(np.float32),
              "head": rng.uniform(0.5, 1.5, (2, 6, 3, 3)).astype(np.float32)}
    expected = run_mxnet(ORACLE_CODE, inputs)
    got = run_mxlab(ORACLE_CODE, inputs)
    assert sorted(got) == sorted(expected)
    for key, value in expected.items():
        np.testing.assert_allclose(got[key], value, rtol=2e-5, atol=2e-6, err_msg=key)
