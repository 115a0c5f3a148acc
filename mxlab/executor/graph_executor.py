"""``GraphExecutor``: a Symbol bound to arrays (``Symbol.bind`` / ``Symbol.simple_bind``).

The executor builds the full graph once (forward outputs, then one gradient per argument whose
grad_req is not ``'null'``, with ``<output>_head_grad`` placeholders), infers shapes and dtypes
from the bound arrays, plans memory jointly over forward and backward (nnvm's PlanMemory with
in-place add-to), allocates the planned blocks (reusing ``shared_exec``'s blocks when given) and
compiles two programs on the shared runtime (:mod:`.runtime`): the forward part and the backward
part. ``forward`` and ``backward`` walk their bound bulk segments with the graph interpreter
template (:class:`~mxlab.graph.interpreter.Interpreter`; a node's call is one engine push); a
monitor callback disables bulking and sees every node output as ``<node>_<output>``.

Example
-------
>>> import mxlab as mx
>>> x = mx.sym.var('x')
>>> ex = (x * x).simple_bind(mx.cpu(), x=(2,))
>>> ex.arg_dict['x'][:] = 3
>>> ex.forward(is_train=True)[0].asnumpy()
array([9., 9.], dtype=float32)
>>> ex.backward(mx.nd.ones((2,)))
>>> ex.grad_dict['x'].asnumpy()
array([6., 6.], dtype=float32)
"""
import importlib
import os
import types
import warnings

import numpy

from ..base import MXNetNotImplementedError, MXNetTypeError, MXNetValueError, env_int
from ..graph.graph import Graph
from ..graph.interpreter import Interpreter
from ..graph.passes import apply_pass
from ..graph.segments import Segment
from ..imperative import invoke
from ..ops.context import op_context
from ..ops.registry import OpReq, get_op
from . import op_hook
from .planning import gradient_graph, head_entry_ids, infer_graph, plan_graph
from .placement import check_group2ctx as _check_group2ctx
from .placement import group_devices as _group_devices
from .runtime import Frame, Program

__all__ = ["GraphExecutor", "Executor", "bind", "simple_bind", "HEAD_GRAD_MSG", "GRAD_REQS"]

HEAD_GRAD_MSG = ("Because the last operator is not Loss function, head_gradient is required when "
                 "calling backward. If you are attempting to minimize the output as an objective, "
                 "please modify your network and pass it through the make_loss symbol.")
GRAD_REQS = ("null", "write", "add")
_REQ_OF = {"write": OpReq.WRITE, "add": OpReq.ADDTO}
_MB = 20
_TEMP_SPACE_LINE_COUNT = 11


class _Monitor:
    """Calls ``callback(name, NDArray)`` around each node (outputs; inputs too with ``all``).

    ``variables`` maps the entry id of each variable to its name: MXNet reports an input that is
    a variable under the variable's name too, just before ``<node>_<input>``.
    """

    def __init__(self, callback, monitor_all, cls, variables):
        self.callback, self.monitor_all, self.cls = callback, monitor_all, cls
        self.variables = variables

    def before(self, step, frame):
        names = op_hook.input_names(step.op, step.attrs, len(step.ins))
        pairs = []
        for name, eid in zip(names, step.ins):
            if eid in self.variables:
                pairs.append((self.variables[eid], eid))
            pairs.append((f"{step.name}_{name}", eid))
        return self._caller(pairs, frame)

    def after(self, step, frame):
        node_names = [f"{step.name}_{o}" for o in step.op.get_output_names(step.attrs)]
        return self._caller(list(zip(node_names, step.outs)), frame)

    def _caller(self, pairs, frame):
        def call():
            for name, eid in pairs:
                self.callback(name, self.cls._wrap(frame.slots[eid], frame.device))
        return call


