"""MXNet's binary NDArray format: fixtures written by real MXNet 1.9.1 load here, and files written
here are byte-identical to MXNet's (so MXNet loads them). Opt-in oracle test checks the other
direction live."""
import json
import os
import struct
import subprocess

import numpy
import pytest

import mxlab as mx
from mxlab.base import MXNetTypeError, MXNetValueError
from mxlab.ndarray import serialization

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "mxnet", "params")
with open(os.path.join(FIXTURES, "expected.json")) as _handle:
    EXPECTED = json.load(_handle)


def _check(array, spec):
    host = array.asnumpy()
    assert host.dtype.name == spec["dtype"]
    assert list(host.shape) == spec["shape"]
    numpy.testing.assert_array_equal(host.ravel(), numpy.array(spec["data"], dtype=spec["dtype"]))


def _fixture(name):
    return os.path.join(FIXTURES, name)


def test_legacy_dict_from_mxnet_loads():
    loaded = mx.nd.load(_fixture("legacy_dict.params"))
    assert sorted(loaded) == sorted(EXPECTED["legacy_dict.params"])
    for key, spec in EXPECTED["legacy_dict.params"].items():
        assert isinstance(loaded[key], mx.nd.NDArray) and not isinstance(loaded[key], mx.np.ndarray)
        _check(loaded[key], spec)


def test_legacy_list_from_mxnet_loads():
    loaded = mx.nd.load(_fixture("legacy_list.params"))
    assert isinstance(loaded, list) and len(loaded) == 2
    for array, spec in zip(loaded, EXPECTED["legacy_list.params"]):
        _check(array, spec)


def test_np_semantics_file_keeps_zero_dim_arrays():
    loaded = mx.npx.load(_fixture("np_dict.params"))
    assert isinstance(loaded["scalar"], mx.np.ndarray)
    assert loaded["scalar"].shape == ()
    for key, spec in EXPECTED["np_dict.params"].items():
        _check(loaded[key], spec)


@pytest.mark.parametrize("name", ["legacy_dict.params", "legacy_list.params", "np_dict.params"])
def test_resaving_reproduces_mxnet_bytes(tmp_path, name):
    arrays, names, np_semantics = serialization.load_frombuffer(open(_fixture(name), "rb").read())
    cls = mx.np.ndarray if np_semantics else mx.nd.NDArray
    wrapped = [mx.nd.array(a, dtype=a.dtype) for a in arrays]
    wrapped = [w.as_np_ndarray() for w in wrapped] if np_semantics else wrapped
    assert all(isinstance(w, cls) for w in wrapped)
    data = dict(zip(names, wrapped)) if names else wrapped
    target = tmp_path / name
    serialization.save(str(target), data, np_semantics=np_semantics)
    assert target.read_bytes() == open(_fixture(name), "rb").read()


def test_roundtrip_every_dtype(tmp_path):
    data = {f"x_{d}": mx.nd.array(numpy.arange(6).reshape(2, 3).astype(d), dtype=d)
            for d in ["float32", "float64", "float16", "uint8", "int8", "int32", "int64", "bool"]}
    path = str(tmp_path / "all.params")
    mx.nd.save(path, data)
    loaded = mx.nd.load(path)
    for key, value in data.items():
        assert loaded[key].asnumpy().dtype == value.asnumpy().dtype
        numpy.testing.assert_array_equal(loaded[key].asnumpy(), value.asnumpy())


def test_load_frombuffer_matches_file():
    raw = open(_fixture("legacy_list.params"), "rb").read()
    loaded = mx.nd.load_frombuffer(raw)
    _check(loaded[1], EXPECTED["legacy_list.params"][1])


@pytest.mark.parametrize("cut", [4, 20, 40, 100])
def test_truncated_file_raises_clear_error(tmp_path, cut):
    raw = open(_fixture("legacy_dict.params"), "rb").read()
    path = tmp_path / "broken.params"
    path.write_bytes(raw[:cut])
    with pytest.raises(MXNetValueError, match="truncated|not an MXNet"):
        mx.nd.load(str(path))


