"""mx.rnn against MXNet 1.9.1: an unrolled cell stack with fixed weights computes the same
outputs, and the JSON of an unrolled cell written by either side loads and runs in the other."""
import pathlib
import sys

import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent.parent / "oracle"))
from mxnet_oracle import requires_mxnet, run_mxlab, run_mxnet  # noqa: E402

pytestmark = [pytest.mark.oracle, requires_mxnet]

BUILD = """
stack = mx.rnn.SequentialRNNCell()
stack.add(mx.rnn.LSTMCell(5, prefix='lstm_l0_', forget_bias=0.5))
stack.add(mx.rnn.ResidualCell(mx.rnn.LSTMCell(5, prefix='lstm_l1_')))
stack.add(mx.rnn.GRUCell(4, prefix='gru_'))
bi = mx.rnn.BidirectionalCell(mx.rnn.RNNCell(3, prefix='l_'), mx.rnn.RNNCell(3, prefix='r_'))
stack.add(bi)
out, states = stack.unroll(3, mx.sym.Variable('data'), merge_outputs=True)
sym = mx.sym.Group([out] + [s for s in states if not isinstance(s, list)])
names = [n for n in sym.list_arguments() if n != 'data']
shapes = dict(zip(sym.list_arguments(), sym.infer_shape(data=(2, 3, 4))[0]))
"""

RUN = BUILD + """
rng = np.random.RandomState(0)
args = {'data': mx.nd.array(inputs['data'])}
for name in sorted(names):
    args[name] = mx.nd.array(rng.uniform(-0.5, 0.5, shapes[name]))
exe = sym.bind(mx.cpu(), args)
exe.forward()
for i, o in enumerate(exe.outputs):
    outputs['out%d' % i] = o.asnumpy()
outputs['names'] = np.array(sym.list_outputs())
outputs['args'] = np.array(sym.list_arguments())
"""


def test_unrolled_stack_matches_mxnet():
    inputs = {"data": np.random.RandomState(1).uniform(-1, 1, (2, 3, 4)).astype(np.float32)}
    ours, theirs = run_mxlab(RUN, inputs), run_mxnet(RUN, inputs)
    assert list(ours["args"]) == list(theirs["args"])
    assert len(ours["names"]) == len(theirs["names"])
    for key in theirs:
        if key.startswith("out"):
            np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-5, atol=1e-6)


FUSED = """
cell = mx.rnn.FusedRNNCell(4, num_layers=2, mode='lstm', bidirectional=True, prefix='f_',
                           get_next_state=True)
out, states = cell.unroll(3, mx.sym.Variable('data'), layout='TNC', merge_outputs=True)
sym = mx.sym.Group([out] + states)
size = sym.infer_shape(data=(3, 2, 5))[0][1][0]
flat = mx.nd.array(np.linspace(-0.5, 0.5, size))
unpacked = cell.unpack_weights({'f_parameters': flat})
outputs['i2h_f'] = unpacked['f_r1_i2h_f_weight'].asnumpy()
exe = sym.bind(mx.cpu(), {'data': mx.nd.array(inputs['data']), 'f_parameters': flat})
exe.forward()
for i, o in enumerate(exe.outputs):
    outputs['out%d' % i] = o.asnumpy()
stack = cell.unfuse()
sout, _ = stack.unroll(3, mx.sym.Variable('data'), layout='TNC', merge_outputs=True)
args = stack.pack_weights(unpacked)
args['data'] = mx.nd.array(inputs['data'])
outputs['unfused'] = sout.eval(**args)[0].asnumpy()
"""


def test_fused_cell_unpack_and_unfuse_match_mxnet():
    inputs = {"data": np.random.RandomState(2).uniform(-1, 1, (3, 2, 5)).astype(np.float32)}
    ours, theirs = run_mxlab(FUSED, inputs), run_mxnet(FUSED, inputs)
    assert sorted(ours) == sorted(theirs)
    for key in theirs:
        np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours["unfused"], ours["out0"], rtol=1e-5, atol=1e-6)


EXPORT = BUILD + "outputs['json'] = np.array(sym.tojson())\n"

LOAD = """
sym = mx.sym.load_json(str(inputs['json']))
shapes = dict(zip(sym.list_arguments(), sym.infer_shape(data=(2, 3, 4))[0]))
rng = np.random.RandomState(0)
args = {'data': mx.nd.array(inputs['data'])}
for name in sorted(n for n in sym.list_arguments() if n != 'data'):
    args[name] = mx.nd.array(rng.uniform(-0.5, 0.5, shapes[name]))
outputs['out'] = sym.eval(**args)[0].asnumpy()
outputs['args'] = np.array(sym.list_arguments())
"""


@pytest.mark.parametrize("writer", ["mxlab", "mxnet"])
def test_unrolled_cell_json_loads_in_both(writer):
    data = np.random.RandomState(3).uniform(-1, 1, (2, 3, 4)).astype(np.float32)
    export = run_mxlab if writer == "mxlab" else run_mxnet
    text = export(EXPORT, {})["json"]
    inputs = {"json": text, "data": data}
    ours, theirs = run_mxlab(LOAD, inputs), run_mxnet(LOAD, inputs)
    assert list(ours["args"]) == list(theirs["args"])
    np.testing.assert_allclose(ours["out"], theirs["out"], rtol=1e-5, atol=1e-6)
