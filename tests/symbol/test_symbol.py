"""``mx.sym``: variables, composition, python operators, graph queries, attributes, inference and
eval.

Expected names, orders and texts are what MXNet 1.9.1 gives for the same code (checked against the
real library; see tests/fixtures/mxnet for the files it wrote).
"""

import copy
import pickle
import warnings

import numpy as np
import pytest

import mxlab as mx
from mxlab.base import MXNetError
from mxlab.ops.registry import F


def _mlp():
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data, num_hidden=4, name="fc1")
    return data, fc, mx.sym.Activation(fc, act_type="relu", name="relu1")


# -- variables -------------------------------------------------------------------------------------
def test_var_stores_mxnet_attribute_strings():
    v = mx.sym.var(
        "w",
        shape=(2, 3),
        lr_mult=2.0,
        wd_mult=0.5,
        dtype="float16",
        init="zeros",
        stype="csr",
        attr={"ctx_group": "dev1"},
        __layout__="NC",
    )
    assert v.list_attr() == {
        "__shape__": "(2, 3)",
        "__lr_mult__": "2.0",
        "__wd_mult__": "0.5",
        "__dtype__": "2",
        "__init__": "zeros",
        "__storage_type__": "2",
        "__ctx_group__": "dev1",
        "__layout__": "NC",
        "lr_mult": "2.0",
        "wd_mult": "0.5",
        "ctx_group": "dev1",
    }
    assert v.attr("lr_mult") == v.attr("__lr_mult__") == "2.0"
    assert v.attr("missing") is None and v.name == "w"
    assert mx.sym.Variable is mx.sym.var
    with pytest.raises(ValueError, match="Attribute name=layout is not supported"):
        mx.sym.var("x", layout="NC")
    with pytest.raises(TypeError, match="Expect a string for variable `name`"):
        mx.sym.var(3)


def test_var_init_object_uses_dumps():
    class Init:
        def dumps(self):
            return '["uniform", {"scale": 0.07}]'

    assert mx.sym.var("x", init=Init()).attr("__init__") == '["uniform", {"scale": 0.07}]'


# -- composition -----------------------------------------------------------------------------------
def test_missing_inputs_become_named_variables_with_the_op_attributes():
    data, fc, act = _mlp()
    assert act.list_arguments() == ["data", "fc1_weight", "fc1_bias"]
    assert act.list_outputs() == ["relu1_output"]
    assert act.attr_dict()["fc1_weight"] == {
        "num_hidden": "4"
    }  # MXNet copies op params to new vars
    nobias = mx.sym.FullyConnected(data=data, num_hidden=3, no_bias=True, name="fc2")
    assert nobias.list_arguments() == ["data", "fc2_weight"]
    named = mx.sym.FullyConnected(data=data, bias=mx.sym.var("b"), num_hidden=3, name="fc3")
    assert named.list_arguments() == ["data", "fc3_weight", "b"]
    assert mx.sym.Activation(act_type="relu").list_arguments() == [
        "activation0_data"
    ] or mx.sym.Activation(act_type="relu").list_arguments()[0].endswith("_data")


def test_auto_names_and_name_argument():
    x = mx.sym.var("x")
    a, b = mx.sym.Activation(x, act_type="relu"), mx.sym.Activation(x, act_type="relu")
    assert a.name.startswith("activation") and b.name.startswith("activation") and a.name != b.name
    assert mx.sym.Activation(x, act_type="relu", name="act").name == "act"
    assert (
        mx.sym.Activation(x, act_type="relu", attr={"__mood__": "calm"}).attr("__mood__") == "calm"
    )


def test_aux_states_and_mutated_input_versions():
    bn = mx.sym.BatchNorm(mx.sym.var("x"), fix_gamma=False, name="bn")
    assert bn.list_arguments() == ["x", "bn_gamma", "bn_beta"]
    assert bn.list_auxiliary_states() == ["bn_moving_mean", "bn_moving_var"]
    assert bn.list_inputs() == ["x", "bn_gamma", "bn_beta", "bn_moving_mean", "bn_moving_var"]
    assert bn.list_outputs() == ["bn_output"]
    assert bn.attr_dict()["bn_moving_var"] == {"__init__": '["one", {}]', "fix_gamma": "False"}
    assert [e.version for e in bn._outputs[0].node.inputs] == [0, 0, 0, 1, 1]


