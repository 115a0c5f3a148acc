"""Checkpoints: export -> SymbolBlock.imports, save/load_parameters (errors, dtype casting,
MXNet 1.x names), a fixture written by real MXNet 1.9.1, and an opt-in oracle test the other way
(export here -> load in MXNet)."""
import json
import os
import pathlib
import subprocess

import numpy
import pytest

import mxlab as mx
from mxlab import gluon
from mxlab.gluon import nn

FIXTURE = pathlib.Path(__file__).parent / "fixtures" / "mxnet191"
ORACLE_ENV = "MXLAB_MXNET_PYTHON"


def make_net():
    """The fixture's architecture (see fixtures/mxnet191/make_fixture.py)."""
    net = nn.HybridSequential()
    net.add(nn.Conv2D(4, kernel_size=3, padding=1, in_channels=2), nn.BatchNorm(in_channels=4),
            nn.Activation("relu"), nn.MaxPool2D(2), nn.Dense(3, in_units=4 * 3 * 3))
    return net


def trained_net():
    mx.random.seed(3)
    net = make_net()
    net.initialize(mx.init.Xavier())
    net[1].running_mean.set_data(mx.nd.array([0.1, -0.2, 0.3, 0.0]))
    net[1].running_var.set_data(mx.nd.array([0.5, 1.5, 1.0, 2.0]))
    return net


def test_export_then_imports_gives_equal_outputs(tmp_path):
    net = trained_net()
    net.hybridize()
    x = mx.nd.random.uniform(-1, 1, shape=(2, 2, 6, 6))
    expected = net(x).asnumpy()
    sym_file, params_file = net.export(str(tmp_path / "model"), epoch=3)
    assert sym_file.endswith("model-symbol.json") and params_file.endswith("model-0003.params")
    saved = mx.nd.load(params_file)
    assert "arg:0.weight" in saved and "aux:1.running_mean" in saved
    nodes = [n["name"] for n in json.loads(pathlib.Path(sym_file).read_text())["nodes"]]
    assert nodes[:2] == ["data", "0.weight"]
    block = gluon.SymbolBlock.imports(sym_file, ["data"], params_file)
    numpy.testing.assert_allclose(block(x).asnumpy(), expected, rtol=1e-5, atol=1e-6)


class Gluon2Affine(gluon.HybridBlock):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, in_units=4)
        self.shift = gluon.Parameter("shift", shape=(3,), init=mx.init.Normal(1.0))

    def forward(self, x):
        return mx.np.tanh(self.dense(x)) + self.shift.data()


def test_gluon2_np_export_round_trip_and_symbolic_call(tmp_path):
    net = Gluon2Affine()
    net.initialize()
    net.hybridize()
    x = mx.np.random.uniform(size=(2, 4))
    expected = net(x).asnumpy()
    block = gluon.SymbolBlock.imports(*net.export(str(tmp_path / "g2"))[:1], ["data"],
                                      str(tmp_path / "g2-0000.params"))
    assert sorted(block.collect_params()) == ["dense.bias", "dense.weight", "shift"]
    out = block(x)
    assert isinstance(out, mx.np.ndarray)
    numpy.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-6)
    composed = block(mx.sym.var("z"))
    assert composed.list_arguments()[0] == "z"


def test_export_before_a_hybridized_call_is_an_error(tmp_path):
    net = trained_net()
    with pytest.raises(RuntimeError, match="Please first call block.hybridize"):
        net.export(str(tmp_path / "model"))


def test_save_load_parameters_round_trip(tmp_path):
    net = trained_net()
    x = mx.nd.random.uniform(shape=(1, 2, 6, 6))
    path = str(tmp_path / "net.params")
    net.save_parameters(path)
    assert sorted(mx.nd.load(path)) == sorted(net.collect_params())
    other = make_net()
    other.load_parameters(path)
    numpy.testing.assert_array_equal(other(x).asnumpy(), net(x).asnumpy())


