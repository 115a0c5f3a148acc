"""Operator definitions. Importing this package registers every built-in op family.

``mxlab.ops`` is a leaf: it imports nothing from the array classes, the dispatcher, autograd,
symbols, executors or the notebook (the import-linter contract in pyproject.toml checks it).
Kernels get what they need to know about the run from an :class:`~mxlab.ops.context.OpContext`;
Python frontends live in the namespace packages (``mxlab/ndarray/``, ``mxlab/numpy/``, ...).

Each family module registers its ops with :func:`~mxlab.ops.registry.register`; add a new family by
adding a module here and importing it below.
"""
from . import context, rng, registry  # noqa: F401
from . import elemwise, division, elemwise_same  # noqa: F401
from . import unary, special  # noqa: F401
from . import reduce  # noqa: F401
from . import activation, masked_softmax  # noqa: F401
from . import graph_ops  # noqa: F401
from . import shape  # noqa: F401
from . import join  # noqa: F401
from . import broadcast  # noqa: F401
from . import matrix  # noqa: F401
from . import fc_backward  # noqa: F401
from . import creation  # noqa: F401
from . import random, distributions, random_pdf  # noqa: F401
from . import indexing, index_modify  # noqa: F401
from . import gather  # noqa: F401
from . import sorting  # noqa: F401
from . import nn  # noqa: F401
from . import optimizer_ops  # noqa: F401
from . import loss_grad, loss_output  # noqa: F401
from . import sequence  # noqa: F401
from . import categorical  # noqa: F401
from . import linalg  # noqa: F401
from . import linalg_norm  # noqa: F401
from . import linalg_legacy  # noqa: F401
from . import np_extra, np_fallback  # noqa: F401
from . import rnn  # noqa: F401
from . import contrib  # noqa: F401
from . import detection, detection_boxes, detection_rpn  # noqa: F401
from . import ctc  # noqa: F401
from . import pad  # noqa: F401
from . import control_flow  # noqa: F401
from . import image, image_random  # noqa: F401
from . import khatri_rao, straight_through, storage  # noqa: F401
from . import legacy_misc, stats  # noqa: F401
from . import attention  # noqa: F401
from . import legacy_nn  # noqa: F401
from .registry import F, Op, get_op, list_ops, register  # noqa: F401


# NOTE: ops whose gradient rule reads its saved arrays for their shapes and dtypes alone: writing
#   such an array after recording cannot change the gradient, so autograd does not refuse it
#   (tests/test_autograd_inplace.py checks each against its gradient with the array changed).
SHAPE_ONLY_GRADIENTS = (
    "elemwise_add", "elemwise_sub", "broadcast_add", "broadcast_sub", "_plus_scalar",
    "_minus_scalar", "_rminus_scalar", "sum", "mean", "_np_sum", "Reshape", "_np_reshape",
    "expand_dims", "squeeze", "Flatten", "slice", "slice_axis", "Concat", "_npi_concatenate",
    "_copy", "broadcast_to", "tile", "repeat",
)
for _name in SHAPE_ONLY_GRADIENTS:
    registry.get_op(_name).grad_reads_values = False
