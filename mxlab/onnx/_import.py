"""ONNX ModelProto -> (Symbol, arg_params, aux_params): the graph walk, constant folding and the
symbolic shape values that let dynamic Reshapes (``Shape -> Slice -> Concat -> Reshape``, as MXNet
1.9 and PyTorch write them) become MXNet reshape codes."""
import os

import numpy

from ..base import MXNetValueError
from ._common import numpy_type, require, unmapped
from ._registry import IMPORTERS, Dim, attributes


class ImportContext:
    """What a converter sees: the Symbol of an ONNX tensor name, constants (initializers and
    folded values), ranks from ONNX shape inference, and attribute access."""

    def __init__(self, model, opset):
        self.opset = opset
        self.symbols, self.constants, self.shape_values, self.params = {}, {}, {}, {}
        numpy_helper = require("onnx.numpy_helper")
        for init in model.graph.initializer:
            self.constants[init.name] = _initializer(numpy_helper, init)
        inferred = require("onnx.shape_inference").infer_shapes(model, data_prop=True)
        self.ranks, self.shapes = {}, {}
        for info in list(inferred.graph.value_info) + list(inferred.graph.input) + list(
                inferred.graph.output):
            if info.type.tensor_type.HasField("shape"):
                dims = info.type.tensor_type.shape.dim
                self.ranks[info.name] = len(dims)
                self.shapes[info.name] = tuple(d.dim_value if d.HasField("dim_value") else None
                                               for d in dims)

    def sym(self, name):
        """The Symbol of tensor ``name``; a constant becomes a parameter variable."""
        from .. import symbol

        if name not in self.symbols:
            if name not in self.constants:
                raise MXNetValueError(f"ONNX tensor '{name}' is used before it is defined")
            self.params[name] = self.constants[name]
            self.symbols[name] = symbol.var(name, shape=self.constants[name].shape,
                                            dtype=self.constants[name].dtype)
        return self.symbols[name]

    def const(self, name, what="input"):
        """The constant value of tensor ``name`` (an error when it is computed at run time)."""
        if name not in self.constants:
            raise MXNetValueError(f"ONNX {what} '{name}' must be a constant to import")
        return self.constants[name]

    def optional_const(self, node, index):
        """Constant input ``index`` of ``node`` or None when it is absent."""
        if len(node.input) <= index or not node.input[index]:
            return None
        return self.const(node.input[index], f"input {index} of {node.op_type}")

    def shape_value(self, name):
        """A 1-D shape tensor as a list of ints / Dims, or None when it is neither."""
        if name in self.shape_values:
            return list(self.shape_values[name])
        if name in self.constants and self.constants[name].ndim <= 1:
            return [int(v) for v in numpy.atleast_1d(self.constants[name])]
        return None

    def rank(self, name):
        if name in self.ranks:
            return self.ranks[name]
        raise MXNetValueError(f"the rank of ONNX tensor '{name}' is unknown (shape inference "
                              "found none)")

    def fail(self, node, why):
        return unmapped(node.op_type, node.name or node.output[0], self.opset, why)


def _initializer(numpy_helper, init):
    """An initializer's array; a tensor whose data does not match its dims is an error."""
    try:
        return numpy_helper.to_array(init)
    except (ValueError, TypeError) as exc:
        raise MXNetValueError(f"ONNX initializer '{init.name}' (dims {list(init.dims)}) is "
                              f"corrupt: {exc}") from None


# NOTE: folding makes constants at import time, so the model file decides their size: a
#   ConstantOfShape of (20000, 20000) would allocate 1.6 GB before anything runs. A node whose
#   output would be larger than this and than its largest input stays in the graph instead.
FOLD_LIMIT_BYTES = 1 << 26


def _fold_estimate(ctx, node):
    """Elements of ``node``'s largest output, from ONNX shape inference or, for the ops that
    make a shape from their inputs' values, from those values; None when unknown."""
    sizes = [_count(ctx.shapes.get(out)) for out in node.output if out]
    if sizes and all(n is not None for n in sizes):
        return max(sizes)
    values = [ctx.constants[n] for n in node.input if n]
    try:
        if node.op_type == "ConstantOfShape" and values:
            return _count(tuple(int(d) for d in values[0]))
        if node.op_type == "Expand":
            return _count(numpy.broadcast_shapes(values[0].shape,
                                                 tuple(int(d) for d in values[1])))
        if node.op_type == "Tile":
            return _count(tuple(int(a) * int(b) for a, b in zip(values[0].shape, values[1])))
        if node.op_type == "Range":
            start, limit, delta = (float(v) for v in values[:3])
            return max(0, int(numpy.ceil((limit - start) / delta))) if delta else None
    except (ValueError, TypeError, IndexError, OverflowError):
        return None
    return None


def _count(shape):
    if shape is None or any(d is None for d in shape):
        return None
    count = 1
    for d in shape:
        count *= max(int(d), 0)
    return count


def _fold_fits(ctx, node):
    count = _fold_estimate(ctx, node)
    if count is None:
        return True
    inputs = [ctx.constants[n].nbytes for n in node.input if n]
    return count * 8 <= max([FOLD_LIMIT_BYTES] + inputs)


def _fold(ctx, node):
    """Evaluate a node whose inputs are all constants with ONNX's reference evaluator."""
    reference = require("onnx.reference")
    feeds = {name: ctx.constants[name] for name in node.input if name}
    results = reference.ReferenceEvaluator(node).run(None, feeds)
    for name, value in zip(node.output, results):
        ctx.constants[name] = numpy.asarray(value)


def _all_constant(ctx, node):
    names = [n for n in node.input if n]
    return all(n in ctx.constants for n in names) and node.op_type not in _NO_FOLD and \
        _fold_fits(ctx, node)