def test_compose_by_call_replaces_variables():
    net = mx.sym.FullyConnected(num_hidden=10, name="fc3")
    assert net.list_arguments() == ["fc3_data", "fc3_weight", "fc3_bias"]
    x, y = mx.sym.var("x"), mx.sym.var("y")
    composed = net(fc3_data=x + y, name="composed")
    assert composed.list_arguments() == ["x", "y", "fc3_weight", "fc3_bias"]
    assert composed.name == "composed" and net.name == "fc3"  # the original is untouched
    with pytest.raises(
        MXNetError,
        match="Keyword argument name foo not found.\nCandidate arguments:\n\t" r"\[0\]fc3_data",
    ):
        net(foo=x)
    with pytest.raises(TypeError, match="Compose expect `Symbol` as arguments"):
        net(fc3_data=1)
    with pytest.raises(MXNetError, match="general composition only support kwargs"):
        net(x)


def test_group_getitem_iter_and_repr():
    x = mx.sym.var("x")
    parts = mx.sym.split(x, num_outputs=3, axis=1, name="sp")
    assert parts.list_outputs() == ["sp_output0", "sp_output1", "sp_output2"]
    assert parts.name == "sp" and repr(parts) == "<Symbol sp>"
    group = mx.sym.Group([parts[2], x, parts["sp_output0"]])
    assert group.list_outputs() == ["sp_output2", "x", "sp_output0"]
    assert group.name is None and repr(group) == "<Symbol group [sp, x, sp]>"
    assert [s.list_outputs() for s in group] == [["sp_output2"], ["x"], ["sp_output0"]]
    assert group[1:].list_outputs() == ["x", "sp_output0"] and len(group) == 3
    with pytest.raises(ValueError, match='Cannot find output that matches name "nope"'):
        group["nope"]
    with pytest.raises(IndexError):
        group[3]
    with pytest.raises(TypeError, match="Expected a list of symbols as input"):
        mx.sym.Group([x, 1])


def test_get_internals_and_children():
    data, fc, act = _mlp()
    assert act.get_internals().list_outputs() == [
        "data",
        "fc1_weight",
        "fc1_bias",
        "fc1_output",
        "relu1_output",
    ]
    assert act.get_children().list_outputs() == ["fc1_output"]
    assert fc.get_children().list_outputs() == ["data", "fc1_weight", "fc1_bias"]
    assert data.get_children() is None
    internals = act.get_internals()
    assert internals["fc1_output"].list_arguments() == ["data", "fc1_weight", "fc1_bias"]


# -- python operators ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "expr,reference",
    [
        (lambda a, b: a + b, lambda a, b: a + b),
        (lambda a, b: a - 2, lambda a, b: a - 2),
        (lambda a, b: 2 - a, lambda a, b: 2 - a),
        (lambda a, b: a * b / 4, lambda a, b: a * b / 4),
        (lambda a, b: 1 / a, lambda a, b: 1 / a),
        (lambda a, b: a**2, lambda a, b: a**2),
        (lambda a, b: 2**a, lambda a, b: 2**a),
        (lambda a, b: -a + 3 * b, lambda a, b: -a + 3 * b),
        (
            lambda a, b: (a > b) + (a <= 1.5) + (a == b),
            lambda a, b: (a > b) + (a <= 1.5) + (a == b),
        ),
        (lambda a, b: abs(a - 5), lambda a, b: abs(a - 5)),
    ],
)
def test_python_operators_evaluate_like_numpy(expr, reference):
    a_np, b_np = np.array([[1.0, 2.0], [3.0, 4.0]], "float32"), np.array(
        [[2.0, 2.0], [1.0, 5.0]], "float32"
    )
    sym = expr(mx.sym.var("a"), mx.sym.var("b"))
    result = sym.eval(a=mx.nd.array(a_np), b=mx.nd.array(b_np))[0].asnumpy()
    np.testing.assert_allclose(result, reference(a_np, b_np), rtol=1e-6)


def test_operator_errors():
    x = mx.sym.var("x")
    with pytest.raises(TypeError, match="not supported"):
        x + "a"
    with pytest.raises(NotImplementedError):
        bool(x)
    with pytest.raises(NotImplementedError):
        x += 1


def test_np_symbol_flavour():
    x = mx.sym.var("x").as_np_ndarray()
    assert isinstance(x, mx.sym.np._Symbol) and isinstance(x.as_nd_ndarray(), mx.sym.Symbol)
    y = mx.sym.np.add(x * 2, 1)
    assert isinstance(y, mx.sym.np._Symbol) and y._outputs[0].node.op.name == "_plus_scalar"
    out = y.eval(x=mx.np.array([1.0, 2.0]))[0]
    assert isinstance(out, mx.np.ndarray)
    np.testing.assert_array_equal(out.asnumpy(), [3.0, 5.0])
    assert callable(mx.sym.np.exp) and callable(mx.sym.npx.relu)


