"""mx.onnx's MXNet 1.9 API: argument forms, dynamic and static shapes, opsets, errors naming
what is at fault, the optional-dependency error, the 1.x contrib names; and the explorer opening
an imported model."""
import subprocess
import sys

import numpy
import pytest
from onnx_helpers import assert_close, onnx, ort, random_params, run_mxlab, run_onnx

import mxlab as mx
from mxlab.base import MXNetError, MXNetValueError

S = mx.sym


def small_cnn():
    x = S.var("data")
    y = S.Convolution(x, kernel=(3, 3), num_filter=4, pad=(1, 1), name="conv")
    y = S.Activation(S.BatchNorm(y, fix_gamma=False, name="bn"), act_type="relu", name="relu")
    y = S.FullyConnected(S.Pooling(y, kernel=(2, 2), stride=(2, 2)), num_hidden=3, name="fc")
    shapes = {"data": (2, 2, 4, 4)}
    return y, random_params(y, shapes), shapes


def sample(batch=2):
    return numpy.random.default_rng(batch).uniform(-1, 1, (batch, 2, 4, 4)).astype("float32")


def test_old_argument_names_and_arg_aux_list(tmp_path):
    sym, params, _ = small_cnn()
    arg = {k: v for k, v in params.items() if k in sym.list_arguments()}
    aux = {k: v for k, v in params.items() if k in sym.list_auxiliary_states()}
    path = mx.onnx.export_model(sym, [arg, aux], input_shape=[(2, 2, 4, 4)],
                                input_type=numpy.float32, onnx_file_path=str(tmp_path / "m.onnx"))
    assert path == str(tmp_path / "m.onnx")
    assert_close(run_onnx(path, {"data": sample()}), run_mxlab(sym, params, {"data": sample()}))


def test_params_file_with_arg_aux_prefixes(tmp_path):
    sym, params, _ = small_cnn()
    roles = {n: "aux" if n in sym.list_auxiliary_states() else "arg" for n in params}
    mx.nd.save(str(tmp_path / "m.params"), {f"{roles[k]}:{k}": v for k, v in params.items()})
    sym.save(str(tmp_path / "m-symbol.json"))
    path = mx.onnx.export_model(str(tmp_path / "m-symbol.json"), str(tmp_path / "m.params"),
                                [(2, 2, 4, 4)], onnx_file_path=str(tmp_path / "m.onnx"))
    assert_close(run_onnx(path, {"data": sample()}), run_mxlab(sym, params, {"data": sample()}))


def test_block_not_yet_run_is_traced_with_the_given_shapes(tmp_path):
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(4, activation="tanh"), mx.gluon.nn.Dense(2))
    net.initialize()
    path = mx.onnx.export_model(net, None, [(3, 5)], onnx_file_path=str(tmp_path / "m.onnx"))
    x = numpy.ones((3, 5), "float32")
    assert_close(run_onnx(path, {"data": x}), [net(mx.np.array(x)).asnumpy()])


def test_static_export_fixes_the_batch_and_dynamic_opens_it(tmp_path):
    sym, params, _ = small_cnn()
    static = mx.onnx.export_model(sym, params, [(2, 2, 4, 4)],
                                  onnx_file_path=str(tmp_path / "static.onnx"))
    dims = onnx.load(static).graph.input[0].type.tensor_type.shape.dim
    assert [d.dim_value for d in dims] == [2, 2, 4, 4]
    with pytest.raises(Exception, match="(?i)dimension|shape"):
        run_onnx(static, {"data": sample(3)})
    dynamic = mx.onnx.export_model(sym, params, [(2, 2, 4, 4)], dynamic=True,
                                   onnx_file_path=str(tmp_path / "dynamic.onnx"))
    dims = onnx.load(dynamic).graph.input[0].type.tensor_type.shape.dim
    assert dims[0].dim_param == "batch" and [d.dim_value for d in dims[1:]] == [2, 4, 4]
    assert_close(run_onnx(dynamic, {"data": sample(5)}),
                 run_mxlab(sym, params, {"data": sample(5)}))


