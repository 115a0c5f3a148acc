"""D2L's MXNet code run as scripts: every section's ``{.python .input}`` blocks whose tab marker
(``%%tab ...`` or ``#@tab ...``) includes ``mxnet`` or ``all``, in order, after
:mod:`.d2l_offline`'s prelude. Blocks without a marker belong to d2lbook's default tab (the first
in ``config.ini``: PyTorch) and are left out, as are IPython magics.

``python=`` (``--python`` on the command line) runs the same scripts with another interpreter
against real MXNet instead of the alias: the oracle run that tells which sections MXNet 1.9.1
itself runs offline. That interpreter needs mxnet 1.9.1 and D2L's own imports (matplotlib,
matplotlib-inline, pandas, IPython, requests); mxlab is not put on its path."""
import concurrent.futures
import glob
import os
import re
import tempfile

from . import PYTHON, run_with_timeout, subprocess_env

__all__ = ["EXCLUDED", "SCOPE", "build_script", "extract_blocks", "run_section", "run_suite",
           "sections"]

# The chapters the target covers, in the book's order.
SCOPE = ("preliminaries", "linear-regression", "linear-classification", "multilayer-perceptrons",
         "builders-guide", "convolutional-neural-networks", "convolutional-modern",
         "recurrent-neural-networks", "recurrent-modern", "attention-mechanisms-and-transformers",
         "optimization", "computational-performance")

# Sections real MXNet 1.9.1 cannot run offline either (checked with ``--python``): a failure there
# is reported as "excluded", with the reason.
EXCLUDED = {
    "chapter_attention-mechanisms-and-transformers/vision-transformer":
        "the MXNet tab defines no ViT class (NameError on MXNet 1.9.1 too)",
    "chapter_computational-performance/auto-parallelism": "needs two GPUs",
    "chapter_computational-performance/multiple-gpus": "needs a GPU",
    "chapter_computational-performance/multiple-gpus-concise": "needs a GPU",
}

_BLOCK_START = re.compile(r"^```\{\.python \.input.*\}\s*$")
_TAB = re.compile(r"^\s*(?:%%tab|#@tab)\s+(.*)$")
_HARNESS_DIR = os.path.dirname(os.path.abspath(__file__))
# NOTE: d2l_offline is imported as a plain file, so the oracle interpreter needs no mxlab
_PRELUDE = ("import sys\nsys.path.append({dir!r})\n"
            "from d2l_offline import install as _install, tab\n_install(alias={alias})\n")


def _tabs_of(first_line):
    match = _TAB.match(first_line)
    if not match:
        return None
    return {t.strip() for t in match.group(1).split(",") if t.strip()}


def extract_blocks(markdown):
    """``[(line number in the .md, code)]`` of the MXNet tab's blocks, magics removed."""
    blocks, lines, i = [], markdown.splitlines(), 0
    while i < len(lines):
        if not _BLOCK_START.match(lines[i]):
            i += 1
            continue
        start, body = i + 2, []
        i += 1
        while i < len(lines) and lines[i].rstrip() != "```":
            body.append(lines[i])
            i += 1
        i += 1
        tabs = _tabs_of(body[0]) if body else None
        if tabs and ("mxnet" in tabs or "all" in tabs):
            code = [ln for ln in body[1:] if not ln.lstrip().startswith(("%", "!"))]
            blocks.append((start + 1, "\n".join(code)))
    return blocks


def build_script(blocks, alias=True):
    """The script text and, per script line, the .md line it came from (None for the prelude);
    ``alias=False`` for real MXNet."""
    text = _PRELUDE.format(dir=_HARNESS_DIR, alias=alias)
    origin = [None] * text.count("\n")
    for md_line, code in blocks:
        chunk = code.rstrip() + "\n\n"
        text += chunk
        origin += [md_line + k for k in range(chunk.count("\n"))]
    return text, origin


def sections(src, all_chapters=False):
    """``chapter_x/section`` names in scope (all chapters with ``all_chapters``)."""
    chapters = sorted(glob.glob(os.path.join(src, "chapter_*"))) if all_chapters else \
        [os.path.join(src, "chapter_" + c) for c in SCOPE]
    found = []
    for chapter in chapters:
        for md in sorted(glob.glob(os.path.join(chapter, "*.md"))):
            if os.path.basename(md) != "index.md":
                with open(md, encoding="utf-8") as f:
                    if extract_blocks(f.read()):
                        found.append(os.path.relpath(md, src)[:-3])
    return found


_LOCATION = re.compile(r'File "([^"]+)", line (\d+)')


def _failure(output, script_path, origin, section):
    """``(where, error)`` of a failed run: the last traceback line in the script, as .md line."""
    where = None
    for path, line in _LOCATION.findall(output):
        if os.path.basename(path) == os.path.basename(script_path):
            md_line = origin[int(line) - 1] if int(line) - 1 < len(origin) else None
            where = f"{section}.md:{md_line}" if md_line else "prelude"
    errors = [ln for ln in output.splitlines() if re.match(r"^[\w.]*(Error|Exception|Exit)\b", ln)]
    return where, (errors[-1] if errors else (output.strip().splitlines() or ["no output"])[-1])


def _environment(src, python):
    """The alias run gets this mxlab on its path; an oracle run (``python``) only D2L's code."""
    if python is None:
        return subprocess_env(PYTHONPATH=src)
    env = subprocess_env()
    env["PYTHONPATH"] = src
    return env


def run_section(src, section, timeout, python=None):
    """Run one section's MXNet code (with the interpreter ``python`` and real MXNet, if given);
    its result dict (status ok/failed/timeout, where, error)."""
    with open(os.path.join(src, section + ".md"), encoding="utf-8") as f:
        text, origin = build_script(extract_blocks(f.read()), alias=python is None)
    with tempfile.TemporaryDirectory(prefix="mxlab-d2l-") as work:
        run_dir = os.path.join(work, "run")
        os.makedirs(run_dir)   # NOTE: D2L keeps data in ../data
        # NOTE: not "<section>.py": the pandas section would shadow the pandas package
        script = os.path.join(run_dir, "d2l_section_" + os.path.basename(section) + ".py")
        with open(script, "w", encoding="utf-8") as f:
            f.write(text)
        code, output, seconds = run_with_timeout([python or PYTHON, script], timeout, run_dir,
                                                 _environment(src, python))
    result = {"section": section, "seconds": round(seconds, 1)}
    if code == 0:
        return dict(result, status="ok")
    where, error = _failure(output, script, origin, section)
    if section in EXCLUDED:
        return dict(result, status="excluded", where=where,
                    error=f"{EXCLUDED[section]}: {error}")
    return dict(result, status="timeout" if code is None else "failed", where=where,
                error="timed out" if code is None else error)


def run_suite(src, chosen=None, all_chapters=False, timeout=300, progress=print, jobs=1,
              python=None):
    """Run the chosen (default: every in-scope) sections, ``jobs`` at a time; result dicts.
    ``python``: an interpreter with real MXNet to run them on instead of mxlab."""
    names = [c[:-3] if c.endswith(".md") else c for c in chosen] if chosen else \
        sections(src, all_chapters)

    def run(name):
        result = run_section(src, name, timeout, python)
        progress(f"{name:70s} {result['status']:8s} {result['seconds']:7.1f}s "
                 f"{result.get('error') or ''}"[:160])
        return result

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(jobs, 1)) as pool:
        return list(pool.map(run, names))