def test_pickle_file_is_rejected_not_unpickled(tmp_path):
    import pickle
    path = tmp_path / "evil.params"
    path.write_bytes(pickle.dumps({"w": numpy.ones(3)}))
    with pytest.raises(MXNetValueError, match="not an MXNet NDArray file"):
        mx.nd.load(str(path))


def test_failed_save_keeps_previous_file(tmp_path):
    path = str(tmp_path / "keep.params")
    mx.nd.save(path, {"a": mx.nd.array([1.0])})
    before = open(path, "rb").read()
    with pytest.raises(MXNetTypeError):
        mx.nd.save(path, {"a": mx.nd.array([1.0]), "b": "not an array"})
    assert open(path, "rb").read() == before


@pytest.mark.oracle
@pytest.mark.skipif(not os.environ.get("MXLAB_MXNET_PYTHON"), reason="set MXLAB_MXNET_PYTHON to "
                                                                     "real MXNet 1.9.1")
def test_file_written_here_loads_in_real_mxnet(tmp_path):
    path = str(tmp_path / "mine.params")
    mx.nd.save(path, {"w": mx.nd.array([[1.5, 2.5]]), "i": mx.nd.array([3], dtype="int64")})
    code = ("import mxnet as mx, sys; d = mx.nd.load(sys.argv[1]); "
            "print(sorted(d), d['w'].asnumpy().tolist(), d['i'].dtype.__name__, "
            "d['i'].asnumpy().tolist())")
    result = subprocess.run([os.environ["MXLAB_MXNET_PYTHON"], "-c", code, path],
                            capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "['i', 'w'] [[1.5, 2.5]] int64 [3]"


def test_pickle_is_mxnets_binary_record_and_round_trips():
    import pickle
    a = mx.nd.array([[1, 2], [3, 4]])
    # NOTE: the bytes MXNet 1.9.1's ``__getstate__`` gives for this array
    expected = (b"\xc9\xfa\x93\xf9\x00\x00\x00\x00\x02\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00"
                b"\x00\x02\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00"
                b"\x00\x00\x00\x00\x80?\x00\x00\x00@\x00\x00@@\x00\x00\x80@")
    assert a.__getstate__() == {"handle": bytearray(expected)}
    b = pickle.loads(pickle.dumps(a))
    assert type(b) is type(a) and b.asnumpy().tolist() == [[1, 2], [3, 4]]
    c = pickle.loads(pickle.dumps(mx.np.array([1, 2], dtype="int32")))
    assert isinstance(c, mx.np.ndarray) and c.dtype == numpy.int32


def test_setstate_loads_a_gpu_array_on_the_host():
    state = {"handle": bytearray(b"\xc9\xfa\x93\xf9" + bytes(4) + b"\x01\x00\x00\x00"
                                 + (1).to_bytes(8, "little") + b"\x02\x00\x00\x00" + bytes(12))}
    x = mx.nd.arange(3)
    x.__setstate__(state)
    assert x.shape == (1,) and x.context == mx.cpu() and x.asnumpy().tolist() == [0.0]


def test_load_reads_the_oldest_format_without_magic(tmp_path):
    """Before V1 an array began with its ndim and uint32 dims (MXNet's legacy_ndarray.v0)."""
    record = (struct.pack("<II", 1, 3) + struct.pack("<iii", 1, 0, 0)
              + numpy.arange(3, dtype="float32").tobytes())
    path = tmp_path / "legacy.v0"
    path.write_bytes(struct.pack("<QQQ", 0x112, 0, 2) + record * 2 + struct.pack("<Q", 0))
    loaded = mx.nd.load(str(path))
    assert [a.asnumpy().tolist() for a in loaded] == [[0, 1, 2]] * 2