class _EngineRun(Interpreter):
    """The executor's run on the interpreter template: the nodes walked are its bound bulk
    segments (a coarsened graph, as MXNet's cached segment operators), calling one is one engine
    push with the run's op context, and values stay in the frame the segments were bound to."""

    def __init__(self, segments, is_train):
        self.segments, self.ctx = segments, op_context(bool(is_train))

    def order(self):
        return self.segments

    def is_variable(self, segment):
        return False

    def step(self, segment):
        segment.push(self.ctx)


def _normalize_reqs(grad_req, arg_names):
    """One of null/write/add per argument, from a str, a list or a dict (missing: null)."""
    if isinstance(grad_req, str):
        reqs = [grad_req] * len(arg_names)
    elif isinstance(grad_req, dict):
        reqs = [grad_req.get(name, "null") for name in arg_names]
    else:
        reqs = list(grad_req)
        if len(reqs) != len(arg_names):
            raise MXNetValueError(f"grad_req has {len(reqs)} items for {len(arg_names)} "
                                  f"arguments {arg_names}")
    for name, req in zip(arg_names, reqs):
        if req not in GRAD_REQS:
            raise MXNetValueError(f"grad_req for argument '{name}' must be one of {GRAD_REQS}, "
                                  f"got {req!r}")
    return reqs


def _by_name(values, names, what, allow_missing=False):
    """A list in ``names`` order from a list or dict of arrays (MXNet's ``_get_ndarray_inputs``)."""
    if values is None:
        return [None] * len(names)
    if isinstance(values, dict):
        missing = [n for n in names if n not in values]
        if missing and not allow_missing:
            raise MXNetValueError(f"key `{missing[0]}` is missing in `{what}`")
        return [values.get(n) for n in names]
    values = list(values)
    if len(values) != len(names):
        raise MXNetValueError(f"Length of {what} do not match number of arguments: expected "
                              f"{len(names)} {names}, got {len(values)}")
    return values


def _maybe_partition(symbol, device):
    """The MXNET_SUBGRAPH_BACKEND hook: partition with ``mxlab.subgraph.maybe_partition`` when
    the variable is set and that module exists (read at every bind)."""
    backend = os.environ.get("MXNET_SUBGRAPH_BACKEND")
    if not backend:
        return symbol
    try:
        subgraph = importlib.import_module("mxlab.subgraph")
    except ImportError:
        return symbol
    partition = getattr(subgraph, "maybe_partition", None)
    return symbol if partition is None else partition(symbol, backend)


