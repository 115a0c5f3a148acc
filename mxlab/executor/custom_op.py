"""Python custom operators (MXNet's ``mx.operator``): ``CustomOpProp`` + ``CustomOp`` as the op
``Custom``.

``@register("name")`` files a :class:`CustomOpProp` subclass under ``op_type``. A ``Custom`` node's
attributes are ``op_type`` plus the user's keyword arguments, kept as strings (MXNet hands them to
the Prop's ``__init__`` as strings); one Prop instance is made per distinct attribute set, and per
Prop one :class:`~mxlab.ops.registry.Op` named ``Custom`` whose arity, names, shape and dtype rules
ask the Prop, and whose ``mutate_inputs`` are the auxiliary states (so ``list_auxiliary_states``
and the engine's write dependencies are right); every node and imperative call runs a copy of it
(:meth:`_Info.new_op`) whose kernels keep their own operators (:class:`Instances`). The registry
holds a generic ``Custom`` (and ``_backward_Custom``) that JSON loading swaps for a Prop's op
(:meth:`CustomOpDef.for_attrs`).

The kernels wrap the buffers as NDArrays (``mx.np`` arrays when the Prop was registered in NumPy
mode, as MXNet does), find the operator ``create_operator`` made for this node (or call) and these
input shapes, dtypes and device, and call its ``forward``/``backward`` with autograd paused,
deferred compute off and this thread's engine pushes run inline: MXNet runs them on a worker
thread of their own; here they run on the thread of the kernel, so a forward calling ``mx.nd`` ops
cannot wait for itself under the ThreadedEngine. An exception inside them becomes an MXNetError of
the op (raised at the wait under the ThreadedEngine). The gradient is ``_backward_Custom``, fed
what ``declare_backward_dependency`` asks for (out_grad, in_data, out_data; every input always,
for its shape) plus the auxiliary states.
"""
import copy
import threading

import numpy

from .. import autograd, deferred_compute, engine as _engine, profiler
from ..base import MXNetKeyError, MXNetNotImplementedError, MXNetValueError
from ..device import cpu, gpu
from ..engine.op import op_error, raise_error
from ..graph.infer import CODE_TO_DTYPE, DTYPE_TO_CODE
from ..ndarray.ndarray import NDArray, ndarray
from ..ops.registry import Op, apply_op, register as register_op
from ..util import is_np_array

__all__ = ["CustomOp", "CustomOpProp", "register", "registered_op_types", "CustomOpDef"]

_REQ_WRITE = "write"
# NOTE: MXNet's creator drops these node attributes before calling the Prop's __init__
_DROPPED = ("__ctx_group__", "__lr_mult__", "__wd_mult__", "__force_mirroring__",
            "__mirror_stage__", "__profiler_scope__")


class CustomOp:
    """Base class of a custom operator's computation (``mx.operator.CustomOp``)."""

    def __init__(self):
        pass

    def forward(self, is_train, req, in_data, out_data, aux):
        """Write ``out_data`` from ``in_data`` as ``req`` says (see :meth:`assign`)."""

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        """Write ``in_grad`` from the output gradients ``out_grad``."""

    def assign(self, dst, req, src):
        """Write ``src`` into ``dst`` as ``req`` says ('null', 'write', 'inplace', 'add')."""
        if req == "null":
            return
        key = () if is_np_array() else slice(None)
        if req in ("write", "inplace"):
            dst[key] = src
        elif req == "add":
            dst[key] += src


