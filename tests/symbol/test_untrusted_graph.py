"""A symbol file is data: no attribute of a loaded graph names code outside a fixed table.

``_npi_fallback`` and ``_np_call`` nodes name the function they run; a hostile file naming a
file-reading, file-writing or unpickling function (or encoding an object dtype) must fail when
it is *loaded* -- ``mx.sym.load``, ``mx.sym.load_json``, ``SymbolBlock.imports`` -- with an
``MXNetValueError`` naming the node, the attribute and the file, and touch no file. The hostile
files are in ``tests/hostile_files`` (see its README); legitimate graphs still round-trip.
"""
import json
import pathlib

import numpy as onp
import pytest

import mxlab as mx
from mxlab.base import MXNetKeyError, MXNetValueError
from mxlab.numpy import fallback as np_fallback_fns
from mxlab.ops import np_fallback
from mxlab.ops.call_args import load_args
from mxlab.symbol import np_call

HOSTILE = pathlib.Path(__file__).resolve().parents[1] / "hostile_files"

# file -> (node, attribute) the load error must name
CASES = {
    "npi_fallback_pickle-symbol.json": ("write_pickle", "func"),
    "np_call_npx_save-symbol.json": ("overwrite_file", "func"),
    "np_call_npx_load-symbol.json": ("read_file", "func"),
    "np_call_genfromtxt-symbol.json": ("read_text_file", "func"),
    "np_call_object_dtype-symbol.json": ("object_array", "args"),
}

# Functions that read or write files, unpickle or change global state: in no allowlist.
_FORBIDDEN = {"save", "savez", "savez_compressed", "load", "loadtxt", "savetxt", "genfromtxt",
              "fromfile", "tofile", "memmap", "frombuffer", "fromregex", "fromstring",
              "DataSource", "set_printoptions", "seterr", "setbufsize", "set_np", "reset_np",
              "use_np", "apply_along_axis", "apply_over_axes", "piecewise", "vectorize",
              "frompyfunc", "fromfunction", "fromiter"}


def _load_via(how, path):
    if how == "load":
        return mx.sym.load(str(path))
    if how == "load_json":
        return mx.sym.load_json(path.read_text(), source=str(path))
    return mx.gluon.SymbolBlock.imports(str(path), ["data"])