def test_load_parameters_missing_and_extra(tmp_path):
    net = trained_net()
    path = str(tmp_path / "net.params")
    net.save_parameters(path)
    bigger = make_net()
    bigger.add(nn.Dense(2, in_units=3))
    with pytest.raises(ValueError, match=r"Parameter '5.weight' is missing in file .*"
                                         r"Set allow_missing=True"):
        bigger.load_parameters(path)
    bigger.load_parameters(path, allow_missing=True)
    numpy.testing.assert_array_equal(bigger[4].weight.data().asnumpy(),
                                     net[4].weight.data().asnumpy())
    smaller = nn.HybridSequential()
    smaller.add(nn.Conv2D(4, kernel_size=3, padding=1, in_channels=2))
    with pytest.raises(ValueError, match=r"Parameter '1.gamma' loaded from file .* is not "
                                         r"present in Dict.*Set ignore_extra=True"):
        smaller.load_parameters(path)
    smaller.load_parameters(path, ignore_extra=True)
    numpy.testing.assert_array_equal(smaller[0].weight.data().asnumpy(),
                                     net[0].weight.data().asnumpy())


def test_load_parameters_dtype_checks_and_casts(tmp_path):
    net = trained_net()
    path = str(tmp_path / "net.params")
    net.save_parameters(path)
    wide = make_net()
    wide.cast("float64")
    with pytest.raises(ValueError, match="dtype incompatible expected float64 vs saved float32"):
        wide.load_parameters(path)
    wide.load_parameters(path, cast_dtype=True)
    assert wide[0].weight.data().dtype == numpy.float64
    saved = make_net()
    saved.cast("float64")
    saved.load_parameters(path, cast_dtype=True, dtype_source="saved")
    assert saved[0].weight.dtype == numpy.float32   # the array's NumPy type, as MXNet sets it


def test_load_parameters_accepts_mxnet1_prefixed_names(tmp_path):
    net = trained_net()
    prefixed = {f"hybridsequential0_{name.replace('.', '_')}": p.data()
                for name, p in net.collect_params().items()}
    path = str(tmp_path / "legacy.params")
    mx.nd.save(path, prefixed)
    other = make_net()
    other.load_parameters(path)
    numpy.testing.assert_array_equal(other[4].weight.data().asnumpy(),
                                     net[4].weight.data().asnumpy())


# -- real MXNet 1.9.1 files ----------------------------------------------------------------------
def test_mxnet191_export_loads_with_symbolblock_imports():
    block = gluon.SymbolBlock.imports(str(FIXTURE / "net-symbol.json"), ["data"],
                                      str(FIXTURE / "net-0000.params"))
    assert "hybridsequential0_conv0_weight" in block.collect_params()
    io = numpy.load(FIXTURE / "io.npz")
    out = block(mx.nd.array(io["x"]))
    numpy.testing.assert_allclose(out.asnumpy(), io["y"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("file_name", ["net.params", "net-0000.params"],
                         ids=["save_parameters", "export (prefixed 1.x names)"])
def test_mxnet191_parameters_load_into_gluon_net(file_name):
    net = make_net()
    net.load_parameters(str(FIXTURE / file_name))
    io = numpy.load(FIXTURE / "io.npz")
    numpy.testing.assert_allclose(net(mx.nd.array(io["x"])).asnumpy(), io["y"], rtol=1e-5,
                                  atol=1e-6)


_ORACLE_CODE = """
import sys, numpy as np, mxnet as mx
prefix, data_file = sys.argv[1], sys.argv[2]
net = mx.gluon.SymbolBlock.imports(prefix + '-symbol.json', ['data'], prefix + '-0000.params')
x = np.load(data_file)['x']
np.save(data_file + '.out.npy', net(mx.nd.array(x)).asnumpy())
"""


@pytest.mark.oracle
@pytest.mark.skipif(not os.environ.get(ORACLE_ENV),
                    reason=f"oracle test: set {ORACLE_ENV} to a python with mxnet==1.9.1")
def test_oracle_export_here_loads_in_mxnet(tmp_path):
    net = trained_net()
    net.hybridize()
    x = numpy.random.uniform(-1, 1, (2, 2, 6, 6)).astype("float32")
    expected = net(mx.nd.array(x)).asnumpy()
    net.export(str(tmp_path / "model"))
    numpy.savez(tmp_path / "x.npz", x=x)
    subprocess.run([os.environ[ORACLE_ENV], "-c", _ORACLE_CODE, str(tmp_path / "model"),
                    str(tmp_path / "x.npz")], check=True, timeout=300)
    numpy.testing.assert_allclose(numpy.load(tmp_path / "x.npz.out.npy"), expected, rtol=1e-5,
                                  atol=1e-6)
