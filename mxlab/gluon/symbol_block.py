"""``SymbolBlock``: a HybridBlock running a given Symbol (e.g. one loaded from MXNet's JSON).

The symbol's free variables other than the inputs become parameters named like the variables, so
``SymbolBlock.imports`` can load an ``export``-ed ``.params`` file (``arg:``/``aux:`` names) from
here or from MXNet 1.x.
"""
import os

from .. import deferred_compute as dc
from ..base import MXNetRuntimeError, MXNetValueError
from ..symbol.symbol import Symbol
from .block import HybridBlock, _flatten
from .parameter import InvalidParameterError, Parameter
from .parameter_dict import ParameterDict

__all__ = ["SymbolBlock"]

SYMBOLBLOCK_IN_TRACE_MSG = (
    "Calling a SymbolBlock from within HybridBlock is not yet supported in Gluon 2."
)


class SymbolBlock(HybridBlock):
    """A block running a given Symbol; its free variables become parameters by name.

    Example
    -------
    >>> import mxlab as mx
    >>> data = mx.sym.var('data')
    >>> net = mx.gluon.SymbolBlock(mx.sym.FullyConnected(data, num_hidden=2, name='fc'), data)
    >>> sorted(net.collect_params())
    ['fc_bias', 'fc_weight']
    """

    def __init__(self, outputs, inputs, params=None):
        super().__init__()
        if isinstance(inputs, Symbol) and len(inputs.list_outputs()) == 1:
            inputs = [inputs]
        if isinstance(outputs, (list, tuple)):
            from ..symbol import Group

            outputs = outputs[0] if len(outputs) == 1 else Group(list(outputs))
        syms, self._in_format = _flatten(inputs, "input")
        input_names = set()
        for sym in syms:
            if len(sym.get_internals().list_outputs()) != 1:
                raise MXNetValueError(
                    f"Input symbols must be variable, but {sym} is an output of operators"
                )
            input_names.add(sym.name)
        self._out_format = [0] * len(outputs.list_outputs()) if len(outputs) > 1 else 0
        arg_names, aux_names = outputs.list_arguments(), outputs.list_auxiliary_states()
        _refuse_row_sparse(outputs)
        params = _by_variable_name(params or {})
        unused = set(params) - set(arg_names) - set(aux_names)
        # NOTE: MXNet 2.0 refuses parameters the graph does not use; 1.x shares the whole dict
        #   (GluonCV passes a backbone's params with its classifier to a feature extractor), so
        #   legacy (mx.sym) graphs keep 1.x's rule and mx.np graphs 2.0's
        if unused and type(outputs) is not Symbol:
            raise MXNetValueError(f"{unused} params are unused by the model.")
        arg_types, aux_types = _param_types(syms, outputs)
        for names, types, req in ((arg_names, arg_types, "write"), (aux_names, aux_types, "null")):
            for name, dtype in zip(names, types):
                if name in input_names:
                    continue
                param = params.get(name) or Parameter(name, grad_req=req, allow_deferred_init=True,
                                                      dtype=dtype or "float32")
                param._var_name = name
                param._var = None
                self._reg_params[name] = param
        self._cached_graph = syms, outputs
        self._active = True

    def __repr__(self):
        """MXNet's: the output symbol with its input and output counts inside the class name."""
        inputs, outputs = self._cached_graph
        return (f"{type(self).__name__}(\n{outputs} : {len(inputs)} -> "
                f"{len(outputs.list_outputs())}\n)")

    @staticmethod
    def imports(symbol_file, input_names, param_file=None, ctx=None, allow_missing=False,
                ignore_extra=False, device=None):
        """A SymbolBlock from ``export``-ed files (here or by MXNet): ``prefix-symbol.json`` and
        ``prefix-0000.params``."""
        from .. import symbol

        sym = symbol.load(symbol_file)
        if isinstance(input_names, str):
            input_names = [input_names]
        inputs = [symbol.var(name) for name in input_names]
        block = SymbolBlock(sym, inputs)
        if param_file is not None:
            block.load_parameters(param_file, device if device is not None else ctx,
                                  allow_missing, ignore_extra, True, "saved")
        return block

    def __call__(self, *args):
        if args and isinstance(args[0], Symbol):
            outputs = self._cached_graph[1]
            return outputs(**{v.name: a for v, a in zip(self._cached_graph[0], args)})
        if dc.is_deferred_compute():
            return self._call_traced(*args)
        self._ensure_params(*args)
        return self._call_cached_op(*args)

    def _call_traced(self, *args):
        """Called while a HybridBlock traces: MXNet 1.x (``mx.nd`` inputs) composes the symbol
        into the caller's graph, so its ops are recorded into the trace; MXNet 2.0 (``mx.np``)
        refuses."""
        from ..symbol.evaluate import evaluate_graph

        flat = [x for x in _flatten(args, "input")[0] if x is not None]
        if any(getattr(x, "_flavour", "nd") != "nd" for x in flat):
            raise MXNetRuntimeError(SYMBOLBLOCK_IN_TRACE_MSG)
        self._ensure_params(*args)
        variables, outputs = self._cached_graph
        arrays = {v.name: x for v, x in zip(variables, flat)}
        arrays.update((name, p.data(flat[0].device)) for name, p in self._reg_params.items())
        out = evaluate_graph(outputs._outputs, arrays, flat[0].device, type(flat[0]), traced=True)
        return out[0] if len(out) == 1 else out

    def _collect_params_with_prefix(self, prefix="", legacy=False):
        """``legacy``: MXNet 1.x keys a SymbolBlock's parameters in checkpoints by their names
        less the characters all of them share (``ssd0_mobilenet0_conv0_weight`` among
        ``ssd0_...`` names saves as ``mobilenet0_conv0_weight``), which GluonCV's files use."""
        if not legacy:
            return super()._collect_params_with_prefix(prefix)
        prefix = prefix + "." if prefix else ""
        cut = len(os.path.commonprefix(list(self._reg_params)))
        return ParameterDict((prefix + key[cut:], p) for key, p in self._reg_params.items())

    def infer_shape(self, *args):
        """Parameter shapes from the symbol's shape inference on the input shapes."""
        variables, out = self._cached_graph
        flat = [x for x in _flatten(args, "input")[0] if x is not None]
        shapes = {v.name: tuple(x.shape) for v, x in zip(variables, flat)}
        arg_shapes, _, aux_shapes = out.infer_shape_partial(**shapes)
        found = dict(zip(out.list_arguments(), arg_shapes))
        found.update(zip(out.list_auxiliary_states(), aux_shapes))
        for name, param in self._reg_params.items():
            if name in found:
                param.shape = found[name]

    def _build_cache(self, *args):
        for name, param in self._reg_params.items():
            if param._var_name != name:
                raise MXNetValueError(f"SymbolBlock parameter {name} is bound to a different "
                                      f"variable {param._var_name}")
        super()._build_cache(*args)

    def _clear_cached_op(self):
        self._cached_op = None
        self._cached_op_args = []

    def hybridize(self, active=True, **kwargs):
        super().hybridize(True, **kwargs)

    def forward(self, x, *args):
        return self._call_cached_op(x, *args)


