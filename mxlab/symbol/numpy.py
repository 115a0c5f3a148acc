"""``mx.sym.np``: NumPy-flavoured symbols (``_Symbol``) and functions generated from the
registry."""

from ..base import MXNetNotImplementedError, MXNetTypeError
from .frontend import populate_flavour
from .np_call import fill_namespace, sub_namespace
from .symbol import FLAVOURS, Symbol

__all__ = ["_Symbol"]


class _Symbol(Symbol):
    """A symbol whose python operators and fluent methods follow ``mx.np``
    (``mx.sym.np._Symbol``)."""

    __slots__ = ()
    _OPERATORS = {
        "add": ("_npi_add", "_npi_add_scalar", "_npi_add_scalar"),
        "sub": ("_npi_subtract", "_npi_subtract_scalar", "_npi_rsubtract_scalar"),
        "mul": ("_npi_multiply", "_npi_multiply_scalar", "_npi_multiply_scalar"),
        "truediv": ("_npi_true_divide", "_npi_true_divide_scalar", "_npi_rtrue_divide_scalar"),
        "mod": ("_npi_mod", "_npi_mod_scalar", "_npi_rmod_scalar"),
        "pow": ("_npi_power", "_npi_power_scalar", "_npi_rpower_scalar"),
        "eq": ("_npi_equal", "_npi_equal_scalar", "_npi_equal_scalar"),
        "ne": ("_npi_not_equal", "_npi_not_equal_scalar", "_npi_not_equal_scalar"),
        "gt": ("_npi_greater", "_npi_greater_scalar", "_npi_less_scalar"),
        "ge": ("_npi_greater_equal", "_npi_greater_equal_scalar", "_npi_less_equal_scalar"),
        "lt": ("_npi_less", "_npi_less_scalar", "_npi_greater_scalar"),
        "le": ("_npi_less_equal", "_npi_less_equal_scalar", "_npi_greater_equal_scalar"),
    }
    _NEGATIVE = ("negative", {})
    _SAYS_IS_INT = True
    _namespace_name = "mxlab.symbol.numpy"

    def as_np_ndarray(self):
        return self

    def __getitem__(self, key):
        """Output selection for several outputs (or by name); on one output MXNet slices the
        array."""
        if len(self._outputs) > 1 or isinstance(key, str):
            return super().__getitem__(key)
        raise MXNetNotImplementedError(
            "indexing the value of an mx.sym.np._Symbol (x[key]) is not supported "
            "yet; trace the indexing with deferred compute (HybridBlock) instead"
        )

    @staticmethod
    def _array_class():
        from ..ndarray.ndarray import ndarray

        return ndarray


FLAVOURS["np"] = _Symbol


def _binary_function(kind, name):
    """``f(x1, x2)`` for symbols and scalars, e.g. ``mx.sym.np.add``."""

    def call(x1, x2, out=None):
        if isinstance(x1, Symbol):
            return _Symbol(x1)._binary(kind, x2)
        if isinstance(x2, Symbol):
            return _Symbol(x2)._binary(kind, x1, reflected=True)
        raise MXNetTypeError(f"{name}: at least one operand must be a Symbol")

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"``{name}(x1, x2)`` on symbols and scalars (NumPy semantics)."
    return call


for _name, _kind in (
    ("add", "add"),
    ("subtract", "sub"),
    ("multiply", "mul"),
    ("true_divide", "truediv"),
    ("divide", "truediv"),
    ("mod", "mod"),
    ("power", "pow"),
):
    globals()[_name] = _binary_function(_kind, _name)

populate_flavour(globals(), "np_name", _Symbol)

# NOTE: after the generated ops: they keep their registry op; the rest of mx.np is _np_call nodes.
fill_namespace(globals(), "", _Symbol)
linalg = sub_namespace("linalg.", _Symbol, __name__ + ".linalg")
random = sub_namespace("random.", _Symbol, __name__ + ".random")
