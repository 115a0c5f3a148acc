"""Symbol (+ parameters) -> ONNX ModelProto: the graph walk and the context op converters write
through. Converters live in ``_export_nn`` / ``_export_tensor`` and are looked up by op name."""
import logging
import os
import tempfile

import numpy

from ..atomic_file import write_bytes
from ..base import MXNetError, MXNetValueError
from ..graph.node import Entry, topo_sort
from ._common import check_opset, require, tensor_type, unmapped
from ._registry import EXPORTERS

_LOG = logging.getLogger(__name__)


def operator_support(opset_version=None):
    """Sorted mxlab op names with a converter at ``opset_version`` (default: DEFAULT_OPSET)."""
    _load_converters()
    opset = check_opset(opset_version)
    return sorted(name for name, (since, _) in EXPORTERS.items() if since <= opset)


def _load_converters():
    from . import _export_nn, _export_tensor, _rnn  # noqa: F401  (registration side effect)


class ExportContext:
    """What a converter sees: names, static shapes and dtypes of a node's inputs and outputs, and
    ``emit`` / ``const`` to add ONNX nodes and initializers.

    ``varied`` holds the shapes inferred a second time with every dynamic input dimension changed,
    so a converter can tell which dimensions follow the inputs (see ``target_shape``).
    """

    def __init__(self, opset, shapes, varied, dtypes):
        self.opset = opset
        self.nodes, self.initializers = [], []
        self._shapes, self._varied, self._dtypes = shapes, varied, dtypes
        self._names, self._taken, self._count = {}, set(), 0
        self.current = None  # the mxlab node being converted

    # -- names, shapes and dtypes of entries -----------------------------------------------------
    def entry_name(self, entry):
        key = (id(entry.node), entry.index)
        if key not in self._names:
            name = entry.node.output_names()[entry.index]
            while name in self._taken:
                name += "_"
            self._names[key] = name
            self._taken.add(name)
        return self._names[key]

    def fresh(self, hint):
        """A new name for an intermediate value, under the name of the node being converted."""
        self._count += 1
        prefix = f"{self.current.name}_" if self.current is not None else ""
        name = f"{prefix}{hint}__{self._count}"
        self._taken.add(name)
        return name

    def inp(self, node, i=0):
        return self.entry_name(node.inputs[i])

    def out(self, node, i=0):
        return self.entry_name(Entry(node, i))

    def in_shape(self, node, i=0):
        return self._shapes[self.inp(node, i)]

    def out_shape(self, node, i=0):
        return self._shapes[self.out(node, i)]

    def in_dtype(self, node, i=0):
        return self._dtypes[self.inp(node, i)]

    def out_dtype(self, node, i=0):
        return self._dtypes[self.out(node, i)]

    def dynamic_axes(self, name):
        """Axes of tensor ``name`` whose size follows the dynamic input dims."""
        shape = self._shapes[name]
        return {k for k, (a, b) in enumerate(zip(shape, self._varied.get(name, shape))) if a != b}

    def target_shape(self, node, i=0):
        """The output shape as an ONNX Reshape/Expand target: fixed dims as numbers, a dim equal
        to the input's at the same place as 0 (copy), and at most one other dynamic dim as -1."""
        out, in_ = self.out(node, i), self.inp(node, 0)
        shape, varied = self._shapes[out], self._varied.get(out, self._shapes[out])
        in_shape, in_varied = self._shapes[in_], self._varied.get(in_, self._shapes[in_])
        target = []
        for k, (a, b) in enumerate(zip(shape, varied)):
            if a == b:
                target.append(a)
            elif k < len(in_shape) and (in_shape[k], in_varied[k]) == (a, b):
                target.append(0)
            else:
                target.append(-1)
        if target.count(-1) > 1 or (0 in shape):
            raise unmapped(node.op.name, node.name, self.opset,
                           f"output shape {shape} with dynamic dims that are not one -1 and copies "
                           "of the input's")
        return target

    # -- writing the graph -----------------------------------------------------------------------
    def emit(self, op_type, inputs, outputs=None, hint=None, **attrs):
        """Add an ONNX node; ``outputs`` default to one fresh name. Returns the output name (one
        output) or the list of names."""
        helper = require("onnx.helper")
        if outputs is None:
            outputs = [self.fresh(hint or op_type.lower())]
        elif isinstance(outputs, str):
            outputs = [outputs]
        name = self._node_name(outputs, op_type)
        self.nodes.append(helper.make_node(op_type, list(inputs), list(outputs), name=name,
                                           **attrs))
        return outputs[0] if len(outputs) == 1 else list(outputs)

    def _node_name(self, outputs, op_type):
        """The mxlab node's name for the first ONNX node writing one of its outputs (so an
        import names its nodes as the original), a fresh name for the others."""
        node = self.current
        if node is not None and node.name not in self._taken and any(
                self.out(node, i) in outputs for i in range(node.num_outputs)):
            self._taken.add(node.name)
            return node.name
        return self.fresh(op_type)

    def const(self, value, dtype=None, hint="const"):
        """An initializer holding ``value``; returns its name."""
        array = numpy.asarray(value, dtype=dtype)
        name = self.fresh(hint)
        self.add_initializer(name, array)
        return name

    def int64s(self, values, hint="ints"):
        return self.const(numpy.asarray(values, dtype=numpy.int64), hint=hint)

    def add_initializer(self, name, array):
        numpy_helper = require("onnx.numpy_helper")
        self.initializers.append(numpy_helper.from_array(numpy.ascontiguousarray(array), name))

    def axes_op(self, op_type, data, axes, out=None, **attrs):
        """Squeeze/Unsqueeze/Reduce*: axes as an input (opset 13+ for Squeeze/Unsqueeze/ReduceSum,
        18+ for the other reductions) or as an attribute before that."""
        axes_input = op_type in ("Squeeze", "Unsqueeze", "ReduceSum") or self.opset >= 18
        if axes is None:
            return self.emit(op_type, [data], out, **attrs)
        if axes_input:
            return self.emit(op_type, [data, self.int64s(list(axes), "axes")], out, **attrs)
        return self.emit(op_type, [data], out, axes=list(axes), **attrs)


