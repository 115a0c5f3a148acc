"""Timing and the result records every workload returns.

The machine is shared and noisy, so a figure is never one run: candidates of one case are timed
*interleaved* (one repeat of each in turn, ``repeats`` times, after ``warmup`` untimed calls) and
each reports the median seconds per call. Load that comes and goes then hits every candidate alike,
and the ratios between them -- the only figures the table compares -- stay stable.
"""
import dataclasses
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

__all__ = ["Unavailable", "Row", "Candidate", "prepare", "time_round", "time_interleaved",
           "clock_fn", "RemoteWorker", "serve", "run_json_subprocess", "python_worker",
           "why_missing", "NOT_BUILT", "OWN_PROCESS", "ROOT"]

NOT_BUILT = "n/a (not built)"
OWN_PROCESS = "own process"   # the note of rows a RemoteWorker timed in its own process
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Unavailable(Exception):
    """Raised by a candidate's set-up when it cannot run here; the message is shown in the table."""


@dataclasses.dataclass
class Row:
    """One measured figure: ``value`` in ``unit`` (``"us"`` per call, ``"MB"``), or None with a
    ``note`` saying why it is missing. ``spread``: interquartile range / median of the timed
    repeats (how noisy the figure is)."""
    workload: str
    case: str
    impl: str
    value: float = None
    unit: str = "us"
    note: str = ""
    spread: float = None


@dataclasses.dataclass
class Candidate:
    """An implementation to time: ``setup()`` returns the zero-argument step to call, or raises
    :class:`Unavailable` (or ImportError) when it cannot run here."""
    impl: str
    setup: object


def why_missing(exc):
    """The table text for a candidate whose set-up or warm-up raised ``exc``."""
    if isinstance(exc, Unavailable):
        return str(exc)
    if isinstance(exc, ImportError):
        return f"n/a ({exc.name or exc} not installed)"
    if isinstance(exc, NotImplementedError):
        return f"{NOT_BUILT[:-1]}: {str(exc)[:60]})"
    return f"error: {type(exc).__name__}: {str(exc)[:60]}"


def prepare(candidates, warmup):
    """Set up and warm up each candidate; returns ({impl: step}, {impl: why it is missing})."""
    steps, missing = {}, {}
    for cand in candidates:
        try:
            step = cand.setup()
            for _ in range(warmup):
                step()
        except Exception as exc:  # noqa: BLE001 - shown in the table instead of stopping the run
            missing[cand.impl] = why_missing(exc)
        else:
            steps[cand.impl] = step
    return steps, missing


def time_round(steps, number):
    """One interleaving round: seconds per call of each step, ``number`` calls each, in order."""
    times = {}
    clock = clock_fn()
    for impl, step in steps.items():
        start = clock()
        for _ in range(number):
            step()
        times[impl] = (clock() - start) / number
    return times


CLOCK_ENV = "MXLAB_BENCH_CLOCK"


def clock_fn():
    """The clock of every round: wall time, or with ``MXLAB_BENCH_CLOCK=cpu`` the process's CPU
    time (all its threads: a peer's engine threads count), which load from other processes does
    not inflate. NOTE: on the shared 2-core machine under load ~8 each step's wall time was ~3x its
    CPU time and the ratios swung by 2x between runs; the env reaches the MXNet worker too."""
    return time.process_time if os.environ.get(CLOCK_ENV) == "cpu" else time.perf_counter


