"""Shape inference with partly unknown dims (MXNet's ``0`` / np-shape ``-1``), as MXNet's
test_infer_shape.py asks: probing for ops whose rule needs known dims, bidirectional fills."""
import json

import pytest

import mxlab as mx


@pytest.mark.parametrize("build, shapes, expected", [
    (lambda x, y: mx.sym.dot(x, y), {"x": (0, 3, 4), "y": (4, 5)}, (0, 3, 5)),
    (lambda x, y: mx.sym.batch_dot(x, y), {"x": (0, 3, 4), "y": (0, 4, 5)}, (0, 3, 5)),
    (lambda x, y: mx.sym.batch_dot(x, y), {"x": (0, 3, 4), "y": (0, 0, 5)}, ()),
    (lambda x, y: mx.sym.Embedding(x, y, input_dim=100, output_dim=10),
     {"x": (0, 5), "y": (100, 10)}, (0, 5, 10)),
    (lambda x, y: mx.sym.transpose(x, axes=[0, 3, 2, 1]), {"x": (0, 3, 224, 224)},
     (0, 224, 224, 3)),
    (lambda x, y: mx.sym.pick(x, y, axis=1), {"x": (0, 3, 3), "y": (0, 3)}, (0, 3)),
])
def test_partial_shapes_in_legacy_form(build, shapes, expected):
    z = build(mx.sym.var("x"), mx.sym.var("y"))
    assert z.infer_shape_partial(**shapes)[1] == [expected]


def test_partial_shapes_in_np_shape_form():
    z = mx.sym.dot(mx.sym.var("x"), mx.sym.var("y"))
    with mx.np_shape(True):
        assert z.infer_shape_partial(x=(-1, 3, 4), y=(4, 5))[1] == [(-1, 3, 5)]


def test_where_waits_for_a_fully_known_condition():
    w = mx.sym.where(mx.sym.var("c"), mx.sym.var("x"), mx.sym.var("y"))
    assert w.infer_shape_partial(c=(0, 2), x=(0, 2), y=(0, 2))[1] == [()]


def test_elementwise_fills_partly_known_operands_both_ways():
    a, b = mx.sym.Variable("a", shape=(0, 10)), mx.sym.Variable("b", shape=(12, 0))
    assert (a + b).infer_shape()[0] == [(12, 10), (12, 10)]


def test_fully_connected_takes_its_batch_from_a_known_output():
    a = mx.sym.Variable("a", shape=(0, 10))
    d = mx.sym.FullyConnected(data=a, num_hidden=21) + mx.sym.Variable("c", shape=(5, 0))
    shapes = dict(zip(d.list_arguments(), d.infer_shape()[0]))
    assert shapes["a"] == (5, 10) and shapes["c"] == (5, 21)


def _arg_shapes(sym):
    shapes, _, _ = sym.infer_shape()
    return dict(zip(sym.list_arguments(), shapes))


def test_unknown_input_dims_come_back_from_known_outputs():
    """MXNet's bidirectional inference through SliceChannel, Concat and Convolution (MXNet's
    test_infer_shape incomplete cases)."""
    a = mx.sym.Variable("a", shape=(0, 10))
    pieces = mx.sym.SliceChannel(data=a, num_outputs=10, axis=1, squeeze_axis=True)
    assert _arg_shapes(pieces[1] + mx.sym.Variable("c", shape=(5,)))["a"] == (5, 10)
    a = mx.sym.Variable("a", shape=(0, 15, 0))
    pieces = mx.sym.SliceChannel(data=a, num_outputs=3, squeeze_axis=False)
    assert _arg_shapes(pieces[1] + mx.sym.Variable("c", shape=(3, 5, 2)))["a"] == (3, 15, 2)
    joined = mx.sym.Concat(mx.sym.Variable("a", shape=(0, 10)), mx.sym.Variable("b", shape=(0, 5)),
                           num_args=2, dim=1)
    assert _arg_shapes(mx.sym.Variable("d", shape=(2, 0)) + joined)["a"] == (2, 10)
    conv = mx.sym.Convolution(data=mx.sym.Variable("a", shape=(0, 10, 0, 0)), num_filter=21,
                              kernel=(3, 3), pad=(1, 1))
    assert _arg_shapes(conv + mx.sym.Variable("c", shape=(5, 21, 32, 32)))["a"] == (5, 10, 32, 32)


