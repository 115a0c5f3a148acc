"""mx.library: loading extensions from files, packages, project directories, module names and
entry points; unloading; bad extensions leave every registry unchanged."""
import os
import sys
import textwrap

import pytest

import mxlab as mx
from mxlab.base import MXNetError
from mxlab.graph.passes import list_passes
from mxlab.ops.registry import has_op, list_ops

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXTENSIONS = os.path.join(ROOT, "extensions")

GOOD = """
from mxlab.ops import registry
def register():
    registry.register(registry.Op(name="{name}", compute=lambda xp, ins, attrs: ins[0] + 1))
"""


def _registries():
    return list_ops(), mx.subgraph.list_backends(), list_passes()


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_load_file_then_unload(tmp_path):
    before = _registries()
    record = mx.library.load(str(_write(tmp_path, "plus_one_ext.py", GOOD.format(name="plus1"))))
    assert record.name == "plus_one_ext" and record.ops == ["plus1"]
    assert mx.nd.plus1(mx.nd.zeros((2,))).asnumpy().tolist() == [1.0, 1.0]
    assert "plus_one_ext" in mx.library.loaded()
    mx.library.unload("plus_one_ext")
    assert _registries() == before and not hasattr(mx.nd, "plus1")


def test_load_package_directory_module_name_and_module(tmp_path):
    package = tmp_path / "pkg_ext"
    package.mkdir()
    _write(package, "__init__.py", GOOD.format(name="pkg_plus1"))
    record = mx.library.load(str(package))
    assert record.ops == ["pkg_plus1"]
    mx.library.unload(record.name)
    sys.path.insert(0, str(tmp_path))
    try:
        record = mx.library.load("pkg_ext")
        assert has_op("pkg_plus1")
        mx.library.unload(record.name)
        import pkg_ext
        record = mx.library.load(pkg_ext)
        assert has_op("pkg_plus1")
        mx.library.unload(record.name)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("pkg_ext", None)


BAD = {
    "import_error": ("import not_a_module_anywhere\n", "ModuleNotFoundError"),
    "op_clash": ("""
        from mxlab.ops import registry
        def register():
            registry.register(registry.Op(name="clash_first", compute=lambda xp, i, a: i[0]))
            registry.register(registry.Op(name="exp", compute=lambda xp, i, a: i[0]))
        """, "already taken"),
    "no_register": ("""
        from mxlab.ops import registry
        registry.register(registry.Op(name="registered_at_import", compute=lambda x, i, a: i[0]))
        """, "no register"),
    "no_selector": ("""
        from mxlab.subgraph import SubgraphProperty, register_subgraph_property
        from mxlab.graph.passes import register_pass
        def register():
            register_pass("half_pass")(lambda graph: graph)
            register_subgraph_property("half_backend")(type("Half", (SubgraphProperty,), {}))
        """, "create_subgraph_selector"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_extension_leaves_registries_unchanged(tmp_path, case):
    text, message = BAD[case]
    before = _registries()
    path = _write(tmp_path, f"bad_{case}.py", text)
    with pytest.raises(MXNetError, match=f"cannot load extension .*bad_{case}.*{message}"):
        mx.library.load(str(path))
    assert _registries() == before
    assert f"bad_{case}" not in mx.library.loaded() and f"bad_{case}" not in sys.modules


def test_errors_for_unknown_things(tmp_path):
    with pytest.raises(MXNetError, match="not loaded"):
        mx.library.unload("never_loaded")
    with pytest.raises(MXNetError, match="not a .py file"):
        mx.library.load(str(tmp_path))
    record = mx.library.load(str(_write(tmp_path, "twice_ext.py", GOOD.format(name="twice1"))))
    try:
        with pytest.raises(MXNetError, match="already loaded"):
            mx.library.load(str(tmp_path / "twice_ext.py"))
        assert has_op("twice1")
    finally:
        mx.library.unload(record.name)


def _fake_distribution(tmp_path):
    """An installed-looking distribution declaring the three example extensions."""
    info = tmp_path / "mxlab_examples-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mxlab-examples\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[mxlab.extensions]\nswish = mxlab_swish\nfc_act = mxlab_fc_act\n"
        "fold_constants = mxlab_fold_constants\n")
    return [str(tmp_path)] + [os.path.join(EXTENSIONS, d)
                              for d in ("swish", "fc_act", "fold_constants")]


def test_discover_entry_points(tmp_path, monkeypatch):
    for path in _fake_distribution(tmp_path):
        monkeypatch.syspath_prepend(path)
    before = _registries()
    records = mx.library.discover()
    try:
        assert sorted(r.name for r in records) == ["fc_act", "fold_constants", "swish"]
        assert has_op("swish") and "fc_act" in mx.subgraph.list_backends()
        assert "fold_constants" in list_passes()
        assert mx.library.discover() == []
    finally:
        for record in records:
            mx.library.unload(record.name)
    assert _registries() == before


def test_file_named_like_a_stdlib_module_does_not_replace_it(tmp_path):
    """A loaded file gets a private module name: ``json.py`` never becomes ``json``."""
    import json
    path = _write(tmp_path, "json.py", GOOD.format(name="json_ext_plus1") + "\ndumps = None\n")
    record = mx.library.load(str(path))
    try:
        assert sys.modules["json"] is json and json.dumps([1]) == "[1]"
        assert record.name == "json" and record.module.__name__.startswith("mxlab._libraries.")
        assert sys.modules[record.module.__name__] is record.module
        modules = dict(sys.modules)
        with pytest.raises(MXNetError, match="already loaded"):
            mx.library.load(str(path))
        assert sys.modules == modules and has_op("json_ext_plus1")
    finally:
        mx.library.unload("json")
    assert sys.modules["json"] is json and record.module.__name__ not in sys.modules
    again = mx.library.load(str(path))       # NOTE: unload, then load again: a fresh module
    assert again.module is not record.module and sys.modules["json"] is json
    mx.library.unload("json")


def test_package_named_like_a_stdlib_module_does_not_replace_it(tmp_path):
    import csv
    package = tmp_path / "csv"
    package.mkdir()
    _write(package, "helpers.py", "VALUE = 2\n")
    _write(package, "__init__.py", """
        from . import helpers
        from mxlab.ops import registry
        def register():
            registry.register(registry.Op(name="csv_ext_plus", compute=lambda xp, ins, attrs:
                                          ins[0] + helpers.VALUE))
        """)
    record = mx.library.load(str(package))
    try:
        assert sys.modules["csv"] is csv and "csv.helpers" not in sys.modules
        assert mx.nd.csv_ext_plus(mx.nd.zeros((1,))).asnumpy().tolist() == [2.0]
    finally:
        mx.library.unload(record.name)
    assert not any(m.startswith(record.module.__name__) for m in sys.modules)