def test_dynamic_input_shapes_open_the_none_axes(tmp_path):
    x = S.var("data")
    sym = S.softmax(S.Pooling(x, kernel=(1, 1), global_pool=True, pool_type="avg"), axis=1)
    path = mx.onnx.export_model(sym, {}, [(2, 3, 4, 4)], dynamic=True,
                                dynamic_input_shapes=[(None, 3, None, None)],
                                onnx_file_path=str(tmp_path / "m.onnx"))
    dims = onnx.load(path).graph.input[0].type.tensor_type.shape.dim
    assert [d.dim_param or d.dim_value for d in dims] == ["batch", 3, "data_dim2", "data_dim3"]
    big = numpy.random.default_rng(0).uniform(size=(1, 3, 7, 5)).astype("float32")
    assert_close(run_onnx(path, {"data": big}), run_mxlab(sym, {}, {"data": big}))


@pytest.mark.parametrize("opset", [13, 18, 20])
def test_other_opsets(opset, tmp_path):
    x = S.var("data")
    sym = S.broadcast_add(S.mean(S.max(S.softmax(x), axis=2, keepdims=True), axis=1),
                          S.sum(x, axis=(1, 2)))   # (2, 1) + (2,): ``+`` would not broadcast
    path = mx.onnx.export_model(sym, {}, [(2, 3, 4)], dynamic=True, opset_version=opset,
                                onnx_file_path=str(tmp_path / "m.onnx"))
    assert onnx.load(path).opset_import[0].version == opset
    x = numpy.random.default_rng(0).uniform(size=(3, 3, 4)).astype("float32")
    assert_close(run_onnx(path, {"data": x}), run_mxlab(sym, {}, {"data": x}))
    sym_back, _, _ = mx.onnx.import_model(path)
    assert_close(run_mxlab(sym_back, {}, {"data": x}), run_mxlab(sym, {}, {"data": x}))


def test_op_without_mapping_names_op_node_and_opset(tmp_path):
    sym = S.sort(S.var("data"), name="sorter")
    with pytest.raises(mx.onnx.UnmappedOpError,
                       match=r"op 'sort' \(node 'sorter'\) at opset 17"):
        mx.onnx.export_model(sym, {}, [(2, 3)], onnx_file_path=str(tmp_path / "m.onnx"))
    norm = S.LayerNorm(S.var("data"), name="ln")
    params = random_params(norm, {"data": (2, 3)})
    with pytest.raises(NotImplementedError, match=r"'LayerNorm' \(node 'ln'\) at opset 13: "
                                                  r"mapped from opset 17"):
        mx.onnx.export_model(norm, params, [(2, 3)], opset_version=13,
                             onnx_file_path=str(tmp_path / "m.onnx"))
    assert "LayerNorm" not in mx.onnx.get_operator_support(13)
    assert {"LayerNorm", "Convolution", "FullyConnected"} <= set(mx.onnx.get_operator_support())


def test_bad_arguments_are_errors_naming_them(tmp_path):
    sym, params, _ = small_cnn()
    out = str(tmp_path / "m.onnx")
    with pytest.raises(MXNetValueError, match="opset_version must be an int in"):
        mx.onnx.export_model(sym, params, [(2, 2, 4, 4)], opset_version=9, onnx_file_path=out)
    with pytest.raises(MXNetValueError, match=r"1 data inputs \['data'\]"):
        mx.onnx.export_model(sym, params, [(2, 2, 4, 4), (1,)], onnx_file_path=out)
    with pytest.raises(MXNetValueError, match="sym must be a Symbol"):
        mx.onnx.export_model(42, params, [(2, 2, 4, 4)], onnx_file_path=out)
    with pytest.raises(MXNetValueError, match="in_shapes"):
        mx.onnx.export_model(sym, params, onnx_file_path=out)


