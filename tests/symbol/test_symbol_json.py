"""MXNet's symbol JSON: the layout, what is written (explicit parameters only), legacy keys, errors,
subgraphs and control dependencies."""

import json

import pytest

import mxlab as mx
from mxlab.base import MXNetError
from mxlab.graph.node import Entry, Node
from mxlab.ops.registry import get_op


def _mlp():
    data = mx.sym.var("data", shape=(2, 3))
    fc = mx.sym.FullyConnected(data, num_hidden=4, name="fc1")
    return mx.sym.Activation(fc, act_type="relu", name="act")


def test_layout_matches_mxnet():
    graph = json.loads(_mlp().tojson())
    assert graph == {
        "nodes": [
            {"op": "null", "name": "data", "attrs": {"__shape__": "(2, 3)"}, "inputs": []},
            {"op": "null", "name": "fc1_weight", "attrs": {"num_hidden": "4"}, "inputs": []},
            {"op": "null", "name": "fc1_bias", "attrs": {"num_hidden": "4"}, "inputs": []},
            {
                "op": "FullyConnected",
                "name": "fc1",
                "attrs": {"num_hidden": "4"},
                "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]],
            },
            {
                "op": "Activation",
                "name": "act",
                "attrs": {"act_type": "relu"},
                "inputs": [[3, 0, 0]],
            },
        ],
        "arg_nodes": [0, 1, 2],
        "node_row_ptr": [0, 1, 2, 3, 4, 5],
        "heads": [[4, 0, 0]],
        "attrs": {"mxnet_version": ["int", 10901]},
    }


def test_only_explicit_parameters_are_written():
    x = mx.sym.var("x")
    default_given = mx.sym.FullyConnected(x, num_hidden=2, no_bias=False, name="fc")
    assert json.loads(default_given.tojson())["nodes"][-1]["attrs"] == {
        "no_bias": "False",
        "num_hidden": "2",
    }
    conv = mx.sym.Convolution(x, kernel=(3, 3), num_filter=2, pad=(1, 1), name="conv")
    assert json.loads(conv.tojson())["nodes"][-1]["attrs"] == {
        "kernel": "(3, 3)",
        "num_filter": "2",
        "pad": "(1, 1)",
    }


def test_nodes_built_without_explicit_record_write_non_defaults():
    """Deferred compute and gradient rules build nodes from parsed attributes: non-defaults are
    written."""
    a = mx.nd.array([1, 2])
    mx.dc.set_variable(a, mx.sym.var("a"))
    with mx.dc.context():
        b = a + 1  # _plus_scalar's default scalar is 1.0; the int 1 is kept
    node = json.loads(mx.dc.get_symbol(b).tojson())["nodes"][-1]
    assert node["attrs"]["scalar"] == "1"


def test_round_trip_keeps_structure_attributes_and_versions():
    bn = mx.sym.BatchNorm(_mlp(), fix_gamma=False, eps=1e-3, name="bn")
    group = mx.sym.Group([bn, mx.sym.split(bn, num_outputs=2, axis=1)[1]])
    text = group.tojson()
    loaded = mx.sym.load_json(text)
    assert loaded.tojson() == text
    assert loaded.list_auxiliary_states() == ["bn_moving_mean", "bn_moving_var"]
    assert json.loads(text)["nodes"][9]["inputs"][3:] == [[7, 0, 1], [8, 0, 1]]
    assert json.loads(text)["node_row_ptr"][-2:] == [12, 14]  # BatchNorm has 3 outputs, 1 visible
    assert loaded._outputs[0].node.attrs["eps"] == pytest.approx(1e-3)


def test_save_and_load_file(tmp_path):
    path = str(tmp_path / "net-symbol.json")
    _mlp().save(path)
    assert mx.sym.load(path).list_arguments() == ["data", "fc1_weight", "fc1_bias"]
    with pytest.raises(TypeError, match="fname need to be string"):
        mx.sym.load(3)


