"""``DataParallelExecutorGroup``: one bound executor per device, each running a slice of the batch.

A Module binds its symbol once per context. Each input's batch axis (from its ``layout``, ``N``;
``-1`` when the layout has none, so the whole array goes to every device) is split by the
contexts' ``workload``; forward copies each slice into its executor's input array, backward
slices the head gradients the same way, and outputs are concatenated back along their own
batch axis. Parameters live once per device; ``get_params`` averages them onto the CPU.

For bucketing, a group made with ``shared_group`` shares the parameter arrays (and gradients)
and the input buffers (``shared_data_arrays``) of the other group, per device.
"""
import collections
import logging

from .. import ndarray as nd
from ..base import MXNetTypeError, MXNetValueError
from ..device import Device, cpu
from ..io import DataDesc
from ..ndarray.serialization import DTYPE_FLAGS

__all__ = ["DataParallelExecutorGroup", "split_input_slice"]

_MB = 20


def split_input_slice(batch_size, workload):
    """Slices of ``range(batch_size)``, one per device, proportional to ``workload``."""
    total = sum(workload)
    counts = [round(w * batch_size / total) for w in workload]
    if sum(counts) < batch_size:
        counts[-1] += batch_size - sum(counts)
    slices, end = [], 0
    for count in counts:
        begin = int(min(end, batch_size))
        end = int(min(begin + count, batch_size))
        if begin >= end:
            raise MXNetValueError(f"Too many slices: batch size {batch_size} cannot be split "
                                  f"over {len(workload)} devices without empty splits")
        slices.append(slice(begin, end))
    return slices


def as_data_desc(desc, what="data_shapes"):
    """A :class:`DataDesc` from a DataDesc or a ``(name, shape[, dtype[, layout]])`` tuple (MXNet
    builds ``DataDesc(*entry)``), checking the shape is a tuple of ints (an array given as a shape
    is a TypeError, as in MXNet)."""
    if not isinstance(desc, DataDesc):
        if not isinstance(desc, (list, tuple)) or not 2 <= len(desc) <= 4:
            raise MXNetTypeError(f"{what}: each entry must be a DataDesc or a (name, shape"
                                 f"[, dtype[, layout]]) tuple, got {desc!r}")
        desc = DataDesc(*desc)
    shape = desc.shape
    if not isinstance(shape, (list, tuple)) or \
            not all(isinstance(d, int) or hasattr(d, "__index__") for d in shape):
        raise MXNetTypeError(f"{what}: the shape of '{desc.name}' must be a tuple of ints, got "
                             f"{type(shape).__name__} {shape!r}")
    if isinstance(shape, list):
        desc = DataDesc(desc.name, tuple(int(d) for d in shape), desc.dtype, desc.layout)
    return desc


def _load_general(data, targets, major_axis):
    """Copy each source array into its per-device targets (slices of the batch axis)."""
    for src, dst, axis in zip(data, targets, major_axis):
        if isinstance(dst, nd.NDArray):
            src.copyto(dst)
        elif isinstance(src, (list, tuple)):
            for one_src, one_dst in zip(src, dst):
                one_src.copyto(one_dst)
        else:
            for piece, target in dst:
                _copy_slice(src, target, piece, axis)


def _copy_slice(src, target, piece, axis):
    if not hasattr(src, "copyto"):
        src = nd.array(src, dtype=target.dtype)
    if axis < 0 or (piece.start == 0 and src.shape[axis] == piece.stop):
        src.copyto(target)
    elif axis == 0:
        src[piece.start:piece.stop].copyto(target)
    else:
        nd.slice_axis(src, axis=axis, begin=piece.start, end=piece.stop).copyto(target)


def _merge_multi_context(outputs, major_axis):
    """One array per output: the devices' pieces concatenated along the output's batch axis."""
    merged = []
    for tensors, axis in zip(outputs, major_axis):
        if axis >= 0 and len(tensors) > 1:
            first = tensors[0].context
            merged.append(nd.concat(*[t.as_in_context(first) for t in tensors], dim=axis))
        else:
            merged.append(tensors[0])
    return merged