# -- the walk --------------------------------------------------------------------------------------
def _infer(sym, shapes, dtypes):
    """Shapes and dtypes of every visible entry, keyed by output name."""
    internals = sym.get_internals()
    names = internals.list_outputs()
    _, out_shapes, _ = internals.infer_shape(**shapes)
    _, out_types, _ = internals.infer_type(**dtypes)
    return (dict(zip(names, map(tuple, out_shapes))),
            {n: numpy.dtype(t) for n, t in zip(names, out_types)})


def _infer_varied(sym, shapes, dtypes):
    """Shapes with the open axes grown by one: which dims follow them (see target_shape)."""
    try:
        return _infer(sym, shapes, dtypes)[0]
    except MXNetError as err:
        raise MXNetValueError(
            f"dynamic export: the graph does not take other sizes on the open input axes ({err});"
            " export with dynamic=False or name the open axes in dynamic_input_shapes") from err


def _dynamic_axes(in_shapes, dynamic, dynamic_input_shapes):
    """Per input, the axes whose size the ONNX graph leaves open."""
    if not dynamic:
        return [() for _ in in_shapes]
    if dynamic_input_shapes is None:
        return [(0,) for _ in in_shapes]
    if len(dynamic_input_shapes) != len(in_shapes):
        raise MXNetValueError("dynamic_input_shapes must have one shape per input "
                              f"({len(in_shapes)}), got {len(dynamic_input_shapes)}")
    return [tuple(k for k, d in enumerate(s) if d is None) for s in dynamic_input_shapes]


def _value_info(name, dtype, shape, dynamic_names):
    helper = require("onnx.helper")
    dims = [dynamic_names.get(k, d) for k, d in enumerate(shape)]
    return helper.make_tensor_value_info(name, tensor_type(dtype), dims)


