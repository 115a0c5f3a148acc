"""The fold_constants pass extension: folds constant subgraphs (by name through the pass
registry), keeps results, works in a CachedOp, unload/reload."""
import os

import numpy as np
import pytest

import mxlab as mx
from mxlab.graph.graph import Graph
from mxlab.graph.interpreter import run_graph
from mxlab.graph.passes import apply_pass, list_passes
from mxlab.test_utils import assert_almost_equal

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def fold():
    record = mx.library.load(HERE)
    yield record
    mx.library.unload(record.name)


def _sym():
    x = mx.sym.var('x')
    c = mx.sym.exp(mx.sym.zeros((2, 3)) + 1) * 2       # constant: folded to 2e
    return mx.sym.Group([x * c + mx.sym.ones((2, 3)), c])  # bare ones() is left alone


def test_registers_and_folds(fold):
    assert fold.passes == ['fold_constants'] and fold.ops == ['_folded_constant']
    graph = Graph(list(_sym()._outputs))
    folded = apply_pass(graph, 'fold_constants')
    assert len(folded.attrs['folded']) == 1
    assert folded.indexed.num_nodes < graph.indexed.num_nodes
    ops = [n.op.name for n in folded.indexed.nodes if n.op is not None]
    assert ops.count('_folded_constant') == 1 and '_ones' in ops and 'exp' not in ops
    x = np.random.rand(2, 3).astype('float32')
    for got, want in zip(run_graph(folded, {'x': x}), run_graph(graph, {'x': x})):
        assert_almost_equal(got, want, rtol=1e-6)
    assert folded.pass_log[-1].name == 'fold_constants'


def test_folded_graph_runs_in_cached_op(fold):
    from mxlab.executor import CachedOp
    from mxlab.symbol import Symbol

    sym = _sym()
    folded = Symbol(apply_pass(Graph(list(sym._outputs)), 'fold_constants').outputs)
    x = mx.nd.array(np.random.rand(2, 3))
    got = CachedOp(folded)(x)
    want = sym.eval(x=x)
    for g, w in zip(got, want):
        assert_almost_equal(g.asnumpy(), w.asnumpy(), rtol=1e-6)


def test_nothing_to_fold(fold):
    graph = Graph(list((mx.sym.var('x') * 2)._outputs))
    assert apply_pass(graph, 'fold_constants').attrs['folded'] == []


def test_unload_and_reload():
    record = mx.library.load(HERE)
    mx.library.unload(record.name)
    assert 'fold_constants' not in list_passes()
    record = mx.library.load(HERE)
    assert 'fold_constants' in list_passes()
    mx.library.unload(record.name)