class CustomOpProp:
    """Base class of a custom operator's properties (``mx.operator.CustomOpProp``): its
    arguments, outputs, auxiliary states, shapes, dtypes and the operator itself."""

    def __init__(self, need_top_grad=True):
        self.need_top_grad_ = need_top_grad

    def infer_shape(self, in_shape):
        return in_shape, (in_shape[0],) * len(self.list_outputs()), ()

    def infer_type(self, in_type):
        return in_type, [in_type[0]] * len(self.list_outputs()), \
            [in_type[0]] * len(self.list_auxiliary_states())

    def infer_storage_type(self, in_stype):
        for i, stype in enumerate(in_stype):
            if stype != "default":
                raise MXNetValueError(
                    f"Default infer_storage_type implementation doesnt allow non default stypes: "
                    f"found non default stype '{stype}' for in_stype[{i}]")
        return in_stype, ["default"] * len(self.list_outputs()), \
            ["default"] * len(self.list_auxiliary_states())

    def infer_storage_type_backward(self, ograd_stype, in_stype, out_stype, igrad_stype,
                                    aux_stype):
        return ([["default"] * len(s) for s in (ograd_stype, in_stype, out_stype, igrad_stype)]
                + [["default"] * len(aux_stype)])

    def list_outputs(self):
        return ["output"]

    def list_arguments(self):
        return ["data"]

    def list_auxiliary_states(self):
        return []

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        deps = []
        if self.need_top_grad_:
            deps.extend(out_grad)
        deps.extend(in_data)
        deps.extend(out_data)
        return deps

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return CustomOp()


_PROPS = {}          # op_type -> (Prop class, array class its kernels hand out)
_INFOS = {}          # (op_type, attribute items) -> _Info
_LOCK = threading.RLock()


def register(reg_name):
    """``@mx.operator.register(name)``: file a :class:`CustomOpProp` subclass as ``op_type``
    ``name`` (registering a name again replaces it, as in MXNet)."""
    def do_register(prop_cls):
        cls = ndarray if is_np_array() else NDArray
        with _LOCK:
            _PROPS[reg_name] = (prop_cls, cls)
            for key in [k for k in _INFOS if k[0] == reg_name]:
                del _INFOS[key]
        return prop_cls
    return do_register


def registered_op_types():
    """The registered ``op_type`` names, sorted."""
    return sorted(_PROPS)


def _key(attrs):
    return attrs["op_type"], tuple(sorted((k, v) for k, v in attrs.items() if k != "op_type"))


def info_of(attrs):
    """The :class:`_Info` (Prop instance and its ops) for a node's attributes."""
    key = _key(attrs)
    info = _INFOS.get(key)
    if info is None:
        with _LOCK:
            info = _INFOS.get(key)
            if info is None:
                info = _INFOS[key] = _Info(attrs)
    return info


def _check_lists(what, got, counts):
    for name, values, count in zip(("input", "output", "aux state"), got, counts):
        if len(values) != count:
            raise MXNetValueError(f"{what}: expecting {count} entries in returned {name} "
                                  f"{what.rsplit('.', 1)[-1].replace('infer_', '')}s, got "
                                  f"{len(values)}")


def _three(ret, what):
    ret = list(ret)
    if len(ret) == 2:
        return list(ret[0]), list(ret[1]), []
    if len(ret) == 3:
        return list(ret[0]), list(ret[1]), list(ret[2])
    raise MXNetValueError(f"{what} must return 2 or 3 lists")


def _to_mx_shape(shape):
    return [] if shape is None else [-1 if d is None else int(d) for d in shape]


def _from_mx_shape(shape):
    return tuple(None if int(d) < 0 else int(d) for d in shape)


def _dtype_name(value):
    if value is None or isinstance(value, (int, numpy.integer)) and int(value) < 0:
        return None
    if isinstance(value, (int, numpy.integer)) and not isinstance(value, bool):
        return CODE_TO_DTYPE[int(value)]
    return numpy.dtype(value).name


def _np_type(name):
    return None if name is None or name == "bfloat16" else numpy.dtype(name).type


