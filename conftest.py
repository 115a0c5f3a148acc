"""Shared pytest fixtures (for tests/ and extensions/): reset global mxlab state between tests so
they stay independent."""
import numpy
import pytest


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
