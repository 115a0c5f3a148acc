"""Every tutorial in a real JupyterLab, driven by headless Chromium (marker ``browser``).

Starts JupyterLab on 127.0.0.1 (random free port, token) over a temporary copy of the tutorials.
Each stored tutorial is first opened untrusted and unrun: its pictures (static fallbacks of the
explorer, plot_network and the engine view) must show. Then each is run (Run All): no error
output, every explorer draws, and a click on a node of each explorer shows that node's details
(one page and one kernel per tutorial, both checks). ResNet-50's training graph opens collapsed,
legible at 1280x800, and a block expands on a click; the engine replay of a 4,003-node training
graph moves its highlight when Play is pressed. A notebook whose node, parameter and block names
carry script, event-handler and ``javascript:`` link payloads runs, draws the names as text, and
no payload runs. Screenshots go to ``build/browser/``. Needs
Debian's ``chromium`` (``apt-get install -y chromium``) and the ``playwright`` package
(``pip install -e '.[browser]'``); skips with the reason when either is missing.

Determinism: every wait is on the effect of this test's own action (a click waits for *that*
node's id in *that* explorer's details; Run All waits for every prompt of the notebook to
show an execution count), never on a state that may exist before the action.
"""
import os
import pathlib
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import nbformat
import pytest

pytestmark = pytest.mark.browser

ROOT = pathlib.Path(__file__).resolve().parents[2]
# NOTE: the core tutorials (the 08_* onnx / dist notebooks need their own extras)
NOTEBOOKS = sorted((ROOT / "notebooks").glob("0[0-7]_*.ipynb"))
CHROMIUM = os.environ.get("MXLAB_CHROMIUM", "/usr/bin/chromium")
SHOTS = ROOT / "build" / "browser"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
TOKEN = "mxlab-browser-test"
KERNEL_IDLE = """() => {
  const widget = window.jupyterapp.shell.currentWidget;
  const kernel = widget && widget.sessionContext && widget.sessionContext.session
      && widget.sessionContext.session.kernel;
  return kernel && kernel.status === 'idle';
}"""
ALL_RUN = """() => {
  const prompts = [...document.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')];
  return prompts.length > 0 && prompts.every((p) => /\\[\\d+\\]/.test(p.textContent));
}"""
NONE_RUN = """() => [...document.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')]
    .every((p) => !/\\d/.test(p.textContent))"""
STATIC_IMAGES = ".jp-OutputArea-output img[src^='data:image/']"
# NOTE: one notebook of the heavy graphs: ResNet-50's training graph (opens collapsed) and the
#   engine replay of a 4,000-node training graph (its Play must move the highlight)
GRAPH_CELLS = [
    "import time\nimport mxlab as mx\nfrom mxlab.gluon.model_zoo import vision",
    ("net = vision.resnet50_v1()\nnet.initialize()\nnet.hybridize(static_alloc=True)\n"
     "with mx.autograd.record():\n    loss = net(mx.np.ones((1, 3, 32, 32))).sum()\n"
     "loss.backward()"),
    ("start = time.perf_counter()\nex = mx.notebook.explore(net)\n"
     "print(f'explore: {time.perf_counter() - start:.2f} s, '\n"
     "      f'{ex.model.graph.indexed.num_nodes} nodes, depth {ex.model.depth}')\nex"),
    ("y = mx.sym.var('x')\nfor i in range(1000):\n"
     "    y = mx.sym.tanh(y, name=f'block{i // 50}_tanh{i}')\n"
     "op = mx.executor.CachedOp(y, {'static_alloc': True})\n"
     "x = mx.nd.ones((4,))\nx.attach_grad()\nmx.engine.event_log.clear()\n"
     "with mx.autograd.record():\n    out = op(x)\nout.backward()\nmx.engine.wait_all()\n"
     "rp = mx.notebook.replay(op)\nrp.play.interval = 100\n"
     "print(f'replay: {len(rp.model.steps)} steps, '\n"
     "      f'{rp.model.graph_model.graph.indexed.num_nodes} nodes')\nrp"),
]


