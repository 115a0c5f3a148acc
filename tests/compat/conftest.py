"""Fixtures shared by the alias tests."""
import pytest

from mxlab import compat


@pytest.fixture
def alias():
    """The ``mxnet`` alias installed for the test (and removed after, unless it already was)."""
    was_installed = compat.is_installed()
    compat.install()
    yield
    if not was_installed:
        compat.uninstall()