def build_model(sym, params, in_shapes, in_types, dynamic=False, dynamic_input_shapes=None,
                opset_version=None, verbose=False):
    """The ONNX ModelProto of ``sym`` with ``params`` (name -> NumPy array) as initializers."""
    _load_converters()
    helper = require("onnx.helper")
    opset = check_opset(opset_version)
    data_names = [n for n in sym.list_inputs() if n not in params]
    if len(in_shapes) != len(data_names):
        raise MXNetValueError(f"in_shapes has {len(in_shapes)} shapes but the symbol has "
                              f"{len(data_names)} data inputs {data_names}")
    in_types = in_types if isinstance(in_types, (list, tuple)) else [in_types] * len(in_shapes)
    if len(in_types) != len(in_shapes):
        raise MXNetValueError("The lengths of in_types and in_shapes must equal")
    in_shapes = [tuple(int(d) for d in s) for s in in_shapes]
    axes = _dynamic_axes(in_shapes, dynamic, dynamic_input_shapes)
    sym_inputs = set(sym.list_inputs())
    known = {n: p.shape for n, p in params.items() if n in sym_inputs}
    types = {n: numpy.dtype(t) for n, t in zip(data_names, in_types)}
    types.update({n: p.dtype for n, p in params.items() if n in known})
    shapes, dtypes = _infer(sym, {**known, **dict(zip(data_names, in_shapes))}, types)
    bumped = [tuple(d + 1 if k in ax else d for k, d in enumerate(s))
              for s, ax in zip(in_shapes, axes)]
    varied = _infer_varied(sym, {**known, **dict(zip(data_names, bumped))}, types) if any(
        axes) else shapes
    ctx = ExportContext(opset, shapes, varied, dtypes)
    inputs = []
    for name, shape, ax in zip(data_names, in_shapes, axes):
        open_dims = {k: ("batch" if k == 0 else f"{name}_dim{k}") for k in ax}
        inputs.append(_value_info(name, types[name], shape, open_dims))
    for node in topo_sort(sym._outputs):
        if node.op is None:
            if node.name in params:
                ctx.add_initializer(ctx.entry_name(Entry(node, 0)), params[node.name])
            continue
        since, convert = EXPORTERS.get(node.op.name, (None, None))
        if convert is None or since > opset:
            raise unmapped(node.op.name, node.name, opset,
                           f"mapped from opset {since}" if convert else "")
        if verbose:
            _LOG.info("converting %s (%s)", node.name, node.op.name)
        ctx.current = node
        convert(ctx, node)
        _check_written(ctx, node, sym)
    outputs = []
    for entry in sym._outputs:
        name = ctx.entry_name(entry)
        open_dims = {k: f"{name}_dim{k}" for k, (a, b) in
                     enumerate(zip(shapes[name], varied[name])) if a != b}
        outputs.append(_value_info(name, dtypes[name], shapes[name], open_dims))
    read = {name for onnx_node in ctx.nodes for name in onnx_node.input}
    initializers = [i for i in ctx.initializers if i.name in read]  # e.g. gamma of fix_gamma
    graph = helper.make_graph(ctx.nodes, "mxlab_graph", inputs, outputs, initializers)
    model = helper.make_model(graph, producer_name="mxlab",
                              opset_imports=[helper.make_opsetid("", opset)])
    require("onnx.checker").check_model(model)
    return model


def _check_written(ctx, node, sym):
    """Every output of ``node`` the graph reads must have been written by its converter."""
    needed = sorted(e.index for e in sym._outputs if e.node is node)
    written = {name for onnx_node in ctx.nodes for name in onnx_node.output} if needed else ()
    for index in needed:
        if ctx.out(node, index) not in written:
            raise unmapped(node.op.name, node.name, ctx.opset,
                           f"output {index} ({ctx.out(node, index)}) is not exported")


