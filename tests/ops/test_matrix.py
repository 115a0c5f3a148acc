"""Matrix products: values against NumPy, shape rules (FullyConnected fills weight/bias shapes),
gradients by central differences (first order, and second order where the gradient is written
with the same ops)."""

import numpy
import pytest

import mxlab as mx
from mxlab.base import MXNetValueError
from mxlab.imperative import invoke
from mxlab.ops.registry import get_op

from helpers import check_gradient


def _settle(result):
    """Wait for the kernel: with the threaded engines its errors surface when the result is read."""
    for item in result if isinstance(result, list) else [result]:
        item.wait_to_read()


def _rand(*shape):
    return numpy.random.uniform(-1, 1, size=shape)


def _t(x, flag):
    return x.T if flag else x


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_dot_transposes(ta, tb):
    a, b = _rand(3, 4), _rand(4, 5)
    a, b = _t(a, ta).copy(), _t(b, tb).copy()
    out = mx.nd.dot(mx.nd.array(a), mx.nd.array(b), transpose_a=ta, transpose_b=tb)
    numpy.testing.assert_allclose(out.asnumpy(), _t(a, ta) @ _t(b, tb), rtol=1e-5)
    check_gradient("dot", [a, b], {"transpose_a": ta, "transpose_b": tb})


@pytest.mark.parametrize(
    "shapes,attrs",
    [
        (((2, 3, 4), (4, 5)), {}),
        (((4,), (4, 2, 3)), {}),
        (((4, 3, 2), (4, 5)), {"transpose_a": True}),
        (((3,), (3,)), {}),
    ],
)
def test_dot_nd(shapes, attrs):
    a, b = (_rand(*s) for s in shapes)
    out = mx.nd.dot(mx.nd.array(a), mx.nd.array(b), **attrs)
    expected = numpy.tensordot(_t(a, attrs.get("transpose_a")), b, axes=1)
    numpy.testing.assert_allclose(out.asnumpy().reshape(expected.shape), expected, rtol=1e-5)
    op = get_op("dot")
    assert op.infer_shapes(op.parse_attrs(attrs), list(shapes))[1] == [out.shape]
    check_gradient("dot", [a, b], attrs)


def test_dot_of_vectors_is_shape_1_in_nd_and_0d_in_np():
    assert mx.nd.dot(mx.nd.ones((3,)), mx.nd.ones((3,))).shape == (1,)
    assert mx.np.dot(mx.np.ones((3,)), mx.np.ones((3,))).shape == ()


@pytest.mark.parametrize(
    "op_name,shapes",
    [
        ("_npi_matmul", ((2, 3), (3, 4))),
        ("_npi_matmul", ((5, 2, 3), (3, 4))),
        ("_npi_matmul", ((3,), (2, 3, 4))),
        ("_npi_matmul", ((2, 1, 2, 3), (4, 3, 2))),
        ("_npi_matmul", ((2, 3), (3,))),
        ("_np_dot", ((2, 3), (3, 4))),
        ("_np_dot", ((2, 3), (4, 3, 5))),
        ("_np_dot", ((3,), (3,))),
        ("_np_dot", ((), (2, 3))),
    ],
)
def test_np_products(op_name, shapes):
    a, b = (numpy.asarray(_rand(*s)) for s in shapes)
    reference = numpy.matmul if op_name == "_npi_matmul" else numpy.dot
    op = get_op(op_name)
    out = invoke(op, [mx.np.array(a), mx.np.array(b)], {})[0]
    numpy.testing.assert_allclose(out.asnumpy(), reference(a, b).astype(numpy.float32), rtol=1e-5)
    assert op.infer_shapes({}, list(shapes))[1] == [out.shape]
    check_gradient(op_name, [a, b])


