"""The oracle runner itself: the subprocess protocol (checked with mxlab standing in for MXNet)."""
import sys

import numpy
import pytest
from mxnet_oracle import OracleError, requires_mxnet, run_mxlab, run_mxnet

CODE = """
x = mx.nd.array(inputs["x"], dtype=inputs["x"].dtype)
outputs["y"] = (x * 2).asnumpy()
outputs["n"] = len(inputs)
"""


def test_subprocess_protocol_matches_the_in_process_run():
    inputs = {"x": numpy.arange(6, dtype=numpy.float32).reshape(2, 3)}
    remote = run_mxnet(CODE, inputs, python=sys.executable, module="mxlab")
    local = run_mxlab(CODE, inputs)
    assert sorted(remote) == sorted(local) == ["n", "y"]
    numpy.testing.assert_array_equal(remote["y"], inputs["x"] * 2)
    assert remote["y"].dtype == numpy.float32 and local["y"].dtype == numpy.float32
    assert int(remote["n"]) == 1


def test_failures_carry_the_oracle_traceback():
    with pytest.raises(OracleError, match="ZeroDivisionError"):
        run_mxnet("1 / 0", {}, python=sys.executable, module="mxlab")


def test_a_missing_oracle_python_is_reported(monkeypatch):
    monkeypatch.delenv("MXLAB_MXNET_PYTHON", raising=False)
    with pytest.raises(OracleError, match="set MXLAB_MXNET_PYTHON"):
        run_mxnet("", {})


@pytest.mark.oracle
@requires_mxnet
def test_the_oracle_is_mxnet_1_9_1():
    out = run_mxnet("outputs['version'] = mx.__version__", {})
    assert str(out["version"]) == "1.9.1"