# -- the public entry point ------------------------------------------------------------------------
def load_inputs(sym, params, in_shapes, in_types):
    """(Symbol, {name: NumPy array}) from a Symbol / -symbol.json path / HybridBlock and a params
    dict / [arg, aux] list / .params path (``arg:``/``aux:`` prefixes dropped)."""
    from .. import ndarray, symbol
    from ..gluon import HybridBlock

    if isinstance(sym, HybridBlock):
        sym, params = _block_files(sym, in_shapes, in_types)
    elif isinstance(sym, (str, os.PathLike)):
        sym = symbol.load(os.fspath(sym))
    if not isinstance(sym, symbol.Symbol):
        raise MXNetValueError(f"sym must be a Symbol, a -symbol.json path or a HybridBlock, got "
                              f"{type(sym).__name__}")
    if isinstance(params, (str, os.PathLike)):
        params = ndarray.load(os.fspath(params))
    elif isinstance(params, (list, tuple)) and len(params) == 2:
        params = {**params[0], **params[1]}
    if not isinstance(params, dict):
        raise MXNetValueError("params must be a dict, an [arg_params, aux_params] list or a "
                              f".params path, got {type(params).__name__}")
    return sym, {_strip(k): _as_numpy(v) for k, v in params.items()}


def _strip(name):
    return name.split(":", 1)[1] if name.startswith(("arg:", "aux:")) else name


def _as_numpy(value):
    return value.asnumpy() if hasattr(value, "asnumpy") else numpy.asarray(value)


def _block_files(block, in_shapes, in_types):
    """The block's traced symbol and parameters, through ``export`` (run once if needed)."""
    from .. import ndarray, symbol
    from .. import numpy as mnp
    from ..base import MXNetRuntimeError

    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "block")
        try:
            sym_file, params_file = block.export(prefix)
        except MXNetRuntimeError:
            types = in_types if isinstance(in_types, (list, tuple)) else [in_types] * len(in_shapes)
            block.hybridize()
            block(*[mnp.zeros(s, dtype=t) for s, t in zip(in_shapes, types)])
            sym_file, params_file = block.export(prefix)
        return symbol.load(sym_file), ndarray.load(params_file)


def export_model(sym, params=None, in_shapes=None, in_types=numpy.float32,
                 onnx_file_path="model.onnx", verbose=False, dynamic=False,
                 dynamic_input_shapes=None, run_shape_inference=False, input_type=None,
                 input_shape=None, large_model=False, opset_version=None):
    """Export a model to ONNX (MXNet 1.9's ``mx.onnx.export_model``); returns the file path.

    ``sym``: Symbol, path to ``-symbol.json`` or a HybridBlock (then ``params`` is ignored).
    ``params``: dict, ``[arg_params, aux_params]`` or path to ``.params``. ``in_shapes`` /
    ``in_types``: one per data input (``input_shape`` / ``input_type`` are the old names).
    ``dynamic=True`` leaves the batch axis open, or the ``None`` axes of
    ``dynamic_input_shapes``. ``opset_version`` defaults to 17. ``large_model`` stores the
    weights in files beside the model (ONNX external data).
    """
    in_types = in_types if input_type is None else input_type
    in_shapes = in_shapes if input_shape is None else input_shape
    if in_shapes is None:
        raise MXNetValueError("export_model needs in_shapes (one shape per data input)")
    sym, params = load_inputs(sym, params if params is not None else {}, in_shapes, in_types)
    model = build_model(sym, params, in_shapes, in_types, dynamic, dynamic_input_shapes,
                        opset_version, verbose)
    if run_shape_inference:
        model = require("onnx.shape_inference").infer_shapes(model, strict_mode=True)
    onnx = require("onnx")
    _save_model(onnx, model, os.fspath(onnx_file_path), large_model)
    _LOG.info("exported %s (opset %d, inputs %s)", onnx_file_path, model.opset_import[0].version,
              in_shapes)
    return os.fspath(onnx_file_path)


def _save_model(onnx, model, path, large_model):
    """Write ``model`` to ``path`` atomically (a failed export keeps the last good file), as
    binary protobuf like MXNet 1.9; ``large_model`` is left to onnx, which writes the weights'
    files beside the model itself."""
    if large_model:
        onnx.save_model(model, path, save_as_external_data=True, size_threshold=0)
        return
    write_bytes(path, model.SerializeToString())