class GraphExecutor:
    """A symbol bound to argument, gradient and auxiliary arrays (MXNet's ``Executor``).

    Build it with :meth:`Symbol.bind` or :meth:`Symbol.simple_bind`.
    """

    def __init__(self, symbol, device, args, args_grad, grad_req, aux_states, shared_exec=None,
                 share_outputs=False):
        self._symbol = symbol
        self._device = device
        self._cls = symbol._array_class()
        self._arg_names = symbol.list_arguments()
        self._aux_names = symbol.list_auxiliary_states()
        self.arg_arrays = _by_name(args, self._arg_names, "args")
        self.aux_arrays = _by_name(aux_states, self._aux_names, "aux_states")
        grads = _by_name(args_grad, self._arg_names, "args_grad", allow_missing=True)
        reqs = _normalize_reqs(grad_req, self._arg_names)
        self._grad_reqs = [r if g is not None else "null" for r, g in zip(reqs, grads)]
        self.grad_arrays = [g if r != "null" else None for g, r in zip(grads, self._grad_reqs)]
        self._check_arrays()
        self._monitor = None
        self._build(shared_exec, shared_exec if share_outputs else None)

    # -- building --------------------------------------------------------------------------------
    def _check_arrays(self):
        for names, arrays, what in ((self._arg_names, self.arg_arrays, "args"),
                                    (self._aux_names, self.aux_arrays, "aux_states")):
            for name, arr in zip(names, arrays):
                if arr is None:
                    raise MXNetValueError(f"key `{name}` is missing in `{what}`")

    def _build(self, shared_exec, output_source=None):
        names = self._arg_names + self._aux_names
        arrays = self.arg_arrays + self.aux_arrays
        shapes = {n: tuple(a.shape) for n, a in zip(names, arrays)}
        dtypes = {n: numpy.dtype(a.dtype).name for n, a in zip(names, arrays)}
        xs = [n for n, r in zip(self._arg_names, self._grad_reqs) if r != "null"]
        graph = self._symbol.graph
        if env_int("MXNET_ELIMINATE_COMMON_EXPR", 0):   # NOTE: MXNet's default is 1
            graph = apply_pass(graph, "eliminate_common_expr")
        self._optimized = graph
        if xs:
            graph = gradient_graph(graph, xs)
        self._planned = plan_graph(infer_graph(graph, shapes, dtypes), "joint")
        self._graph = self._planned.graph
        self._num_forward_nodes = self._graph.num_forward_nodes
        self._allocate(shared_exec, output_source)
        self._compile()

    def _allocate(self, shared_exec, output_source):
        graph, idx = self._graph, self._graph.indexed
        self._frame = frame = Frame(idx.num_entries, self._device, ordered=True)
        shared = shared_exec._frame.blocks.get("joint") if shared_exec is not None else None
        frame.allocate("joint", self._planned.memory_plan, (0, idx.num_nodes), idx,
                       shared=shared)
        by_name = {idx[n].name: idx.node_row_ptr[n] for n in idx.input_nodes}
        for name, arr in zip(self._arg_names + self._aux_names,
                             self.arg_arrays + self.aux_arrays):
            frame.arrays[by_name[name]] = arr
        num_fwd = graph.attrs.get("num_forward_outputs", len(graph.outputs))
        self._output_eids = idx.outputs[:num_fwd]
        entries = self._planned.memory_plan.entries
        # NOTE: an entry listed several times (Group([e, e])) is one buffer, shared by those
        # outputs.
        by_eid = {e: self._zeros(entries[e].shape, entries[e].dtype) for e in self._output_eids}
        for eid, old in zip(self._output_eids, getattr(output_source, "outputs", ())):
            if _view_fits(old, entries[eid].shape, entries[eid].dtype):  # NOTE: reshape's
                by_eid[eid] = _view_of(old, entries[eid].shape)
        self.outputs = [by_eid[e] for e in self._output_eids]
        frame.arrays.update(by_eid)
        self._grad_eids = {}
        self._req_override = {}
        for name, eid in zip(graph.attrs.get("xs", ()), idx.outputs[num_fwd:]):
            position = self._arg_names.index(name)
            frame.arrays[eid] = self.grad_arrays[position]
            self._grad_eids[name] = eid
            self._req_override[eid] = _REQ_OF[self._grad_reqs[position]]
        self._head_eids = head_entry_ids(graph)
        for eid in self._head_eids:
            if eid is not None:
                frame.arrays[eid] = self._zeros(entries[eid].shape, entries[eid].dtype)

    def _zeros(self, shape, dtype):
        """A zero array; a placeholder the op fills when the shape is dynamic (unknown)."""
        if shape is None:
            return self._cls._empty_handle(self._device, None, dtype)
        return _zeros(self._cls, self._device, shape, dtype)

    def _compile(self):
        """Programs for training forward, inference forward (one bulk segment when
        MXNET_EXEC_BULK_EXEC_INFERENCE is on, as MXNet) and backward; per-node segments under a
        monitor."""
        graph, plan = self._graph, self._planned.memory_plan
        idx, nf = graph.indexed, self._num_forward_nodes
        segments = self._planned.segments
        ops = [n for n in range(nf) if not idx[n].is_variable]
        inference = [Segment(ops, [idx[n].name for n in ops], "end_of_forward", "forward")]
        if self._monitor is not None:
            segments = [Segment([n], [idx[n].name], "bulk_disabled", "", False)
                        for n in range(idx.num_nodes) if not idx[n].is_variable]
        if self._monitor is not None or not env_int("MXNET_EXEC_BULK_EXEC_INFERENCE", 1):
            inference = segments
        programs = [Program(graph, plan, segs, node_range, self._req_override)
                    for segs, node_range in ((segments, (0, nf)), (inference, (0, nf)),
                                             (segments, (nf, idx.num_nodes)))]
        self._bound_forward, self._bound_inference, self._bound_backward = (
            self._bind(p) for p in programs)
        self._steps = None

    def _bind(self, program):
        if self._monitor is None:
            return program.bind(self._frame)
        bound = program.bind(self._frame, monitor=self._monitor)
        if self._monitor.monitor_all:
            for seg in bound:
                step = seg.steps[0]
                seg.kernels.insert(0, self._monitor.before(step, self._frame))
                seg.steps.insert(0, None)
                if seg.takes_ctx is not None:   # NOTE: kept aligned with the kernels (the op
                    seg.takes_ctx.insert(0, False)   # after it may take the op context)
        return bound

    # -- dictionaries ----------------------------------------------------------------------------
    @property
    def arg_dict(self):
        """Argument name -> array."""
        return dict(zip(self._arg_names, self.arg_arrays))

    @property
    def grad_dict(self):
        """Argument name -> gradient array (None where grad_req is 'null')."""
        return dict(zip(self._arg_names, self.grad_arrays))

    @property
    def aux_dict(self):
        """Auxiliary state name -> array."""
        return dict(zip(self._aux_names, self.aux_arrays))

    @property
    def output_dict(self):
        """Output name (``list_outputs``) -> array."""
        return dict(zip(self._symbol.list_outputs(), self.outputs))

    @property
    def graph(self):
        """The planned full graph (``memory_plan`` and ``segments`` in its attrs)."""
        return self._graph

    @property
    def memory_plan(self):
        return self._planned.memory_plan

    @property
    def plans(self):
        """``{"joint": PlannedGraph}``: the one plan over forward and backward (as
        :attr:`CachedOp.plans <mxlab.executor.CachedOp.plans>` lists its plans by kind)."""
        return types.MappingProxyType({"joint": self._planned})

    @property
    def symbol(self):
        """The bound Symbol (partitioned when MXNET_SUBGRAPH_BACKEND was set at bind)."""
        return self._symbol

    @property
    def _ctx(self):
        """The device bound to (MXNet 1.x's private ``Executor._ctx``, which its tests read)."""
        return self._device

    # -- running ---------------------------------------------------------------------------------
    def forward(self, is_train=False, **kwargs):
        """Copy ``kwargs`` into the arguments, run the forward part; returns :attr:`outputs`."""
        for name, value in kwargs.items():
            self._set_argument(name, value)
        bound = self._bound_forward if is_train else self._bound_inference
        _EngineRun(bound, is_train).run()
        return self.outputs

    def _set_argument(self, name, value):
        arg_dict = self.arg_dict
        if name not in arg_dict:
            raise MXNetTypeError(f"Unknown argument {name}")
        dst = arg_dict[name]
        if not hasattr(value, "shape"):
            raise MXNetValueError("only accept keyword argument of NDArrays and numpy.ndarray")
        if tuple(dst.shape) != tuple(value.shape):
            raise MXNetValueError(f"Shape not match! Argument {name}, need: {tuple(dst.shape)}, "
                                  f"received: {tuple(value.shape)}")
        _copy_into(dst, value)

    def backward(self, out_grads=None, is_train=True):
        """Run the backward part with head gradients ``out_grads`` (NDArray, list or dict)."""
        if isinstance(out_grads, dict):
            out_grads = [out_grads.get(n) for n in self._symbol.list_outputs()]
        elif out_grads is None:
            out_grads = []
        elif not isinstance(out_grads, (list, tuple)):
            out_grads = [out_grads]
        for i, eid in enumerate(self._head_eids):
            if eid is None:
                continue
            if i >= len(out_grads) or out_grads[i] is None:
                raise MXNetValueError(HEAD_GRAD_MSG)
            grad = out_grads[i]
            if not hasattr(grad, "_var"):
                grad = self._cls._wrap(self._device.xp.asarray(grad), self._device)
            self._frame.arrays[eid] = grad
        _EngineRun(self._bound_backward, is_train).run()

    def partial_forward(self, is_train, step):
        """Run forward node ``step`` alone (node ids count variables); returns the steps left."""
        nf = self._num_forward_nodes
        if step >= nf:
            return 0
        if self._steps is None:
            idx = self._graph.indexed
            segments = [Segment([n], [idx[n].name], "bulk_disabled", "forward", False)
                        for n in range(nf) if not idx[n].is_variable]
            program = Program(self._graph, self._planned.memory_plan, segments, (0, nf),
                              self._req_override)
            self._steps = {seg.nodes[0]: bound for seg, bound in
                           zip(program.segment_info, self._bind(program))}
        bound = self._steps.get(step)
        if bound is not None:
            _EngineRun([bound], is_train).run()
        return nf - step - 1

    def set_monitor_callback(self, callback, monitor_all=False):
        """Call ``callback(name, array)`` for every node output (inputs too with
        ``monitor_all``); bulking is turned off so each node is seen."""
        if not callable(callback):
            raise MXNetTypeError("invalid callback")
        idx = self._graph.indexed
        variables = {idx.node_row_ptr[n]: idx[n].name for n in idx.input_nodes}
        self._monitor = _Monitor(callback, monitor_all, self._cls, variables)
        self._compile()

    # -- reshaping and parameters ----------------------------------------------------------------
    def reshape(self, partial_shaping=False, allow_up_sizing=False, **kwargs):
        """A new executor for new input shapes, sharing arrays (views) and memory with this one."""
        arg_shapes, _, aux_shapes = self._symbol.infer_shape(**kwargs)
        if arg_shapes is None:
            raise MXNetValueError("Insufficient argument shapes provided.")
        new_args = self._reshaped("arg", self._arg_names, self.arg_arrays, arg_shapes, kwargs,
                                  partial_shaping, allow_up_sizing)
        new_grads = {n: g for n, g in self._reshaped(
            "arg", self._arg_names, self.grad_arrays, arg_shapes, kwargs, partial_shaping,
            allow_up_sizing).items() if g is not None}
        new_aux = self._reshaped("aux", self._aux_names, self.aux_arrays, aux_shapes, kwargs,
                                 partial_shaping, allow_up_sizing)
        reqs = dict(zip(self._arg_names, self._grad_reqs))
        return GraphExecutor(self._symbol, self._device, new_args, new_grads or None, reqs,
                             new_aux, shared_exec=self, share_outputs=True)

    @staticmethod
    def _reshaped(kind, names, arrays, shapes, given, partial_shaping, allow_up_sizing):
        result = {}
        for name, arr, shape in zip(names, arrays, shapes):
            if arr is None:
                result[name] = None
                continue
            shape = tuple(shape)
            if name in given or partial_shaping:
                result[name] = _resized(kind, name, arr, shape, allow_up_sizing)
            elif shape != tuple(arr.shape):
                raise MXNetValueError(
                    f"Shape of unspecified array {kind}:{name} changed. This can cause the new "
                    f"executor to not share parameters with the old one. Please check for error "
                    f"in the network. If this is intended, set partial_shaping=True to suppress "
                    f"this warning.")
            else:
                result[name] = arr
        return result

    def copy_params_from(self, arg_params, aux_params=None, allow_extra_params=False):
        """Copy parameter values into this executor's arrays (by name)."""
        for params, targets, kind in ((arg_params, self.arg_dict, "arguments"),
                                      (aux_params or {}, self.aux_dict, "auxiliary states")):
            for name, value in params.items():
                if name in targets:
                    _copy_into(targets[name], value)
                elif not allow_extra_params:
                    raise MXNetValueError(f"Find name \"{name}\" that is not in the {kind}")

    # -- printing --------------------------------------------------------------------------------
    @property
    def allocated_bytes(self):
        """Bytes of the planned blocks this executor allocated."""
        return self._planned.memory_plan.planned_bytes

    def get_optimized_symbol(self):
        """The bound forward graph as a Symbol, after the optimizing passes
        (``MXNET_ELIMINATE_COMMON_EXPR=1``: common subexpression elimination)."""
        return type(self._symbol).from_graph(self._optimized)

    def debug_str(self):
        """The symbol's text, then "Total <N> MB allocated" and the TempSpace line (MXNet's)."""
        # NOTE: MXNet prints a constant 11 TempSpace resources (kept for memonger's parser).
        return (self._symbol.debug_str() + f"Total {self.allocated_bytes >> _MB} MB allocated\n"
                + f"Total {_TEMP_SPACE_LINE_COUNT} TempSpace resource requested\n")

    def __repr__(self):
        return (f"<GraphExecutor {len(self._graph.indexed.nodes)} nodes, "
                f"{self.allocated_bytes} bytes planned>")


