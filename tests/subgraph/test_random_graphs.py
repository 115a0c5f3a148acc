"""Property test: random DAGs of elementwise ops partitioned by random op sets (default backend)
and by the fuse backend stay acyclic and give the unpartitioned outputs and gradients."""
import numpy as np
from hypothesis import given, settings, strategies as st

import mxlab as mx
from mxlab.graph.node import topo_sort
from mxlab.subgraph import partition
from mxlab.test_utils import assert_almost_equal

UNARY = ['sin', 'cos', 'tanh', 'sigmoid']
BINARY = ['elemwise_add', 'elemwise_sub', 'elemwise_mul']
SCALAR = ['_mul_scalar', '_plus_scalar']
OPS = UNARY + BINARY + SCALAR


def _apply(name, args, scalar):
    if name in UNARY:
        return getattr(mx.sym, name)(args[0])
    if name in BINARY:
        return getattr(mx.sym, name)(args[0], args[1])
    return getattr(mx.sym, name)(args[0], scalar=scalar)


@st.composite
def graphs(draw):
    """(symbol, number of inputs, op names in it)."""
    n_inputs = draw(st.integers(1, 3))
    pool = [mx.sym.var(f"x{i}") for i in range(n_inputs)]
    used = []
    for _ in range(draw(st.integers(2, 9))):
        name = draw(st.sampled_from(OPS))
        picks = [draw(st.sampled_from(pool)) for _ in range(2)]
        pool.append(_apply(name, picks, draw(st.sampled_from([0.5, 1.5, -0.25]))))
        used.append(name)
    extra = draw(st.lists(st.sampled_from(pool[n_inputs:-1]), max_size=2)) \
        if len(pool) > n_inputs + 1 else []
    return mx.sym.Group([pool[-1]] + extra), n_inputs, used


def assert_acyclic(heads):
    """DFS with an on-stack mark: a back edge is a cycle."""
    state = {}

    def visit(node):
        state[id(node)] = 1
        for e in node.inputs:
            mark = state.get(id(e.node))
            assert mark != 1, f"cycle through {e.node.name}"
            if mark is None:
                visit(e.node)
        state[id(node)] = 2

    for h in heads:
        if id(h.node) not in state:
            visit(h.node)


def _run(sym, n_inputs, values):
    arrays = {f"x{i}": mx.nd.array(values[i]) for i in range(n_inputs)}
    arrays = {k: v for k, v in arrays.items() if k in sym.list_inputs()}
    for a in arrays.values():
        a.attach_grad()
    with mx.autograd.record():
        outs = sym.eval(**arrays)
    mx.autograd.backward(outs)
    return [o.asnumpy() for o in outs], [arrays[k].grad.asnumpy() for k in sorted(arrays)]


def _check_same(sym, psym, n_inputs):
    assert_acyclic(psym._outputs)
    assert psym.list_inputs() == sym.list_inputs()
    values = np.random.default_rng(1).uniform(-1, 1, (3, 4)).astype('float32')
    for got, want in zip(_run(psym, n_inputs, values), _run(sym, n_inputs, values)):
        for g, w in zip(got, want):
            assert_almost_equal(g, w, rtol=1e-4, atol=1e-5)


@settings(max_examples=30, deadline=None, database=None)
@given(graphs(), st.data())
def test_default_backend_random_graphs(graph, data):
    sym, n_inputs, used = graph
    op_names = data.draw(st.lists(st.sampled_from(sorted(set(used))), unique=True))
    psym, part = partition(sym, 'default', op_names=op_names)
    names = {n.name for n in topo_sort(sym._outputs) if n.op is not None}
    assert all(set(group) <= names for group in part.subgraphs)
    _check_same(sym, psym, n_inputs)


@settings(max_examples=30, deadline=None, database=None)
@given(graphs())
def test_fuse_backend_random_graphs(graph):
    sym, n_inputs, _ = graph
    psym, _ = partition(sym, 'fuse')
    _check_same(sym, psym, n_inputs)
