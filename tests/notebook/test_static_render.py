"""Stored tutorials show their pictures before any cell runs: every rich output (explorer,
plot_network) carries a static picture next to its widget, and nbconvert's HTML shows it."""
import pathlib
import re

import nbformat
import pytest

NOTEBOOKS = pathlib.Path(__file__).resolve().parents[2] / "notebooks"
# NOTE: the core tutorials; the 08_* notebooks (onnx, dist) show it once rebuilt by their owners
TUTORIALS = sorted(p for p in NOTEBOOKS.glob("0[0-7]_*.ipynb"))
WIDGET = "application/vnd.jupyter.widget-view+json"
# NOTE: an <img> (data URI) survives JupyterLab's sanitizer in untrusted notebooks; inline <svg>
#   in text/html and a bare image/svg+xml output do not
IMAGE = re.compile(r"<img[^>]+src=['\"]data:image/(svg\+xml|png);base64,")


def _rich_outputs(nb):
    """Outputs of mxlab's views (explorer, engine view, plot_network)."""
    return [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
            if "image/svg+xml" in o.get("data", {}) or "mxlab" in o.get("data", {})
            .get("text/html", "") or "mxlab" in o.get("data", {}).get("text/plain", "")]


def _widgets(nb):
    return [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
            if WIDGET in o.get("data", {})]


@pytest.mark.parametrize("path", TUTORIALS, ids=lambda p: p.stem)
def test_every_rich_output_has_a_static_picture(path):
    nb = nbformat.read(path, as_version=4)
    for out in _rich_outputs(nb) + _widgets(nb):
        data = out["data"]
        assert IMAGE.search(data.get("text/html", "")), f"{path.name}: {sorted(data)}"
        assert "object at 0x" not in data.get("text/plain", "")


@pytest.mark.parametrize("path", TUTORIALS, ids=lambda p: p.stem)
def test_nbconvert_html_shows_the_pictures(path):
    from nbconvert import HTMLExporter
    nb = nbformat.read(path, as_version=4)
    body, _ = HTMLExporter().from_notebook_node(nb)
    rich = len(_rich_outputs(nb))
    assert len(IMAGE.findall(body)) >= rich
    assert "object at 0x" not in body
    assert not re.search(r">\s*graph cluster_", body)      # no flattened SVG text