Executor = GraphExecutor


def _resized(kind, name, arr, shape, allow_up_sizing):
    """``arr`` viewed as ``shape`` (smaller or equal size) or a new zero array when larger."""
    size = int(numpy.prod(shape, dtype=numpy.int64))
    if size > arr.size:
        if not allow_up_sizing:
            raise MXNetValueError(
                f"New shape of {kind}:{name} larger than original. First making a big executor "
                f"and then down sizing it is more efficient than the reverse.If you really want "
                f"to up size, set allow_up_sizing=True to enable allocation of new arrays.")
        return type(arr)._wrap(arr._device.xp.zeros(shape, dtype=arr.dtype), arr._device)
    return _view_of(arr, shape)


def _view_fits(arr, shape, dtype):
    return shape is not None and arr.dtype == numpy.dtype(dtype) and numpy.prod(shape) <= arr.size


def _view_of(arr, shape):
    """An array sharing ``arr``'s memory (its first elements) with ``shape``."""
    size = int(numpy.prod(shape, dtype=numpy.int64))
    data = arr._get_data().reshape(-1)[:size].reshape(shape)
    return type(arr)._wrap(data, arr._device, var=arr._var)


def _copy_into(dst, value):
    """Write ``value`` (NDArray or NumPy array) into ``dst`` through the engine."""
    if not hasattr(value, "_var"):
        value = type(dst)._wrap(dst._device.xp.asarray(value, dtype=dst.dtype), dst._device)
    invoke(get_op("_copy"), [value], {}, out=[dst])


