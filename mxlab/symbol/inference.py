"""Shape and dtype inference of :class:`~mxlab.symbol.Symbol` (``infer_shape``, ``infer_type``
and their ``_partial`` forms), with MXNet's argument forms, warnings and errors.

Example
-------
>>> import mxlab as mx
>>> mx.sym.FullyConnected(mx.sym.var('x'), num_hidden=3).infer_shape(x=(2, 4))[0]
[(2, 4), (3, 4), (3,)]
"""
import warnings

import numpy

from ..base import MXNetError, MXNetTypeError, MXNetValueError
from ..graph import infer as _infer

__all__ = ["SymbolInference"]


def _numpy_type(dtype):
    return None if dtype is None else numpy.dtype(dtype).type


class SymbolInference:
    """Shape and dtype inference over a symbol's graph (a mixin of
    :class:`~mxlab.symbol.Symbol`)."""

    __slots__ = ()

    def _known(self, args, kwargs, convert, what):
        if args and kwargs:
            raise MXNetValueError(
                f"Can only specify known argument {what} either by positional or kwargs way."
            )
        if args:
            names = self.list_arguments()
            return {names[i]: convert(v, i) for i, v in enumerate(args) if v is not None}
        inputs = self.list_inputs()
        for key in kwargs:
            if key not in inputs:
                candidates = "".join(f"\t[{i}]{n}\n" for i, n in enumerate(inputs))
                raise MXNetValueError(
                    f"Infer{what.capitalize()[:-1]}Keyword argument name {key} not found.\n"
                    f"Candidate arguments:\n{candidates}"
                )
        return {k: convert(v, k) for k, v in kwargs.items() if v is not None}

    def _by_role(self, values, convert):
        """(arguments, outputs, auxiliary states) from an inference result."""
        args = [convert(values[(n, 0)]) for n in self._variables(False)]
        outs = [convert(values[(e.node, e.index)]) for e in self._outputs]
        aux = [convert(values[(n, 0)]) for n in self._variables(True)]
        return args, outs, aux

    def _infer_shape_values(self, args, kwargs):
        from ..util import is_np_shape

        np_shape = is_np_shape()

        def convert(shape, where):
            if not isinstance(shape, tuple):
                where = f"argument {where}" if isinstance(where, int) else f"'{where}'"
                raise MXNetTypeError(
                    f"Arguments need to be shapes (tuple), but {where} is {type(shape)}."
                )
            return _infer.shape_from_user(shape, np_shape)

        known = self._known(args, kwargs, convert, "shapes")
        return _infer.infer_shapes(self._outputs, known, np_shape=np_shape), np_shape

    def infer_shape_partial(self, *args, **kwargs):
        """Like :meth:`infer_shape` but returns what is known: unknown dims are 0 (-1 in np-shape
        mode)."""
        values, np_shape = self._infer_shape_values(args, kwargs)
        return self._by_role(values, lambda s: _infer.shape_to_user(s, np_shape))

    def infer_shape(self, *args, **kwargs):
        """``(arg_shapes, out_shapes, aux_shapes)`` from known argument shapes (positional or by
        name).

        Returns ``(None, None, None)`` with a warning when some shape stays unknown; conflicting
        shapes raise ``MXNetError`` ("Error in operator <name>: ...").

        Example
        -------
        >>> import mxlab as mx
        >>> (mx.sym.var('a') + mx.sym.var('b')).infer_shape(a=(2, 3))
        ([(2, 3), (2, 3)], [(2, 3)], [])
        """
        values, np_shape = self._infer_shape_values(args, kwargs)
        roles = self._by_role(values, lambda s: s)
        if all(_infer.shape_is_known(s) for group in roles for s in group):
            return self._by_role(values, lambda s: _infer.shape_to_user(s, np_shape))
        unknown = [
            (n, _infer.shape_to_user(s, np_shape))
            for n, s in zip(self.list_arguments(), roles[0])
            if not _infer.shape_is_known(s)
        ]
        warnings.warn(
            "Cannot decide shape for the following arguments (0s in shape means unknown "
            "dimensions). Consider providing them as input:\n\t"
            + "\n\t".join(p for p in _infer._unknown_list(unknown)),
            stacklevel=2,
        )
        return None, None, None

    def _infer_type_values(self, args, kwargs):
        known = self._known(args, kwargs, lambda d, where: numpy.dtype(d).name, "types")
        try:
            shapes = _infer.infer_shapes(self._outputs)
        except MXNetError:
            # NOTE: shapes only help ops without a dtype rule; a shape conflict is not a type error.
            shapes = {}
        return _infer.infer_types(self._outputs, known, shapes=shapes)

    def infer_type_partial(self, *args, **kwargs):
        """Like :meth:`infer_type` but returns what is known (``None`` for unknown dtypes)."""
        return self._by_role(self._infer_type_values(args, kwargs), _numpy_type)

    def infer_type(self, *args, **kwargs):
        """``(arg_types, out_types, aux_types)`` as NumPy types from known argument dtypes.

        Returns ``(None, None, None)`` with a warning when some dtype stays unknown.
        """
        values = self._infer_type_values(args, kwargs)
        roles = self._by_role(values, _numpy_type)
        if all(t is not None for group in roles for t in group):
            return roles
        unknown = [(n, t) for n, t in zip(self.list_arguments(), roles[0]) if t is None]
        warnings.warn(
            "Cannot decide type for the following arguments. Consider providing them as input:\n\t"
            + "\n\t".join(_infer._unknown_list(unknown)),
            stacklevel=2,
        )
        return None, None, None
