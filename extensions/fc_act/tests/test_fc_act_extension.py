"""The fc_act backend extension: partitions exactly FC+Activation pairs, outputs and gradients
equal the unfused graph (symbol and hybridized block), unload/reload."""
import os

import numpy as np
import pytest

import mxlab as mx
from mxlab.graph.node import topo_sort
from mxlab.test_utils import assert_almost_equal

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def fc_act():
    record = mx.library.load(HERE)
    yield record
    mx.library.unload(record.name)


def _mlp():
    x = mx.sym.var('x')
    h = mx.sym.Activation(mx.sym.FullyConnected(x, num_hidden=5, name='fc1'), act_type='relu')
    h2 = mx.sym.FullyConnected(h, num_hidden=4, name='fc2')
    y = mx.sym.Activation(h2, act_type='tanh') + h2          # fc2 feeds two consumers
    return mx.sym.FullyConnected(y, num_hidden=3, name='fc3')  # no activation: stays


def _arrays(sym):
    rng = np.random.default_rng(0)
    shapes = dict(zip(sym.list_arguments(), sym.infer_shape(x=(2, 6))[0]))
    return {k: mx.nd.array(rng.uniform(-1, 1, s).astype('float32')) for k, s in shapes.items()}


def _run(sym, arrays):
    arrays = {k: v.copy() for k, v in arrays.items()}
    for a in arrays.values():
        a.attach_grad()
    with mx.autograd.record():
        out = sym.eval(**arrays)[0]
    out.backward()
    return [out.asnumpy()] + [arrays[k].grad.asnumpy() for k in sorted(arrays)]


def test_partitions_pairs_and_matches(fc_act):
    assert fc_act.backends == ['fc_act']
    sym = _mlp()
    fused, part = mx.subgraph.partition(sym, 'fc_act')
    ops = {n.name: n.op.name for n in topo_sort(sym._outputs) if n.op is not None}
    assert [sorted(ops[n] for n in names) for names in part.subgraphs] == \
        [['Activation', 'FullyConnected']] * 2
    assert fused.list_inputs() == sym.list_inputs()
    arrays = _arrays(sym)
    for got, want in zip(_run(fused, arrays), _run(sym, arrays)):
        assert_almost_equal(got, want, rtol=1e-5, atol=1e-6)


class _Net(mx.gluon.HybridBlock):
    def __init__(self):
        super().__init__()
        self.fc = mx.gluon.nn.Dense(4, activation='relu', in_units=3)

    def forward(self, x):
        return self.fc(x)


def test_hybridized_block(fc_act):
    mx.npx.set_np()
    x = mx.np.array(np.random.rand(2, 3).astype('float32'))
    net = _Net()
    net.initialize()
    want = net(x).asnumpy()
    net.hybridize(backend='fc_act')
    got = net(x).asnumpy()
    assert mx.subgraph.last_partition().backend == 'fc_act'
    assert len(mx.subgraph.last_partition().subgraphs) == 1
    assert_almost_equal(got, want, rtol=1e-5, atol=1e-6)


def test_unload_and_reload():
    record = mx.library.load(HERE)
    mx.library.unload(record.name)
    assert 'fc_act' not in mx.subgraph.list_backends()
    record = mx.library.load(HERE)
    assert 'fc_act' in mx.subgraph.list_backends()
    mx.library.unload(record.name)
