"""Opt-in oracle: Python custom operators against real MXNet 1.9.1 running the same Prop code.

One code string defines the ops and runs them imperatively under autograd, through
``simple_bind`` and in a hybridized Gluon block; both frameworks run it (MXNet in a subprocess)
and every value, gradient, aux state and the symbol JSON must agree."""
import json
import pathlib
import sys

import numpy
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "oracle"))
from mxnet_oracle import requires_mxnet, run_mxlab, run_mxnet  # noqa: E402

pytestmark = [pytest.mark.oracle, requires_mxnet]

CODE = '''
class Sqr(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        aux[0][:] = aux[0] + in_data[0].sum()
        self.assign(out_data[0], req[0], in_data[0] * in_data[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], 2 * in_data[0] * out_grad[0])


@mx.operator.register("oracle_sqr")
class SqrProp(mx.operator.CustomOpProp):
    def list_auxiliary_states(self):
        return ["acc"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]], [[1]]

    def create_operator(self, ctx, shapes, dtypes):
        return Sqr()


class Head(mx.operator.CustomOp):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0].asnumpy() * self.scale
        y = np.exp(x - x.max(axis=1, keepdims=True))
        self.assign(out_data[0], req[0], mx.nd.array(y / y.sum(axis=1, keepdims=True)))
        self.assign(out_data[1], req[1], mx.nd.max(in_data[0], axis=1) * float(is_train))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        label = in_data[1].asnumpy().astype(np.int64)
        y = out_data[0].asnumpy()
        y[np.arange(label.shape[0]), label] -= 1.0
        self.assign(in_grad[0], req[0], mx.nd.array(y * self.scale))
        self.assign(in_grad[1], req[1], mx.nd.zeros_like(in_data[1]))


@mx.operator.register("oracle_head")
class HeadProp(mx.operator.CustomOpProp):
    def __init__(self, scale="1"):
        super().__init__(need_top_grad=False)
        self.scale = float(scale)

    def list_arguments(self):
        return ["data", "label"]

    def list_outputs(self):
        return ["output", "top"]

    def infer_shape(self, in_shape):
        return [in_shape[0], [in_shape[0][0]]], [in_shape[0], [in_shape[0][0]]], []

    def create_operator(self, ctx, shapes, dtypes):
        return Head(self.scale)


x = mx.nd.array(inputs["x"])
label = mx.nd.array(inputs["label"])

# imperative, autograd
acc = mx.nd.zeros((1,))
xs = x.copy()
xs.attach_grad()
with mx.autograd.record():
    y = mx.nd.Custom(xs, acc, op_type="oracle_sqr")
    z = y * 3
z.backward(mx.nd.array(inputs["head"]))
outputs["imp_y"], outputs["imp_grad"], outputs["imp_acc"] = y.asnumpy(), xs.grad.asnumpy(), \\
    acc.asnumpy()
xs = x.copy()
xs.attach_grad()
with mx.autograd.record():
    p, top = mx.nd.Custom(xs, label, op_type="oracle_head", scale=2.5)
p.backward()
outputs["head_p"], outputs["head_top"], outputs["head_grad"] = p.asnumpy(), top.asnumpy(), \\
    xs.grad.asnumpy()
outputs["head_top_predict"] = mx.nd.Custom(x, label, op_type="oracle_head")[1].asnumpy()

# symbol: names, JSON, simple_bind forward/backward
data = mx.sym.var("data")
sym = mx.sym.Custom(mx.sym.Custom(data, name="sq", op_type="oracle_sqr"), name="hd",
                    op_type="oracle_head", scale=2.5)
outputs["json"] = np.frombuffer(sym.tojson().encode(), np.uint8)
outputs["names"] = np.frombuffer(json.dumps([sym.list_arguments(), sym.list_outputs(),
                                             sym.list_auxiliary_states()]).encode(), np.uint8)
ex = sym.simple_bind(mx.cpu(), data=x.shape)
ex.arg_dict["data"][:] = x
ex.arg_dict["hd_label"][:] = label
ex.aux_dict["sq_acc"][:] = 1
outs = ex.forward(is_train=True)
ex.backward()
outputs["bind_p"], outputs["bind_grad"] = outs[0].asnumpy(), ex.grad_dict["data"].asnumpy()
outputs["bind_acc"] = ex.aux_dict["sq_acc"].asnumpy()


class Net(mx.gluon.HybridBlock):
    def hybrid_forward(self, F, x, label):
        return F.Custom(x * x, label, op_type="oracle_head", scale=2.5)[0] * 2


for k, flags in enumerate([{}, {"static_alloc": True}]):
    net = Net()
    net.hybridize(**flags)
    xs = x.copy()
    xs.attach_grad()
    with mx.autograd.record():
        out = net(xs, label)
    out.backward()
    outputs[f"hyb{k}_out"], outputs[f"hyb{k}_grad"] = out.asnumpy(), xs.grad.asnumpy()
'''

CODE = "import json\n" + CODE


@pytest.fixture(scope="module")
def results():
    rng = numpy.random.default_rng(7)
    inputs = {"x": rng.standard_normal((3, 4)).astype("float32") * 0.5,
              "label": numpy.array([0, 3, 1], "float32"),
              "head": (numpy.cos(numpy.arange(12)) + 1.5).astype("float32").reshape(3, 4)}
    return run_mxnet(CODE, inputs), run_mxlab(CODE, inputs)


@pytest.mark.parametrize("key", ["imp_y", "imp_grad", "imp_acc", "head_p", "head_top",
                                 "head_grad", "head_top_predict", "bind_p", "bind_grad",
                                 "bind_acc", "hyb0_out", "hyb0_grad", "hyb1_out", "hyb1_grad"])
def test_values_match_mxnet(results, key):
    want, got = results
    numpy.testing.assert_allclose(got[key], want[key], rtol=1e-5, atol=1e-6)


def test_symbol_json_and_names_match_mxnet(results):
    want, got = results
    assert json.loads(got["json"].tobytes()) == json.loads(want["json"].tobytes())
    assert json.loads(got["names"].tobytes()) == json.loads(want["names"].tobytes())
