"""MXNet's ``tests/python/unittest/*.py`` run through the alias, one file per pytest subprocess.

MXNet's root ``conftest.py`` (seeds, ``waitall`` between modules) and ``tests/python/conftest.py``
(the leaked-array check) apply, as do ``tests/python/common`` and the unittest ``common.py``.
Either generation's tree works: master's (pytest fixtures) or a 1.x release's (``@with_seed``
and nose helpers, which need the ``pynose`` package); :func:`suite_name` keeps their results apart.
"""
import collections
import concurrent.futures
import glob
import json
import os
import re
import tempfile

from . import PYTHON, run_with_timeout, subprocess_env

__all__ = ["EXCLUDED_FILES", "EXCLUDED_TESTS", "release", "run_file", "run_suite", "suite_name",
           "unittest_files"]

# Files that need what mxlab has not and will not have: a GPU, the network, MXNet's C API or a
# C++ extension built with MXNet. Counted nowhere, listed in docs/compat.md with the reason.
EXCLUDED_FILES = {
    "test_contrib_intgemm.py": "needs MXNet built with the intgemm C++ library (USE_INTGEMM)",
    "test_tvm_op.py": "needs MXNet built with TVM operators (USE_TVM_OP)",
    "test_extensions.py": "loads C++ custom-op/pass libraries compiled against MXNet's C API",
    "test_ffi_container.py": "tests MXNet's C++ FFI containers (mxnet._ffi, C API handles)",
    "test_subgraph_op.py": "drives subgraph properties through the C API (_LIB, SymbolHandle)",
    "test_image.py": "every test reads images downloaded from repo.mxnet.io (network)",
    "test_contrib_gluon_data_vision.py": "every test reads images downloaded from repo.mxnet.io "
                                         "(network)",
    "test_numpy_contrib_gluon_data_vision.py": "every test reads images downloaded from "
                                               "repo.mxnet.io (network)",
    "test_predictor.py": "MXNet 1.x's C predict API (amalgamation's mxnet.predictor over _LIB)",
}

# Single tests that need a C-API handle or a build option, deselected with the reason.
_CPP_DATA = ("compares a dataset or batchify function with its C++ twin (__mx_handle__, "
             "MXNet 2.0's C++ data pipeline)")
_NETWORK = "downloads its data (MNIST, CIFAR-10, LibSVM or test images) from the network"
EXCLUDED_TESTS = {
    "test_io.py": dict.fromkeys(
        ("test_MNISTIter", "test_Cifar10Rec", "test_inter_methods_in_augmenter",
         "test_image_iter_exception", "test_LibSVMIter", "test_ImageRecordIter_seed_augmentation"),
        _NETWORK),
    "test_contrib_io.py": {"test_contrib_DataLoaderIter": _NETWORK},
    "test_gluon_model_zoo.py": {"test_parallel_download": "downloads model files (network)"},
    "test_engine.py": {
        "test_engine_openmp_after_fork": "calls libmxnet's OpenMP through mx.base._LIB",
    },
    "test_gluon_data.py": dict.fromkeys(
        ("test_recordimage_dataset_handle", "test_datasets_handles",
         "test_image_folder_dataset_handle", "test_image_list_dataset_handle",
         "test_dataset_filter_handle", "test_dataset_shard_handle", "test_dataset_take_handle",
         "test_mx_datasets_handle", "test_batchify_stack", "test_batchify_pad",
         "test_batchify_group"), _CPP_DATA) | dict.fromkeys(
        ("test_recordimage_dataset", "test_recordimage_dataset_with_data_loader_multiworker",
         "test_datasets", "test_image_folder_dataset", "test_image_list_dataset",
         "test_mx_data_loader", "test_mx_data_loader_nopython"), _NETWORK),
}

# MXNet's environment knobs that make the runs reproducible.
_SEEDS = {"MXNET_MODULE_SEED": "1", "MXNET_TEST_SEED": "1"}
# NOTE: MXNet's own tests assert MXNet's results, and MXNet differentiates with a saved array
#   written in place after record silently; mxlab refuses that by default (D2L runs keep it on).
_MXNET_SEMANTICS = {"MXNET_AUTOGRAD_INPLACE_CHECK": "0"}


def release(src):
    """The MXNet version a checkout holds (``python/mxnet/libinfo.py``), or None if it has none."""
    path = os.path.join(src, "python", "mxnet", "libinfo.py")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            found = re.search(r'^__version__\s*=\s*["\']([^"\']+)', f.read(), re.M)
        if found:
            return found.group(1)
    return None


def suite_name(src):
    """``mxnet-1.x`` for a 1.x release's tests, ``mxnet`` for master's (the saved results' name)."""
    version = release(src)
    return "mxnet-1.x" if version and version.startswith("1.") else "mxnet"


