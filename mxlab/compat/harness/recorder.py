"""pytest plugin used by the harness inside each test subprocess: appends one JSON line per
collection error, per test phase and for the collected count to ``$MXLAB_HARNESS_LOG``, so a file
killed by its timeout still leaves the results of the tests that finished."""
import inspect
import json
import os
import sys

import numpy
import pytest

# NOTE: MXNet's tests were written for NumPy < 1.24 and still use the aliases it removed
#   (numpy.float, numpy.int, numpy.object, ...): the harness restores them as the builtins they
#   named, in its own test subprocesses only.
#   NumPy 2 removed more spellings (numpy.NaN, numpy.Inf, numpy.float_, numpy.product, ...):
#   restored likewise.
for _alias, _builtin in (("float", float), ("int", int), ("object", object), ("str", str),
                         ("complex", complex), ("long", int), ("unicode", str),
                         ("NaN", numpy.nan), ("NAN", numpy.nan), ("Inf", numpy.inf),
                         ("Infinity", numpy.inf), ("infty", numpy.inf), ("PINF", numpy.inf),
                         ("NINF", -numpy.inf), ("float_", numpy.float64),
                         ("complex_", numpy.complex128), ("unicode_", numpy.str_),
                         ("string_", numpy.bytes_), ("product", numpy.prod),
                         ("cumproduct", numpy.cumprod), ("sometrue", numpy.any),
                         ("alltrue", numpy.all), ("round_", numpy.round)):
    if not hasattr(numpy, _alias):
        setattr(numpy, _alias, _builtin)


def _takes_interpolation(fn):
    """NumPy 2 renamed the quantile functions' ``interpolation=`` to ``method=``."""
    def wrapped(*args, interpolation=None, **kwargs):
        if interpolation is not None:
            kwargs.setdefault("method", interpolation)
        return fn(*args, **kwargs)
    wrapped.__name__, wrapped.__doc__ = fn.__name__, fn.__doc__
    return wrapped


for _name in ("quantile", "percentile", "nanquantile", "nanpercentile"):
    if "interpolation" not in inspect.signature(getattr(numpy, _name)).parameters:
        setattr(numpy, _name, _takes_interpolation(getattr(numpy, _name)))


def _write(record):
    with open(os.environ["MXLAB_HARNESS_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps(record) + "\n")


def failure_message(report):
    """``"ExceptionType: message"`` of a failed report (the crash line pytest shows)."""
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return crash.message
    lines = [ln[1:].strip() for ln in str(report.longrepr).splitlines() if ln.startswith("E ")]
    return lines[-1] if lines else str(report.longrepr).strip().splitlines()[-1]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Drop the previous failure's traceback before this test's fixtures run. pytest keeps it in
    ``sys.last_traceback`` and drops it only inside the next test's call, where MXNet's conftest
    would count its frames' arrays as this test's leak: one failure would fail two tests."""
    for name in ("last_type", "last_value", "last_traceback", "last_exc"):
        sys.__dict__.pop(name, None)


def pytest_collectreport(report):
    if report.failed:
        _write({"kind": "collect_error", "nodeid": report.nodeid,
                "message": failure_message(report)})


def pytest_collection_finish(session):
    _write({"kind": "collected", "count": len(session.items)})


def pytest_runtest_logreport(report):
    record = {"kind": "phase", "nodeid": report.nodeid, "when": report.when,
              "outcome": report.outcome, "duration": report.duration}
    if hasattr(report, "wasxfail"):
        record["xfail"] = True
    if report.failed:
        record["message"] = failure_message(report)
    elif report.skipped and isinstance(report.longrepr, tuple):
        record["message"] = report.longrepr[2]
    _write(record)
