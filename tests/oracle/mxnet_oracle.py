"""Run code under real MXNet 1.9.1 in another Python (a subprocess), exchanging arrays as ``.npz``.

MXNet is never imported into the test process: it needs Python <= 3.10 and numpy < 1.24, so it
lives in its own venv, named by the environment variable ``MXLAB_MXNET_PYTHON``::

    python3.10 -m venv /some/venv
    /some/venv/bin/pip install mxnet==1.9.1 'numpy<1.24'
    export MXLAB_MXNET_PYTHON=/some/venv/bin/python

The code string sees ``mx`` (the framework module), ``np`` (numpy), ``inputs`` (name -> numpy
array) and fills ``outputs`` (name -> array-like). :func:`run_mxlab` runs the same protocol
in-process with mxlab, so one code string gives both sides of a differential test.
"""
import os
import pathlib
import subprocess
import tempfile

import numpy
import pytest

ENV_VAR = "MXLAB_MXNET_PYTHON"

requires_mxnet = pytest.mark.skipif(
    not os.environ.get(ENV_VAR),
    reason=f"oracle tests need real MXNet: set {ENV_VAR} to a python with mxnet==1.9.1 installed")

_DRIVER = """\
import sys
import numpy as np
import {module} as mx
with np.load(sys.argv[1]) as data:
    inputs = {{k: data[k] for k in data.files}}
outputs = {{}}
with open(sys.argv[2]) as f:
    code = compile(f.read(), "<oracle code>", "exec")
exec(code, {{"mx": mx, "np": np, "inputs": inputs, "outputs": outputs, "__name__": "__oracle__"}})
np.savez(sys.argv[3], **{{k: np.asarray(v) for k, v in outputs.items()}})
"""


class OracleError(RuntimeError):
    """The oracle process failed; the message carries the end of its stderr."""


def run_mxnet(code, inputs, python=None, module="mxnet", timeout=600):
    """Execute ``code`` under ``python`` (default ``$MXLAB_MXNET_PYTHON``) with ``mx`` = ``module``.

    Returns the ``outputs`` dict the code filled, as numpy arrays.

    Examples
    --------
    >>> out = run_mxnet("outputs['y'] = mx.nd.exp(mx.nd.array(inputs['x'])).asnumpy()",
    ...                 {"x": numpy.zeros(2, numpy.float32)})   # doctest: +SKIP
    >>> out["y"]                                                 # doctest: +SKIP
    array([1., 1.], dtype=float32)
    """
    python = python or os.environ.get(ENV_VAR)
    if not python:
        raise OracleError(f"no oracle python: set {ENV_VAR}")
    with tempfile.TemporaryDirectory(prefix="mxlab-oracle-") as tmp:
        tmp = pathlib.Path(tmp)
        numpy.savez(tmp / "inputs.npz", **inputs)
        (tmp / "code.py").write_text(code)
        (tmp / "driver.py").write_text(_DRIVER.format(module=module))
        argv = [python, str(tmp / "driver.py"), str(tmp / "inputs.npz"), str(tmp / "code.py"),
                str(tmp / "outputs.npz")]
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                              env=_oracle_env())
        if proc.returncode != 0:
            raise OracleError(f"{python} ({module}) exited with {proc.returncode}:\n"
                              f"{proc.stderr[-4000:]}")
        with numpy.load(tmp / "outputs.npz") as data:
            return {k: data[k] for k in data.files}


def _oracle_env():
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")  # NOTE: small arrays; threads would only compete
    repo = str(pathlib.Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (repo, env.get("PYTHONPATH")) if p)
    return env


def run_mxlab(code, inputs):
    """Execute ``code`` in this process with ``mx`` = mxlab (the protocol of :func:`run_mxnet`)."""
    import mxlab
    outputs = {}
    scope = {"mx": mxlab, "np": numpy, "inputs": dict(inputs), "outputs": outputs,
             "__name__": "__oracle__"}
    exec(compile(code, "<mxlab code>", "exec"), scope)
    return {k: numpy.asarray(v) for k, v in outputs.items()}


def assert_same_outputs(code, inputs, rtol=1e-5, atol=1e-6):
    """Run ``code`` under mxlab and MXNet 1.9.1 and check both filled the same ``outputs``:
    numbers within ``rtol``/``atol``, anything else (dtype names, strings) equal as text."""
    ours, theirs = run_mxlab(code, inputs), run_mxnet(code, inputs)
    assert sorted(ours) == sorted(theirs)
    for key, value in ours.items():
        if value.dtype.kind in "fiub":
            numpy.testing.assert_allclose(value, theirs[key], rtol=rtol, atol=atol, err_msg=key)
        else:
            assert str(value) == str(theirs[key]), key
    return ours