def test_unknown_onnx_op_on_import_names_it(tmp_path):
    helper = onnx.helper
    node = helper.make_node("Hardmax", ["x"], ["y"], name="hm")
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", 1, [2, 3])],
                              [helper.make_tensor_value_info("y", 1, [2, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(mx.onnx.UnmappedOpError, match=r"'Hardmax' \(node 'hm'\) at opset 17"):
        mx.onnx.import_model(model)


def test_large_model_shape_inference_and_verbose(tmp_path, caplog):
    sym, params, _ = small_cnn()
    with caplog.at_level("INFO", logger="mxlab.onnx._export"):
        path = mx.onnx.export_model(sym, params, [(2, 2, 4, 4)], large_model=True,
                                    run_shape_inference=True, verbose=True,
                                    onnx_file_path=str(tmp_path / "m.onnx"))
    assert "converting conv (Convolution)" in caplog.text
    assert len(list(tmp_path.iterdir())) > 1  # NOTE: weights stored beside the model
    model = onnx.load(path)
    assert {v.name for v in model.graph.value_info} >= {"conv_output", "bn_output"}
    assert_close(run_onnx(path, {"data": sample()}), run_mxlab(sym, params, {"data": sample()}))


def test_missing_onnx_names_the_extra(monkeypatch, tmp_path):
    for name in [m for m in sys.modules if m == "onnx" or m.startswith("onnx.")]:
        monkeypatch.setitem(sys.modules, name, None)
    sym, params, _ = small_cnn()
    with pytest.raises(mx.onnx.OnnxMissingError, match=r"pip install 'mxlab\[onnx\]'") as err:
        mx.onnx.export_model(sym, params, [(2, 2, 4, 4)], onnx_file_path=str(tmp_path / "m"))
    assert isinstance(err.value, MXNetError) and isinstance(err.value, ImportError)
    with pytest.raises(mx.onnx.OnnxMissingError):
        mx.onnx.import_model(str(tmp_path / "m.onnx"))


def test_importing_mxlab_does_not_import_onnx():
    code = "import sys, mxlab; print('onnx' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_contrib_names_are_the_same_functions():
    for name in ("export_model", "import_model", "import_to_gluon", "get_model_metadata"):
        assert getattr(mx.contrib.onnx, name) is getattr(mx.onnx, name)


def test_metadata_of_own_export(tmp_path):
    sym, params, _ = small_cnn()
    path = mx.onnx.export_model(sym, params, [(2, 2, 4, 4)], dynamic=True,
                                onnx_file_path=str(tmp_path / "m.onnx"))
    meta = mx.onnx.get_model_metadata(path)
    assert meta["input_tensor_data"] == [("data", (0, 2, 4, 4), numpy.dtype("float32"))]
    assert meta["output_tensor_data"] == [("fc_output", (0, 3))]


def test_explorer_opens_an_imported_model(tmp_path):
    from mxlab.notebook.explorer import explore

    sym, params, _ = small_cnn()
    path = mx.onnx.export_model(sym, params, [(2, 2, 4, 4)], dynamic=True,
                                onnx_file_path=str(tmp_path / "m.onnx"))
    imported, _, _ = mx.onnx.import_model(path)
    ex = explore(imported, shapes={"data": (2, 2, 4, 4)})
    assert ex.model.select("conv")["op"] == "Convolution"
    assert ex.model.select("fc")["outputs"][0]["shape"] == (2, 3)
    ex.model.set_view("memory")
    assert ex.model.source.memory_plan("forward") is not None
    html = ex._repr_mimebundle_()["text/html"]
    assert "<svg" in html or "data:image/" in html  # NOTE: the static picture of the graph


def test_onnxruntime_is_the_runtime_under_test():
    assert ort.get_available_providers()


def test_dynamic_export_of_a_graph_fixed_to_its_batch_says_so(tmp_path):
    sym = S.broadcast_add(S.var("data"), S.var("w", shape=(3, 4)))
    params = {"w": mx.nd.ones((3, 4))}
    with pytest.raises(MXNetValueError, match="dynamic export: the graph does not take other "
                                              "sizes on the open input axes"):
        mx.onnx.export_model(sym, params, [(3, 4)], dynamic=True,
                             onnx_file_path=str(tmp_path / "m.onnx"))