class _Info:
    """One Prop instance (one ``op_type`` and attribute set) and what mxlab derives from it."""

    def __init__(self, attrs):
        op_type = attrs["op_type"]
        entry = _PROPS.get(op_type)
        if entry is None:
            raise MXNetKeyError(f"Custom: op_type '{op_type}' is not registered; registered: "
                                f"{registered_op_types() or 'none'} (decorate its CustomOpProp "
                                "with @mx.operator.register)")
        prop_cls, self.cls = entry
        kwargs = {k: v for k, v in attrs.items() if k != "op_type" and k not in _DROPPED}
        try:
            self.prop = prop_cls(**kwargs)
        except Exception as exc:  # noqa: BLE001 - user code: an MXNetError naming the Prop
            raise_error(op_error(exc, f"Custom '{op_type}': {prop_cls.__name__}("
                                      f"{', '.join(f'{k}={v!r}' for k, v in kwargs.items())})"),
                        exc)
        self.op_type = op_type
        self.args = list(self.prop.list_arguments())
        self.outs = list(self.prop.list_outputs())
        self.auxs = list(self.prop.list_auxiliary_states())
        n_args, n_out, n_aux = len(self.args), len(self.outs), len(self.auxs)
        self.n_args, self.n_out, self.n_aux = n_args, n_out, n_aux
        self.check_stypes()
        deps = self.prop.declare_backward_dependency(
            list(range(n_out)), list(range(n_out, n_out + n_args)),
            list(range(n_out + n_args, 2 * n_out + n_args)))
        bad = [d for d in deps if not 0 <= int(d) < 2 * n_out + n_args]
        if bad:
            raise MXNetValueError(f"Custom '{op_type}': declare_backward_dependency returned "
                                  f"ids {bad} outside 0..{2 * n_out + n_args - 1}")
        # NOTE: every input is fed to backward (its shape and dtype are the gradient's)
        self.bwd_ids = sorted(set(int(d) for d in deps) | set(range(n_out, n_out + n_args)))
        self.meta = {}        # (shapes, dtypes) -> (out shapes, out dtypes)
        self.forward_op = CustomOpDef.specialized(self, backward=False)
        self.backward_op = CustomOpDef.specialized(self, backward=True)
        self.forward_op.backward_op = self.backward_op
        _bind_kernels(self.forward_op, self.backward_op, Instances(self))

    def new_op(self):
        """A forward op of its own (with its backward op) for one node or one imperative call:
        its kernels keep the operators ``create_operator`` makes for it, as MXNet keeps one
        operator state per graph node and per imperative call."""
        forward, backward = copy.copy(self.forward_op), copy.copy(self.backward_op)
        forward.backward_op = backward
        _bind_kernels(forward, backward, Instances(self))
        return forward

    def storage_types(self, stypes):
        """``(input, output, aux)`` storage types the Prop gives for inputs of ``stypes``."""
        ret = _three(self.prop.infer_storage_type(list(stypes)),
                     f"{self.op_type}.infer_storage_type")
        _check_lists(f"{self.op_type}.infer_storage_type", ret, (self.n_args, self.n_out,
                                                                  self.n_aux))
        for stype in ret[0] + ret[1] + ret[2]:
            if stype not in ("default", "csr", "row_sparse"):
                raise MXNetValueError(f"{self.op_type}.infer_storage_type: '{stype}' is not a "
                                      "storage type (default, csr, row_sparse)")
        return ret

    def check_stypes(self):
        """Graphs and dense inputs run dense: a Prop asking for sparse storage from dense inputs
        is refused by name."""
        for stype in sum(self.storage_types(["default"] * self.n_args), []):
            if stype != "default":
                raise MXNetNotImplementedError(
                    f"Custom '{self.op_type}': storage type '{stype}' from infer_storage_type "
                    "for dense inputs: sparse outputs of custom operators are built only for "
                    "sparse inputs, imperatively (mx.nd.Custom)")

    # -- inference ---------------------------------------------------------------------------------
    def infer_shape(self, in_shapes):
        """``(input shapes (args + aux), output shapes)`` from the Prop; unknown (None) where its
        rule cannot run on what is known."""
        n_args = self.n_args
        known = all(s is not None and None not in s for s in in_shapes[:n_args])
        try:
            ret = self.prop.infer_shape([_to_mx_shape(s) for s in in_shapes[:n_args]])
            ins, outs, auxs = _three(ret, f"{self.op_type}.infer_shape")
            _check_lists(f"{self.op_type}.infer_shape", (ins, outs, auxs),
                         (n_args, self.n_out, self.n_aux))
        except Exception as exc:  # noqa: BLE001 - user code: unknown shapes, or its error
            if not known:
                return list(in_shapes), [None] * self.n_out
            raise MXNetValueError(f"Error in {self.op_type}.infer_shape: "
                                  f"{type(exc).__name__}: {exc}") from exc
        # NOTE: with inputs unknown, an empty shape the rule hands back is MXNet 1.x's unknown
        convert = _from_mx_shape if known else \
            (lambda s: _from_mx_shape(s) if len(s) else None)
        return [convert(s) for s in ins + auxs], [convert(s) for s in outs]

    def infer_type(self, in_dtypes):
        n_args = self.n_args
        try:
            ret = self.prop.infer_type([_np_type(d) for d in in_dtypes[:n_args]])
            ins, outs, auxs = _three(ret, f"{self.op_type}.infer_type")
            _check_lists(f"{self.op_type}.infer_type", (ins, outs, auxs),
                         (n_args, self.n_out, self.n_aux))
        except Exception as exc:  # noqa: BLE001 - user code
            if any(d is None for d in in_dtypes[:n_args]):
                return list(in_dtypes), [None] * self.n_out
            raise MXNetValueError(f"Error in {self.op_type}.infer_type: "
                                  f"{type(exc).__name__}: {exc}") from exc
        return [_dtype_name(d) for d in ins + auxs], [_dtype_name(d) for d in outs]

    def output_meta(self, shapes, dtypes):
        key = (shapes, dtypes)
        meta = self.meta.get(key)
        if meta is None:
            out_shapes = self.infer_shape(list(shapes))[1]
            out_dtypes = self.infer_type(list(dtypes))[1]
            if any(s is None or None in s for s in out_shapes):
                raise MXNetValueError(f"Custom '{self.op_type}': infer_shape left an output "
                                      f"shape unknown for inputs {list(shapes)}")
            default = dtypes[0] if dtypes else "float32"
            meta = self.meta[key] = (out_shapes, [d or default for d in out_dtypes])
        return meta

    # -- running the operator ----------------------------------------------------------------------
    def run(self, instances, method, xp, arrays, is_train, make_call):
        """Run ``operator.<method>`` (the operator of ``instances`` for these inputs) on the xp
        ``arrays`` (the op's inputs), with the call's arguments from ``make_call(wrap)``."""
        device = cpu() if xp is numpy else gpu(_first_device_id(arrays))
        aux = arrays[len(arrays) - self.n_aux:]
        ins = arrays[:self.n_args] if method == "forward" else \
            [x for i, x in zip(self.bwd_ids, arrays) if self.n_out <= i < self.n_out + self.n_args]
        shapes = tuple(tuple(x.shape) for x in list(ins) + list(aux))
        dtypes = tuple(numpy.dtype(x.dtype).name for x in list(ins) + list(aux))
        operator = instances.operator(device, shapes, dtypes)

        def wrap(data):
            return None if data is None else self.cls._wrap(data, device)
        kwargs, written = make_call(wrap)

        def copy_back():
            for array, buffer in written:
                data = array._get_data()
                if data is not buffer:   # NOTE: the user rebound the array: copy the value
                    xp.copyto(buffer, data, casting="unsafe")
        self.call(operator, method, device, is_train, kwargs, copy_back)

    def call(self, operator, method, device, is_train, kwargs, then=None):
        """``operator.<method>(**kwargs)`` (then ``then()``) as MXNet's custom-op thread runs
        it: autograd paused, deferred compute off, pushes inline, ``device`` the default; an
        error becomes an MXNetError of this op."""
        try:
            scope = self.op_type if method == "forward" else f"_backward_{self.op_type}"
            with _engine.inline(), autograd.pause(train_mode=is_train), \
                    deferred_compute.context(False), device, profiler.custom_operator(scope):
                getattr(operator, method)(**kwargs)
                if then is not None:
                    then()
        except Exception as exc:  # noqa: BLE001 - user code: an MXNetError of this op
            raise_error(op_error(exc, f"Custom {self.op_type!r} ({method})"), exc)


