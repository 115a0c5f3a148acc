"""Run the benchmarks, print one table and write the figures as JSON.

Usage::

    python -m benchmarks                      # every workload (several minutes)
    python -m benchmarks mlp chain64 --quick  # some workloads, fewer repeats and smaller cases
    python -m benchmarks --list
    python -m benchmarks mlp --check          # exit status 1 when a target is missed

Every figure the table compares is a ratio of two figures measured in this run: times (µs per step)
are medians over ``--repeats`` interleaved calls after warm-up (see :mod:`benchmarks.timing`),
memory (MB) is the planned intermediate bytes. Real MXNet rows come from their own process, timed
in the same rounds (targets using them are marked ``*``). ``MXLAB_BENCH_CLOCK=cpu`` times each
process's CPU seconds instead of wall time (for a loaded machine). Rows that cannot run here (an
mxlab part not built yet, PyTorch/JAX not installed, ``MXLAB_MXNET_PYTHON`` unset) show why
instead of a number. JSON goes to ``benchmarks/results/<UTC timestamp>.json`` unless
``--json PATH`` says otherwise.
"""
import argparse
import dataclasses
import datetime
import json
import os
import platform
import sys

if __package__ in (None, ""):   # ``python benchmarks/run.py``: make the package importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    __package__ = "benchmarks"
    import benchmarks
    benchmarks.pin_threads()

from .timing import OWN_PROCESS, ROOT  # noqa: E402
from .workloads import WORKLOADS, Options  # noqa: E402

__all__ = ["Target", "TARGETS", "main", "evaluate_targets", "format_table"]

BASELINES = {"mlp": "numpy naive", "chain64": "numpy naive", "cnn": "mxnet imperative",
             "cnn224": "mxnet imperative", "planning": "budget",
             "overhead": "numpy forward",
             "memory": "mxnet", "engine": "NaiveEngine", "op-cache": "cache off",
             "dist": "1 process"}
SCHEMA_VERSION = 1


@dataclasses.dataclass
class Target:
    """``impl`` vs ``ref`` (an impl of the same case, or a constant in the row's unit) in every case
    of ``workload`` starting with ``case_prefix``.

    ``speedup=False``: ratio = impl / ref, met when <= ``bound``; ``speedup=True``: ratio =
    ref / impl (how many times faster), met when >= ``bound``.
    """
    workload: str
    impl: str
    ref: object
    bound: float
    speedup: bool = False
    case_prefix: str = ""

    def met(self, ratio):
        return ratio >= self.bound if self.speedup else ratio <= self.bound

    def label(self, case):
        ref = f"{self.ref:g} MB" if _is_constant(self.ref) else self.ref
        if self.speedup:
            return f"{self.workload} {case}: {self.impl} vs {ref}, x faster >= {self.bound:g}"
        return f"{self.workload} {case}: {self.impl} / {ref} <= {self.bound:g}"


TARGETS = [
    Target("mlp", "mxlab static", "torch eager", 1.0),
    Target("mlp", "mxlab static", "mxnet static", 1.0),
    Target("mlp", "mxlab hybridize", "torch eager", 1.2),
    Target("mlp", "mxlab static", "numpy prealloc", 1.2),
    Target("mlp", "mxlab imperative", "mxnet imperative", 1.0),
    Target("chain64", "mxlab imperative", "torch eager", 1.0),
    Target("chain64", "mxlab static", "numpy naive", 1.0),
    Target("chain64", "mxlab fuse", "numpy naive", 0.5, case_prefix="(1000000,)"),
    Target("cnn", "mxlab static", "mxnet imperative", 1.5),
    Target("cnn", "mxlab static", "torch eager", 1.5),
    Target("planning", "total", "budget", 1.0, case_prefix="10k"),
    Target("memory", "mxlab", "mxnet", 1.0),
    Target("memory", "mxlab recompute", 25.0, 1.0, case_prefix="chain 100x"),
    Target("engine", "ThreadedEngine", "NaiveEngine", 1.7, speedup=True),
    Target("op-cache", "cache on", "cache off", 1.3, speedup=True),
    Target("dist", "mxlab kv pushpull", "mpi4py Allreduce", 1.1, case_prefix="allreduce"),
    Target("dist", "mxlab kv pushpull bucketed", "mpi4py Allreduce", 1.1,
           case_prefix="allreduce"),
]


def _is_constant(ref):
    return isinstance(ref, (int, float))


def _cases(rows):
    """{(workload, case): {impl: row}} in first-seen order."""
    cases = {}
    for row in rows:
        cases.setdefault((row.workload, row.case), {})[row.impl] = row
    return cases


def evaluate_targets(rows, targets=TARGETS):
    """One dict per (target, matching case): label, ratio (None when a side is missing), status."""
    results = []
    for (workload, case), by_impl in _cases(rows).items():
        for target in targets:
            if target.workload != workload or not case.startswith(target.case_prefix):
                continue
            sides = [by_impl.get(target.impl)]
            sides.append(None if _is_constant(target.ref) else by_impl.get(target.ref))
            value = getattr(sides[0], "value", None)
            ref = target.ref if _is_constant(target.ref) else getattr(sides[1], "value", None)
            ratio = None
            if value and ref:
                ratio = ref / value if target.speedup else value / ref
            status = "n/a" if ratio is None else ("met" if target.met(ratio) else "MISSED")
            results.append({"target": target.label(case), "workload": workload, "case": case,
                            "ratio": ratio, "bound": target.bound, "speedup": target.speedup,
                            "status": status,
                            "cross_process": any(r is not None and r.note == OWN_PROCESS
                                                 for r in sides)})
    return results