def _by_variable_name(params):
    """``{name: Parameter}`` keyed as the symbol names the parameters: a key that is not a
    parameter's variable name (a Gluon 2 structural key, ``0.weight``, of a model called on
    symbols) is replaced by that variable's name."""
    found = {}
    for key, param in params.items():
        var_name = param._var_name if isinstance(param, Parameter) else None
        found[key if var_name is None else var_name] = param
    return found


def _param_types(inputs, out):
    """Argument/aux dtypes inferred from float32 inputs (None where unknown)."""
    try:
        arg_types, _, aux_types = out.infer_type_partial(**{s.name: "float32" for s in inputs})
    except Exception:  # NOTE: ops without a dtype rule leave dtypes to the loaded values.
        return [None] * len(out.list_arguments()), [None] * len(out.list_auxiliary_states())
    return arg_types, aux_types


def _refuse_row_sparse(outputs):
    """MXNet's SymbolBlock has no row_sparse parameters (asserted, naming the variable)."""
    attrs = outputs.attr_dict()
    for name in outputs.list_arguments():
        if attrs.get(name, {}).get("__storage_type__") == "1":   # NOTE: MXNet's row_sparse id
            raise InvalidParameterError(f"SymbolBlock doesn't support Parameter '{name}' because "
                                        f"its storage type is 'row_sparse'.")
