"""Operator definitions. Importing this package registers every built-in op family.

Each family module registers its ops with :func:`~mxlab.ops.registry.register`; add a new family by adding a
module here and importing it below.
"""
from . import registry  # noqa: F401
from . import elemwise  # noqa: F401
from .registry import F, Op, get_op, list_ops, register  # noqa: F401