def test_registry_dispatch_builds_symbol_nodes():
    x = mx.sym.var("x")
    y = F.exp(F.broadcast_mul(x, x))
    assert isinstance(y, mx.sym.Symbol) and y.list_arguments() == ["x"]
    assert [n.op.name for n in __import__("mxlab").graph.node.topo_sort(y._outputs) if n.op] == [
        "broadcast_mul",
        "exp",
    ]


def test_fluent_methods():
    x = mx.sym.var("x")
    assert x.exp()._outputs[0].node.op.name == "exp"
    assert x.reshape(shape=(2, 3)).infer_shape(x=(3, 2))[1] == [(2, 3)]
    with pytest.raises(AttributeError):
        x.not_an_op


# -- attributes, printing, copies ------------------------------------------------------------------
def test_attr_set_attr_and_attr_dict():
    data, fc, act = _mlp()
    assert fc.attr("num_hidden") == "4" and fc.list_attr() == {"num_hidden": "4"}
    act._set_attr(__mood__="angry", act_type="tanh")
    assert act.attr("act_type") == "tanh" and act.attr("__mood__") == "angry"
    assert act.attr_dict()["relu1"] == {"__mood__": "angry", "act_type": "tanh"}
    with pytest.raises(ValueError, match="Set Attr only accepts string values"):
        act._set_attr(__mood__=3)
    with pytest.raises(MXNetError, match="unknown attribute 'foo'"):
        act._set_attr(foo="bar")
    data._set_attr(lr_mult="3")
    assert data.attr("__lr_mult__") == "3" and data.list_attr()["lr_mult"] == "3"


def test_debug_str_matches_mxnet_layout():
    data, fc, act = _mlp()
    assert act.debug_str() == (
        "Symbol Outputs:\n\toutput[0]=relu1(0)\n"
        "Variable:data\nVariable:fc1_weight\nVariable:fc1_bias\n"
        "--------------------\nOp:FullyConnected, Name=fc1\nInputs:\n\targ[0]=data(0) version=0\n"
        "\targ[1]=fc1_weight(0) version=0\n\targ[2]=fc1_bias(0) version=0\nAttrs:\n\tnum_hidden=4\n"
        "--------------------\nOp:Activation, Name=relu1\nInputs:\n\targ[0]=fc1(0)\n"
        "Attrs:\n\tact_type=relu\n"
    )


def test_copies_are_deep_and_pickle_round_trips():
    data, fc, act = _mlp()
    for other in (copy.copy(act), copy.deepcopy(act), pickle.loads(pickle.dumps(act))):
        assert other.tojson() == act.tojson()
        assert other._outputs[0].node is not act._outputs[0].node


# -- inference -------------------------------------------------------------------------------------
def test_infer_shape_returns_mxnet_triples():
    data, fc, act = _mlp()
    assert act.infer_shape(data=(5, 7)) == ([(5, 7), (4, 7), (4,)], [(5, 4)], [])
    assert act.infer_shape((5, 7)) == ([(5, 7), (4, 7), (4,)], [(5, 4)], [])
    bn = mx.sym.BatchNorm(act, name="bn")
    assert bn.infer_shape(data=(5, 7))[2] == [(4,), (4,)]
    with pytest.raises(TypeError, match="Arguments need to be shapes \\(tuple\\), but 'data' is"):
        act.infer_shape(data=[5, 7])
    with pytest.raises(MXNetError, match="Keyword argument name nope not found"):
        act.infer_shape(nope=(1,))


def test_infer_shape_unknown_warns_and_partial_reports_zeros():
    x, y = mx.sym.var("x"), mx.sym.var("y")
    z = x * y
    with pytest.warns(
        UserWarning,
        match="Cannot decide shape for the following arguments \\(0s in shape "
        "means unknown dimensions\\). Consider providing them as input:\n\tx: ",
    ):
        assert z.infer_shape() == (None, None, None)
    assert z.infer_shape_partial() == ([(), ()], [()], [])
    assert z.infer_shape_partial(x=(2, 0)) == ([(2, 0), (2, 0)], [(2, 0)], [])
    assert z.infer_shape(x=(2, 3)) == ([(2, 3), (2, 3)], [(2, 3)], [])