def test_matmul_operator_and_errors():
    a, b = mx.np.ones((2, 3)), mx.np.ones((3, 4))
    assert (a @ b).shape == (2, 4)
    with pytest.raises(MXNetValueError, match="_npi_matmul"):
        _settle(mx.np.matmul(a, a))


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_batch_dot(ta, tb):
    a = _rand(2, 4, 3) if ta else _rand(2, 3, 4)
    b = _rand(2, 5, 4) if tb else _rand(2, 4, 5)
    out = mx.nd.batch_dot(mx.nd.array(a), mx.nd.array(b), transpose_a=ta, transpose_b=tb)
    expected = (numpy.swapaxes(a, 1, 2) if ta else a) @ (numpy.swapaxes(b, 1, 2) if tb else b)
    numpy.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-5)
    assert out.shape == (2, 3, 5)
    check_gradient("batch_dot", [a, b], {"transpose_a": ta, "transpose_b": tb})


def test_batch_dot_shape_errors():
    with pytest.raises(MXNetValueError, match="batch_dot: shapes"):
        _settle(mx.nd.batch_dot(mx.nd.ones((2, 3, 4)), mx.nd.ones((2, 3, 4))))
    with pytest.raises(MXNetValueError, match="batch_dot: inputs must have the same rank"):
        _settle(mx.nd.batch_dot(mx.nd.ones((3, 4)), mx.nd.ones((4, 3))))


@pytest.mark.parametrize("flatten", [True, False])
@pytest.mark.parametrize("no_bias", [True, False])
def test_fully_connected(flatten, no_bias):
    x = _rand(2, 3, 4)
    k = 12 if flatten else 4
    w, b = _rand(5, k), _rand(5)
    inputs = [x, w] if no_bias else [x, w, b]
    attrs = {"num_hidden": 5, "no_bias": no_bias, "flatten": flatten}
    out = mx.nd.FullyConnected(*[mx.nd.array(v) for v in inputs], **attrs)
    expected = (x.reshape(2, -1) if flatten else x) @ w.T + (0 if no_bias else b)
    numpy.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-5)
    check_gradient("FullyConnected", inputs, attrs)


def test_fully_connected_keyword_inputs_and_npx_name():
    x, w, b = mx.np.ones((2, 3)), mx.np.ones((4, 3)), mx.np.ones((4,))
    assert mx.npx.fully_connected(x, w, b, num_hidden=4).asnumpy().tolist() == [[4.0] * 4] * 2
    assert mx.nd.FullyConnected(
        data=x.as_nd_ndarray(), weight=w.as_nd_ndarray(), num_hidden=4, no_bias=True
    ).shape == (2, 4)


def test_fully_connected_infer_shape_fills_parameters():
    op = get_op("FullyConnected")
    attrs = op.parse_attrs({"num_hidden": 7})
    in_shapes, out_shapes = op.infer_shapes(attrs, [(8, 2, 3), None, None])
    assert in_shapes == [(8, 2, 3), (7, 6), (7,)] and out_shapes == [(8, 7)]
    attrs = op.parse_attrs({"num_hidden": 7, "flatten": False, "no_bias": True})
    assert op.infer_shapes(attrs, [(8, 2, 3), None]) == ([(8, 2, 3), (7, 3)], [(8, 2, 7)])
    in_shapes, out_shapes = op.infer_shapes(
        attrs, [(8, 2, None), (7, 3)]
    )  # backwards: data's last dim
    assert in_shapes[0] == (8, 2, 3) and out_shapes == [None]
    with pytest.raises(MXNetValueError, match="FullyConnected: weight shape"):
        op.infer_shapes(op.parse_attrs({"num_hidden": 7}), [(8, 6), (7, 5), None])


def test_fully_connected_errors():
    with pytest.raises(MXNetValueError, match="FullyConnected: weight shape"):
        _settle(
            mx.nd.FullyConnected(
                mx.nd.ones((2, 3)), mx.nd.ones((4, 2)), mx.nd.ones(4), num_hidden=4
            )
        )
    with pytest.raises(MXNetValueError, match="num_hidden.*must be positive"):
        _settle(
            mx.nd.FullyConnected(
                mx.nd.ones((2, 3)), mx.nd.ones((4, 3)), mx.nd.ones(4), num_hidden=0
            )
        )
    with pytest.raises(MXNetValueError, match="dot: shapes"):
        _settle(mx.nd.dot(mx.nd.ones((2, 3)), mx.nd.ones((2, 3))))