def test_reshape_input_dim_comes_back_from_its_known_output():
    """One unknown input dim of a reshape is what the known output's size leaves (MXNet's
    test_operator::test_reshape_new holdout cases); two unknown dims stay unknown."""
    data = mx.sym.Variable("data", shape=(4, 0, 5))
    out = mx.sym.Reshape(data, shape=(-4, 2, -1, 0, -2)) + mx.sym.ones(shape=(2, 2, 3, 5))
    assert _arg_shapes(out)["data"] == (4, 3, 5)
    data = mx.sym.Variable("data", shape=(0, 0))
    with pytest.warns(UserWarning, match="Cannot decide shape"):
        assert mx.sym.Reshape(data, shape=(-1,)).infer_shape()[0] is None


def test_bool_and_inplace_operators_are_not_implemented_for_symbol():
    """MXNet's NotImplementedForSymbol (its test_symbol::test_symbol_bool), which is also a
    NotImplementedError."""
    x = mx.sym.var("x")
    with pytest.raises(mx.base.NotImplementedForSymbol, match='operator "bool"'):
        bool(x)
    with pytest.raises(NotImplementedError, match=r'operator "\+="'):
        x += 1


def test_a_wholly_unknown_weight_gets_the_dims_the_rule_fixes():
    """Data (1, 0, 0, 0) through a cast: the convolution's weight is (64, 0, 7, 7) (MXNet's
    test_symbol::test_symbol_infer_shape)."""
    data = mx.sym.Variable("data", shape=(1, 0, 0, 0))
    weight = mx.sym.Variable("weight")
    conv = mx.sym.Convolution(data=mx.sym.cast(data, dtype="float16"),
                              weight=mx.sym.cast(weight, dtype="float16"), pad=(3, 3),
                              num_filter=64, stride=(2, 2), no_bias=True, kernel=(7, 7))
    args, _, _ = conv.infer_shape_partial()
    assert dict(zip(conv.list_arguments(), args)) == {"data": (1, 0, 0, 0),
                                                      "weight": (64, 0, 7, 7)}


def test_shape_hints_keep_their_meaning_across_np_shape_modes():
    """A file saved outside NumPy-shape mode means 0 = unknown; one saved inside says so
    (``is_np_shape``), as MXNet's files since 1.6 (its test_symbol::test_load_save_symbol)."""
    def net():
        weight = mx.sym.var("weight", shape=(128, 0))
        return mx.sym.FullyConnected(mx.sym.var("data"), weight, num_hidden=128)
    legacy = net().tojson()
    assert "is_np_shape" not in json.loads(legacy)["attrs"]
    for np_shape in (False, True):
        with mx.util.np_shape(np_shape):
            args, outs, _ = mx.sym.fromjson(legacy).infer_shape(data=(10, 784))
            assert (args[1], outs[0]) == ((128, 784), (10, 128))
    with mx.util.np_shape(True):
        assert json.loads(net().tojson())["attrs"]["is_np_shape"] == ["int", 1]


def test_an_unknown_dim_a_slice_clamps_stays_unknown():
    """``slice(end=5)`` of an unknown dim could be shorter than 5 (MXNet keeps it unknown)."""
    data = mx.sym.var("data", shape=(0, 20))
    out = mx.sym.slice(data, begin=(None, 3), end=(5, 10))
    assert out.infer_shape_partial()[1] == [(0, 7)]
    conv = mx.sym.Convolution(mx.sym.var("x", shape=(0, 3, 0, 0)), kernel=(3, 3), num_filter=8)
    assert conv.infer_shape_partial()[1] == [(0, 8, 0, 0)]   # a rejected small probe is ignored


def test_creation_dims_of_minus_one_come_from_the_consumers_through_transpose():
    ones = mx.sym.ones(shape=(2, 3))
    for shape in ((-1, -1), (3, -1)):
        filled = mx.sym.transpose(mx.sym.ones(shape=shape))
        exe = (ones + filled)._bind(mx.cpu(), args={})
        out = exe.forward()[0]
        assert out.shape == (2, 3) and (out.asnumpy() == 2).all()
    permuted = mx.sym.transpose(mx.sym.var("a"), axes=(2, 0, 1)) + mx.sym.zeros((4, 2, 3))
    assert permuted.infer_shape_partial()[0] == [(2, 3, 4)]