def prepare_group2ctxs(group2ctxs, num_devices):
    """One ``{ctx_group: device}`` dict (or None) per device from MXNet's accepted forms: a list
    of dicts, or one dict whose values are a device or a list of one or ``num_devices``."""
    if group2ctxs is None:
        return [None] * num_devices
    if isinstance(group2ctxs, list):
        if len(group2ctxs) != num_devices:
            raise MXNetValueError(f"group2ctxs: length should be {num_devices}, got "
                                  f"{len(group2ctxs)}")
        return group2ctxs
    if not isinstance(group2ctxs, dict):
        raise MXNetTypeError("group2ctxs should be a list of dicts of str to device, or a dict "
                             "of str to a device or a list of devices")
    per_device = [{} for _ in range(num_devices)]
    for group, devices in group2ctxs.items():
        if isinstance(devices, Device):
            devices = [devices] * num_devices
        elif len(devices) == 1:
            devices = list(devices) * num_devices
        elif len(devices) != num_devices:
            raise MXNetValueError(f"group2ctxs['{group}']: length should be {num_devices} or 1")
        for i in range(num_devices):
            per_device[i][group] = devices[i]
    return per_device


def _grad_reqs(grad_req, arg_names, param_names, data_names, fixed, inputs_need_grad):
    """``{argument: req}``: parameters learn (unless fixed), inputs only when their gradient is
    asked for, labels and states never; a list or dict overrides those defaults."""
    if isinstance(grad_req, (list, tuple)):
        if len(grad_req) != len(arg_names):
            raise MXNetValueError(f"grad_req has {len(grad_req)} items for {len(arg_names)} "
                                  f"arguments {arg_names}")
        return dict(zip(arg_names, grad_req))
    if not isinstance(grad_req, (str, dict)):
        raise MXNetValueError("grad_req must be one of str, list, tuple, or dict.")
    base = grad_req if isinstance(grad_req, str) else "write"
    reqs = {}
    for name in arg_names:
        if name in param_names:
            reqs[name] = "null" if name in fixed else base
        elif name in data_names:
            reqs[name] = base if inputs_need_grad else "null"
        else:
            reqs[name] = "null"
    if isinstance(grad_req, dict):
        reqs.update(grad_req)
    return reqs


