"""The hostile-files corpus: every file in ``tests/hostile_files`` is opened as a user would open
it (loaded, shapes inferred, planned, drawn, run when small: ``tests/hostile_open.py``) and must
give a clean ``MXNetError`` or a safe result; never code execution, a crash, a hang or a large
allocation. ``tests/hostile_files/README.md`` says what each file tries.
"""
import importlib.util
import json
import os
import pathlib
import subprocess
import sys

import pytest

import mxlab

HERE = pathlib.Path(__file__).parent
CORPUS = HERE / "hostile_files"
PEAK_LIMIT = 200 << 20        # bytes of traced memory while one file is open
TIME_LIMIT = 300              # seconds for the whole corpus on a 2-core machine


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    """Run the opener once over the corpus in an empty folder; ``{file: record}`` plus the
    files the run left in that folder."""
    workdir = tmp_path_factory.mktemp("hostile_cwd")
    env = dict(os.environ, PYTHONPATH=str(pathlib.Path(mxlab.__file__).parent.parent),
               MPLBACKEND="Agg")
    run = subprocess.run([sys.executable, str(HERE / "hostile_open.py"), str(CORPUS)],
                         cwd=workdir, env=env, capture_output=True, text=True,
                         timeout=TIME_LIMIT)
    records = {}
    for line in run.stdout.splitlines():
        if line.startswith("{"):
            record = json.loads(line)
            records[record["file"]] = record
    return records, run, sorted(os.listdir(workdir))


def _corpus():
    spec = importlib.util.spec_from_file_location("hostile_open", HERE / "hostile_open.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return sorted(p.name for p in CORPUS.iterdir() if module.opener(p.name) is not None)


def test_corpus_is_documented():
    readme = (CORPUS / "README.md").read_text()
    missing = [name for name in _corpus() if f"`{name}`" not in readme]
    assert not missing, f"add a line to tests/hostile_files/README.md for {missing}"


def test_nothing_ran_and_the_child_survived(outcomes):
    records, run, left = outcomes
    assert run.returncode == 0, run.stderr[-3000:]
    assert left == [], f"a hostile file wrote {left} into the working folder"


@pytest.mark.parametrize("name", _corpus())
def test_hostile_file(outcomes, name):
    records, run, _ = outcomes
    record = records.get(name)
    assert record is not None and record["outcome"] != "started", \
        f"{name}: the opener never finished it (crash or hang?)\n{run.stderr[-3000:]}"
    assert record["outcome"] in ("ok", "error"), record["detail"]
    assert record["peak"] < PEAK_LIMIT, f"{name}: {record['peak'] / 2**20:.0f} MiB traced"
