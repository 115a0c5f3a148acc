"""pytest plugin turning the ``mxnet`` alias on before any conftest or test module is imported:
``pytest -p mxlab.compat.pytest_plugin`` or ``PYTEST_PLUGINS=mxlab.compat.pytest_plugin``."""
import sys

import pytest

from . import install

install()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Drop the previous failure's ``sys.last_*`` before the next test's fixtures run.

    pytest keeps them (for post-mortem debugging, long over by now) until the next test's *call*
    phase, so the failed test's frames, arrays included, became garbage in the middle of the next
    test: MXNet's conftest, which collects garbage before each test and then saves what the test
    leaves in reference cycles, blamed that test for a leak. Dropped here, the setup's collection
    frees them; the check itself is unchanged.
    """
    for name in ("last_type", "last_value", "last_traceback", "last_exc"):
        if hasattr(sys, name):
            delattr(sys, name)