def _zeros(cls, device, shape, dtype):
    return cls._wrap(device.xp.zeros(shape, dtype=dtype), device)


def _infer_arguments(symbol, shapes, type_dict):
    """Shapes and dtypes of every argument and auxiliary state (strict: MXNet's errors)."""
    names = symbol.list_arguments()
    # NOTE: as MXNet's simple_bind: without type_dict every argument is float32 unless its
    #   variable declares a dtype; with one, the rest are inferred from it (a float64 data
    #   makes FullyConnected's weight float64)
    declared = symbol.attr_dict()
    dtypes = {n: numpy.dtype(t).name for n, t in type_dict.items()} if type_dict else \
        {n: "float32" for n in names if "__dtype__" not in declared.get(n, {})}
    graph = infer_graph(Graph(list(symbol._outputs)), shapes, dtypes)
    idx = graph.indexed
    eid = {idx[n].name: idx.node_row_ptr[n] for n in idx.input_nodes}
    values = {}
    for name in names + symbol.list_auxiliary_states():
        values[name] = (graph.attrs["shape"][eid[name]], graph.attrs["dtype"][eid[name]])
    return values


def _shared_data_array(name, shape, dtype, shared_buffer, cls, device):
    """Bucketing: a view of the shared buffer's array when large enough, else a new one."""
    existing = shared_buffer.get(name)
    size = int(numpy.prod(shape, dtype=numpy.int64))
    if existing is not None and existing.size >= size:
        if numpy.dtype(existing.dtype) != numpy.dtype(dtype):
            raise MXNetValueError(f"Requested arg array's dtype does not match the reusable "
                                  f"ndarray (argument '{name}')")
        return _view_of(existing, shape)
    if existing is not None:
        warnings.warn(
            f"Bucketing: data {name} has a shape {_tshape(shape)}, which is larger than already "
            f"allocated shape {_tshape(existing.shape)}. Need to re-allocate. Consider putting "
            f"default bucket key to be the bucket taking the largest input for better memory "
            f"sharing.", stacklevel=4)
    arr = _zeros(cls, device, shape, dtype)
    shared_buffer[name] = arr
    return arr