def test_infer_shape_np_shape_mode_uses_minus_one_and_none():
    z = mx.sym.var("x") + mx.sym.var("y")
    with mx.util.np_shape(True):
        assert z.infer_shape_partial() == ([None, None], [None], [])
        assert z.infer_shape_partial(x=(2, -1)) == ([(2, -1), (2, -1)], [(2, -1)], [])
        assert z.infer_shape(x=()) == ([(), ()], [()], [])  # () is a scalar shape here


def test_infer_shape_uses_shape_attribute_and_reports_conflicts():
    x = mx.sym.var("x", shape=(2, 3))
    assert (x + 1).infer_shape()[1] == [(2, 3)]
    assert (x + 1).infer_shape(x=(4, 3))[1] == [(4, 3)]  # a given shape wins over the hint
    y = mx.sym.var("y")
    with pytest.raises(MXNetError, match="Error in operator"):
        mx.sym.broadcast_add(x, y).infer_shape(y=(5, 4))
    fc = mx.sym.FullyConnected(mx.sym.var("d"), num_hidden=3, name="fc")
    with pytest.raises(MXNetError, match="Error in operator fc"):
        fc.infer_shape(d=(2, 5), fc_weight=(4, 5))


def test_infer_type():
    data, fc, act = _mlp()
    assert act.infer_type(data="float16") == ([np.float16] * 3, [np.float16], [])
    assert act.infer_type_partial() == ([None, None, None], [None], [])
    with pytest.warns(UserWarning, match="Cannot decide type for the following arguments"):
        assert act.infer_type() == (None, None, None)
    assert mx.sym.var("x", dtype="int32").__add__(1).infer_type()[1] == [np.int32]


# -- execution -------------------------------------------------------------------------------------
def test_eval_runs_every_node_and_checks_arguments():
    data, fc, act = _mlp()
    w = np.arange(12, dtype="float32").reshape(4, 3) / 10 - 0.5
    x = np.arange(6, dtype="float32").reshape(2, 3)
    out = act.eval(
        mx.cpu(), data=mx.nd.array(x), fc1_weight=mx.nd.array(w), fc1_bias=mx.nd.zeros((4,))
    )
    np.testing.assert_allclose(out[0].asnumpy(), np.maximum(x @ w.T, 0), rtol=1e-6)
    with pytest.raises(ValueError, match="key `fc1_bias` is missing in `args`"):
        act.eval(data=mx.nd.array(x), fc1_weight=mx.nd.array(w))


def test_bind_gives_an_executor():
    """Thin entry points; the executor itself is tested in tests/executor."""
    with pytest.raises(ValueError, match="key `x` is missing in `args`"):
        mx.sym.var("x").bind(mx.cpu(), {})
    ex = (mx.sym.var("x") * 2).simple_bind(mx.cpu(), x=(1,))
    assert ex.outputs[0].shape == (1,)


def test_symbol_module_aliases():
    assert mx.symbol is mx.sym
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert mx.sym.load_json(mx.sym.var("q").tojson()).list_arguments() == ["q"]


def test_hand_written_namespace_functions():
    x = mx.sym.var("x")
    three = mx.nd.array([3.0])
    assert mx.sym.zeros((2, 3)).infer_shape() == ([], [(2, 3)], [])
    np.testing.assert_array_equal(mx.sym.full((2,), 7).eval()[0].asnumpy(), [7.0, 7.0])
    np.testing.assert_array_equal(mx.sym.ones((1,), dtype="int32").eval()[0].asnumpy(), [1])
    for sym, expected in (
        (mx.sym.pow(x, 2), 9.0),
        (mx.sym.power(2, x), 8.0),
        (mx.sym.maximum(x, 5), 5.0),
        (mx.sym.minimum(x, mx.sym.var("y")), 1.0),
    ):
        args = {"x": three, "y": mx.nd.array([1.0])}
        args = {k: v for k, v in args.items() if k in sym.list_arguments()}
        np.testing.assert_array_equal(sym.eval(**args)[0].asnumpy(), [expected])


def test_variadic_ops_and_ops_without_inputs():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    cat = mx.sym.concat(a, b, dim=0)
    assert cat.attr("num_args") == "2" and cat.list_arguments() == ["a", "b"]
    assert cat.infer_shape(a=(2, 3), b=(4, 3))[1] == [(6, 3)]
    rng = mx.sym.arange(start=0, stop=5)
    assert rng.list_arguments() == [] and rng.infer_shape()[1] == [(5,)]
    np.testing.assert_array_equal(rng.eval()[0].asnumpy(), np.arange(5))