@pytest.mark.parametrize("how", ["load", "load_json", "imports"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_file_fails_at_load_naming_node_attribute_file(name, how, tmp_path,
                                                                monkeypatch):
    monkeypatch.chdir(tmp_path)      # NOTE: the files' relative paths would land here
    node, attr = CASES[name]
    with pytest.raises(MXNetValueError) as info:
        _load_via(how, HOSTILE / name)
    text = str(info.value)
    assert f"'{node}'" in text and f"attribute '{attr}'" in text and name in text
    assert list(tmp_path.iterdir()) == []


def test_hostile_corpus_has_a_readme_line_per_file():
    readme = (HOSTILE / "README.md").read_text()
    for name in CASES:
        assert name in readme


def test_load_json_without_source_still_names_node_and_attribute():
    text = (HOSTILE / "np_call_npx_save-symbol.json").read_text()
    with pytest.raises(MXNetValueError, match=r"'overwrite_file'.*attribute 'func'.*npx\.save"):
        mx.sym.load_json(text)


def _fallback_graph(func, args, kwargs=None):
    """A one-node ``_npi_fallback`` graph calling ``func``, as JSON text."""
    attrs = {"func": func, "args": json.dumps({"args": args, "kwargs": kwargs or {}}),
             "num_args": "1", "dtypes": "float32", "ndims": "1"}
    return json.dumps({"nodes": [{"op": "null", "name": "data", "inputs": []},
                                 {"op": "_npi_fallback", "name": "n", "attrs": attrs,
                                  "inputs": [[0, 0, 0]]}],
                       "arg_nodes": [0], "node_row_ptr": [0, 1, 2], "heads": [[1, 0, 0]],
                       "attrs": {"mxnet_version": ["int", 10901]}})


def _call_graph(func, args, kwargs=None):
    """A one-node ``_np_call`` graph calling ``func``, as JSON text."""
    attrs = {"func": func, "args": json.dumps({"args": args, "kwargs": kwargs or {}}),
             "num_args": "1", "num_outputs": "1"}
    return json.dumps({"nodes": [{"op": "null", "name": "data", "inputs": []},
                                 {"op": "_np_call", "name": "n", "attrs": attrs,
                                  "inputs": [[0, 0, 0]]}],
                       "arg_nodes": [0], "node_row_ptr": [0, 1, 2], "heads": [[1, 0, 0]],
                       "attrs": {"mxnet_version": ["int", 10901]}})


@pytest.mark.parametrize("func", ["fromfile", "npx.save", "npx.load", "genfromtxt",
                                  "set_printoptions", "npx.waitall", "linalg.invoke",
                                  "random.shuffle", "__class__", "os.system", ""])
def test_np_call_function_outside_allowlist_fails_at_load(func, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(MXNetValueError, match="attribute 'func'"):
        mx.sym.load_json(_call_graph(func, ["marker.bin", {"__input__": 0}]))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("func", ["save", "load", "savetxt", "loadtxt", "fromfile", "memmap",
                                  "genfromtxt", "set_printoptions", "apply_along_axis",
                                  "__import__", "trapz_", "lib"])
def test_npi_fallback_function_outside_allowlist_fails_at_load(func, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(MXNetValueError, match="attribute 'func'"):
        mx.sym.load_json(_fallback_graph(func, ["marker.bin", {"__input__": 0}]))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("encoded", [
    {"__dtype__": "object"}, {"__dtype__": "O"}, {"__dtype__": "U1000000000"},
    {"__dtype__": "V8"}, {"__dtype__": "datetime64[s]"}, {"__dtype__": 3},
    {"__array__": [1], "dtype": "object"}, {"__array__": [[1], [1, 2]], "dtype": "float32"},
    {"__array__": [1], "dtype": "S1000000000"}, {"__unknown__": 1}, {"__input__": -1},
    {"__input__": "0"}, {"__slice__": [1]}, {"__dict__": [[1, 2]]},
    {"__input__": 0, "__tuple__": []},
])
def test_bad_argument_encodings_fail_at_load(encoded):
    for graph in (_call_graph("tensordot", [{"__input__": 0}, encoded]),
                  _fallback_graph("unique", [{"__input__": 0}, encoded])):
        with pytest.raises(MXNetValueError, match="attribute 'args'"):
            mx.sym.load_json(graph)


@pytest.mark.parametrize("dtype", ["O", "object", "U100000", "S1000000000", "V8",
                                   "datetime64[s]"])
def test_dtype_given_as_a_plain_string_fails_at_load(dtype):
    """A dtype passed by name (``dtype=...``, or positionally) is held to the same rule as a
    tagged one; a traced constant (``numpy.array`` of literal values) is the likeliest carrier."""
    for args, kwargs in (([[1, 2]], {"dtype": dtype}), ([[1, 2], dtype], {})):
        with pytest.raises(MXNetValueError, match="attribute 'args'.*not allowed"):
            mx.sym.load_json(_fallback_graph("array", args, kwargs))


def test_plain_strings_that_are_no_dtype_still_pass():
    for text in ("left", "linear", "midpoint", "float32", "int8", "?"):
        assert load_args(json.dumps({"args": [text], "kwargs": {}}), "op")["args"] == [text]


def test_deeply_nested_arguments_fail_at_load():
    deep = 0
    for _ in range(40):
        deep = [deep]
    with pytest.raises(MXNetValueError, match="nested deeper"):
        mx.sym.load_json(_call_graph("tensordot", [{"__input__": 0}, deep]))
    very_deep = "[" * 100000 + "]" * 100000
    with pytest.raises(MXNetValueError, match="not valid JSON"):
        load_args('{"args": ' + very_deep + ', "kwargs": {}}', "_np_call")


def test_object_output_dtype_of_fallback_fails_at_load():
    graph = json.loads(_fallback_graph("unique", [{"__input__": 0}]))
    graph["nodes"][1]["attrs"]["dtypes"] = "object"
    with pytest.raises(MXNetValueError, match="attribute 'dtypes'"):
        mx.sym.load_json(json.dumps(graph))


def test_run_time_checks_refuse_what_load_would(tmp_path, monkeypatch):
    """The second line: the kernels check the name and the arguments again before calling."""
    monkeypatch.chdir(tmp_path)
    data = [onp.arange(3.0)]
    attrs = {"func": "savetxt", "args": json.dumps({"args": ["m.txt", {"__input__": 0}],
                                                    "kwargs": {}})}
    with pytest.raises(MXNetValueError, match="'savetxt' is not allowed"):
        np_fallback.fallback_compute(onp, data, attrs)
    attrs = {"func": "unique", "args": json.dumps({"args": [{"__input__": 3}], "kwargs": {}})}
    with pytest.raises(MXNetValueError, match="input 3"):
        np_fallback.fallback_compute(onp, data, attrs)
    with pytest.raises(MXNetValueError, match="not allowed"):
        np_call.resolve("npx.save")
    with pytest.raises(MXNetValueError, match="'object' is not allowed"):
        np_call.decode_call(json.dumps({"args": [{"__dtype__": "object"}], "kwargs": {}}),
                            [], onp.asarray)
    assert list(tmp_path.iterdir()) == []


def test_custom_op_type_must_be_registered_at_load():
    graph = json.loads(_call_graph("tensordot", []))
    graph["nodes"][1] = {"op": "Custom", "name": "c", "inputs": [[0, 0, 0]],
                         "attrs": {"op_type": "os.system"}}
    with pytest.raises(MXNetKeyError, match=r"node 'c'.*os\.system.*not registered"):
        mx.sym.load_json(json.dumps(graph))


# -- the allowlists ----------------------------------------------------------------------------
def test_allowlists_hold_no_io_or_state_functions():
    assert not _FORBIDDEN & np_fallback.ALLOWED_FUNCS
    names = {name.rsplit(".", 1)[-1] for name in np_call.ALLOWED_CALLS}
    assert not _FORBIDDEN & names


def test_every_public_np_function_was_reviewed():
    """A new public ``mx.np``/``mx.npx`` function is in neither table until someone decides
    whether graph files may call it."""
    assert np_call.UNREVIEWED == []


def test_every_allowed_call_resolves_and_has_a_symbol_function():
    for name in np_call.ALLOWED_CALLS:
        assert callable(np_call.resolve(name))
    assert callable(mx.sym.np.tensordot) and callable(mx.sym.np.linalg.norm)
    assert not hasattr(mx.sym.np, "genfromtxt") and not hasattr(mx.sym.npx, "save")


def test_every_recorded_fallback_name_is_allowed():
    """What ``mx.np``'s fallbacks record (NumPy 2 names for MXNet's removed ones) is allowed,
    save those taking callables, which JSON cannot hold."""
    for name in np_fallback_fns.FUNCTIONS:
        recorded = name if hasattr(onp, name) else np_fallback.RENAMED.get(name, name)
        if name not in ("apply_along_axis", "apply_over_axes", "piecewise") and \
                hasattr(onp, recorded):
            assert recorded in np_fallback.ALLOWED_FUNCS, name


# -- legitimate graphs still work --------------------------------------------------------------
class _Stats(mx.gluon.HybridBlock):
    def forward(self, x):
        values, counts = mx.np.unique(x, return_counts=True)
        return values, counts, mx.np.median(x), mx.np.quantile(x, 0.25)


def test_exported_fallback_graph_reimports(tmp_path):
    net = _Stats()
    net.hybridize()
    x = mx.np.array([3.0, 1.0, 3.0, 2.0])
    expected = [o.asnumpy() for o in net(x)]
    net.export(str(tmp_path / "stats"))
    for loaded in (mx.gluon.SymbolBlock.imports(str(tmp_path / "stats-symbol.json"), ["data"]),):
        got = [o.asnumpy() for o in loaded(x)]
        for g, e in zip(got, expected):
            onp.testing.assert_allclose(g, e)
    sym = mx.sym.load(str(tmp_path / "stats-symbol.json"))
    got = sym.eval(data=x)
    onp.testing.assert_allclose(got[1].asnumpy(), [1, 1, 2])


def test_np_call_symbols_round_trip():
    a, b = mx.sym.var("a").as_np_ndarray(), mx.sym.var("b").as_np_ndarray()
    av, bv = onp.arange(6.0).reshape(2, 3), onp.arange(12.0).reshape(3, 4)
    cases = [(mx.sym.np.tensordot(a, b, axes=1), onp.tensordot(av, bv, axes=1)),
             (mx.sym.np.linalg.norm(a), onp.linalg.norm(av)),
             (mx.sym.npx.topk(a, k=1), onp.argsort(-av, axis=-1)[:, :1]),
             (mx.sym.np.unique(a), onp.unique(av))]
    for sym, expected in cases:
        loaded = mx.sym.load_json(sym.tojson())
        inputs = {k: mx.np.array(v) for k, v in (("a", av), ("b", bv))
                  if k in loaded.list_arguments()}
        onp.testing.assert_allclose(loaded.eval(**inputs)[0].asnumpy(), expected, rtol=1e-5)


def test_literal_array_and_dtype_arguments_still_decode():
    a = mx.sym.var("a").as_np_ndarray()
    sym = mx.sym.np.tensordot(a, onp.ones((3, 2), dtype="float32"), axes=1)
    loaded = mx.sym.load_json(sym.tojson())
    out = loaded.eval(a=mx.np.ones((2, 3)))[0].asnumpy()
    onp.testing.assert_allclose(out, onp.full((2, 2), 3.0))
    casted = mx.sym.load_json(mx.sym.np.astype(a, onp.int32).tojson())
    assert casted.eval(a=mx.np.ones((2,)))[0].dtype == onp.int32

