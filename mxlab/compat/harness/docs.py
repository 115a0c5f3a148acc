"""docs/compat.md: the latest harness tables, the history of headline numbers and the exclusions,
rendered from the results saved under docs/compat/ (JSON, one file per suite)."""
import datetime
import json
import os

from ...atomic_file import write_text
from . import REPO_ROOT, mxnet_suite, report

__all__ = ["load", "record_history", "save", "write"]

DOCS = os.path.join(REPO_ROOT, "docs")
RESULTS = os.path.join(DOCS, "compat")
_KEYS = {"mxnet": "file", "mxnet-1.x": "file", "d2l": "section", "d2l-oracle": "section"}


def _path(name):
    return os.path.join(RESULTS, name + ".json")


def load(name, default=None):
    """Saved results (a list of unit dicts) or the history."""
    if not os.path.exists(_path(name)):
        return [] if default is None else default
    with open(_path(name), encoding="utf-8") as f:
        return json.load(f)


def _dump(name, value):
    os.makedirs(RESULTS, exist_ok=True)
    write_text(_path(name), json.dumps(value, indent=1, sort_keys=True) + "\n")


def save(suite, results, replace=False):
    """Store ``results``; a partial run replaces only its own units unless ``replace``."""
    key = _KEYS[suite]
    merged = {} if replace else {r[key]: r for r in load(suite)}
    merged.update({r[key]: r for r in results})
    if suite.startswith("mxnet"):    # NOTE: a file excluded since an earlier run is counted nowhere
        merged = {k: v for k, v in merged.items() if k not in mxnet_suite.EXCLUDED_FILES}
    _dump(suite, [merged[k] for k in sorted(merged)])


def _headline():
    mxnet, d2l = load("mxnet"), load("d2l")
    summary = report.mxnet_summary(mxnet)
    summary["d2l_sections"] = len(d2l)
    summary["d2l_ok"] = sum(1 for r in d2l if r["status"] == "ok")
    v1 = load("mxnet-1.x")
    if v1:
        summary["v1"] = report.mxnet_summary(v1)
    return summary


def record_history(label):
    """Append today's headline numbers to the history, as ``label``."""
    history = load("history")
    entry = dict(_headline(), label=label, date=datetime.date.today().isoformat())
    _dump("history", history + [entry])


def _history_rows():
    yield ("| when | label | MXNet files | past import | collected | passed | % passed | "
           "D2L sections run | MXNet 1.9.1: passed / collected |")
    yield "|---|---|---:|---:|---:|---:|---:|---:|---:|"
    for h in load("history"):
        v1 = h.get("v1")
        v1_cell = f"{v1['passed']} / {v1['collected']} ({v1['percent']})" if v1 else "not run"
        yield (f"| {h['date']} | {h['label']} | {h['files']} | {h['past_import']} | "
               f"{h['collected']} | {h['passed']} | {h['percent']} | "
               f"{h['d2l_ok']}/{h['d2l_sections']} | {v1_cell} |")


def _exclusions():
    yield "| file / test | reason |"
    yield "|---|---|"
    for name, reason in sorted(mxnet_suite.EXCLUDED_FILES.items()):
        yield f"| {name} (whole file) | {reason} |"
    for name, tests in sorted(mxnet_suite.EXCLUDED_TESTS.items()):
        for test, reason in sorted(tests.items()):
            yield f"| {name}::{test} | {reason} |"


_INTRO = """# Compatibility with real MXNet code

Measured by the compatibility harness (`mxlab/compat/harness`): MXNet master's
`tests/python/unittest/*.py` with MXNet's root `conftest.py`, `tests/python/conftest.py` and
`tests/python/common`, MXNet 1.9.1's own `tests/python/unittest/*.py` (the 1.x API generation,
tag `1.9.1`; its `common.py` needs `nose`, which the `pynose` package provides), and every
in-scope D2L section's MXNet tab run as a script, all through the `mxnet` alias, one file or
section per subprocess with a timeout. Regenerate this page with

```bash
python -m mxlab.compat.harness docs --mxnet-src $MXLAB_MXNET_SRC --d2l-src $MXLAB_D2L_SRC \
    --mxnet-v1-src $MXLAB_MXNET_V1_SRC
```

(`mxnet --save` / `d2l --save` rerun single files or sections and merge them in; `docs --no-run`
re-renders). A test counts as passed only when it ran and passed; tests a file did not reach before
its timeout are "not run" and count against the percentage. Timings come from a shared 2-core
machine, so files near their timeout may finish on a quieter one.

What the harness changes, and nothing else: MXNet's seeds are fixed (`MXNET_MODULE_SEED`,
`MXNET_TEST_SEED`); before each test the previous failure's traceback is dropped, so MXNet's
leaked-array check does not charge its frames to the next test; NumPy's aliases removed in 1.24
and 2.0 (`numpy.float`, `numpy.int`, `numpy.object`, `numpy.NaN`, `numpy.Inf`, ...), which MXNet's
tests still use, name the builtins and constants again, and `numpy.quantile`/`percentile` take
their old `interpolation=` keyword (NumPy 2: `method=`); MXNet's unittests run with
`MXNET_AUTOGRAD_INPLACE_CHECK=0` (they assert MXNet's results, and MXNet does not refuse an
array written in place between record and backward; D2L runs with the check on); D2L's
`download` writes small generated files of the real format (text, zip, csv, airfoil table),
`gluon.data.vision.FashionMNIST` generates 28x28x1 uint8 images with int32 labels, and pandas
keeps text columns as `object` dtype as the D2L code expects.
"""


