"""The import layering (pyproject.toml's import-linter contracts) holds, imports made inside
functions included; ``mxlab.ops`` is a leaf under the dispatcher and the array classes."""
import pathlib
import sys
import textwrap

import pytest

importlinter = pytest.importorskip("importlinter")
grimp = pytest.importorskip("grimp")
from importlinter import configuration  # noqa: E402
from importlinter.application.use_cases import lint_imports  # noqa: E402

configuration.configure()   # NOTE: what the lint-imports command does first

ROOT = pathlib.Path(__file__).resolve().parents[1]
ABOVE_OPS = ("ndarray", "numpy", "numpy_extension", "imperative", "autograd", "deferred_compute",
             "symbol", "executor", "subgraph", "gluon", "viz", "notebook")


def test_the_projects_import_contracts_hold(capsys):
    kept = lint_imports(config_filename=str(ROOT / "pyproject.toml"), cache_dir=None,
                        no_logo=True)
    assert kept, capsys.readouterr().out


def test_ops_imports_nothing_above_it():
    graph = grimp.build_graph("mxlab", cache_dir=None)
    upward = sorted(
        (module, imported)
        for module in graph.find_descendants("mxlab.ops") | {"mxlab.ops"}
        for imported in graph.find_modules_directly_imported_by(module)
        if imported.split(".")[1:2] and imported.split(".")[1] in ABOVE_OPS
    )
    assert upward == []


def test_a_function_level_import_breaks_a_layers_contract(tmp_path, monkeypatch, capsys):
    """import-linter reads imports inside functions too, so the contract covers them."""
    package = tmp_path / "layered"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "high.py").write_text("VALUE = 1\n")
    (package / "low.py").write_text(textwrap.dedent("""
        def late():
            from . import high
            return high.VALUE
    """))
    config = tmp_path / "pyproject.toml"
    config.write_text(textwrap.dedent("""
        [tool.importlinter]
        root_package = "layered"

        [[tool.importlinter.contracts]]
        name = "layers"
        type = "layers"
        containers = ["layered"]
        layers = ["high", "low"]
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "layered", raising=False)
    assert not lint_imports(config_filename=str(config), cache_dir=None, no_logo=True)
    assert "layered.low -> layered.high" in capsys.readouterr().out