def _tshape(shape):
    """MXNet's C++ shape text: ``[2,3]``."""
    return "[" + ",".join(str(d) for d in shape) + "]"


def simple_bind(symbol, ctx, grad_req="write", type_dict=None, stype_dict=None, group2ctx=None,
                shared_arg_names=None, shared_exec=None, shared_buffer=None, **kwargs):
    """Allocate zeroed argument, gradient and auxiliary arrays from shapes and bind them."""
    _check_group2ctx(group2ctx, ctx)
    if stype_dict and any(s != "default" for s in stype_dict.values()):
        raise MXNetNotImplementedError("simple_bind: sparse storage types (stype_dict) are not "
                                       "supported")
    symbol = _maybe_partition(symbol, ctx)
    values = _infer_arguments(symbol, kwargs, type_dict or {})
    cls, arg_names = symbol._array_class(), symbol.list_arguments()
    reqs = _normalize_reqs(grad_req, arg_names)
    shared = set(shared_arg_names or ())
    placed = _group_devices(symbol, group2ctx, ctx)
    args, grads = {}, {}
    for name, req in zip(arg_names, reqs):
        shape, dtype = values[name]
        device = placed.get(name, ctx)
        if name in shared and shared_exec is not None:
            args[name] = _shared_array(shared_exec.arg_dict, name, shape, dtype)
            if req != "null":
                grads[name] = _shared_array(shared_exec.grad_dict, name, shape, dtype)
            continue
        if shared_buffer is not None and name not in shared:
            args[name] = _shared_data_array(name, shape, dtype, shared_buffer, cls, device)
        else:
            args[name] = _zeros(cls, device, shape, dtype)
        if req != "null":
            grads[name] = _zeros(cls, device, shape, dtype)
    aux = {}
    for name in symbol.list_auxiliary_states():
        shape, dtype = values[name]
        source = shared_exec.aux_dict if shared_exec is not None else {}
        aux[name] = (_shared_array(source, name, shape, dtype) if name in source
                     else _zeros(cls, placed.get(name, ctx), shape, dtype))
    return GraphExecutor(symbol, ctx, args, grads, dict(zip(arg_names, reqs)), aux, shared_exec)


def _shared_array(arrays, name, shape, dtype):
    arr = arrays.get(name)
    if arr is None or tuple(arr.shape) != tuple(shape) or \
            numpy.dtype(arr.dtype) != numpy.dtype(dtype):
        raise MXNetValueError(f"shared_exec: array '{name}' must exist with shape {shape} and "
                              f"dtype {dtype} to be shared")
    return arr


def bind(symbol, ctx, args, args_grad=None, grad_req="write", aux_states=None, group2ctx=None,
         shared_exec=None):
    """Bind ``symbol`` to the given arrays (lists in ``list_arguments`` order, or dicts)."""
    _check_group2ctx(group2ctx, ctx)
    symbol = _maybe_partition(symbol, ctx)
    if aux_states is None and not symbol.list_auxiliary_states():
        aux_states = []
    return GraphExecutor(symbol, ctx, args, args_grad, grad_req, aux_states, shared_exec)