def time_interleaved(workload, case, candidates, repeats=15, number=1, warmup=3, remote=None):
    """Median time per call of each candidate (µs), repeats interleaved; a list of :class:`Row`.

    ``remote``: a :class:`RemoteWorker` whose candidates (set up in its own process) take part in
    every round, after the local ones; its rows come last, noted :data:`OWN_PROCESS`.

    Examples
    --------
    >>> from benchmarks.timing import Candidate, time_interleaved
    >>> rows = time_interleaved("demo", "noop", [Candidate("pass", lambda: (lambda: None))], 3)
    >>> rows[0].impl, rows[0].value > 0
    ('pass', True)
    """
    steps, missing = prepare(candidates, warmup)
    remote_missing = remote.setup(number, warmup) if remote else {}
    samples = {}
    for _ in range(repeats):
        times = time_round(steps, number)
        if remote:
            times.update(remote.round())
        for impl, seconds in times.items():
            samples.setdefault(impl, []).append(seconds)
    rows = [Row(workload, case, c.impl, note=missing[c.impl]) for c in candidates
            if c.impl in missing]
    rows += [Row(workload, case, impl, note=note) for impl, note in remote_missing.items()]
    for impl, values in samples.items():
        rows.append(Row(workload, case, impl, statistics.median(values) * 1e6,
                        note=OWN_PROCESS if impl not in steps else "", spread=_spread(values)))
    order = [c.impl for c in candidates]
    return sorted(rows, key=lambda r: order.index(r.impl) if r.impl in order else len(order))


def _spread(values):
    if len(values) < 2:
        return None
    low, median, high = statistics.quantiles(values, n=4)
    return (high - low) / median


def _subprocess_env(env):
    path = os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))
    return dict(os.environ, PYTHONPATH=path, **(env or {}))


class RemoteWorker:
    """Candidates living in another process (another Python: real MXNet's venv), timed round by
    round with the local ones so that machine load hits both alike.

    ``argv`` starts a worker speaking one JSON object per line on stdin/stdout (see
    :func:`serve`); its first request sets up the candidates named by ``request``.
    """

    def __init__(self, argv, request, env=None):
        self.argv, self.request, self.env = [str(a) for a in argv], request, env
        self.proc = None
        self._stderr = None

    def _call(self, message):
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()
        for line in self.proc.stdout:
            if line.startswith("{"):
                return json.loads(line)
        self._stderr.seek(0)
        tail = (self._stderr.read().strip().splitlines() or ["no output"])[-1]
        raise Unavailable(f"n/a (worker failed: {tail[:80]})")

    def setup(self, number, warmup):
        """Start the worker and set up its candidates; returns {impl: why missing}."""
        self._stderr = tempfile.TemporaryFile("w+")
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._stderr, text=True, cwd=ROOT,
                                     env=_subprocess_env(self.env))
        reply = self._call(dict(self.request, op="setup", number=number, warmup=warmup))
        return reply["missing"]

    def round(self):
        """One round of the worker's candidates: {impl: seconds per call}."""
        return self._call({"op": "round"})

    def close(self):
        if self.proc is not None:
            self.proc.stdin.close()
            self.proc.wait(timeout=60)
            self._stderr.close()
            self.proc = None


def serve(make_candidates, stdin=sys.stdin, stdout=sys.stdout):
    """The worker side of :class:`RemoteWorker`: ``make_candidates(request)`` gives the list of
    :class:`Candidate` for a setup request; each ``round`` request times them once."""
    steps, number = {}, 1
    for line in stdin:
        request = json.loads(line)
        if request["op"] == "setup":
            number = request["number"]
            steps, missing = prepare(make_candidates(request), request["warmup"])
            reply = {"missing": missing}
        else:
            reply = time_round(steps, number)
        stdout.write(json.dumps(reply) + "\n")
        stdout.flush()


def run_json_subprocess(argv, env=None, timeout=900):
    """Run ``argv`` from the repository root (a worker printing one JSON object on its last stdout
    line); returns the object. Raises :class:`Unavailable` with the worker's last error line when it
    fails.
    """
    full_env = _subprocess_env(env)
    try:
        proc = subprocess.run([str(a) for a in argv], capture_output=True, text=True,
                              env=full_env, timeout=timeout, cwd=ROOT)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise Unavailable(f"n/a ({type(exc).__name__})") from exc
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise Unavailable(f"n/a (worker failed: {tail[:80]})")
    return json.loads(lines[-1])


def python_worker(module, *args):
    """argv running ``benchmarks.<module>`` with this interpreter, from the repository root."""
    return [sys.executable, "-m", f"benchmarks.{module}", *args]
