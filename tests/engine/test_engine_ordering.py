"""Dependency order in the threaded engine: per-var push order, parallel reads, exclusive writes."""
import random
import threading

import numpy
import pytest

import mxlab as mx
from mxlab.engine import Var


def _random_program(num_vars, num_ops, seed):
    """A list of (reads, write) index pairs: each op reads up to three vars and writes one."""
    rng = random.Random(seed)
    program = []
    for _ in range(num_ops):
        write = rng.randrange(num_vars)
        reads = rng.sample([i for i in range(num_vars) if i != write], rng.randint(0, 3))
        program.append((reads, write))
    return program


def _step(values, reads, write, k):
    """The op's effect: depends on what it reads, what it overwrites and its position."""
    mixed = sum(values[i] * (j + 2) for j, i in enumerate(reads))
    return (values[write] * 3 + mixed + k) % 1000003


def _run_sequential(program, num_vars):
    values = [1] * num_vars
    for k, (reads, write) in enumerate(program):
        values[write] = _step(values, reads, write, k)
    return values


@pytest.mark.parametrize("seed", [0, 1])
def test_random_read_write_stress_matches_sequential(threaded, seed):
    num_vars, program = 6, _random_program(6, 400, seed)
    variables = [Var() for _ in range(num_vars)]
    values = [1] * num_vars

    def make_op(reads, write, k):
        def op():
            # NOTE: a little numpy work releases the GIL, so other workers interleave with this op.
            numpy.sort(numpy.arange(200)[::-1])
            values[write] = _step(values, reads, write, k)
        return op

    for k, (reads, write) in enumerate(program):
        read_vars = [variables[i] for i in reads]
        threaded.push(make_op(reads, write, k), read_vars, [variables[write]], f"op{k}")
    threaded.wait_all()
    assert values == _run_sequential(program, num_vars)
    writes_per_var = [sum(1 for _, w in program if w == i) for i in range(num_vars)]
    assert [v.version for v in variables] == writes_per_var


def test_every_read_sees_the_writes_pushed_before_it(threaded):
    """From the event log: each op reads exactly the version made by the writes pushed before it."""
    program = _random_program(4, 300, seed=7)
    variables = [Var() for _ in range(4)]
    for k, (reads, write) in enumerate(program):
        threaded.push(lambda: None, [variables[i] for i in reads], [variables[write]], f"op{k}")
    threaded.wait_all()
    events = {e.name: e for e in threaded.event_log.events()}
    written = [0] * 4
    for k, (reads, write) in enumerate(program):
        event = events[f"op{k}"]
        assert event.reads == tuple((variables[i].id, written[i]) for i in reads)
        written[write] += 1
        assert event.writes == ((variables[write].id, written[write]),)


def test_two_reads_of_one_var_run_in_parallel(threaded):
    """Both readers must be inside their functions at once, or the barrier breaks (the op fails)."""
    var, barrier = Var(), threading.Barrier(2, timeout=10)
    for name in ("read_a", "read_b"):
        threaded.push(barrier.wait, [var], [], name)
    threaded.wait_all()
    a, b = sorted(threaded.event_log.events(), key=lambda e: e.name)
    assert a.error is None and b.error is None
    assert a.start < b.end and b.start < a.end
    assert a.thread != b.thread


def test_write_waits_for_earlier_reads_and_later_reads_wait_for_it(threaded):
    var, gate, order = Var(), threading.Event(), []
    threaded.push(lambda: (gate.wait(10), order.append("read1")), [var], [], "read1")
    threaded.push(lambda: order.append("write"), [], [var], "write")
    threaded.push(lambda: order.append("read2"), [var], [], "read2")
    other = Var()
    threaded.push(lambda: order.append("other"), [], [other], "other")
    threaded.wait_for_var(other)
    assert order == ["other"]
    assert var.version == 0
    gate.set()
    threaded.wait_all()
    assert order == ["other", "read1", "write", "read2"]
    events = {e.name: e for e in threaded.event_log.events()}
    assert events["write"].start >= events["read1"].end
    assert events["read2"].start >= events["write"].end
    assert events["read2"].reads == ((var.id, 1),)


def test_an_op_reading_and_writing_one_var_counts_it_once(threaded):
    var, calls = Var(), []
    threaded.push(lambda: calls.append(1), [var, var], [var, var], "rw")
    threaded.wait_for_var(var)
    assert calls == [1] and var.version == 1
    (event,) = threaded.event_log.events()
    assert event.reads == () and event.writes == ((var.id, 1),)


