"""The benchmark runner: a --quick run of one cheap workload writes a table and well-formed JSON."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "out.json"
    path_var = os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))
    env = dict(os.environ, PYTHONPATH=path_var)
    env.pop("MXLAB_MXNET_PYTHON", None)
    argv = [sys.executable, "-m", "benchmarks", "chain64", "--quick", "--repeats", "2",
            "--only", "numpy,mxlab", "--json", str(out)]
    proc = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    with open(out) as f:
        return proc.stdout, json.load(f)


def test_json_schema(quick_run):
    _, record = quick_run
    assert record["schema"] == 1
    assert record["workloads"] == ["chain64"]
    assert record["options"] == {"repeats": 2, "quick": True, "only": ["numpy", "mxlab"]}
    assert {"python", "numpy", "cpu_count", "threads"} <= set(record["machine"])
    for row in record["rows"]:
        assert set(row) == {"workload", "case", "impl", "value", "unit", "note", "spread"}
        assert row["value"] is None or row["value"] > 0
        assert row["value"] is None or row["spread"] >= 0
        assert row["value"] is not None or row["note"]
    impls = {row["impl"] for row in record["rows"]}
    assert {"numpy naive", "numpy prealloc", "mxlab imperative"} <= impls
    assert not any(impl.startswith(("torch", "jax", "mxnet")) for impl in impls)


def test_targets_are_ratios_of_rows(quick_run):
    _, record = quick_run
    by_impl = {row["impl"]: row["value"] for row in record["rows"]}
    assert {t["status"] for t in record["targets"]} <= {"met", "MISSED", "n/a"}
    assert all(not t["cross_process"] for t in record["targets"])
    static = next(t for t in record["targets"] if "mxlab static / numpy naive" in t["target"])
    if by_impl.get("mxlab static") is None:
        assert static["status"] == "n/a" and static["ratio"] is None
    else:
        assert static["ratio"] == pytest.approx(by_impl["mxlab static"] / by_impl["numpy naive"])


def test_table_printed(quick_run):
    stdout, _ = quick_run
    assert "chain64 (64,)" in stdout
    assert "numpy naive" in stdout and "targets" in stdout


def test_target_evaluation():
    from benchmarks.run import Target, evaluate_targets
    from benchmarks.timing import Row
    rows = [Row("engine", "c", "NaiveEngine", 200.0), Row("engine", "c", "ThreadedEngine", 100.0),
            Row("memory", "chain 100x", "mxlab recompute", 30.0, "MB")]
    targets = [Target("engine", "ThreadedEngine", "NaiveEngine", 1.7, speedup=True),
               Target("memory", "mxlab recompute", 25.0, 1.0, case_prefix="chain")]
    speedup, memory = evaluate_targets(rows, targets)
    assert (speedup["ratio"], speedup["status"], speedup["cross_process"]) == (2.0, "met", False)
    assert (memory["ratio"], memory["status"]) == (1.2, "MISSED")


def test_cross_process_targets_are_marked():
    from benchmarks.run import Target, evaluate_targets, format_table
    from benchmarks.timing import OWN_PROCESS, Row
    rows = [Row("mlp", "b", "mxlab imperative", 300.0),
            Row("mlp", "b", "mxnet imperative", 200.0, note=OWN_PROCESS),
            Row("mlp", "b", "torch eager", None, note="n/a (torch not installed)")]
    targets = [Target("mlp", "mxlab imperative", "mxnet imperative", 1.0),
               Target("mlp", "mxlab imperative", "torch eager", 1.0)]
    mxnet, torch = evaluate_targets(rows, targets)
    assert (mxnet["ratio"], mxnet["status"], mxnet["cross_process"]) == (1.5, "MISSED", True)
    assert (torch["ratio"], torch["status"]) == (None, "n/a")
    table = format_table(rows, [mxnet, torch])
    assert "n/a (torch not installed)" in table and "* one side ran in its own process" in table


@pytest.mark.parametrize("static_us, exit_code", [(100.0, None), (300.0, 1)])
def test_check_exits_nonzero_on_a_missed_target(monkeypatch, tmp_path, static_us, exit_code):
    from benchmarks import run
    from benchmarks.timing import Row

    def fake_mlp(opts):
        """fake workload: mxlab static against torch eager; no other peer installed."""
        return [Row("mlp", "b", "mxlab static", static_us), Row("mlp", "b", "torch eager", 200.0),
                Row("mlp", "b", "mxnet static", None, note="n/a (unset)")]
    monkeypatch.setattr(run, "WORKLOADS", {"mlp": fake_mlp})
    argv = ["mlp", "--check", "--json", str(tmp_path / "out.json")]
    if exit_code is None:
        assert run.main(argv)["targets"]   # n/a targets do not fail the check
        return
    with pytest.raises(SystemExit) as raised:
        run.main(argv)
    assert raised.value.code == exit_code
    assert run.main(argv[:1] + argv[2:])["targets"]   # without --check the same run returns


def test_remote_worker_joins_every_round():
    from benchmarks.timing import OWN_PROCESS, Candidate, RemoteWorker, time_interleaved
    code = ("from benchmarks.timing import Candidate, serve; "
            "serve(lambda r: [Candidate(r['name'], lambda: (lambda: None)), "
            "Candidate('broken', lambda: 1 / 0)])")
    remote = RemoteWorker([sys.executable, "-c", code], {"name": "remote noop"})
    try:
        rows = time_interleaved("demo", "c", [Candidate("local noop", lambda: (lambda: None))], 3,
                                remote=remote)
    finally:
        remote.close()
    by_impl = {row.impl: row for row in rows}
    assert list(by_impl) == ["local noop", "broken", "remote noop"]
    assert by_impl["remote noop"].value > 0 and by_impl["remote noop"].note == OWN_PROCESS
    assert by_impl["broken"].value is None and "ZeroDivisionError" in by_impl["broken"].note


def test_cpu_clock_counts_work_not_waiting(monkeypatch):
    """``MXLAB_BENCH_CLOCK=cpu``: rounds read CPU time, so a step that sleeps costs ~nothing."""
    import time

    from benchmarks.timing import CLOCK_ENV, clock_fn, time_round
    monkeypatch.setenv(CLOCK_ENV, "cpu")
    assert clock_fn() is time.process_time
    assert time_round({"sleep": lambda: time.sleep(0.05)}, 1)["sleep"] < 0.02
    monkeypatch.delenv(CLOCK_ENV)
    assert clock_fn() is time.perf_counter
    assert time_round({"sleep": lambda: time.sleep(0.05)}, 1)["sleep"] >= 0.05
