"""pytest plugin turning the ``mxnet`` alias on before any conftest or test module is imported:
``pytest -p mxlab.compat.pytest_plugin`` or ``PYTEST_PLUGINS=mxlab.compat.pytest_plugin``."""
from . import install

install()
