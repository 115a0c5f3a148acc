"""Differential fuzzing: random op DAGs give the imperative NaiveEngine answer on every path
(hybridize, static, fuse, default with random op lists) and engine, over repeated calls, a new
shape and re-read outputs; every forward plan passes the poisoned-buffer verifier. An input
written in place between record and backward makes backward refuse, or (written where no gradient
reads it) changes no gradient."""
import json
import os
import time

import pytest
from hypothesis import given, strategies as st

from conftest import fuzz_settings
from mxlab.ops.registry import has_op
from paths import (ENGINES, backend_paths, engine, reference_runs, run_inplace_write, run_path,
                   standard_paths, traced_op_names)
from programs import CATALOG, registry_ops, programs

_CASES = {"count": 0}


def _report(start):
    """Cases run and seconds so far, to MXLAB_FUZZ_REPORT (JSON) when set."""
    report = {"cases": _CASES["count"], "seconds": round(time.perf_counter() - start, 1)}
    if os.environ.get("MXLAB_FUZZ_REPORT"):
        with open(os.environ["MXLAB_FUZZ_REPORT"], "w", encoding="utf-8") as out:
            json.dump(report, out)
    return report


def check_program(program, data, seed):
    """Every path under a drawn engine against the imperative NaiveEngine reference."""
    _CASES["count"] += 1
    if _CASES["count"] % 50 == 0 and "start" in _CASES:
        _report(_CASES["start"])
    reference = reference_runs(program, seed)
    op_names = traced_op_names(program)
    chosen = data.draw(st.lists(st.sampled_from(op_names), unique=True, min_size=1),
                       label="default backend op_names")
    statics = [data.draw(st.booleans(), label=f"{name} static") for name in ("fuse", "default")]
    paths = standard_paths() + backend_paths(chosen, *statics)
    with engine(data.draw(st.sampled_from(ENGINES), label="engine")):
        for path in paths:
            run_path(program, path, seed, reference)
        if program.floating:
            written = data.draw(st.integers(0, len(program.shapes) - 1), label="written input")
            for path in standard_paths():
                run_inplace_write(program, path, seed, reference, written)


def test_catalog_runs_registry_ops():
    assert all(has_op(name) for name in registry_ops())
    assert {spec.arity for spec in CATALOG.values()} == {1, 2}


@fuzz_settings("quick")
@given(program=programs(), data=st.data(), seed=st.integers(0, 2 ** 16))
def test_paths_agree_quick(program, data, seed):
    check_program(program, data, seed)


@pytest.mark.slow
def test_paths_agree_slow():
    """>= 10,000 cases (MXLAB_FUZZ_EXAMPLES); count and time go to MXLAB_FUZZ_REPORT if set."""
    _CASES["count"] = 0
    start = _CASES["start"] = time.perf_counter()

    @fuzz_settings("slow")
    @given(program=programs(), data=st.data(), seed=st.integers(0, 2 ** 16))
    def run(program, data, seed):
        check_program(program, data, seed)

    run()
    print(f"differential fuzzing: {_report(start)}")