def unittest_files(src):
    """Every ``test_*.py`` under ``<src>/tests/python/unittest``, sorted."""
    return sorted(glob.glob(os.path.join(src, "tests", "python", "unittest", "test_*.py")))


def _pytest_command(src, path):
    cmd = [PYTHON, "-m", "pytest", "-q", "-p", "mxlab.compat.pytest_plugin",
           "-p", "mxlab.compat.harness.recorder", "-p", "no:cacheprovider",
           "-c", os.path.join(src, "pytest.ini"), "--rootdir", src, "-o", "addopts=",
           "-p", "no:warnings", path]   # NOTE: warnings reach tests that record them
    base = os.path.basename(path)
    for nodeid in EXCLUDED_TESTS.get(base, {}):
        cmd += ["--deselect", f"{os.path.relpath(path, src)}::{nodeid}"]   # NOTE: as pytest ids
    return cmd


def run_file(src, path, timeout):
    """Run one unittest file; returns its result dict (counts, per-test outcomes, causes)."""
    with tempfile.TemporaryDirectory(prefix="mxlab-harness-") as work:
        log = os.path.join(work, "results.jsonl")
        env = subprocess_env(MXLAB_HARNESS_LOG=log, **_SEEDS, **_MXNET_SEMANTICS)
        env.pop("PYTHONWARNINGS")   # NOTE: default filters, as tests recording warnings expect
        code, output, seconds = run_with_timeout(_pytest_command(src, path), timeout, work, env)
        records = _read_records(log)
    result = summarize(records)
    result.update(file=os.path.basename(path), seconds=round(seconds, 1),
                  timed_out=code is None, returncode=code)
    if code not in (0, 1, None) and not records:
        result["crash"] = output.strip().splitlines()[-1:] or ["no output"]
    return result


def _read_records(log):
    if not os.path.exists(log):
        return []
    with open(log, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _final_outcome(phases):
    """One test's outcome from its setup/call/teardown phases (MXNet's counting, like pytest's)."""
    by_when = {p["when"]: p for p in phases}
    setup, call = by_when.get("setup"), by_when.get("call")
    if setup and setup["outcome"] == "failed":
        return "errors", setup.get("message", "")
    if setup and setup["outcome"] == "skipped":
        return "skipped", setup.get("message", "")
    if call is None:
        return "errors", "did not finish (file timed out or crashed)"
    if call.get("xfail"):
        return ("skipped", "xfail") if call["outcome"] == "skipped" else ("passed", "")
    if call["outcome"] != "passed":
        return ("failed" if call["outcome"] == "failed" else "skipped"), call.get("message", "")
    teardown = by_when.get("teardown")
    if teardown and teardown["outcome"] == "failed":
        return "errors", teardown.get("message", "")
    return "passed", ""


def summarize(records):
    """Counts and per-test outcomes from a file's recorder lines."""
    phases = collections.defaultdict(list)
    collected, collect_errors = 0, []
    for rec in records:
        if rec["kind"] == "collected":
            collected = rec["count"]
        elif rec["kind"] == "collect_error":
            collect_errors.append(rec["message"])
        else:
            phases[rec["nodeid"]].append(rec)
    tests = {nodeid: _final_outcome(p) for nodeid, p in phases.items()}
    counts = collections.Counter(outcome for outcome, _ in tests.values())
    return {"collected": collected, "passed": counts["passed"], "failed": counts["failed"],
            "errors": counts["errors"], "skipped": counts["skipped"],
            "not_run": max(collected - len(tests), 0), "import_error": collect_errors[0]
            if collect_errors else None,
            "causes": [msg for outcome, msg in tests.values() if outcome in ("failed", "errors")],
            "skip_reasons": [msg for outcome, msg in tests.values() if outcome == "skipped"]}


def run_suite(src, files=None, timeout=300, progress=print, jobs=1):
    """Run the chosen (default: all not excluded) unittest files, ``jobs`` at a time; a list of
    result dicts in file order."""
    paths = unittest_files(src)
    if files:
        wanted = {f if f.endswith(".py") else f + ".py" for f in files}
        paths = [p for p in paths if os.path.basename(p) in wanted]
    paths = [p for p in paths if os.path.basename(p) not in EXCLUDED_FILES]

    def run(path):
        result = run_file(src, path, timeout)
        progress(f"{result['file']:45s} {result['passed']:5d}/{result['collected']:<5d} "
                 f"{result['seconds']:7.1f}s" + (" TIMEOUT" if result["timed_out"] else ""))
        return result

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(jobs, 1)) as pool:
        return list(pool.map(run, paths))