def _first_device_id(arrays):
    for x in arrays:
        if x is not None and hasattr(x, "device"):
            return x.device.id
    return 0


# -- kernels ---------------------------------------------------------------------------------------
class Instances:
    """The operators ``create_operator`` made for one node (or one imperative call), one per
    (device, input shapes, dtypes), and the kernels that run them: forward and backward of the
    node share them, as MXNet's operator state."""

    def __init__(self, info):
        self.info = info
        self.operators = {}
        self.lock = threading.Lock()

    def operator(self, device, shapes, dtypes):
        key = (device, shapes, dtypes)
        op = self.operators.get(key)
        if op is None:
            with self.lock:
                op = self.operators.get(key)
                if op is None:
                    op = self.info.prop.create_operator(
                        device, [list(s) for s in shapes],
                        [DTYPE_TO_CODE.get(d, -1) for d in dtypes])
                    self.operators[key] = op
        return op

    def forward_into(self, xp, inputs, attrs, outs, ctx):
        info = self.info

        def call(wrap):
            outputs = [wrap(o) for o in outs]
            return dict(is_train=ctx.is_train, req=[_REQ_WRITE] * len(outs),
                        in_data=[wrap(x) for x in inputs[:info.n_args]], out_data=outputs,
                        aux=[wrap(x) for x in inputs[info.n_args:]]), list(zip(outputs, outs))
        info.run(self, "forward", xp, list(inputs), ctx.is_train, call)

    def forward(self, xp, inputs, attrs, ctx):
        shapes = tuple(tuple(x.shape) for x in inputs)
        dtypes = tuple(numpy.dtype(x.dtype).name for x in inputs)
        out_shapes, out_dtypes = self.info.output_meta(shapes, dtypes)
        outs = [xp.zeros(s, dtype=d or "float32") for s, d in zip(out_shapes, out_dtypes)]
        self.forward_into(xp, inputs, attrs, outs, ctx)
        return tuple(outs)

    def backward_into(self, xp, inputs, attrs, outs, ctx):
        info = self.info
        n_out, n_args = info.n_out, info.n_args
        slots = [None] * (2 * n_out + n_args)
        for i, x in zip(info.bwd_ids, inputs):
            slots[i] = x
        aux = inputs[len(info.bwd_ids):]

        def call(wrap):
            grads = [wrap(o) for o in outs]
            return dict(req=[_REQ_WRITE] * len(outs), out_grad=[wrap(x) for x in slots[:n_out]],
                        in_data=[wrap(x) for x in slots[n_out:n_out + n_args]],
                        out_data=[wrap(x) for x in slots[n_out + n_args:]], in_grad=grads,
                        aux=[wrap(x) for x in aux]), list(zip(grads, outs))
        info.run(self, "backward", xp, list(inputs), ctx.is_train, call)

    def backward(self, xp, inputs, attrs, ctx):
        info = self.info
        datas = [x for i, x in zip(info.bwd_ids, inputs)
                 if info.n_out <= i < info.n_out + info.n_args]
        outs = [xp.zeros(x.shape, dtype=x.dtype) for x in datas]
        self.backward_into(xp, inputs, attrs, outs, ctx)
        return tuple(outs)