def test_legacy_keys_and_aliases_load():
    legacy = {
        "nodes": [
            {
                "op": "null",
                "name": "x",
                "param": {},
                "attr": {"__shape__": "(2,)"},
                "inputs": [],
                "backward_source_id": -1,
            },
            {
                "op": "_PlusScalar",
                "name": "p",
                "param": {"scalar": "3"},
                "attr": {"ctx_group": "stage1"},
                "inputs": [[0, 0]],
                "backward_source_id": -1,
            },
        ],
        "arg_nodes": [0],
        "heads": [[1, 0]],
    }
    sym = mx.sym.load_json(json.dumps(legacy))
    node = sym._outputs[0].node
    assert node.op is get_op("_plus_scalar") and node.attrs["scalar"] == 3
    assert sym.attr("ctx_group") == "stage1" and sym.infer_shape()[1] == [(2,)]
    saved = json.loads(sym.tojson())["nodes"][1]
    assert saved == {
        "op": "_plus_scalar",
        "name": "p",
        "attrs": {"__ctx_group__": "stage1", "scalar": "3"},
        "inputs": [[0, 0, 0]],
    }


def test_old_files_get_mxnet_upgrades():
    """Pre-0.9 files: no auxiliary inputs saved, ``<input>_lr_mult`` on the op node, no
    ``__init__``."""
    old = {
        "nodes": [
            {"op": "null", "name": "x", "inputs": []},
            {"op": "null", "name": "bn_gamma", "inputs": []},
            {"op": "null", "name": "bn_beta", "inputs": []},
            {
                "op": "BatchNorm",
                "name": "bn",
                "attr": {"fix_gamma": "False", "gamma_lr_mult": "0.5"},
                "inputs": [[0, 0], [1, 0], [2, 0]],
            },
        ],
        "arg_nodes": [0, 1, 2],
        "heads": [[3, 0]],
    }
    sym = mx.sym.load_json(json.dumps(old))
    assert sym.list_auxiliary_states() == ["bn_moving_mean", "bn_moving_var"]
    attrs = sym.attr_dict()
    assert attrs["bn_gamma"]["__lr_mult__"] == "0.5" and "gamma_lr_mult" not in attrs["bn"]
    assert attrs["bn_moving_mean"] == {"__init__": '["zero", {}]', "fix_gamma": "False"}
    current = json.loads(sym.tojson())
    current["nodes"][1]["attrs"]["lr_mult"] = "2"  # a current file is not upgraded
    gamma = mx.sym.load_json(json.dumps(current)).get_internals()["bn_gamma"]
    assert gamma.attr("__lr_mult__") == "0.5" and gamma.list_attr()["lr_mult"] == "0.5"
    assert json.loads(gamma.tojson())["nodes"][0]["attrs"]["lr_mult"] == "2"


def test_load_errors_name_what_is_wrong():
    graph = json.loads(_mlp().tojson())
    graph["nodes"][4]["op"] = "NoSuchOp"
    with pytest.raises(
        KeyError, match="node 'act' uses operator 'NoSuchOp', which is not registered"
    ):
        mx.sym.load_json(json.dumps(graph))
    graph["nodes"][4]["op"] = "Activation"
    graph["nodes"][4]["attrs"] = {"act_type": "nope"}
    with pytest.raises(MXNetError, match="node 'act'.*act_type"):
        mx.sym.load_json(json.dumps(graph))
    with pytest.raises(ValueError, match="invalid JSON"):
        mx.sym.load_json("{nope")
    with pytest.raises(ValueError, match="not an MXNet symbol file"):
        mx.sym.load_json("{}")


def test_subgraphs_and_control_deps_round_trip():
    inner = mx.sym.var("a") * 2
    x = mx.sym.var("x")
    op_node = Node(
        get_op("_copy"),
        "with_sub",
        {},
        [x._outputs[0]],
        extra={"__subgraph_name__": "sg"},
        subgraphs=[inner],
    )
    other = Node(get_op("exp"), "first", {}, [x._outputs[0]])
    op_node.control_deps = [other]
    sym = mx.sym.Symbol([Entry(op_node)])
    data = json.loads(sym.tojson())
    record = data["nodes"][-1]
    assert record["control_deps"] == [1] and record["subgraphs"][0]["heads"] == [[1, 0, 0]]
    loaded = mx.sym.load_json(sym.tojson())
    node = loaded._outputs[0].node
    assert node.control_deps[0].name == "first"
    assert isinstance(node.subgraphs[0], mx.sym.Symbol) and node.subgraphs[0].list_arguments() == [
        "a"
    ]
    assert loaded.tojson() == sym.tojson()
