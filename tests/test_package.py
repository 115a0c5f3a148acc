"""The public surface of ``import mxlab as mx``: MXNet's top-level names, where MXNet users look."""
import importlib
import pathlib
import re
import tomllib
import types

import pytest

import mxlab as mx

NAMESPACES = ["np", "npx", "nd", "autograd", "engine", "profiler", "context", "util", "test_utils"]


@pytest.mark.parametrize("name", NAMESPACES)
def test_namespace_is_a_module(name):
    assert isinstance(getattr(mx, name, None), types.ModuleType), f"mx.{name} is missing"


def test_namespaces_are_the_mxlab_modules():
    assert mx.nd is importlib.import_module("mxlab.ndarray")
    assert mx.np is importlib.import_module("mxlab.numpy")
    assert mx.npx is importlib.import_module("mxlab.numpy_extension")


def test_devices():
    assert mx.cpu() == mx.cpu(0) == mx.Device("cpu", 0)
    assert mx.gpu(1).device_type == "gpu" and mx.gpu(1).device_id == 1
    assert isinstance(mx.cpu(), mx.Device)
    assert mx.context.current_context() == mx.cpu(0)
    with mx.cpu(2):
        assert mx.context.current_context() == mx.cpu(2)
    assert mx.context.Context is mx.Device


def test_mxnet_error_is_the_base_of_typed_errors():
    assert issubclass(mx.MXNetError, Exception)
    with pytest.raises(mx.MXNetError):
        mx.Device("tpu")


def test_numpy_semantics_switches_at_top_level():
    for name in ("is_np_shape", "set_np_shape", "np_shape", "use_np_shape", "is_np_array",
                 "np_array", "use_np_array", "use_np"):
        assert getattr(mx, name) is getattr(mx.util, name)


def test_arrays_round_trip_through_numpy():
    x = mx.np.array([[1, 2], [3, 4]])
    assert x.shape == (2, 2) and x.asnumpy().tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert isinstance(mx.nd.array([1.0]), mx.nd.NDArray)


def test_version():
    assert isinstance(mx.__version__, str) and mx.__version__.count(".") == 2


ROOT = pathlib.Path(__file__).resolve().parents[1]


def _fenced_block(text, heading, language):
    """The first ```language block after ``heading`` in a Markdown text."""
    after = text[text.index(heading):]
    match = re.search(rf"```{language}\n(.*?)```", after, re.S)
    return match.group(1)


def test_readme_quick_start_runs(capsys):
    code = _fenced_block((ROOT / "README.md").read_text(), "## Quick start", "python")
    exec(compile(code, "README quick start", "exec"), {})
    printed = capsys.readouterr().out
    assert "9.67" in printed and "_weight" in printed and "[(2, 3)]" in printed


def test_ci_runs_the_readme_test_command():
    command = _fenced_block((ROOT / "README.md").read_text(), "**Test**", "bash").strip()
    command = re.sub(r"\s*\\\n\s*", " ", command)   # join continued lines
    ci_lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    for step in command.split(" && "):
        assert any(line.startswith(step) for line in ci_lines), f".ci/run does not run {step!r}"
    threaded = 'MXNET_ENGINE_TYPE=ThreadedEngine python -m pytest -q -m "not slow and not browser"'
    assert any(line.startswith(threaded) for line in ci_lines), ".ci/run: no ThreadedEngine run"
    assert "MXNET_ENGINE_TYPE=ThreadedEngine" in (ROOT / "README.md").read_text()


def test_pyproject_declares_python_and_dependencies():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["requires-python"] == ">=3.11"
    names = {re.split(r"[<>=!\[ ]", dep)[0] for dep in project["dependencies"]}
    assert {"numpy", "ipywidgets", "graphviz", "pygraphviz", "matplotlib", "jupyterlab", "numexpr",
            "tqdm"} <= names
    assert any(dep.startswith("cupy-cuda12x") for dep in project["optional-dependencies"]["gpu"])
    assert any(dep.startswith("pytest") for dep in project["optional-dependencies"]["dev"])


def test_graphviz_layout_runs_in_process():
    pygraphviz = pytest.importorskip("pygraphviz")
    svg = pygraphviz.AGraph("digraph { a -> b }").draw(format="svg", prog="dot")
    assert b"<svg" in svg and b"a&#45;&gt;b" in svg


MAX_MODULE_LINES = 600   # the house rule (~600)
# NOTE: temporary, for its owner to split: ops/nn/conv.py (633) grew its im2col/GEMM kernels.
#   Remove the entry when the module is back under the budget.
OVER_BUDGET = {"mxlab/ops/nn/conv.py": 660}


def test_no_module_is_over_the_line_budget():
    sizes = {path.relative_to(ROOT).as_posix(): len(path.read_text().splitlines())
             for path in (ROOT / "mxlab").rglob("*.py")}
    assert {name: n for name, n in sizes.items()
            if n > OVER_BUDGET.get(name, MAX_MODULE_LINES)} == {}
