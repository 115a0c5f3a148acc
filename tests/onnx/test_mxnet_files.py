"""Files written by real MXNet 1.9.1: its -symbol.json/.params checkpoints in the test fixtures
export (from their paths, as MXNet users call it) and run in onnxruntime like in mxlab, and the
ONNX files MXNet 1.9.1's own exporter wrote (fixtures/make_mxnet_onnx.py) import and match
MXNet's outputs."""
import json
import pathlib

import numpy
import pytest
from onnx_helpers import (
    assert_close,
    make_inputs,
    random_params,
    roundtrip,
    run_mxlab,
    run_onnx,
)

import mxlab as mx

TESTS = pathlib.Path(__file__).parent.parent
CHECKPOINT = TESTS / "gluon" / "fixtures" / "mxnet191"
SYMBOLS = TESTS / "fixtures" / "mxnet"
MXNET_ONNX = pathlib.Path(__file__).parent / "fixtures"


def test_mxnet_checkpoint_exports_from_file_paths(tmp_path):
    io = numpy.load(CHECKPOINT / "io.npz")
    path = mx.onnx.export_model(str(CHECKPOINT / "net-symbol.json"),
                                str(CHECKPOINT / "net-0000.params"), [io["x"].shape],
                                numpy.float32, str(tmp_path / "net.onnx"), dynamic=True)
    sym = mx.sym.load(str(CHECKPOINT / "net-symbol.json"))
    params = {k.split(":", 1)[1]: v for k, v in mx.nd.load(str(CHECKPOINT / "net-0000.params"))
              .items()}
    from_onnx = run_onnx(path, {"data": io["x"]})
    assert_close(from_onnx, run_mxlab(sym, params, {"data": io["x"]}))
    assert_close(from_onnx, [io["y"]])  # NOTE: MXNet 1.9.1's own output for this input
    x3 = numpy.concatenate([io["x"], io["x"][:1]])
    assert_close(run_onnx(path, {"data": x3}), run_mxlab(sym, params, {"data": x3}))


@pytest.mark.parametrize("case", ["mlp", "conv", "split", "batchnorm", "var_attrs"])
def test_mxnet_symbol_files_export(case, tmp_path):
    sym = mx.sym.load(str(SYMBOLS / f"{case}-symbol.json"))
    shapes = json.loads((SYMBOLS / f"{case}.expected.json").read_text())["given_shapes"]
    shapes = {k: tuple(v) for k, v in shapes.items()}
    params = random_params(sym, shapes)
    # NOTE: var_attrs adds a (3, 4) weight to its input, so its batch cannot vary
    dynamic = case != "var_attrs"
    worst = roundtrip(sym, params, shapes, tmp_path / f"{case}.onnx", dynamic=dynamic,
                      batches=(3,) if dynamic else ())
    assert worst <= 1e-5


@pytest.mark.parametrize("case", ["mxnet191_cnn", "mxnet191_mlp"])
def test_onnx_exported_by_mxnet_imports_and_matches(case):
    io = numpy.load(MXNET_ONNX / f"{case}.npz")
    path = str(MXNET_ONNX / f"{case}.onnx")
    sym, arg_params, aux_params = mx.onnx.import_model(path)
    assert_close(run_mxlab(sym, {**arg_params, **aux_params}, {"data": io["x"]}), [io["y"]])
    block = mx.onnx.import_to_gluon(path, mx.cpu())
    assert_close([block(mx.nd.array(io["x"])).asnumpy()], [io["y"]])
    bigger = make_inputs({"data": io["x"].shape}, 1, batch=3)["data"]
    assert_close([block(mx.nd.array(bigger)).asnumpy()], run_onnx(path, {"data": bigger}))


def test_mxnet_cnn_import_keeps_parameter_roles():
    _, arg_params, aux_params = mx.onnx.import_model(str(MXNET_ONNX / "mxnet191_cnn.onnx"))
    assert set(aux_params) == {"batchnorm0_running_mean", "batchnorm0_running_var"}
    assert {"conv0_weight", "conv0_bias", "dense0_weight"} <= set(arg_params)


def test_metadata_of_mxnet_file_lists_data_inputs_only():
    meta = mx.onnx.get_model_metadata(str(MXNET_ONNX / "mxnet191_cnn.onnx"))
    assert meta == {"input_tensor_data": [("data", (0, 0, 0, 0), numpy.dtype("float32"))],
                    "output_tensor_data": [("dense0_fwd", (0, 0))]}
