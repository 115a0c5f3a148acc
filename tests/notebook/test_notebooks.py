"""The tutorials are built by notebooks/build.py and stored executed, without errors.

(Executing them is the separate nbval command in README.md; this only checks what is stored.)
"""
import importlib.util
import pathlib

import nbformat
import pytest

NOTEBOOKS = pathlib.Path(__file__).resolve().parents[2] / "notebooks"


def _build_module():
    spec = importlib.util.spec_from_file_location("nb_build", NOTEBOOKS / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_built_notebook_is_stored():
    names = set(_build_module().NOTEBOOKS)
    stored = {p.stem for p in NOTEBOOKS.glob("*.ipynb")}
    assert names == stored
    assert (NOTEBOOKS / "sanitize.cfg").read_text().count("regex:") >= 4


@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("*.ipynb")), ids=lambda p: p.stem)
def test_stored_outputs_have_no_errors(path):
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(c.execution_count for c in code), "notebook not executed"
    for cell in code:
        for out in cell.outputs:
            assert out.output_type != "error", f"{path.name}: {out.get('ename')}"
            assert out.get("name") != "stderr", f"{path.name}: stderr {out.get('text')[:200]}"


def _outputs_text(path, marker):
    """Text of the outputs of the first cell of ``path`` whose source contains ``marker``."""
    nb = nbformat.read(NOTEBOOKS / path, as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code" and marker in c.source)
    return " ".join(o.get("data", {}).get("text/plain", "") for o in cell.outputs)


def test_tutorial_03_what_if_shows_a_difference():
    full = _outputs_text("03_cachedop_and_memory_planning.ipynb", "kind='full'")
    shared, alone = (int(x) for x in _outputs_text(
        "03_cachedop_and_memory_planning.ipynb", "alone = ").strip("() ").split(","))
    first, second = (int(x) for x in full.strip("() ").split(","))
    assert first == second                  # the full graph keeps every output: nothing shares
    assert alone > shared                   # the backward graph shares unless match_range=0


SEED_TUTORIALS = ["02_deferred_compute_and_hybridize", "03_cachedop_and_memory_planning",
                  "04_subgraph_partitioning", "05_engine_and_variable_versions",
                  "06_op_state_cache"]


@pytest.mark.parametrize("name", SEED_TUTORIALS)
def test_seed_tutorials_have_an_exercise_and_a_real_model_beside_a_published_source(name):
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    cells = nb.cells
    exercise = next(i for i, c in enumerate(cells)
                    if c.cell_type == "markdown" and "### Exercise" in c.source)
    assert any(c.cell_type == "code" and "assert " in c.source for c in cells[exercise:])
    real = next(i for i, c in enumerate(cells)
                if c.cell_type == "markdown" and "## A real model" in c.source)
    assert "https://" in cells[real].source                      # the published source, cited
    assert any(c.cell_type == "code" and "vision.resnet18" in c.source for c in cells[real:])