def _fmt_value(row):
    if row.value is None:
        return row.note
    spread = "" if row.spread is None else f" ±{row.spread / 2:4.0%}"
    return f"{row.value:12.1f} {row.unit:2s}{spread}"


def format_table(rows, targets):
    """The printed report: a block per case (value, ratio to the case's baseline), then targets."""
    lines = []
    for (workload, case), by_impl in _cases(rows).items():
        base = by_impl.get(BASELINES.get(workload))
        if base is None or not base.value:
            base = next((r for r in by_impl.values() if r.value), None)
        ref_name = base.impl if base else "-"
        noise = "; ± half the IQR" if any(r.spread is not None for r in by_impl.values()) else ""
        lines.append(f"\n{workload} {case}  (ratio = row / {ref_name}{noise})")
        for row in by_impl.values():
            ratio = f"{row.value / base.value:8.2f}x" if row.value and base else ""
            note = f"  {row.note}" if row.value is not None and row.note else ""
            lines.append(f"  {row.impl:28s} {_fmt_value(row):>22s} {ratio}{note}")
    lines.append("\ntargets (ratios of figures measured in this run)")
    for result in targets:
        ratio = "" if result["ratio"] is None else f"{result['ratio']:8.2f}"
        mark = " *" if result["cross_process"] else ""
        lines.append(f"  {result['target'] + mark:64s} {ratio:>8s}  {result['status']}")
    if any(result["cross_process"] for result in targets):
        lines.append(f"  * one side ran in its own process ({OWN_PROCESS!r} rows), "
                     "timed in the same rounds")
    return "\n".join(lines)


def _machine():
    import numpy
    return {"python": platform.python_version(), "numpy": numpy.__version__,
            "platform": platform.platform(), "cpu_count": os.cpu_count(),
            "threads": os.environ.get("MXLAB_BENCH_THREADS"),
            "clock": os.environ.get("MXLAB_BENCH_CLOCK", "wall"),
            "load_avg": os.getloadavg() if hasattr(os, "getloadavg") else None}


def write_json(path, rows, targets, opts, workloads):
    """Write the run as JSON (schema: version, time, machine, options, workloads, rows, targets)."""
    now = datetime.datetime.now(datetime.timezone.utc).isoformat()
    record = {"schema": SCHEMA_VERSION, "time": now,
              "machine": _machine(), "options": dataclasses.asdict(opts), "workloads": workloads,
              "rows": [dataclasses.asdict(row) for row in rows], "targets": targets}
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(record, f, indent=1)
    return record


def _default_json_path():
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return os.path.join(ROOT, "benchmarks", "results", f"{stamp}.json")


def parse_args(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("workloads", nargs="*", metavar="WORKLOAD",
                        help=f"workloads to run (default: all): {', '.join(WORKLOADS)}")
    parser.add_argument("--quick", action="store_true",
                        help="5 repeats, small cases only (a smoke run, not a measurement)")
    parser.add_argument("--repeats", type=int, default=None, help="timed calls per candidate (15)")
    parser.add_argument("--only", default="", metavar="A,B",
                        help="only implementations whose name contains A or B (mxlab,numpy)")
    parser.add_argument("--json", default=None, help="where to write the JSON record")
    parser.add_argument("--list", action="store_true", help="list the workloads and exit")
    parser.add_argument("--check", action="store_true",
                        help="exit with status 1 when a target is MISSED (n/a does not fail)")
    args = parser.parse_args(argv)
    unknown = [w for w in args.workloads if w not in WORKLOADS]
    if unknown:
        parser.error(f"unknown workload(s) {unknown}; known: {list(WORKLOADS)}")
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.list:
        for name, run in WORKLOADS.items():
            print(f"{name:9s} {run.__doc__.splitlines()[0]}")
        return None
    opts = Options(repeats=args.repeats or (5 if args.quick else 15), quick=args.quick,
                   only=tuple(filter(None, args.only.split(","))))
    names = args.workloads or list(WORKLOADS)
    rows = []
    for name in names:
        print(f"running {name} ...", file=sys.stderr, flush=True)
        rows += WORKLOADS[name](opts)
    targets = evaluate_targets(rows)
    print(format_table(rows, targets))
    path = args.json or _default_json_path()
    record = write_json(path, rows, targets, opts, names)
    print(f"\nJSON: {os.path.relpath(path)}")
    if args.check:
        _exit_on_missed(targets)
    return record


def _exit_on_missed(targets):
    """``--check``: a missed target fails the run (for CI and scripts); rows that could not run
    (``n/a``) are reported, not failed, since a peer may simply not be installed."""
    missed = [t["target"] for t in targets if t["status"] == "MISSED"]
    if missed:
        print(f"--check: {len(missed)} target(s) missed:", *missed, sep="\n  ", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
