"""pytest plugin turning the ``mxnet`` alias on before any conftest or test module is imported:
``pytest -p mxlab.compat.pytest_plugin`` or ``PYTEST_PLUGINS=mxlab.compat.pytest_plugin``.

It also keeps MXNet's per-test leak check (``tests/python/conftest.py``: a full ``gc.collect()``
before and after every test) cheap. A full collection walks every tracked object, and collecting
``test_numpy_op.py`` alone leaves over 400,000 of them (its 11,190 parametrized items), so each
test paid two walks of about half a second. Before each test the plugin collects the previous
test's garbage and then freezes the survivors (``gc.freeze``): they are alive, so they could not be
the test's leak, and the conftest's collections now walk only what the test itself creates. A
cycle the test makes garbage out of objects that were alive at its start is the one case the check
no longer sees; every ``UNFREEZE_EVERY`` tests the frozen set is released so such garbage is
still freed.
"""
import gc
import sys

import pytest

from . import install

install()

UNFREEZE_EVERY = 500
_tests_seen = 0


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Collect the previous test's garbage, then freeze what is alive (see the module doc)."""
    global _tests_seen
    # A failure's traceback (sys.last_*) would otherwise be frozen with its frames' arrays.
    for name in ("last_type", "last_value", "last_traceback", "last_exc"):
        sys.__dict__.pop(name, None)
    _tests_seen += 1
    if _tests_seen % UNFREEZE_EVERY == 0:
        gc.unfreeze()
    gc.collect()
    gc.freeze()


def pytest_unconfigure(config):
    gc.unfreeze()