_EXCLUDED_INTRO = ("Files and tests that need a GPU, the network, MXNet's C API handles or a C++ "
                   "extension built with MXNet:")

_NOT_BUILT_INTRO = ("Parts of MXNet's API mxlab does not build; each raises a "
                    "`NotImplementedError` naming it:")

# NOTE: what mxlab leaves out on purpose, and why (rendered under "Excluded").
NOT_BUILT = {
    "sparse storage inside graphs (bound symbols and hybridized blocks compute sparse inputs "
    "densely and return dense outputs), `simple_bind(stype_dict=)`, sparse `NDArrayIter`, "
    "`gluon.contrib.nn.SparseEmbedding`, sparse `mx.np` arrays":
        "csr/row_sparse arrays are built for `mx.nd` (dense NumPy components; `dot`, "
        "`elemwise_*`, `add_n`, `retain`, `square_sum`, unary ops and lazy optimizer updates "
        "have sparse kernels, every other op densifies as MXNet's storage fallback does); "
        "graphs hold dense buffers",
    "`contrib.quantize`/`dequantize`, `intgemm_fully_connected`, `SyncBatchNorm(ndev>1)`, `fft`, "
    "`count_sketch`, `hawkesll`, `dgl_*`": "quantization, multi-device and specialised kernels",
    "RNN `lstm_state_clip_*`": "the fused RNN op raises for it; not built yet",
    "`mx.io.ImageRecordIter` augmentations beyond crop/resize/pad/mirror/normalise "
    "(`max_rotate_angle`, `random_resized_crop`, colour jitter, ...), `mx.io.LibSVMIter`":
        "not built yet (each raises naming the parameter); LibSVM is sparse",
    "`recordio.pack_img` byte equality": "images are encoded with Pillow, not OpenCV: the "
                                         "record layout is identical, the JPEG/PNG bytes differ",
    "`bfloat16`": "NumPy has no bfloat16; casting to it raises `NotImplementedError`",
}


_DIFFERS_INTRO = ("Where mxlab gives another answer than MXNet's tests expect, on purpose: "
                  "MXNet's result is wrong, or MXNet 2.0 (whose tests these are) changed what "
                  "1.9.1 does and mxlab keeps 1.9.1's, the release it is checked against:")

# NOTE: MXNet results that are wrong, which mxlab does not copy (each checked against 1.9.1).
DIFFERS = {
    "second derivative of `arcsinh` (test_higher_order_grad::test_arcsinh)":
        "MXNet 1.9.1 gives `+x / (x^2 + 1)^1.5`; the derivative of `1 / sqrt(x^2 + 1)` is "
        "`-x / (x^2 + 1)^1.5`, which mxlab returns",
    "`Dropout(p=1)` in training (test_operator::test_dropout)":
        "MXNet 1.9.1 returns NaN everywhere (0 times an infinite scale); every unit is dropped, "
        "so mxlab returns zeros",
    "`mx.np.array` of a float64 NumPy array (test_numpy_ndarray::test_np_get_dtype, "
    "test_gluon::test_save_load)": "MXNet 2.0 makes it float32; 1.9.1 and mxlab keep float64",
    "SGD's default learning rate, Adam's clip-then-decay order (test_optimizer::test_sparse_*)":
        "MXNet 2.0 changed them (0.1; clip after adding wd); mxlab keeps 1.9.1's (0.01; decay "
        "added before the clip), checked against 1.9.1",
    "BatchNorm's moving statistics in training":
        "MXNet 1.9.1's CPU kernel updates them in the backward pass (a training-mode forward "
        "without backward leaves them), cuDNN in the forward; mxlab updates them in the forward, "
        "on every device. After forward and backward both agree",
    "`SoftmaxOutput(out_grad=True)`'s gradient":
        "MXNet 1.9.1's CPU build multiplies it by the softmax output, whatever the head "
        "gradient; its source (and mxlab) multiplies by the head gradient, as documented",
    "`Block._children` (test_gluon_save, test_gluon::test_block_attr_regular)":
        "MXNet 2.0 keeps weak references; 1.x code and D2L use the blocks themselves, as mxlab",
}


def _table(rows, head):
    yield f"| {head} | reason |"
    yield "|---|---|"
    for part, reason in rows.items():
        yield f"| {part} | {reason} |"


def _v1_section():
    v1 = load("mxnet-1.x")
    if not v1:
        return []
    return ["## MXNet 1.9.1 unittests", "", _V1_INTRO, "", report.mxnet_tables(v1), ""]


_V1_INTRO = ("MXNet 1.9.1's own tests (tag `1.9.1`), the API generation of `mx.nd`, `mx.sym`, "
             "`Module` and Gluon 1. The exclusions above apply to the files of the same name.")


def write():
    """Render docs/compat.md; returns its path."""
    parts = [_INTRO, "## History", "", *_history_rows(), "",
             "## MXNet unittests", "", report.mxnet_tables(load("mxnet")), "",
             "### Excluded", "", _EXCLUDED_INTRO, "", *_exclusions(), "",
             _NOT_BUILT_INTRO, "", *_table(NOT_BUILT, "part"), "",
             _DIFFERS_INTRO, "", *_table(DIFFERS, "result"), "",
             *_v1_section(),
             "## D2L (MXNet tab)", "", report.d2l_tables(load("d2l")), ""]
    path = os.path.join(DOCS, "compat.md")
    write_text(path, "\n".join(parts))
    return path