_NO_FOLD = {"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
            "Multinomial", "Bernoulli"}


# -- shape values ----------------------------------------------------------------------------------
def _track_shape(ctx, node):
    """Follow Shape / Gather / Slice / Concat / Unsqueeze / Squeeze / Cast on shape values;
    returns False when the node is not such a step."""
    op, out = node.op_type, node.output[0]
    if op == "Shape" and node.input[0] in ctx.shape_values:
        ctx.constants[out] = numpy.array([len(ctx.shape_values[node.input[0]])], numpy.int64)
        return True
    if op == "Shape":
        value = [Dim(node.input[0], k) for k in range(ctx.rank(node.input[0]))]
        ctx.shape_values[out] = value[attributes(node).get("start", 0):attributes(node).get("end")]
        return True
    if not any(n in ctx.shape_values for n in node.input):
        return False
    inputs = [ctx.shape_value(n) for n in node.input]
    if any(v is None for v in inputs):
        return False
    value = inputs[0]
    if op in ("Cast", "Identity", "Squeeze", "Unsqueeze"):
        ctx.shape_values[out] = value
    elif op == "Gather" and attributes(node).get("axis", 0) == 0:
        ctx.shape_values[out] = [value[i] for i in inputs[1]]
    elif op == "Slice" and len(inputs) <= 3 or op == "Slice" and inputs[3] == [0]:
        step = inputs[4][0] if len(inputs) > 4 else 1
        ctx.shape_values[out] = value[inputs[1][0]:inputs[2][0]:step]
    elif op == "Concat":
        ctx.shape_values[out] = [d for v in inputs for d in v]
    else:
        return False
    return True


# -- the walk --------------------------------------------------------------------------------------
def graph_to_symbol(model):
    """(Symbol, arg_params, aux_params, data input names) of an ONNX ModelProto."""
    from .. import ndarray, symbol
    from . import _import_ops, _rnn  # noqa: F401  (registration side effect)

    opset = max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")),
                default=1)
    ctx = ImportContext(model, opset)
    data_names = [i.name for i in model.graph.input if i.name not in ctx.constants]
    for name in data_names:
        ctx.symbols[name] = symbol.var(name)
    for node in model.graph.node:
        if _all_constant(ctx, node):
            _fold(ctx, node)
            continue
        if _track_shape(ctx, node):
            continue
        convert = IMPORTERS.get(node.op_type)
        if convert is None or node.domain not in ("", "ai.onnx"):
            raise ctx.fail(node, "no importer for this ONNX op")
        results = convert(ctx, node)
        results = results if isinstance(results, (list, tuple)) else [results]
        _name_nodes(results, node.name or node.output[0])
        for name, result in zip(node.output, results):
            if name:
                ctx.symbols[name] = result
    outputs = [ctx.sym(o.name) for o in model.graph.output]
    sym = outputs[0] if len(outputs) == 1 else symbol.Group(outputs)
    aux_names = set(sym.list_auxiliary_states())
    used = set(sym.list_inputs())
    arg_params = {n: ndarray.array(v, dtype=v.dtype) for n, v in ctx.params.items()
                  if n in used and n not in aux_names}
    aux_params = {n: ndarray.array(v, dtype=v.dtype) for n, v in ctx.params.items()
                  if n in aux_names}
    return sym, arg_params, aux_params, data_names


def _name_nodes(results, name):
    """Name the nodes a converter made after the ONNX node, so views show the model's names."""
    for result in results:
        node = result._outputs[0].node
        if node.op is not None:
            node.name = name


def _load(model_file):
    onnx = require("onnx")
    if isinstance(model_file, onnx.ModelProto):
        return model_file
    try:
        return onnx.load_model(os.fspath(model_file))
    except OSError:
        raise
    except Exception as exc:   # NOTE: protobuf's DecodeError, onnx's ValidationError (an
        #   external-data path outside the model's folder), ...: all say "not a model we open"
        raise MXNetValueError(f"Cannot load ONNX model {os.fspath(model_file)}: "
                              f"{type(exc).__name__}: {exc}") from None


def import_model(model_file):
    """``(sym, arg_params, aux_params)`` of an ONNX file (MXNet's ``mx.contrib.onnx``)."""
    sym, arg_params, aux_params, _ = graph_to_symbol(_load(model_file))
    return sym, arg_params, aux_params


def get_model_metadata(model_file):
    """``{'input_tensor_data': [(name, shape, dtype)], 'output_tensor_data': [(name, shape)]}``
    for the data inputs (initializers left out) and outputs; unknown dims are 0, as MXNet."""
    graph = _load(model_file).graph
    params = {init.name for init in graph.initializer}

    def shape_of(info):
        return tuple(d.dim_value for d in info.type.tensor_type.shape.dim)

    inputs = [(i.name, shape_of(i), numpy_type(i.type.tensor_type.elem_type))
              for i in graph.input if i.name not in params]
    return {"input_tensor_data": inputs,
            "output_tensor_data": [(o.name, shape_of(o)) for o in graph.output]}


def import_to_gluon(model_file, ctx=None):
    """A ``gluon.SymbolBlock`` running the ONNX model, its parameters loaded on ``ctx``."""
    from .. import symbol
    from ..gluon import SymbolBlock

    sym, arg_params, aux_params, data_names = graph_to_symbol(_load(model_file))
    block = SymbolBlock(sym, [symbol.var(n) for n in data_names])
    values = {**arg_params, **aux_params}
    for name, param in block.collect_params().items():
        param.shape = values[name].shape
        param._load_init(values[name], ctx)
    return block
