"""The compatibility harness: MXNet's own unittests and D2L's MXNet code, run through the ``mxnet``
alias (``python -m mxlab.compat.harness --help``).

Each unit (a test file, a D2L section) runs in its own subprocess with a timeout, so one crash or
hang costs only that unit. Results are plain dicts (JSON-able), turned into tables by
:mod:`.report` and into ``docs/compat.md`` by ``python -m mxlab.compat.harness docs``.
"""
import os
import signal
import subprocess
import sys
import time

import mxlab

__all__ = ["REPO_ROOT", "run_with_timeout", "subprocess_env"]

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(mxlab.__file__)))


def subprocess_env(**extra):
    """The environment of a harness subprocess: this mxlab first on the path, quiet, one thread."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (REPO_ROOT, extra.pop("PYTHONPATH", ""), env.get("PYTHONPATH", "")) if p)
    env.update(PYTHONDONTWRITEBYTECODE="1", MPLBACKEND="Agg", OMP_NUM_THREADS="1",
               OPENBLAS_NUM_THREADS="1", PYTHONWARNINGS="ignore")
    env.update(extra)
    return env


def run_with_timeout(cmd, timeout, cwd, env):
    """Run ``cmd``; kill its whole process group after ``timeout`` seconds.

    Returns ``(returncode or None when timed out, combined output, seconds)``.
    """
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=timeout)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        output, _ = proc.communicate()
        code = None
    return code, output, time.monotonic() - start


PYTHON = sys.executable
