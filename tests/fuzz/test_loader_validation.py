"""Symbol JSON and .params loaders validate everything they read (issue 12): a clear MXNetError
naming the file and the node, key or array, or a load that round-trips identically."""
import copy
import json
import struct

import numpy
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import mxlab as mx
from mxlab.base import MXNetError

_SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                     suppress_health_check=[HealthCheck.function_scoped_fixture])


def _net():
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data, num_hidden=3, name="fc")
    return mx.sym.Group([mx.sym.Activation(fc, act_type="relu", name="act"),
                         mx.sym.split(fc, num_outputs=3, axis=1, name="sp")[2]])


def _doc():
    return json.loads(_net().tojson())


def _load_text(tmp_path, text, name="net.json"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return mx.sym.load(str(path))


def _mutated(edit):
    doc = _doc()
    edit(doc)
    return json.dumps(doc)


@pytest.mark.parametrize("edit, match", [
    (lambda d: d["nodes"][1].pop("op"), "node 1.*missing required key 'op'"),
    (lambda d: d["nodes"][2].pop("name"), "node 2.*missing required key 'name'"),
    (lambda d: d["nodes"][3].update(inputs=[[99, 0, 0]]), "node 3.*node id 99 is out of range"),
    (lambda d: d["nodes"][3].update(inputs=[[-1, 0, 0]]), "node 3.*node id -1 is out of range"),
    (lambda d: d.update(heads=[[7, 0, 0]]), r"heads\[0\].*out of range"),
    (lambda d: d["nodes"][3].update(inputs=[[3, 0, 0]]), "cycle"),
    (lambda d: d["nodes"][3].update(inputs=[[4, 0, 0]]), "cycle"),
    (lambda d: d.update(heads=[[4, 5, 0]]), "reads output 5 of node 'act'"),
    (lambda d: d["nodes"][3].update(attrs=[1]), "'attrs'.*expected an object"),
    (lambda d: d.pop("heads"), "missing required key 'heads'"),
])
def test_bad_symbol_json_names_file_node_and_expectation(tmp_path, edit, match):
    with pytest.raises(MXNetError, match=match) as info:
        _load_text(tmp_path, _mutated(edit))
    assert "net.json" in str(info.value)
    assert isinstance(info.value, ValueError)


def test_top_level_int_and_binary_files_are_clear_errors(tmp_path):
    with pytest.raises(MXNetError, match="net.json.*top level.*expected a JSON object"):
        _load_text(tmp_path, "3")
    binary = tmp_path / "model.params"
    mx.nd.save(str(binary), {"w": mx.nd.ones((2,))})
    with pytest.raises(MXNetError, match="model.params.*not UTF-8"):
        mx.sym.load(str(binary))


def _params_bytes(tmp_path):
    path = tmp_path / "w.params"
    mx.nd.save(str(path), {"arg:w": mx.nd.array([[1.0, 2.0], [3.0, 4.0]]),
                           "aux:n": mx.nd.array([5], dtype="int32")})
    return path.read_bytes()


# offsets in the file _params_bytes writes: header 24, array 0: magic 4, stype 4, ndim 4, dims 16
_DIMS_AT = 24 + 12


def test_overflowing_dims_are_a_clear_error(tmp_path):
    raw = bytearray(_params_bytes(tmp_path))
    raw[_DIMS_AT:_DIMS_AT + 16] = struct.pack("<qq", 2 ** 62, 2 ** 62)
    path = tmp_path / "big.params"
    path.write_bytes(bytes(raw))
    with pytest.raises(MXNetError, match=r"big.params: array 0: shape .* needs \d+ bytes"):
        mx.nd.load(str(path))


def test_non_utf8_name_is_a_clear_error(tmp_path):
    raw = _params_bytes(tmp_path)
    at = raw.index(b"arg:w")
    path = tmp_path / "names.params"
    path.write_bytes(raw[:at] + b"\xff\xfe:w" + raw[at + 5:])
    with pytest.raises(MXNetError, match="names.params: name 0 is not UTF-8"):
        mx.nd.load(str(path))


# -- mutation properties ---------------------------------------------------------------------------
_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 12) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                max_size=2),
    max_leaves=5)


def _paths(value, prefix=()):
    """Every (container, key) location in a JSON document."""
    items = value.items() if isinstance(value, dict) else enumerate(value) \
        if isinstance(value, list) else ()
    for key, child in items:
        yield prefix + (key,)
        yield from _paths(child, prefix + (key,))


def _apply(doc, path, action, value):
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    if action == "delete":
        del parent[path[-1]]
    else:
        parent[path[-1]] = value


@_SETTINGS
@given(data=st.data())
def test_mutated_symbol_json_loads_identically_or_fails_clearly(tmp_path, data):
    doc = _doc()
    for _ in range(data.draw(st.integers(1, 3))):
        paths = list(_paths(doc))
        if not paths:
            break
        path = data.draw(st.sampled_from(paths))
        _apply(doc, path, data.draw(st.sampled_from(["delete", "set"])), data.draw(_JSON_VALUES))
    try:
        sym = _load_text(tmp_path, json.dumps(copy.deepcopy(doc)))
    except MXNetError as exc:
        assert "net.json" in str(exc) or "Cannot load symbol" in str(exc)
        return
    again = mx.sym.load_json(sym.tojson())
    assert again.tojson() == sym.tojson()


@_SETTINGS
@given(data=st.data())
def test_mutated_params_load_identically_or_fail_clearly(tmp_path, data):
    raw = bytearray(_params_bytes(tmp_path))
    for _ in range(data.draw(st.integers(1, 3))):
        if not raw:
            break
        kind = data.draw(st.sampled_from(["byte", "word", "truncate"]))
        at = data.draw(st.integers(0, len(raw) - 1))
        if kind == "byte":
            raw[at] = data.draw(st.integers(0, 255))
        elif kind == "word":
            raw[at:at + 8] = struct.pack("<q", data.draw(st.sampled_from(
                [-1, 0, 1, 3, 2 ** 31, 2 ** 62, -2 ** 63])))
        else:
            del raw[at:]
    path = tmp_path / "m.params"
    path.write_bytes(bytes(raw))
    try:
        loaded = mx.nd.load(str(path))
    except MXNetError as exc:
        assert "m.params" in str(exc)
        return
    resaved = tmp_path / "again.params"
    mx.nd.save(str(resaved), loaded)
    again = mx.nd.load(str(resaved))
    assert type(again) is type(loaded) and len(again) == len(loaded)
    pairs = zip(again.values(), loaded.values()) if isinstance(loaded, dict) \
        else zip(again, loaded)
    for a, b in pairs:
        assert (a is None) == (b is None)
        if a is not None:
            assert a.dtype == b.dtype and a.shape == b.shape
            numpy.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