class DataParallelExecutorGroup:
    """Executors of ``symbol`` on ``contexts``, each bound to its slice of the batch (MXNet's
    ``mxnet.module.executor_group.DataParallelExecutorGroup``; same arguments)."""

    def __init__(self, symbol, contexts, workload, data_shapes, label_shapes, param_names,
                 for_training, inputs_need_grad, shared_group=None, logger=logging,
                 fixed_param_names=None, grad_req="write", state_names=None, group2ctxs=None):
        self.param_names = param_names
        self.arg_names = symbol.list_arguments()
        self.aux_names = symbol.list_auxiliary_states()
        self.symbol, self.contexts = symbol, contexts
        self.workload = workload if workload is not None else [1] * len(contexts)
        self.group2ctxs = prepare_group2ctxs(group2ctxs, len(contexts))
        self.for_training, self.inputs_need_grad = for_training, inputs_need_grad
        self.logger = logger
        self._total_exec_bytes = 0
        self.fixed_param_names = list(fixed_param_names or [])
        self.state_names = list(state_names or [])
        data_shapes = [as_data_desc(x) for x in data_shapes]
        if label_shapes is not None:
            label_shapes = [as_data_desc(x, "label_shapes") for x in label_shapes]
        for desc in data_shapes + list(label_shapes or []):
            if desc.name not in self.arg_names:
                raise MXNetValueError(f"input '{desc.name}' is not an argument of the symbol "
                                      f"(arguments: {self.arg_names}); check the iterator's "
                                      f"data_name/label_name and the module's names")
        self.grad_req = _grad_reqs("null" if not for_training else grad_req, self.arg_names,
                                   param_names, [x.name for x in data_shapes],
                                   self.fixed_param_names, inputs_need_grad)
        self.shared_data_arrays = (shared_group.shared_data_arrays if shared_group is not None
                                   else [{} for _ in contexts])
        self.batch_size = self.slices = None
        self.execs, self._default_execs = [], None
        self.data_arrays = self.label_arrays = self.param_arrays = self.state_arrays = None
        self.grad_arrays = self.aux_arrays = self.input_grad_arrays = None
        self.data_shapes = self.label_shapes = self.data_names = self.label_names = None
        self.data_layouts = self.label_layouts = None
        self.output_names = symbol.list_outputs()
        self.num_outputs = len(self.output_names)
        self.output_layouts = [DataDesc.get_batch_axis(symbol[i].attr("__layout__"))
                               for i in range(self.num_outputs)]
        self.bind_exec(data_shapes, label_shapes, shared_group)

    # -- binding ---------------------------------------------------------------------------------
    def decide_slices(self, data_shapes):
        """The batch axis of each input; sets ``batch_size`` and ``slices`` (all inputs must
        agree on the batch size)."""
        if not data_shapes:
            raise MXNetValueError("decide_slices: no input shapes given")
        major_axis = [DataDesc.get_batch_axis(x.layout) for x in data_shapes]
        for (name, shape), axis in zip(data_shapes, major_axis):
            if axis == -1:
                continue
            if self.batch_size is None:
                self.batch_size = shape[axis]
                self.slices = split_input_slice(self.batch_size, self.workload)
            elif shape[axis] != self.batch_size:
                raise MXNetValueError(f"all data must have the same batch size: batch_size = "
                                      f"{self.batch_size}, but {name} has shape {shape}")
        return major_axis

    def bind_exec(self, data_shapes, label_shapes, shared_group=None, reshape=False):
        """Bind (or, with ``reshape``, re-shape from the first binding) one executor per
        device."""
        if not reshape and self.execs:
            raise MXNetValueError("bind_exec: executors are already bound (use reshape)")
        self.batch_size = None
        self.data_layouts = self.decide_slices(data_shapes)
        if label_shapes is not None:
            self.label_layouts = self.decide_slices(label_shapes)
        for i in range(len(self.contexts)):
            data_i = self._sliced_shape(data_shapes, i, self.data_layouts)
            label_i = (self._sliced_shape(label_shapes, i, self.label_layouts)
                       if label_shapes is not None else [])
            if reshape:
                shapes = {d.name: d.shape for d in data_i + label_i}
                self.execs[i] = self._default_execs[i].reshape(allow_up_sizing=True, **shapes)
            else:
                self.execs.append(self._bind_ith_exec(i, data_i, label_i, shared_group))
        self.data_shapes, self.label_shapes = data_shapes, label_shapes
        self.data_names = [d.name for d in data_shapes]
        if label_shapes is not None:
            self.label_names = [d.name for d in label_shapes]
        self._collect_arrays()

    def reshape(self, data_shapes, label_shapes):
        """Re-bind for new input shapes, sharing memory with the first binding."""
        if data_shapes == self.data_shapes and label_shapes == self.label_shapes:
            return
        if self._default_execs is None:
            self._default_execs = list(self.execs)
        self.bind_exec(data_shapes, label_shapes, reshape=True)

    def _bind_ith_exec(self, i, data_shapes, label_shapes, shared_group):
        shared_exec = None if shared_group is None else shared_group.execs[i]
        inputs = data_shapes + list(label_shapes or [])
        input_shapes = {d.name: d.shape for d in inputs}
        input_types = {d.name: d.dtype for d in inputs}
        attrs = self.symbol.attr_dict()
        for name in self.symbol.list_inputs():
            declared = attrs.get(name, {}).get("__dtype__")
            if name in input_types and declared not in (None, "-1"):
                input_types[name] = DTYPE_FLAGS[int(declared)]
        executor = self.symbol.simple_bind(
            ctx=self.contexts[i], grad_req=self.grad_req, type_dict=input_types,
            shared_arg_names=self.param_names, shared_exec=shared_exec,
            group2ctx=self.group2ctxs[i], shared_buffer=self.shared_data_arrays[i],
            **input_shapes)
        self._total_exec_bytes += executor.allocated_bytes >> _MB
        return executor

    def _sliced_shape(self, shapes, i, major_axis):
        sliced = []
        for desc, axis in zip(shapes, major_axis):
            shape = list(desc.shape)
            if axis >= 0:
                shape[axis] = self.slices[i].stop - self.slices[i].start
            sliced.append(DataDesc(desc.name, tuple(shape), desc.dtype, desc.layout))
        return sliced

    def _collect_arrays(self):
        execs = self.execs
        slices = self.slices or [slice(i, i + 1) for i in range(len(execs))]
        self.data_arrays = [[(slices[i], e.arg_dict[name]) for i, e in enumerate(execs)]
                            for name, _ in self.data_shapes]
        self.state_arrays = [[e.arg_dict[name] for e in execs] for name in self.state_names]
        self.label_arrays = None
        if self.label_shapes is not None:
            self.label_arrays = [[(slices[i], e.arg_dict[name]) for i, e in enumerate(execs)]
                                 for name, _ in self.label_shapes]
        params = [i for i, name in enumerate(self.arg_names) if name in self.param_names]
        self.param_arrays = [[e.arg_arrays[i] for e in execs] for i in params]
        self.grad_arrays = ([[e.grad_arrays[i] for e in execs] for i in params]
                            if self.for_training else None)
        self.input_grad_arrays = None
        if self.inputs_need_grad:
            self.input_grad_arrays = [[e.grad_arrays[self.arg_names.index(name)] for e in execs]
                                      for name in self.data_names if name in self.arg_names]
        self.aux_arrays = [[e.aux_arrays[i] for e in execs] for i in range(len(self.aux_names))]

    # -- parameters ------------------------------------------------------------------------------
    def set_params(self, arg_params, aux_params, allow_extra=False):
        """Copy parameters into every executor."""
        for exe in self.execs:
            exe.copy_params_from(arg_params, aux_params, allow_extra_params=allow_extra)

    def get_params(self, arg_params, aux_params):
        """Write the devices' average of each parameter into ``arg_params``/``aux_params``."""
        for names, blocks, targets in ((self.param_names, self.param_arrays, arg_params),
                                       (self.aux_names, self.aux_arrays, aux_params)):
            for name, block in zip(names, blocks):
                mean = block[0].copyto(cpu()) if len(block) == 1 else \
                    sum(w.copyto(cpu()) for w in block) / len(block)
                mean.astype(targets[name].dtype).copyto(targets[name])

    # -- running ---------------------------------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        """Load the batch's slices into the executors and run forward on each."""
        _load_general(data_batch.data, self.data_arrays, self.data_layouts)
        if is_train is None:
            is_train = self.for_training
        label = getattr(data_batch, "label", None)
        if self.label_arrays is not None and label:
            _load_general(label, self.label_arrays, self.label_layouts)
        for exe in self.execs:
            exe.forward(is_train=is_train)

    def get_output_shapes(self):
        """``[(name, shape)]`` of the merged outputs."""
        shapes = []
        for name, out, axis in zip(self.output_names, self.execs[0].outputs,
                                   self.output_layouts):
            shape = list(out.shape)
            if axis >= 0:
                shape[axis] = self.batch_size
            shapes.append((name, tuple(shape)))
        return shapes

    def get_outputs(self, merge_multi_context=True, begin=0, end=None):
        """Outputs ``[begin, end)``, merged over devices or as ``[[out_dev1, out_dev2], ...]``."""
        end = self.num_outputs if end is None else end
        outputs = [[e.outputs[i] for e in self.execs] for i in range(begin, end)]
        return (_merge_multi_context(outputs, self.output_layouts[begin:end])
                if merge_multi_context else outputs)

    def get_states(self, merge_multi_context=True):
        """The state arrays per device (merging is not supported, as in MXNet)."""
        if merge_multi_context:
            raise MXNetValueError("merge_multi_context=True is not supported for get_states")
        return self.state_arrays

    def set_states(self, states=None, value=None):
        """Set the states from per-device arrays or to one scalar ``value`` (exactly one)."""
        if (states is None) == (value is None):
            raise MXNetValueError("set_states: give exactly one of states and value")
        if states is not None:
            _load_general(states, self.state_arrays, (0,) * len(states))
            return
        for per_device in self.state_arrays:
            for dst in per_device:
                dst[:] = value

    def get_input_grads(self, merge_multi_context=True):
        """Gradients of the data inputs (bound with ``inputs_need_grad=True``)."""
        if not self.inputs_need_grad:
            raise MXNetValueError("get_input_grads: bind with inputs_need_grad=True first")
        if merge_multi_context:
            return _merge_multi_context(self.input_grad_arrays, self.data_layouts)
        return self.input_grad_arrays

    def backward(self, out_grads=None):
        """Backward on every device with its slice of the head gradients."""
        if not self.for_training:
            raise MXNetValueError("backward: re-bind with for_training=True to run backward")
        out_grads = [] if out_grads is None else out_grads
        if isinstance(out_grads, nd.NDArray):
            out_grads = [out_grads]
        for i, (exe, piece) in enumerate(zip(self.execs, self.slices)):
            mine = []
            for grad, axis in zip(out_grads, self.output_layouts):
                if axis >= 0 and len(self.execs) > 1:
                    grad = nd.slice_axis(grad, axis=axis, begin=piece.start, end=piece.stop)
                mine.append(grad.as_in_context(self.contexts[i]))
            exe.backward(out_grads=mine)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update ``eval_metric`` with each device's outputs and its slice of ``labels``."""
        for i, (exe, piece) in enumerate(zip(self.execs, self.slices)):
            if pre_sliced:
                mine = labels[i]
            else:
                mine = [_label_slice(label, axis, piece, len(self.execs))
                        for label, axis in zip(labels, self.label_layouts or [0] * len(labels))]
            label_dict = collections.OrderedDict(zip(self.label_names or [], mine))
            preds = collections.OrderedDict(zip(self.output_names, exe.outputs))
            eval_metric.update_dict(label_dict, preds)

    def install_monitor(self, mon):
        """Install ``mon`` on every executor."""
        for exe in self.execs:
            mon.install(exe)


def _label_slice(label, axis, piece, num_devices):
    if axis < 0 or num_devices == 1:
        return label
    if axis == 0:
        return label[piece]
    return nd.slice_axis(label, axis=axis, begin=piece.start, end=piece.stop)