def test_wait_for_var_waits_only_for_that_var(threaded):
    slow, fast, gate = Var(), Var(), threading.Event()
    threaded.push(lambda: gate.wait(10), [], [slow], "slow")
    threaded.push(lambda: None, [], [fast], "fast")
    threaded.wait_for_var(fast)
    assert fast.version == 1 and slow.version == 0
    gate.set()
    threaded.wait_for_var(slow)
    assert slow.version == 1


def test_wait_all_waits_for_every_pushed_op(threaded):
    gate, done = threading.Event(), []
    for i in range(20):
        threaded.push(lambda i=i: (gate.wait(10), done.append(i)), [], [Var()], "gated")
    gate.set()
    threaded.wait_all()
    assert sorted(done) == list(range(20))


def test_an_op_may_wait_on_a_var_without_deadlocking_the_pool():
    """One worker, whose op waits for a later-pushed op: the waiting worker runs it meanwhile."""
    engine = mx.engine.ThreadedEngine(event_log=mx.engine.EventLog(), num_workers=1)
    target, gate, seen = Var(), threading.Event(), []

    def waiter():
        gate.wait(10)
        engine.wait_for_var(target)
        seen.append(target.version)

    engine.push(waiter, [], [Var()], "waiter")
    engine.push(lambda: None, [], [target], "producer")
    gate.set()
    engine.wait_all()
    engine.shutdown()
    assert seen == [1]


def test_bulk_runs_consecutive_pushes_as_one_task(threaded):
    var, out = Var(), []
    assert threaded.set_bulk_size(4) == 0
    for i in range(6):
        threaded.push(lambda i=i: out.append(i), [], [var], f"op{i}")
    threaded.wait_for_var(var)
    assert threaded.set_bulk_size(0) == 4
    assert out == list(range(6)) and var.version == 6
    bulks = [e.bulk for e in sorted(threaded.event_log.events(), key=lambda e: e.push_seq)]
    first = min(e.push_seq for e in threaded.event_log.events())
    # NOTE: four ops filled one bulk; the wait flushed the remaining two as a second bulk.
    assert bulks == [first] * 4 + [first + 4] * 2


def test_worker_count_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("MXNET_CPU_WORKER_NTHREADS", "3")
    engine = mx.engine.ThreadedEngine()
    assert engine.num_workers == 3
    engine.push(lambda: None, [], [Var()], "start")
    engine.wait_all()
    assert len(engine._workers) == 3
    engine.shutdown()
    assert engine._workers == []


def test_kernels_get_the_pushing_threads_mode_as_op_context():
    """Dropout reads ``ctx.is_train``, fixed when the op is pushed: a worker thread computes with
    the pusher's mode, though the engine copies no thread-local flags."""
    previous = mx.engine.get_engine()
    engine = mx.engine.set_engine("ThreadedEngine")
    try:
        x = mx.nd.ones((4,))
        with mx.autograd.train_mode():
            dropped = mx.nd.Dropout(x, p=1.0)
        kept = mx.nd.Dropout(x, p=1.0)
        mx.engine.wait_all()
        assert dropped.asnumpy().tolist() == [0.0] * 4
        assert kept.asnumpy().tolist() == [1.0] * 4
        threads = {e.thread for e in engine.event_log.events() if e.name == "Dropout"}
    finally:
        mx.engine.set_engine(previous)
    assert threads and all(t.startswith("ThreadedEngine-worker") for t in threads)


def test_inline_pushes_inside_an_op_do_not_wait_behind_later_ops(threaded):
    """An op running a private graph (a subgraph op) pushes its inner ops and waits for them; an
    op pushed meanwhile that waits for the outer one must not stand in their way (deadlock)."""
    outer_out, shared, inner_out = Var(), Var(), Var()
    later_pushed, finished, order = threading.Event(), threading.Event(), []

    def outer():
        later_pushed.wait()
        with threaded.inline():   # NOTE: queued, "inner" would wait behind "later" on ``shared``
            threaded.push(lambda: order.append("inner"), [], [shared, inner_out], "inner")
            threaded.wait_for_var(inner_out)
        order.append("outer")

    threaded.push(outer, [], [outer_out], "outer")
    threaded.push(lambda: order.append("later"), [outer_out], [shared], "later")
    later_pushed.set()
    threading.Thread(target=lambda: (threaded.wait_all(), finished.set()), daemon=True).start()
    assert finished.wait(timeout=30), f"deadlock: ran {order}"
    assert order == ["inner", "outer", "later"]