HOSTILE_FILE = ROOT / "tests" / "hostile_files" / "hostile_names-symbol.json"
# NOTE: the last cell is a control: the same kind of payload, put in on purpose, does run here
HOSTILE_CELLS = [
    ("import mxlab as mx\nfrom IPython.display import HTML\n"
     f"net = mx.sym.load({str(HOSTILE_FILE)!r})"),
    # NOTE: also inline, as nbconvert's HTML export and other front ends show an SVG output
    "dot = mx.viz.plot_network(net)\ndisplay(HTML(dot.pipe('svg', encoding='utf-8')))\ndot",
    ("ex = mx.notebook.explore(net, shapes={net.list_arguments()[0]: (2, 3)})\n"
     "ex.model.select(net.list_arguments()[2])\nex"),
    ("block = mx.gluon.nn.HybridSequential()\n"
     "block.register_child(mx.gluon.nn.Dense(2), '<img src=x onerror=\"window.__pwned=1\">')\n"
     "block.register_child(mx.gluon.nn.Dense(2), '<td HREF=\"javascript:window.__pwned=1\">')\n"
     "block.initialize()\nblock.hybridize()\nblock(mx.np.ones((1, 3)))\n"
     "mx.notebook.explore(block)"),
    ("mx.engine.wait_all()\nHTML('<img src=x onerror=\"window.__control = 1\">'\n"
     "     '<svg><a class=\"control\" xlink:href=\"javascript:void(0)\">'\n"
     "     '<text>c</text></a></svg>')"),
]
INERT = """() => {
  const outputs = [...document.querySelectorAll('.jp-OutputArea-output')];
  const all = outputs.flatMap((o) => [...o.querySelectorAll('*')]);
  const link = (a) => (a.getAttribute('href') || a.getAttribute('xlink:href') || '');
  return {
    pwned: window.__pwned === undefined ? null : String(window.__pwned),
    title: document.title,
    js_links: [...document.querySelectorAll('a')]
        .filter((a) => link(a).trim().toLowerCase().startsWith('javascript:'))
        .map((a) => a.getAttribute('class') || '').join(),
    scripts: outputs.reduce((n, o) => n + o.querySelectorAll('script').length, 0),
    handlers: all.filter((el) => [...el.attributes].some((a) => a.name.startsWith('on'))
                                 && !(el.tagName === 'IMG' && el.getAttribute('onerror')
                                      === 'window.__control = 1')).length,
  };
}"""


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for(url, seconds=90):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.5)
    raise TimeoutError(f"JupyterLab did not answer at {url} within {seconds} s")


