"""MXNet's common subexpression elimination (MXNET_ELIMINATE_COMMON_EXPR) on bound executors."""
import numpy
import pytest

import mxlab as mx
from mxlab.graph.passes import apply_pass


@pytest.mark.parametrize("make, saved", [
    (lambda a, b: (a + 1) + (a + 2), 0),
    (lambda a, b: (a + b) + (a + b), 1),
    (lambda a, b: ((a + b) * b) + ((a + b) * b), 2),
    (lambda a, b: mx.sym.Group([a * b + b, a * b + b]), 1),   # NOTE: 2 merged, one _copy added
    (lambda a, b: mx.sym.Dropout(a, p=0.5) + mx.sym.Dropout(a, p=0.5), 0),   # random: kept
])
def test_cse_merges_equal_nodes_as_mxnet(make, saved):
    sym = make(mx.sym.var("a"), mx.sym.var("b"))
    before = len(sym.get_internals())
    merged = mx.sym.Symbol.from_graph(apply_pass(sym.graph, "eliminate_common_expr"))
    assert len(merged.get_internals()) + saved == before
    assert len(sym.get_internals()) == before   # NOTE: the pass works on a copy


def test_executor_with_cse_computes_the_same_values_and_gradients(monkeypatch):
    a, b = mx.sym.var("a"), mx.sym.var("b")
    sym = mx.sym.Group([(a * b + b) * (a * b + b), a * b + b])
    data = {"a": mx.nd.array([[1.0, 2.0]]), "b": mx.nd.array([[3.0, -1.0]])}
    results = []
    for flag in ("0", "1"):
        monkeypatch.setenv("MXNET_ELIMINATE_COMMON_EXPR", flag)
        exe = sym._simple_bind(mx.cpu(), a=(1, 2), b=(1, 2))
        outs = exe.forward(is_train=True, **data)
        exe.backward([mx.nd.ones_like(o) for o in outs])
        results.append(([o.asnumpy() for o in outs], [g.asnumpy() for g in exe.grad_arrays],
                        len(exe.get_optimized_symbol().get_internals())))
    (outs0, grads0, n0), (outs1, grads1, n1) = results
    for x, y in zip(outs0 + grads0, outs1 + grads1):
        numpy.testing.assert_allclose(x, y, rtol=1e-6)
    assert n1 == n0 - 4   # NOTE: the three a*b+b are one