def _bind_kernels(forward, backward, instances):
    forward.compute, forward.compute_into = instances.forward, instances.forward_into
    backward.compute, backward.compute_into = instances.backward, instances.backward_into


def _gradient(node, out_grads):
    info = info_of(node.attrs)
    if not info.n_args:
        return [None] * info.n_aux
    inputs = list(node.inputs)
    pool = list(out_grads) + inputs[:info.n_args] + list(node.outputs)
    backward_op = getattr(node.op, "backward_op", None) or info.backward_op
    grads = apply_op(backward_op, [pool[i] for i in info.bwd_ids] + inputs[info.n_args:],
                     node.attrs)
    return list(grads[:info.n_args]) + [None] * info.n_aux


def _backward_shapes(attrs, in_shapes):
    info = info_of(attrs)
    end = info.n_out + info.n_args
    return [s for i, s in zip(info.bwd_ids, in_shapes) if info.n_out <= i < end]


def _backward_types(attrs, in_dtypes):
    return _backward_shapes(attrs, in_dtypes)


class _OpenSpecs(dict):
    """A Custom node takes any parameter (they are the Prop's): every name but MXNet's ``__x__``
    symbol attributes counts as one, so JSON writes them all."""

    def __contains__(self, key):
        return not (key.startswith("__") and key.endswith("__"))


