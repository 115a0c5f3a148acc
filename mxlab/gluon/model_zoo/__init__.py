"""``mx.gluon.model_zoo``: model definitions with random initialisation (no downloads)."""
from . import vision  # noqa: F401
