"""Shared pytest fixtures (for tests/ and extensions/): reset global mxlab state between tests so
they stay independent."""
import os

import numpy
import pytest

# Convolution autotune picks algorithms by timing them, so under machine load two execution paths
# (or two engine threads, each with its own plan) may pick different GEMM layouts and round
# differently; path-equality tests on ill-conditioned nets (BatchNorm over 1-4 values) then differ
# by ~1e-4. The suite runs with MXNet's switch off (fixed default algorithms); tests of autotune
# itself turn it on.
os.environ.setdefault("MXNET_CUDNN_AUTOTUNE_DEFAULT", "0")
# The engine event log is off by default outside IPython; the suite inspects events throughout, so
# it runs with the notebook default (tests/engine/test_event_log_default.py checks the default).
os.environ.setdefault("MXLAB_EVENT_LOG", "1")


@pytest.fixture(autouse=True)
def _seeded():
    numpy.random.seed(0)
    yield


@pytest.fixture(autouse=True)
def _np_semantics_restored():
    """Undo ``mx.npx.set_np()`` and friends called by a test (the flags are process-wide)."""
    from mxlab import util  # NOTE: imported here so a broken mxlab fails tests, not conftest
    saved = util.is_np_shape(), util.is_np_array(), util.is_np_default_dtype()
    yield
    util.set_np(*saved)
