"""The 1.x loss heads (SoftmaxOutput, Linear/Logistic/MAERegressionOutput): forward values and the
gradients they send without head gradients; against MXNet 1.9.1 where it is available."""
import pathlib
import sys

import numpy
import pytest

import mxlab as mx

sys.path.insert(0, str(pathlib.Path(__file__).parent.parent / "oracle"))
from mxnet_oracle import requires_mxnet, run_mxlab, run_mxnet  # noqa: E402

_CODE = """
cases = {
    'plain': (mx.sym.SoftmaxOutput, {}, 'x2', 'l2'),
    'out_of_range': (mx.sym.SoftmaxOutput, {}, 'x2', 'l2_bad'),
    'ignore_valid': (mx.sym.SoftmaxOutput, dict(use_ignore=True, ignore_label=1,
                                                 normalization='valid', grad_scale=2.0),
                     'x2', 'l2'),
    'batch_smooth': (mx.sym.SoftmaxOutput, dict(normalization='batch', smooth_alpha=0.1),
                     'x2', 'l2'),
    'multi_output': (mx.sym.SoftmaxOutput, dict(multi_output=True), 'x3', 'l3'),
    'preserve_shape': (mx.sym.SoftmaxOutput, dict(preserve_shape=True), 'x3', 'l3p'),
    'flattened': (mx.sym.SoftmaxOutput, {}, 'x3', 'l3p'),
    'prob_label': (mx.sym.SoftmaxOutput, {}, 'x2', 'p2'),
    'linear': (mx.sym.LinearRegressionOutput, dict(grad_scale=3.0), 'x2', 'p2'),
    'logistic': (mx.sym.LogisticRegressionOutput, {}, 'x2', 'p2'),
    'mae': (mx.sym.MAERegressionOutput, {}, 'x2', 'p2'),
    'linear_flat_label': (mx.sym.LinearRegressionOutput, {}, 'x1', 'l1'),
}
for key, (op, attrs, x, label) in cases.items():
    net = op(mx.sym.var('data'), mx.sym.var('label'), **attrs)
    ex = net.simple_bind(mx.cpu(), data=inputs[x].shape, label=inputs[label].shape)
    ex.arg_dict['data'][:] = inputs[x]
    ex.arg_dict['label'][:] = inputs[label]
    outputs[key + '_out'] = ex.forward(is_train=True)[0].asnumpy()
    ex.backward()
    outputs[key + '_grad'] = ex.grad_dict['data'].asnumpy()
"""


def _inputs():
    rng = numpy.random.RandomState(0)
    return {"x2": rng.normal(size=(4, 5)).astype(numpy.float32),
            "x3": rng.normal(size=(2, 3, 4)).astype(numpy.float32),
            "x1": rng.normal(size=(4, 1)).astype(numpy.float32),
            "l1": rng.normal(size=(4,)).astype(numpy.float32),
            "l2": numpy.array([0, 1, 4, 1], numpy.float32),
            "l2_bad": numpy.array([5, -1, 2, 7], numpy.float32),
            "l3": numpy.array([[0, 2, 1, 1], [2, 2, 0, 1]], numpy.float32),
            "l3p": numpy.array([[0, 2, 1], [3, 2, 0]], numpy.float32),
            "p2": rng.uniform(size=(4, 5)).astype(numpy.float32)}


def test_softmax_output_sends_softmax_minus_one_hot():
    out = run_mxlab(_CODE, _inputs())
    x, label = _inputs()["x2"], _inputs()["l2"].astype(int)
    probs = numpy.exp(x) / numpy.exp(x).sum(axis=1, keepdims=True)
    numpy.testing.assert_allclose(out["plain_out"], probs, rtol=1e-5)
    numpy.testing.assert_allclose(out["plain_grad"], probs - numpy.eye(5)[label], rtol=1e-5,
                                  atol=1e-6)
    numpy.testing.assert_allclose(out["out_of_range_grad"][[0, 1, 3]], probs[[0, 1, 3]],
                                  rtol=1e-5)   # labels 5, -1, 7 match no class
    numpy.testing.assert_allclose(out["linear_grad"],
                                  3.0 / 5 * (x - _inputs()["p2"]), rtol=1e-5)


@pytest.mark.oracle
@requires_mxnet
def test_loss_outputs_match_mxnet():
    expected = run_mxnet(_CODE, _inputs())
    got = run_mxlab(_CODE, _inputs())
    assert sorted(got) == sorted(expected)
    for key in sorted(expected):
        numpy.testing.assert_allclose(got[key], expected[key], rtol=1e-5, atol=1e-6,
                                      err_msg=key)


def test_label_shape_and_dtype_are_inferred_from_data():
    for op, label_shape in ((mx.sym.SoftmaxOutput, (4,)),
                            (mx.sym.LinearRegressionOutput, (4, 3))):
        net = op(mx.sym.var("data"), name="out")
        arg_shapes, _, _ = net.infer_shape(data=(4, 3))
        assert arg_shapes[1] == label_shape
        assert net.infer_type(data="float64")[0] == [numpy.float64, numpy.float64]


def test_softmax_output_out_grad_scales_by_the_head_gradient():
    data = mx.nd.array([[1.0, 2.0, 0.5], [0.1, 0.2, 3.0]])
    label = mx.nd.array([1, 2])
    grads = []
    for out_grad in (False, True):
        x = data.copy()
        x.attach_grad()
        with mx.autograd.record():
            y = mx.nd.SoftmaxOutput(x, label, out_grad=out_grad)
        y.backward(mx.nd.full(y.shape, 3.0))
        grads.append(x.grad.asnumpy())
    numpy.testing.assert_allclose(grads[1], 3.0 * grads[0], rtol=1e-6)
