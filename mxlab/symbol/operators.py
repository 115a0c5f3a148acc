"""Python operators of :class:`~mxlab.symbol.Symbol` (``a + b``, ``2 * a``, ``a > 0``, ``-a``):
each adds an op node, the tensor op for two symbols, the scalar op (or its reflected twin) for a
symbol and a Python number.

Example
-------
>>> import mxlab as mx
>>> (2 * mx.sym.var('x') + 1).list_arguments()
['x']
"""
import numbers

import numpy

from ..base import MXNetTypeError, NotImplementedForSymbol
from .compose import apply_op

__all__ = ["SymbolOperators"]


class SymbolOperators:
    """The Python operators of a symbol (a mixin of :class:`~mxlab.symbol.Symbol`)."""

    __slots__ = ()
    # python operator -> (op for two symbols, op with a scalar, reflected op with a scalar)
    _OPERATORS = {
        "add": ("elemwise_add", "_plus_scalar", "_plus_scalar"),
        "sub": ("elemwise_sub", "_minus_scalar", "_rminus_scalar"),
        "mul": ("elemwise_mul", "_mul_scalar", "_mul_scalar"),
        "truediv": ("elemwise_div", "_div_scalar", "_rdiv_scalar"),
        "mod": ("_mod", "_mod_scalar", "_rmod_scalar"),
        "pow": ("_power", "_power_scalar", "_rpower_scalar"),
        "eq": ("_equal", "_equal_scalar", "_equal_scalar"),
        "ne": ("_not_equal", "_not_equal_scalar", "_not_equal_scalar"),
        "gt": ("_greater", "_greater_scalar", "_lesser_scalar"),
        "ge": ("_greater_equal", "_greater_equal_scalar", "_lesser_equal_scalar"),
        "lt": ("_lesser", "_lesser_scalar", "_greater_scalar"),
        "le": ("_lesser_equal", "_lesser_equal_scalar", "_greater_equal_scalar"),
    }
    _NEGATIVE = ("_mul_scalar", {"scalar": -1.0})
    # NOTE: legacy symbols leave ``is_int`` at its default (True: an integer input takes the
    #   scalar cast to its dtype, as in MXNet 1.x); NumPy symbols say whether it is an int
    _SAYS_IS_INT = False

    def _binary(self, kind, other, reflected=False):
        tensor_op, scalar_op, rscalar_op = self._OPERATORS[kind]
        if isinstance(other, SymbolOperators):
            lhs, rhs = (other, self) if reflected else (self, other)
            return apply_op(tensor_op, [lhs, rhs], {}, type(self))
        if isinstance(other, (numbers.Number, numpy.generic)):
            scalar = other.item() if isinstance(other, numpy.generic) else other
            attrs = {"scalar": scalar}
            if self._SAYS_IS_INT:
                attrs["is_int"] = not isinstance(scalar, float)
            return apply_op(rscalar_op if reflected else scalar_op, [self], attrs, type(self))
        raise MXNetTypeError(f"type {type(other)} not supported")

    def __add__(self, other):
        return self._binary("add", other)

    def __radd__(self, other):
        return self._binary("add", other, reflected=True)

    def __sub__(self, other):
        return self._binary("sub", other)

    def __rsub__(self, other):
        return self._binary("sub", other, reflected=True)

    def __mul__(self, other):
        return self._binary("mul", other)

    def __rmul__(self, other):
        return self._binary("mul", other, reflected=True)

    def __truediv__(self, other):
        return self._binary("truediv", other)

    def __rtruediv__(self, other):
        return self._binary("truediv", other, reflected=True)

    def __mod__(self, other):
        return self._binary("mod", other)

    def __rmod__(self, other):
        return self._binary("mod", other, reflected=True)

    def __pow__(self, other):
        return self._binary("pow", other)

    def __rpow__(self, other):
        return self._binary("pow", other, reflected=True)

    def __eq__(self, other):
        return self._binary("eq", other)

    def __ne__(self, other):
        return self._binary("ne", other)

    def __gt__(self, other):
        return self._binary("gt", other)

    def __ge__(self, other):
        return self._binary("ge", other)

    def __lt__(self, other):
        return self._binary("lt", other)

    def __le__(self, other):
        return self._binary("le", other)

    def __neg__(self):
        op_name, attrs = self._NEGATIVE
        return apply_op(op_name, [self], attrs, type(self))

    def __abs__(self):
        return apply_op("abs", [self], {}, type(self))

    __hash__ = object.__hash__

    def __bool__(self):
        raise NotImplementedForSymbol(self.__bool__, "bool")

    def __iadd__(self, other):
        raise NotImplementedForSymbol(self.__iadd__, "+=", other)

    def __isub__(self, other):
        raise NotImplementedForSymbol(self.__isub__, "-=", other)

    def __imul__(self, other):
        raise NotImplementedForSymbol(self.__imul__, "*=", other)

    def __itruediv__(self, other):
        raise NotImplementedForSymbol(self.__itruediv__, "/=", other)
