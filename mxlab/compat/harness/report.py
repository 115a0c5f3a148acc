"""Tables of harness results: per unit, failures grouped by cause, and the missing names that cost
the most tests (the integrator's work list)."""
import collections
import re

__all__ = ["cause_pattern", "d2l_tables", "missing_name", "mxnet_summary", "mxnet_tables"]

_MISSING = [
    (re.compile(r"module '([\w.]+)' has no attribute '(\w+)'"), "{0}.{1}"),
    (re.compile(r"cannot import name '(\w+)' from '([\w.]+)'"), "{1}.{0}"),
    (re.compile(r"No module named '([\w.]+)'"), "{0}"),
    (re.compile(r"'(\w+)' object has no attribute '(\w+)'"), "{0}.{1}"),
    (re.compile(r"type object '(\w+)' has no attribute '(\w+)'"), "{0}.{1}"),
    (re.compile(r"(?:got an|an) unexpected keyword argument '(\w+)'"), "keyword {0}="),
    (re.compile(r"NotImplementedError: (.{0,80})"), "not implemented: {0}"),
    (re.compile(r"(?:op|operator) '?(\w+)'? (?:is )?not (?:registered|found|known)"), "op {0}"),
]


def cause_pattern(message):
    """A failure's cause: its exception line with numbers, addresses and long literals folded, so
    failures with one root cause group together."""
    line = (message or "unknown").strip().splitlines()[0] if (message or "").strip() else "?"
    line = re.sub(r" \((/[^)]*)\)", "", line)   # NOTE: "(/path/to/module.py)" of ImportError
    line = re.sub(r"0x[0-9a-fA-F]+", "0x_", line)
    line = re.sub(r"\b\d+(\.\d+)?(e[-+]?\d+)?\b", "N", line)
    line = re.sub(r"(\(N(, N)*,?\))", "(shape)", line)
    return line[:140]


def missing_name(message):
    """The missing module/name/keyword a failure message names, or None."""
    for pattern, template in _MISSING:
        match = pattern.search(message or "")
        if match:
            return template.format(*match.groups()).replace("mxlab.", "mx.")
    return None


def _pct(part, whole):
    return f"{100.0 * part / whole:.1f}%" if whole else "n/a"


def mxnet_summary(results):
    """Headline numbers: files, files past import, collected, passed, % passed."""
    collected = sum(r["collected"] for r in results)
    passed = sum(r["passed"] for r in results)
    past_import = sum(1 for r in results if not r["import_error"] and not r.get("crash"))
    return {"files": len(results), "past_import": past_import, "collected": collected,
            "passed": passed, "percent": _pct(passed, collected)}


def _file_rows(results):
    yield "| file | collected | passed | failed | errors | skipped | not run | time (s) | note |"
    yield "|---|---:|---:|---:|---:|---:|---:|---:|---|"
    for r in results:
        note = ("import: " + cause_pattern(r["import_error"])[:70]) if r["import_error"] else \
            "TIMEOUT" if r["timed_out"] else ("crash: " + r["crash"][0][:70]) if r.get("crash") \
            else ""
        yield (f"| {r['file']} | {r['collected']} | {r['passed']} | {r['failed']} | "
               f"{r['errors']} | {r['skipped']} | {r['not_run']} | {r['seconds']} | "
               f"{note.replace('|', '/')} |")


def _causes(results):
    """cause -> (tests, files); an import error counts once per file (it costs the whole file)."""
    tests, files = collections.Counter(), collections.defaultdict(set)
    for r in results:
        messages = list(r["causes"]) + ([r["import_error"]] if r["import_error"] else [])
        for message in messages:
            cause = cause_pattern(message)
            tests[cause] += 1
            files[cause].add(r["file"].replace("test_", "").replace(".py", ""))
    return tests, files


def _missing_names(results):
    tests, files = collections.Counter(), collections.defaultdict(set)
    for r in results:
        messages = list(r["causes"]) + ([r["import_error"]] if r["import_error"] else [])
        for message in messages:
            name = missing_name(message)
            if name:
                tests[name] += 1
                files[name].add(r["file"].replace("test_", "").replace(".py", ""))
    return tests, files


def _ranked(counter, files, header, limit):
    yield f"| {header} | tests | files |"
    yield "|---|---:|---|"
    for key, count in counter.most_common(limit):
        shown = sorted(files[key])
        listed = ", ".join(shown[:6]) + (f", +{len(shown) - 6}" if len(shown) > 6 else "")
        yield f"| `{key.replace('|', '/').replace('`', '')}` | {count} | {listed} |"


def mxnet_tables(results, cause_limit=40, name_limit=60):
    """Markdown: summary line, per-file table, causes, missing names."""
    s = mxnet_summary(results)
    headline = (f"{s['files']} files, {s['past_import']} past import, {s['collected']} tests "
                f"collected, {s['passed']} passed ({s['percent']}).")
    lines = [headline, ""]
    lines += list(_file_rows(results))
    tests, files = _causes(results)
    lines += ["", "Failures and errors grouped by cause (an import error counts once per file):",
              ""] + list(_ranked(tests, files, "cause", cause_limit))
    tests, files = _missing_names(results)
    lines += ["", "Missing names (modules, attributes, keywords) by the tests they cost:", ""]
    lines += list(_ranked(tests, files, "missing", name_limit))
    return "\n".join(lines)


def d2l_tables(results):
    """Markdown: per-section table (status, failing block, cause) and a summary line."""
    ok = sum(1 for r in results if r["status"] == "ok")
    excluded = sum(1 for r in results if r["status"] == "excluded")
    lines = [f"{len(results)} sections, {ok} run to the end, {excluded} excluded (real MXNet "
             "1.9.1 cannot run them offline either).", "",
             "| section | status | time (s) | failing line | cause |", "|---|---|---:|---|---|"]
    for r in results:
        cause = cause_pattern(r.get("error") or "")[:90] if r["status"] != "ok" else ""
        lines.append(f"| {r['section']} | {r['status']} | {r['seconds']} | "
                     f"{r.get('where') or ''} | {cause.replace('|', '/')} |")
    tests, files = collections.Counter(), collections.defaultdict(set)
    for r in results:
        name = missing_name(r.get("error") or "") if r["status"] != "ok" else None
        if name:
            tests[name] += 1
            files[name].add(r["section"].split("/")[-1])
    lines += ["", "Missing names stopping sections:", ""]
    lines += list(_ranked(tests, files, "missing", 40))
    return "\n".join(lines)
