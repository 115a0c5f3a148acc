"""Open every file of ``tests/hostile_files`` as a user would, in one child process; print one
JSON line per file: its outcome (``ok``, ``error``: a clean MXNetError, ``bad``: anything else)
and the peak of traced memory while it was open.

Run by tests/test_hostile_files.py (``python hostile_open.py FOLDER``, in an empty working
folder, so that a payload that manages to write a file shows up there).
"""
import html.parser
import json
import os
import sys
import tracemalloc
import traceback

import numpy

import mxlab as mx
from mxlab.base import MXNetError
from mxlab.notebook import explore

SMALL = 1 << 20          # elements: a graph whose outputs are this small also runs forward
class _LiveMarkup(html.parser.HTMLParser):
    """Collects what a browser would run: script elements, ``on*`` handlers and
    ``javascript:`` links (escaped text that merely reads so is harmless)."""

    def __init__(self):
        super().__init__()
        self.found = []

    def handle_starttag(self, tag, attrs):
        if tag == "script":
            self.found.append("<script>")
        for key, value in attrs:
            if key.startswith("on"):
                self.found.append(f"{key}= handler on <{tag}>")
            if "javascript:" in (value or "").replace(" ", "").lower()[:11 + 8]:
                self.found.append(f"{key}={value!r} on <{tag}>")


def _check_markup(text, what):
    parser = _LiveMarkup()
    parser.feed(text)
    parser.close()
    if parser.found:
        raise AssertionError(f"{what} contains live markup: {parser.found[:3]}")


def _shapes(sym):
    """Input shapes: the variables' ``__shape__`` hints, else (1, 1) for the first argument
    (the data; parameters are inferred from it)."""
    attrs = sym.attr_dict()
    shapes = {}
    for name in sym.list_arguments():
        hint = attrs.get(name, {}).get("__shape__")
        if hint:
            shapes[name] = tuple(int(d) for d in hint.strip("()[]").split(",") if d.strip())
    if not shapes and sym.list_arguments():
        shapes[sym.list_arguments()[0]] = (1, 1)
    return shapes


def _small(shapes):
    return all(s is not None and int(numpy.prod(s)) <= SMALL for s in shapes)


def open_symbol(path):
    sym = mx.sym.load(path)
    _check_markup(mx.viz.plot_network(sym, hide_weights=False).pipe(format="svg").decode(),
                  "plot")
    shapes = _shapes(sym)
    arg_shapes, out_shapes, _ = sym.infer_shape_partial(**shapes)
    sym.infer_type_partial(**{name: "float32" for name in shapes})
    _check_markup(mx.viz.plot_network(sym, shape=shapes).pipe(format="svg").decode(), "plot")
    explorer = explore(sym, shapes=shapes)
    model = explorer.model
    for view in ("graph", "memory"):
        model.set_view(view)
        _check_markup(model.svg() + model.static_html(), f"explorer {view} view")
    for node in model.graph.indexed.nodes:
        model.select(node.nid)
        _check_markup(model.details_html(), f"explorer details of {node.name!r}")
    if _small(arg_shapes) and _small(out_shapes):
        inputs = {name: mx.nd.ones(shape)
                  for name, shape in zip(sym.list_arguments(), arg_shapes)}
        for out in sym.eval(**inputs):
            out.wait_to_read()


def open_arrays(path):
    mx.nd.load(path)
    mx.npx.load(path)


def open_states(path):
    updater = mx.optimizer.get_updater(mx.optimizer.SGD(momentum=0.9))
    with open(path, "rb") as f:
        updater.set_states(f.read())


def open_records(path):
    idx = path[:-4] + ".idx"
    if os.path.exists(idx):
        reader = mx.recordio.MXIndexedRecordIO(idx, path, "r")
        for key in reader.keys:
            reader.read_idx(key)
    else:
        reader = mx.recordio.MXRecordIO(path, "r")
        while reader.read() is not None:
            pass
    reader.close()


def open_image(path):
    mx.image.imread(path)


def open_onnx(path):
    sym, _, _ = mx.onnx.import_model(path)
    _check_markup(mx.viz.plot_network(sym).pipe(format="svg").decode(), "plot")


OPENERS = {"-symbol.json": open_symbol, ".params": open_arrays, ".npz": open_arrays,
           ".npy": open_arrays, ".states": open_states, ".rec": open_records,
           ".onnx": open_onnx, ".png": open_image, ".jpg": open_image}


def opener(name):
    for suffix, fn in OPENERS.items():
        if name.endswith(suffix):
            return fn
    return None


def main(folder):
    for name in sorted(os.listdir(folder)):
        fn = opener(name)
        if fn is None:
            continue
        print(json.dumps({"file": name, "outcome": "started"}), flush=True)
        tracemalloc.start()
        try:
            fn(os.path.join(folder, name))
            outcome, detail = "ok", ""
        except MXNetError as exc:
            outcome, detail = "error", f"{type(exc).__name__}: {exc}"
        except Exception:   # NOTE: what the test reports: a hostile file must not get here
            outcome, detail = "bad", traceback.format_exc()
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(json.dumps({"file": name, "outcome": outcome, "detail": detail[-2000:],
                          "peak": peak}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
