"""Shared pytest fixtures: reset global mxlab state between tests so they stay independent."""
import numpy
import pytest


@pytest.fixture(autouse=True)
def _seeded():
    numpy.random.seed(0)
    yield