def test_second_order_through_autograd():
    """d/dx of sum(d(sum(W x)^2)/dx) -- the FullyConnected gradient is built from differentiable
    ops."""
    x = mx.nd.array(_rand(2, 3))
    w = mx.nd.array(_rand(4, 3))
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.FullyConnected(x, w, num_hidden=4, no_bias=True)
        (gx,) = mx.autograd.grad(y * y, [x], create_graph=True)
    gx.backward()
    # NOTE: gx = 2 (x W^T) W, so d sum(gx) / dx = 2 * ones(2, 3) @ W^T W.
    expected = 2 * numpy.ones((2, 3)) @ w.asnumpy().T @ w.asnumpy()
    numpy.testing.assert_allclose(x.grad.asnumpy(), expected, rtol=1e-4)


# -- the same gradient rules on symbols: the graph gradient pass -----------------------------------
def _apply(op_name, *inputs, **attrs):
    from mxlab.graph.node import Entry, Node

    op = get_op(op_name)
    node = Node(
        op, f"{op_name.lower().lstrip('_')}{id(inputs) % 9973}", op.parse_attrs(attrs), list(inputs)
    )
    outs = [Entry(node, i) for i in range(op.get_num_outputs(node.attrs))]
    return outs[0] if len(outs) == 1 else outs


def test_gradient_graph_pass_matches_central_differences():
    """FullyConnected -> Reshape -> slice -> Concat -> transpose -> expand_dims -> tile -> split, as
    a graph."""
    from mxlab.graph.gradient import build_gradient_graph
    from mxlab.graph.graph import Graph
    from mxlab.graph.interpreter import run_graph
    from mxlab.graph.node import Entry, Node

    x, w, b = (Entry(Node(None, n)) for n in ("x", "w", "b"))
    h = _apply(
        "Concat",
        *[
            _apply(
                "slice",
                _apply("Reshape", _apply("FullyConnected", x, w, b, num_hidden=4), shape=(-1, 2)),
                begin=(1, None),
                end=(None, None),
            )
        ]
        * 2,
        num_args=2,
        dim=1,
    )
    outs = _apply(
        "SliceChannel",
        _apply("tile", _apply("expand_dims", _apply("transpose", h), axis=0), reps=(2, 1, 1)),
        num_outputs=2,
        axis=0,
        squeeze_axis=True,
    )
    forward = Graph(list(outs))
    rng = numpy.random.default_rng(0)
    inputs = {
        "x": rng.uniform(-1, 1, (3, 5)),
        "w": rng.uniform(-1, 1, (4, 5)),
        "b": rng.uniform(-1, 1, (4,)),
    }
    full = build_gradient_graph(forward, xs=["x", "w", "b"])
    heads = {
        v.name: rng.uniform(-1, 1, o.shape)
        for v, o in zip(full.attrs["head_grad_nodes"], run_graph(forward, inputs))
    }
    grads = run_graph(full, {**inputs, **heads})[full.attrs["num_forward_outputs"] :]

    def loss(values):
        return sum(float((y * h).sum()) for y, h in zip(run_graph(forward, values), heads.values()))

    for name, got in zip(("x", "w", "b"), grads):
        want = numpy.zeros_like(inputs[name])
        for i in numpy.ndindex(want.shape):
            plus, minus = inputs[name].copy(), inputs[name].copy()
            plus[i] += 1e-6
            minus[i] -= 1e-6
            want[i] = (loss({**inputs, name: plus}) - loss({**inputs, name: minus})) / 2e-6
        numpy.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7, err_msg=name)
