"""Symbolic control flow (``mx.sym.contrib.foreach/while_loop/cond``): values and gradients equal
the imperative Python-loop forms, through an executor, a JSON round trip and nesting."""
import numpy
import pytest

import mxlab as mx

X = numpy.arange(6, dtype="float32").reshape(3, 2) / 4


def _bind_run(sym, args, head_grads):
    """Forward + backward through a bound executor; returns outputs and argument gradients."""
    grads = {k: mx.nd.zeros(v.shape) for k, v in args.items()}
    exe = sym._bind(mx.cpu(), {k: mx.nd.array(v) for k, v in args.items()}, args_grad=grads)
    outs = [o.asnumpy() for o in exe.forward(is_train=True)]
    exe.backward([mx.nd.array(g) for g in head_grads])
    return outs, {k: g.asnumpy() for k, g in grads.items()}


def _imperative(fn, args, head_grads):
    arrays = {k: mx.nd.array(v) for k, v in args.items()}
    for a in arrays.values():
        a.attach_grad()
    with mx.autograd.record():
        outs = fn(**arrays)
    mx.autograd.backward(outs, [mx.nd.array(g) for g in head_grads])
    return [o.asnumpy() for o in outs], {k: a.grad.asnumpy() for k, a in arrays.items()}


def _step(x, states, w):
    out = mx.sym.tanh(x * states[0] + w) if isinstance(x, mx.sym.Symbol) else \
        mx.nd.tanh(x * states[0] + w)
    return out, [states[0] + out]


@pytest.mark.parametrize("json_round_trip", [False, True])
def test_foreach_matches_the_imperative_loop(json_round_trip):
    w = mx.sym.var("w")
    outs, states = mx.sym.contrib.foreach(lambda x, s: _step(x, s, w), mx.sym.var("data"),
                                          [mx.sym.var("s0")])
    sym = mx.sym.Group([outs * 2, states[0]])
    if json_round_trip:
        text = sym.tojson()
        sym = mx.sym.fromjson(text)
        assert sym.tojson() == text
    args = {"data": X, "s0": numpy.ones(2, "float32"), "w": numpy.array([0.1, -0.2], "float32")}
    heads = [numpy.full((3, 2), 0.5, "float32"), numpy.ones(2, "float32")]
    sym_outs, sym_grads = _bind_run(sym, args, heads)

    def imperative(data, s0, w):
        o, s = mx.nd.contrib.foreach(lambda x, st: _step(x, st, w), data, [s0])
        return [o * 2, s[0]]
    imp_outs, imp_grads = _imperative(imperative, args, heads)
    for a, b in zip(sym_outs, imp_outs):
        numpy.testing.assert_allclose(a, b, rtol=1e-5)
    for k in args:
        numpy.testing.assert_allclose(sym_grads[k], imp_grads[k], rtol=1e-5, atol=1e-6)
    assert sym.infer_shape(data=(3, 2), s0=(2,), w=(2,))[1] == [(3, 2), (2,)]


def test_while_loop_pads_outputs_and_differentiates_the_steps_taken():
    scale = mx.sym.var("scale")
    outs, final = mx.sym.contrib.while_loop(
        cond=lambda i, s: i < 3, func=lambda i, s: ([s * scale], [i + 1, s * scale]),
        loop_vars=[mx.sym.var("i"), mx.sym.var("s")], max_iterations=5)
    sym = mx.sym.Group([outs[0], final[1]])
    args = {"i": numpy.zeros(1, "float32"), "s": numpy.ones(1, "float32"),
            "scale": numpy.full(1, 2.0, "float32")}
    (rows, last), grads = _bind_run(sym, args, [numpy.ones((5, 1), "float32"),
                                                numpy.ones(1, "float32")])
    assert rows.ravel().tolist() == [2, 4, 8, 0, 0] and last.tolist() == [8.0]
    # d/dscale (2 + 4 + 8 written rows, 8 final) = s*(1 + 2*scale + 3*scale^2) + 3*scale^2*s
    numpy.testing.assert_allclose(grads["scale"], [1 + 4 + 12 + 12], rtol=1e-6)
    numpy.testing.assert_allclose(grads["s"], [2 + 4 + 8 + 8], rtol=1e-6)
    assert grads["i"].tolist() == [0.0]


def test_cond_takes_one_branch_and_its_gradient():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    sym = mx.sym.contrib.cond(a.sum() > b.sum(), lambda: a * b, lambda: a + 2 * b)
    heads = [numpy.ones(2, "float32")]
    for av, expect_out, expect_ga in ((3.0, [6.0, 6.0], [2.0, 2.0]),
                                      (0.5, [4.5, 4.5], [1.0, 1.0])):
        args = {"a": numpy.full(2, av, "float32"), "b": numpy.full(2, 2.0, "float32")}
        (out,), grads = _bind_run(sym, args, heads)
        assert out.tolist() == expect_out and grads["a"].tolist() == expect_ga


def test_nested_foreach_and_errors():
    def inner(x, s):
        return x + s[0], [x + s[0]]
    outs, _ = mx.sym.contrib.foreach(
        lambda x, s: (mx.sym.contrib.foreach(inner, x, s)[0].sum(axis=0), s),
        mx.sym.var("data"), [mx.sym.var("s0")])
    data = numpy.arange(12, dtype="float32").reshape(2, 3, 2)
    (out,), grads = _bind_run(outs, {"data": data, "s0": numpy.zeros(2, "float32")},
                              [numpy.ones((2, 2), "float32")])
    expect = numpy.stack([numpy.cumsum(d, axis=0).sum(axis=0) for d in data])
    numpy.testing.assert_allclose(out, expect)
    numpy.testing.assert_allclose(grads["data"][:, :, 0], [[3, 2, 1], [3, 2, 1]])
    with pytest.raises(AssertionError, match="state arrays have to be used"):
        mx.sym.contrib.foreach(lambda x, s: (x, [x]), mx.sym.var("d"), [mx.sym.var("s")])
    with pytest.raises(ValueError, match="max_iterations"):
        mx.sym.contrib.while_loop(lambda i: i < 1, lambda i: ([], [i]), [mx.sym.var("i")])


def test_npx_forms_keep_mxnet_2_structure_and_names():
    from collections import defaultdict
    mx.AttrScope._subgraph_names = defaultdict(int)
    x = mx.np.array([0.25, 2.0])
    with mx.AttrScope(__subgraph_name__="outer"):
        out = mx.npx.cond(lambda d: d.sum() > 1, lambda d: d * 2, lambda d: d * 3, inputs=x,
                          name="c")
    assert isinstance(out, mx.np.ndarray) and out.tolist() == [0.5, 4.0]
    assert dict(mx.AttrScope._subgraph_names) == {
        "outer$c_pred": 1, "outer$c_then": 1, "outer$c_else": 1}
    outs, (i, s) = mx.npx.while_loop(lambda i, s: i <= 3, lambda i, s: (i, (i + 1, s + i)),
                                     (mx.np.array([1]), mx.np.array([0])), max_iterations=5)
    assert isinstance(outs, mx.np.ndarray) and outs.reshape(-1).tolist() == [1, 2, 3, 0, 0]
    assert (i.item(), s.item()) == (4, 6)
    stacked, _ = mx.npx.foreach(lambda d, st: (d + st[0], st), mx.np.ones((2, 3)),
                                [mx.np.ones(3)])
    assert isinstance(stacked, mx.np.ndarray) and stacked.shape == (2, 3)
