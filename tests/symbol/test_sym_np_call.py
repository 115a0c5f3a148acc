"""``mx.sym.np`` functions without a registry op (``_np_call`` nodes): forward, shapes, dtypes
and gradients equal the imperative ``mx.np`` function's, and the node survives JSON."""
import json

import numpy as onp
import pytest

import mxlab as mx
from mxlab.base import MXNetError


def _np_var(name):
    return mx.sym.var(name).as_np_ndarray()


def _run(sym, inputs, head=None):
    """Forward and backward of ``sym`` bound to ``inputs``; returns (outputs, input grads)."""
    args = {k: mx.np.array(v) for k, v in inputs.items()}
    grads = {k: mx.np.zeros(v.shape, dtype=v.dtype) for k, v in inputs.items()}
    ex = sym._bind(mx.cpu(), args, args_grad=grads)
    outs = ex.forward(is_train=True)
    ex.backward([mx.np.array(h) for h in head] if head else None)
    return [o.asnumpy() for o in outs], {k: g.asnumpy() for k, g in ex.grad_dict.items()}


def _imperative(fn, inputs, head):
    arrays = {k: mx.np.array(v) for k, v in inputs.items()}
    for a in arrays.values():
        a.attach_grad()
    with mx.autograd.record():
        out = fn(**arrays)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    mx.autograd.backward(outs, [mx.np.array(h) for h in head])
    return [o.asnumpy() for o in outs], {k: a.grad.asnumpy() for k, a in arrays.items()}


CASES = [
    ("tensordot", lambda a, b: mx.np.tensordot(a, b, axes=1),
     lambda a, b: mx.sym.np.tensordot(a, b, axes=1), {"a": (2, 3), "b": (3, 4)}),
    ("split", lambda a: mx.np.split(a, 3, axis=1),
     lambda a: mx.sym.np.split(a, 3, axis=1), {"a": (2, 6)}),
    ("linalg.norm", lambda a: mx.np.linalg.norm(a, axis=1),
     lambda a: mx.sym.np.linalg.norm(a, axis=1), {"a": (3, 4)}),
    ("hstack", lambda a, b: mx.np.hstack([a, b]),
     lambda a, b: mx.sym.np.hstack([a, b]), {"a": (2, 3), "b": (2, 2)}),
]


@pytest.mark.parametrize("name,imperative,symbolic,shapes", CASES, ids=[c[0] for c in CASES])
def test_np_call_matches_imperative(name, imperative, symbolic, shapes):
    rng = onp.random.default_rng(0)
    inputs = {k: rng.standard_normal(s).astype("float32") for k, s in shapes.items()}
    sym = symbolic(**{k: _np_var(k) for k in shapes})
    sym = mx.sym.load_json(sym.tojson())          # the node survives a JSON round trip
    _, out_shapes, _ = sym.infer_shape(**shapes)
    outs, _ = _run(sym, inputs, head=[onp.ones(s, "float32") for s in out_shapes])
    heads = [rng.standard_normal(o.shape).astype("float32") for o in outs]
    expected, expected_grads = _imperative(imperative, inputs, heads)
    outs, grads = _run(sym, inputs, head=heads)
    assert [o.shape for o in expected] == [tuple(s) for s in out_shapes]
    for got, want in zip(outs, expected):
        onp.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    for key in inputs:
        onp.testing.assert_allclose(grads[key], expected_grads[key], rtol=1e-5, atol=1e-6)


def test_np_call_infers_dtype_of_the_function():
    """Dtypes come from running the function (isclose: bool from float data)."""
    a, b = _np_var("a"), _np_var("b")
    sym = mx.sym.np.isclose(a, b)
    ex = sym._bind(mx.cpu(), {"a": mx.np.array([0.0, 1.0]), "b": mx.np.array([0.0, 2.0])})
    out = ex.forward()[0]
    assert out.dtype == onp.bool_
    assert out.asnumpy().tolist() == [True, False]


def test_np_call_keeps_generated_ops():
    """Functions with a registry op stay that op's node (not _np_call)."""
    a = _np_var("a")
    node = json.loads(mx.sym.np.sum(a).tojson())["nodes"][-1]
    assert node["op"] != "_np_call"


def test_np_call_unknown_function_is_a_clear_error_at_load():
    a, b = _np_var("a"), _np_var("b")
    graph = json.loads(mx.sym.np.tensordot(a, b, axes=1).tojson())
    node = next(n for n in graph["nodes"] if n["op"] == "_np_call")
    node["attrs"]["func"] = "no_such_function"
    with pytest.raises(MXNetError, match="no_such_function"):
        mx.sym.load_json(json.dumps(graph))


def test_np_call_sub_namespaces_and_npx():
    a = _np_var("a")
    assert mx.sym.np.linalg.norm(a).infer_shape(a=(2, 3))[1] == [()]
    assert callable(mx.sym.np.random.normal)
    out = mx.sym.npx.topk(a, k=2, ret_typ="both")
    assert len(out.list_outputs()) == 2
    assert out.infer_shape(a=(3, 5))[1] == [(3, 2), (3, 2)]