def _write_graphs_notebook(path, cells=GRAPH_CELLS):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nbformat.write(nb, path)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install -y chromium)")
    pytest.importorskip("playwright", reason="playwright not installed (pip install -e "
                                             "'.[browser]')")
    work = tmp_path_factory.mktemp("lab")
    for path in NOTEBOOKS:
        shutil.copy(path, work)
    _write_graphs_notebook(work / "graphs.ipynb")
    _write_graphs_notebook(work / "hostile.ipynb", HOSTILE_CELLS)
    port = _free_port()
    # NOTE: a fresh data dir has no notebook signatures: the copies open untrusted
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
               JUPYTER_CONFIG_DIR=str(work / ".jupyter"), JUPYTER_DATA_DIR=str(work / ".data"))
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1",
           f"--port={port}", f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={work}",
           "--LabApp.expose_app_in_browser=True", "--allow-root"]
    log = open(work / "lab.log", "w")  # noqa: SIM115  (open while the server runs)
    proc = subprocess.Popen(cmd, cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_for(f"http://127.0.0.1:{port}/api/status?token={TOKEN}")
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()


@pytest.fixture(scope="module")
def browser(lab):
    from playwright.sync_api import sync_playwright
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def _open(browser, lab, name, viewport=(1500, 1700)):
    """A page showing notebook ``name`` as stored (its kernel may still be starting)."""
    page = browser.new_page(viewport={"width": viewport[0], "height": viewport[1]})
    # NOTE: a workspace of its own, reset: only this notebook is open (no restored tabs)
    workspace = f"{pathlib.Path(name).stem}-{time.monotonic_ns()}"
    page.goto(f"{lab}/lab/workspaces/{workspace}/tree/{name}?token={TOKEN}&reset")
    page.wait_for_function("window.jupyterapp && document.querySelector('.jp-Notebook')",
                           timeout=90_000)
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    page.add_style_tag(content=".jp-toast-container, .Toastify { display: none !important; }")
    return page


def _run_all(page):
    """Clear every output (prompts go blank), Run All, wait until every prompt has a count:
    the stored notebook's own counts cannot satisfy the wait."""
    page.wait_for_function(KERNEL_IDLE, timeout=120_000)
    page.evaluate("window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')")
    page.wait_for_function(NONE_RUN, timeout=60_000)
    page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
    page.wait_for_function(ALL_RUN, timeout=300_000)
    page.wait_for_function(KERNEL_IDLE, timeout=120_000)


def _static_pictures(path):
    """How many outputs of the stored notebook carry a static picture in their HTML."""
    nb = nbformat.read(path, as_version=4)
    return sum("<img" in o.get("data", {}).get("text/html", "") for c in nb.cells
               if c.cell_type == "code" for o in c.outputs)


def _explorers(path):
    """How many explorers the notebook shows (its stored outputs say)."""
    nb = nbformat.read(path, as_version=4)
    return sum("mxlab-explorer" in o.get("data", {}).get("text/html", "") for c in nb.cells
               if c.cell_type == "code" for o in c.outputs)


TITLES = "svg => [...svg.querySelectorAll('g.node title')].map((t) => t.textContent)"
CLICK_TITLE = """(svg, key) => {
  const g = [...svg.querySelectorAll('g.node')].find(
      (n) => n.querySelector('title') && n.querySelector('title').textContent === key);
  g.dispatchEvent(new MouseEvent('click', {bubbles: true}));
}"""


def _click_a_node(page, explorer, index, stem):
    """Click a node this explorer does not show yet and wait for its details."""
    canvas = explorer.locator(".mxlab-canvas svg.mxlab-main")
    before = explorer.locator(".mxlab-details").all_inner_texts()
    titles = canvas.evaluate(TITLES)
    key = next(t for t in titles if t.startswith("n") and t[1:].isdigit()
               and not any(f"node #{t[1:]})" in b for b in before))
    canvas.evaluate(CLICK_TITLE, key)
    explorer.locator(".mxlab-details", has_text=f"node #{key[1:]})").wait_for(timeout=30_000)
    explorer.screenshot(path=str(SHOTS / f"{stem}_explorer{index}.png"))


def _check_stored_pictures(page, path):
    """Untrusted and unrun, the stored notebook shows its static pictures (no widget yet)."""
    expected = _static_pictures(path)
    page.wait_for_function(f"document.querySelectorAll(\"{STATIC_IMAGES}\").length >= {expected}",
                           timeout=60_000)
    assert page.locator(".jp-Notebook").count() == 1
    assert "object at 0x" not in page.locator(".jp-Notebook").inner_text()
    page.screenshot(path=str(SHOTS / f"{path.stem}_unrun.png"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_tutorial_shows_pictures_then_runs_clean_and_every_explorer_answers_a_click(
        lab, browser, path):
    """One page per tutorial (one kernel): the stored pictures first, then Run All."""
    page = _open(browser, lab, path.name)
    _check_stored_pictures(page, path)
    _run_all(page)
    errors = page.locator(".jp-OutputArea-output[data-mime-type="
                          "'application/vnd.jupyter.stderr']")
    assert errors.count() == 0, errors.all_inner_texts()[:3]
    explorers = page.locator(".jp-OutputArea-output", has=page.locator(".mxlab-canvas"))
    expected = _explorers(path)
    if expected:
        page.wait_for_function(
            f"document.querySelectorAll('.mxlab-canvas svg.mxlab-main g.node').length > 0 "
            f"&& document.querySelectorAll('.mxlab-canvas svg.mxlab-main').length >= {expected}",
            timeout=60_000)
    assert explorers.count() == expected
    for i in range(expected):
        explorer = explorers.nth(i)
        explorer.scroll_into_view_if_needed()
        _click_a_node(page, explorer, i, path.stem)
    page.screenshot(path=str(SHOTS / f"{path.stem}_run.png"), full_page=True)
    page.close()


@pytest.fixture(scope="module")
def graphs_page(lab, browser):
    """The heavy-graphs notebook, run once at 1280x800 with the file browser folded away."""
    page = _open(browser, lab, "graphs.ipynb", viewport=(1280, 800))
    page.evaluate("window.jupyterapp.shell.collapseLeft()")
    _run_all(page)
    errors = page.locator(".jp-OutputArea-output[data-mime-type="
                          "'application/vnd.jupyter.stderr']")
    assert errors.count() == 0, errors.all_inner_texts()[:3]
    yield page
    page.close()


def _output(page, text):
    return page.locator(".jp-OutputArea-output", has_text=text).first


def test_resnet50_training_graph_opens_collapsed_and_legible(graphs_page):
    page = graphs_page
    explorer = page.locator(".jp-OutputArea-output", has=page.locator(".mxlab-canvas")).first
    canvas = explorer.locator(".mxlab-canvas svg.mxlab-main")
    canvas.wait_for(timeout=60_000)
    opened = _output(page, "explore:").inner_text().strip()
    (SHOTS / "resnet50_open.txt").write_text(opened + "\n")     # the open time, for the record
    # NOTE: the whole training graph (forward and backward, 682 nodes since FullyConnected's and
    #   Activation's gradients are one node each), not a forward-only or already-folded one
    assert int(re.search(r"(\d+) nodes", opened).group(1)) > 650
    assert canvas.locator("g.node").count() <= 60            # collapsed blocks, not 700 nodes
    assert explorer.locator(".mxlab-legend").count() >= 1
    assert explorer.locator(".mxlab-overview svg").count() == 1
    explorer.locator(".mxlab-canvas").scroll_into_view_if_needed()
    # NOTE: legible at 1280x800: the node labels as drawn are at least 7 px tall
    heights = canvas.evaluate("svg => [...svg.querySelectorAll('g.node text')]"
                              ".map((t) => t.getBoundingClientRect().height)")
    assert heights and sorted(heights)[len(heights) // 2] >= 7, heights[:10]
    page.screenshot(path=str(SHOTS / "resnet50_collapsed_1280x800.png"))
    shown = canvas.locator("g.node").count()
    titles = canvas.evaluate(TITLES)
    canvas.evaluate(CLICK_TITLE, next(t for t in titles if t.startswith("c")))
    page.wait_for_function(
        "document.querySelector('.mxlab-canvas svg.mxlab-main').querySelectorAll('g.node')"
        f".length > {shown}", timeout=60_000)
    page.screenshot(path=str(SHOTS / "resnet50_expanded_block_1280x800.png"))


RUNNING = "svg => [...svg.querySelectorAll('g.node.mxlab-running title')].map((t) => t.textContent)"


def test_engine_replay_play_moves_the_highlight_on_a_4000_node_graph(graphs_page):
    page = graphs_page
    replay = page.locator(".jp-OutputArea-output", has=page.locator(".mxlab-replay-step")).first
    assert "4003 nodes" in _output(page, "replay:").inner_text()
    canvas = replay.locator(".mxlab-canvas svg.mxlab-main")
    canvas.wait_for(timeout=60_000)
    replay.scroll_into_view_if_needed()
    svg = canvas.element_handle()
    page.wait_for_function(f"svg => ({RUNNING})(svg).length > 0", arg=svg, timeout=30_000)
    first = canvas.evaluate(RUNNING)
    assert "step 1/" in replay.locator(".mxlab-replay-step").inner_text()
    replay.locator(".widget-play button").first.click()           # Play
    page.wait_for_function(
        f"([svg, first]) => {{ const now = ({RUNNING})(svg); "
        f"return now.length > 0 && now.join() !== first.join(); }}", arg=[svg, first],
        timeout=60_000)
    assert "step 1/" not in replay.locator(".mxlab-replay-step").inner_text()
    assert page.evaluate("1 + 1") == 2                          # the page still answers
    page.screenshot(path=str(SHOTS / "replay_4000_nodes_1280x800.png"))


def test_hostile_names_draw_as_text_and_run_no_payload(lab, browser):
    """Node, parameter and block names with script, handler and link payloads, run (trusted
    outputs): plot_network (also as inline SVG), two explorers with details open, then a control
    payload that runs."""
    page = _open(browser, lab, "hostile.ipynb")
    _run_all(page)
    page.wait_for_function("window.__control === 1", timeout=60_000)
    page.wait_for_function("document.querySelectorAll('.mxlab-canvas svg.mxlab-main').length >= 2"
                           " && document.querySelectorAll('.mxlab-canvas g.node').length > 0",
                           timeout=60_000)
    page.screenshot(path=str(SHOTS / "hostile_names.png"), full_page=True)
    errors = page.locator(".jp-OutputArea-output[data-mime-type="
                          "'application/vnd.jupyter.stderr']")
    assert errors.count() == 0, errors.all_inner_texts()[:3]
    state = page.evaluate(INERT)
    assert "pwned" not in state.pop("title")
    # NOTE: the one javascript: link is the control's (the check sees SVG links)
    assert state == {"pwned": None, "js_links": "control", "scripts": 0, "handlers": 0}
    canvas_text = page.locator(".mxlab-canvas svg.mxlab-main").first.inner_html()
    assert "&lt;td HREF=\"javascript:window.__pwned=1\"&gt;x&lt;/td&gt;" in canvas_text
    details = page.locator(".mxlab-details").first.inner_text()
    assert '"><script>window.__pwned=1</script>' in details
    page.close()
