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


RECORD_ITER_CODE = """
cases = {{
    "plain": dict(data_shape=(3, 8, 8), batch_size=3, mean_r=10, mean_g=20, mean_b=30,
                  std_r=2, std_g=3, std_b=4, scale=0.5),
    "pad_mirror": dict(data_shape=(3, 10, 10), batch_size=5, mirror=True, pad=2, fill_value=50),
    "labels": dict(data_shape=(3, 8, 8), batch_size=2, label_width=2),
}}
for name, kwargs in cases.items():
    path = {root!r} + ("/two.rec" if name == "labels" else "/one.rec")
    it = mx.io.ImageRecordIter(path_imgrec=path, **kwargs)
    for k, batch in enumerate(it):
        outputs[f"{{name}}:{{k}}:data"] = batch.data[0].asnumpy()
        outputs[f"{{name}}:{{k}}:label"] = batch.label[0].asnumpy()
        outputs[f"{{name}}:{{k}}:pad"] = batch.pad
"""


@requires_mxnet
def test_image_record_iter_matches_mxnet(tmp_path):
    """Decoded, cropped, padded, mirrored and normalised batches of PNG records (lossless, so
    both sides decode the same pixels) equal MXNet's C++ iterator's."""
    import mxlab as mx
    for name, label in (("one", lambda i: float(i)), ("two", lambda i: [i, 10 + i])):
        rng = numpy.random.default_rng(0)
        rec = mx.recordio.MXRecordIO(str(tmp_path / f"{name}.rec"), "w")
        for i, (h, w) in enumerate([(10, 12), (8, 8), (9, 14), (12, 9), (8, 11)]):
            img = rng.integers(0, 256, size=(h, w, 3), dtype=numpy.uint8)
            rec.write(mx.recordio.pack_img((0, label(i), i, 0), img, img_fmt=".png"))
        rec.close()
    code = RECORD_ITER_CODE.format(root=str(tmp_path))
    want, got = run_mxnet(code, {}), run_mxlab(code, {})
    assert sorted(want) == sorted(got) and len(want) == 3 * (2 + 1 + 3)
    for key in want:
        numpy.testing.assert_array_equal(got[key], want[key], err_msg=key)
