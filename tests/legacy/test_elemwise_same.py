"""MXNet's same-shape ``elemwise_add``/``_sub``/``_mul``/``_div`` (what a legacy symbol's ``a + b``
builds) and ``_grad_add``: no broadcasting, unknown dims filled from the other operand or the
output, one dtype, their own gradients; checked against MXNet 1.9.1 (``oracle``)."""
import json
import pathlib
import sys

import numpy as np
import pytest

import mxlab as mx

sys.path.insert(0, str(pathlib.Path(__file__).parent.parent / "oracle"))
from mxnet_oracle import assert_same_outputs, requires_mxnet, run_mxlab  # noqa: E402

OPS = ("elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div")

CODE = """
a, b = mx.sym.var('a'), mx.sym.var('b')
x, y = inputs['x'], inputs['y']
for name, sym in (('add', a + b), ('sub', a - b), ('mul', a * b), ('div', a / b),
                  ('eadd', mx.sym.elemwise_add(a, b)), ('ediv', mx.sym.elemwise_div(a, b))):
    exe = sym.simple_bind(mx.cpu(), a=x.shape, b=y.shape)
    exe.forward(is_train=True, a=mx.nd.array(x), b=mx.nd.array(y))
    exe.backward(mx.nd.array(inputs['g']))
    outputs[name] = exe.outputs[0].asnumpy()
    outputs[name + '_da'] = exe.grad_dict['a'].asnumpy()
    outputs[name + '_db'] = exe.grad_dict['b'].asnumpy()
    args, outs, _ = sym.infer_shape_partial(a=(2, 0), b=(0, 3))
    outputs[name + '_shapes'] = np.array(args + outs, dtype='float64')
    try:
        sym.infer_shape(a=(2, 3), b=(1, 3))
        outputs[name + '_refused'] = np.float64(0)
    except mx.base.MXNetError:
        outputs[name + '_refused'] = np.float64(1)
for op in ('elemwise_add', 'elemwise_sub', 'elemwise_mul', 'elemwise_div'):
    outputs['nd_' + op] = getattr(mx.nd, op)(mx.nd.array(x), mx.nd.array(y)).asnumpy()
    try:
        getattr(mx.nd, op)(mx.nd.array(x), mx.nd.array(y[:1])).wait_to_read()
        outputs['nd_refused_' + op] = np.float64(0)
    except mx.base.MXNetError:
        outputs['nd_refused_' + op] = np.float64(1)
i, j = mx.nd.array([-7, 7], dtype='int32'), mx.nd.array([2, 2], dtype='int32')
outputs['int_div'] = mx.nd.elemwise_div(i, j).asnumpy()
w, shift = mx.sym.var('w'), mx.sym.var('shift', shape=(1,))
wt = mx.sym.elemwise_add(mx.sym.broadcast_add(w, shift), w)
fc = mx.sym.FullyConnected(mx.sym.var('data'), weight=wt, num_hidden=11, no_bias=True)
outputs['fc_args'] = np.array([d for s in fc.infer_shape(data=(7, 100))[0] for d in s], 'float64')
"""


def _inputs():
    rng = np.random.RandomState(0)
    return {"x": rng.uniform(-2, 2, (2, 3)).astype(np.float32),
            "y": rng.uniform(0.5, 2, (2, 3)).astype(np.float32),
            "g": rng.uniform(-1, 1, (2, 3)).astype(np.float32)}


@pytest.mark.parametrize("op", OPS)
def test_unequal_shapes_are_refused_naming_the_op_and_both_shapes(op):
    lhs, rhs = mx.nd.ones((2, 3)), mx.nd.ones((1, 3))
    with pytest.raises(ValueError, match=rf"{op}.*\(2, 3\).*\(1, 3\)") as info:
        getattr(mx.nd, op)(lhs, rhs).wait_to_read()
    assert isinstance(info.value, mx.MXNetError)
    a, b = mx.sym.var("a"), mx.sym.var("b")
    with pytest.raises(mx.MXNetError, match=rf"{op}.*\(2, 3\).*\(1, 3\)"):
        getattr(mx.sym, op)(a, b).infer_shape(a=(2, 3), b=(1, 3))
    # the broadcasting op of the same arithmetic takes them
    assert getattr(mx.nd, op.replace("elemwise", "broadcast"))(lhs, rhs).shape == (2, 3)


