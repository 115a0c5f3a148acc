"""``mxnet.numpy_op_signature``: the mx.np / mx.npx function behind an MXNet op name."""
from ... import numpy as mx_np
from ... import numpy_extension as mx_npx

__all__ = ["_get_builtin_op"]

_ROOTS = (("_np_", mx_np), ("_npx_", mx_npx))
_SUBMODULES = ("linalg", "random")


def _get_builtin_op(op_name):
    """The function ``_np_<name>`` / ``_npx_<name>`` stands for (``_np_linalg_svd`` ->
    ``mx.np.linalg.svd``); None for other names, ``ValueError`` when the function is missing."""
    for prefix, root in _ROOTS:
        if op_name.startswith(prefix):
            name = op_name[len(prefix):]
            module = root
            for sub in _SUBMODULES:
                if name.startswith(sub + "_") and hasattr(root, sub):
                    module, name = getattr(root, sub), name[len(sub) + 1:]
                    break
            op = getattr(module, name, None)
            if op is None:
                raise ValueError(f"Cannot find operator {name} in module {module.__name__}")
            return op
    return None