class CustomOpDef(Op):
    """The op of ``Custom`` nodes: attributes are ``op_type`` and the Prop's keyword arguments, as
    strings. The registered instances are generic; :meth:`for_attrs` gives the Prop's own."""

    def __post_init__(self):
        super().__post_init__()
        self._attr_specs = _OpenSpecs()
        self.info = None
        # NOTE: never the imperative fast lane, which re-runs a kernel that raised: user code
        #   runs once per call
        self.runs_inline = False

    def parse_attrs(self, kwargs):
        attrs = {k: v if isinstance(v, str) else str(v) for k, v in kwargs.items()}
        if "op_type" not in attrs:
            raise MXNetValueError(f"{self.name}: required attribute 'op_type' is missing")
        return attrs

    def attrs_to_strings(self, attrs):
        return dict(attrs)

    def for_attrs(self, attrs):
        """The op of the Prop that ``attrs`` name (its aux states mutable)."""
        info = info_of(attrs)
        return info.backward_op if self.name.startswith("_backward") else info.new_op()

    @classmethod
    def specialized(cls, info, backward):
        n_args, n_aux = info.n_args, info.n_aux
        if backward:
            op = cls(name="_backward_Custom", compute=_unbound, compute_into=_unbound_into,
                     num_inputs=len(info.bwd_ids) + n_aux, num_outputs=n_args,
                     input_names=tuple(f"arg{i}" for i in range(len(info.bwd_ids) + n_aux)),
                     output_names=tuple(f"{a}_grad" for a in info.args) or ("output",),
                     infer_shape=_backward_shapes, infer_type=_backward_types,
                     probe_partial=False, save_outputs=False, never_mirror=True, hidden=True,
                     nd_names=(), doc=f"Gradient of the custom op '{info.op_type}'.")
        else:
            op = cls(name="Custom", compute=_unbound, compute_into=_unbound_into,
                     num_inputs=n_args + n_aux, num_outputs=info.n_out,
                     input_names=tuple(info.args + info.auxs),
                     output_names=tuple(info.outs), gradient=_gradient,
                     infer_shape=lambda attrs, s: info.infer_shape(s),
                     infer_type=lambda attrs, t: info.infer_type(t),
                     mutate_inputs=tuple(range(n_args, n_args + n_aux)),
                     probe_partial=False, never_mirror=True, nd_names=(),
                     doc=f"The custom op '{info.op_type}' ({type(info.prop).__name__}).")
        op.info = info
        return op


def _generic(fn):
    def rule(attrs, values):
        return getattr(info_of(attrs), fn)(values)
    return rule


def _generic_compute(backward):
    def compute(xp, inputs, attrs, ctx):
        info = info_of(attrs)
        return (info.backward_op if backward else info.forward_op).compute(xp, inputs, attrs, ctx)
    return compute


def _unbound(xp, inputs, attrs, ctx):
    raise MXNetNotImplementedError("Custom: kernels are bound per node (Instances)")


def _unbound_into(xp, inputs, attrs, outs, ctx):
    raise MXNetNotImplementedError("Custom: kernels are bound per node (Instances)")


register_op(CustomOpDef(
    name="Custom", compute=_generic_compute(False),
    num_inputs=lambda a: info_of(a).forward_op.num_inputs,
    num_outputs=lambda a: info_of(a).forward_op.num_outputs,
    input_names=lambda a: info_of(a).forward_op.input_names,
    output_names=lambda a: info_of(a).forward_op.output_names,
    infer_shape=_generic("infer_shape"), infer_type=_generic("infer_type"),
    gradient=_gradient, probe_partial=False, never_mirror=True, nd_names=(),
    doc="A Python custom operator (mx.operator.register); attributes: op_type and the Prop's "
        "keyword arguments."))
register_op(CustomOpDef(
    name="_backward_Custom", compute=_generic_compute(True),
    num_inputs=lambda a: info_of(a).backward_op.num_inputs,
    num_outputs=lambda a: info_of(a).backward_op.num_outputs,
    infer_shape=_backward_shapes, infer_type=_backward_types, probe_partial=False,
    save_outputs=False, never_mirror=True, hidden=True, nd_names=(),
    doc="Gradient of a Python custom operator."))
