"""mx.profiler: MXNet's API over the engine event listener (aggregate tables, chrome traces)."""
import json

import pytest

import mxlab as mx
from mxlab import profiler
from mxlab.base import MXNetNotImplementedError, MXNetValueError
from mxlab.engine import Var


@pytest.fixture(params=["NaiveEngine", "ThreadedEngine"])
def clean_profiler(request, tmp_path):
    """A stopped, empty profiler writing to a temporary file, under the parametrised engine."""
    previous = mx.engine.get_engine()
    mx.engine.set_engine(request.param)
    profiler.set_config(filename=str(tmp_path / "profile.json"))
    yield tmp_path / "profile.json"
    profiler.set_state("stop")
    profiler.resume()
    profiler.dumps(reset=True)
    profiler._PROFILER.clear_trace()
    profiler._PROFILER.output_pending = False
    profiler.set_config(**profiler._DEFAULT_CONFIG)
    mx.engine.set_engine(previous)


def _push(name, count):
    for _ in range(count):
        mx.engine.push(lambda: None, [], [Var()], name)
    mx.engine.wait_all()


def _row(table, name):
    (line,) = [line for line in table.splitlines() if line.split()[:1] == [name]]
    return line.split()


def test_dumps_table_lists_ops_with_counts(clean_profiler):
    with profiler.state("run"):
        _push("my_op", 3)
        _push("other_op", 1)
    _push("not_profiled", 2)
    table = profiler.dumps()
    assert "Profile Statistics:" in table and "operator\n=================" in table
    assert "Name" in table and "Total Count" in table and "Avg Time (ms)" in table
    row = _row(table, "my_op")
    assert int(row[1]) == 3
    total, low, high, avg = map(float, row[2:])
    assert low <= avg <= high and total == pytest.approx(3 * avg, rel=1e-3, abs=1e-3)
    assert int(_row(table, "other_op")[1]) == 1
    assert "not_profiled" not in table


def test_dumps_json_sorting_and_reset(clean_profiler):
    profiler.set_state("run")
    _push("rare", 1)
    _push("frequent", 4)
    profiler.set_state("stop")
    stats = json.loads(profiler.dumps(format="json", sort_by="count", ascending=True))
    assert list(stats["Time"]["operator"]) == ["rare", "frequent"]
    assert stats["Time"]["operator"]["frequent"]["Count"] == 4
    assert set(stats["Time"]["operator"]["rare"]) == {"Count", "Total", "Min", "Max", "Avg"}
    assert stats["Unit"] == {"Time": "ms", "Memory": "kB"}
    descending = profiler.dumps(sort_by="count", reset=True)
    assert descending.index("frequent") < descending.index("rare")
    assert "frequent" not in profiler.dumps()


def test_pause_and_resume(clean_profiler):
    profiler.set_state("run")
    _push("before", 1)
    profiler.pause()
    _push("paused", 1)
    profiler.resume()
    _push("after", 1)
    profiler.set_state("stop")
    table = profiler.dumps()
    assert "before" in table and "after" in table and "paused" not in table


def test_dump_writes_a_chrome_trace(clean_profiler):
    profiler.set_state("run")
    _push("traced_op", 2)
    profiler.set_state("stop")
    profiler.dump(finished=False)
    document = json.loads(clean_profiler.read_text())
    ops = [e for e in document["traceEvents"] if e.get("name") == "traced_op"]
    assert len(ops) == 2
    for event in ops:
        assert event["ph"] == "X" and event["cat"] == "operator"
        assert event["dur"] >= 0 and event["ts"] >= 0
        assert isinstance(event["pid"], int) and isinstance(event["tid"], int)
        assert len(event["args"]["writes"]) == 1
    threads = {e["tid"]: e["args"]["name"] for e in document["traceEvents"]
               if e["name"] == "thread_name"}
    assert {e["tid"] for e in ops} <= set(threads)
    profiler.dump()
    again = json.loads(clean_profiler.read_text())
    assert len([e for e in again["traceEvents"] if e.get("name") == "traced_op"]) == 2
    profiler.dump()
    assert not [e for e in json.loads(clean_profiler.read_text())["traceEvents"] if e["ph"] == "X"]


def test_user_objects_reach_trace_and_table(clean_profiler):
    domain = profiler.Domain("my_domain")
    counter = domain.new_counter("items", 1)
    with profiler.state("run"):
        task = domain.new_task("load")
        task.start()
        counter += 2
        counter.decrement()
        domain.new_marker("checkpoint").mark("thread")
        task.stop()
        with profiler.Event("step"):
            pass
    profiler.dump()
    events = json.loads(clean_profiler.read_text())["traceEvents"]
    counts = [e["args"]["items"] for e in events if e["ph"] == "C"]
    assert counts == [3, 2]
    assert [(e["name"], e["s"]) for e in events if e["ph"] == "i"] == [("checkpoint", "t")]
    assert {e["name"] for e in events if e["ph"] == "X"} == {"load", "step"}
    table = profiler.dumps()
    assert "my_domain" in table and int(_row(table, "load")[1]) == 1 and "Event" in table


def test_bad_arguments_are_errors(clean_profiler):
    with pytest.raises(MXNetValueError, match="profile_everything"):
        profiler.set_config(profile_everything=True)
    with pytest.raises(MXNetValueError, match="go"):
        profiler.set_state("go")
    with pytest.raises(MXNetValueError, match="sort_by"):
        profiler.dumps(sort_by="median")
    with pytest.raises(MXNetValueError, match="format"):
        profiler.dumps(format="xml")
    with pytest.raises(MXNetNotImplementedError, match="server"):
        profiler.set_state("run", profile_process="server")
    with pytest.raises(MXNetValueError, match="stop"):
        profiler.Task(profiler.Domain("d"), "t").stop()
    with pytest.warns(UserWarning, match="profile_memory"):
        profiler.set_config(profile_memory=True)


def test_profiles_array_ops(clean_profiler):
    a = mx.np.array([1.0, 2.0, 3.0])
    a.wait_to_read()
    with profiler.state("run"):
        b = mx.np.tanh(a * a)
        b.wait_to_read()
    rows = [row.split() for row in profiler.dumps().splitlines()[7:] if row.strip()]
    counts = {row[0]: int(row[1]) for row in rows}
    assert counts.pop("tanh") == 1
    assert list(counts.values()) == [1]  # the multiply, whatever its registered name