def test_internal_aliases_are_the_same_shape_ops():
    for alias, op in (("_plus", "elemwise_add"), ("_Plus", "elemwise_add"),
                      ("_add", "elemwise_add"), ("_Minus", "elemwise_sub"),
                      ("_Mul", "elemwise_mul"), ("_Div", "elemwise_div")):
        assert mx.ops.get_op(alias).name == op
    with pytest.raises(mx.MXNetError, match=r"_grad_add.*\(2, 3\).*\(3,\)"):
        mx.ops.get_op("_grad_add").infer_shapes({}, [(2, 3), (3,)])
    with pytest.raises(TypeError, match="elemwise_add.*float64"):
        mx.nd.elemwise_add(mx.nd.ones(2), mx.nd.ones(2, dtype="float64"))


def test_partly_known_operands_fill_each_other_both_ways():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    args, outs, _ = (a + b).infer_shape_partial(a=(2, 0), b=(0, 3))
    assert args == [(2, 3), (2, 3)] and outs == [(2, 3)]
    # backward: a FullyConnected weight's shape reaches both operands through the sum
    fc = mx.sym.FullyConnected(mx.sym.var("data"), weight=a * b, num_hidden=4, no_bias=True)
    assert fc.infer_shape(data=(5, 6))[0] == [(5, 6), (4, 6), (4, 6)]
    # a broadcasting op with an unknown operand leaves it unknown (MXNet's BinaryBroadcastShape)
    args, outs, _ = mx.sym.broadcast_add(a, b).infer_shape_partial(b=(1, 3))
    assert args[0] == () and outs == [()]


@pytest.mark.parametrize("op,da,db", [
    ("elemwise_add", lambda x, y, g: g, lambda x, y, g: g),
    ("elemwise_sub", lambda x, y, g: g, lambda x, y, g: -g),
    ("elemwise_mul", lambda x, y, g: g * y, lambda x, y, g: g * x),
    ("elemwise_div", lambda x, y, g: g / y, lambda x, y, g: -g * x / y ** 2),
])
def test_gradients_by_autograd_and_by_the_graph(op, da, db):
    ins = _inputs()
    x, y, g = ins["x"], ins["y"], ins["g"]
    a, b = mx.nd.array(x), mx.nd.array(y)
    a.attach_grad()
    b.attach_grad()
    with mx.autograd.record():
        out = getattr(mx.nd, op)(a, b)
    out.backward(mx.nd.array(g))
    np.testing.assert_allclose(a.grad.asnumpy(), da(x, y, g), rtol=1e-5)
    np.testing.assert_allclose(b.grad.asnumpy(), db(x, y, g), rtol=1e-5)
    sym = getattr(mx.sym, op)(mx.sym.var("a"), mx.sym.var("b"))
    exe = sym.simple_bind(mx.cpu(), a=x.shape, b=y.shape)
    exe.forward(is_train=True, a=a, b=b)
    exe.backward(mx.nd.array(g))
    np.testing.assert_allclose(exe.grad_dict["b"].asnumpy(), db(x, y, g), rtol=1e-5)


def test_json_names_load_both_ways():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    ops = [n["op"] for n in json.loads((a + b - a * b / b).tojson())["nodes"]]
    assert ops == ["null", "null", "elemwise_add", "elemwise_mul", "elemwise_div",
                   "elemwise_sub"]
    text = (a + b).tojson()
    for name in ("_Plus", "_plus", "_add", "elemwise_add"):
        loaded = mx.sym.load_json(text.replace('"elemwise_add"', f'"{name}"'))
        assert json.loads(loaded.tojson())["nodes"][2]["op"] == "elemwise_add"
        out = loaded.eval(a=mx.nd.ones((2, 2)), b=mx.nd.ones((2, 2)))[0]
        assert out.asnumpy().tolist() == [[2, 2], [2, 2]]


def test_pinned_values():
    out = run_mxlab(CODE, _inputs())
    assert out["int_div"].tolist() == [-3, 3]
    assert all(out[k + "_refused"] == 1 for k in ("add", "sub", "mul", "div", "eadd", "ediv"))
    assert out["fc_args"].tolist() == [7, 100, 11, 100, 1]


@pytest.mark.oracle
@requires_mxnet
def test_matches_mxnet_1_9_1():
    assert_same_outputs(CODE, _inputs())
