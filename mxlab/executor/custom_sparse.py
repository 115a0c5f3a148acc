"""Custom operators on sparse arrays (``csr``, ``row_sparse``), imperatively.

When ``mx.nd.Custom`` gets a sparse input and the Prop's ``infer_storage_type`` keeps some storage
sparse, the op runs here instead of as an engine kernel (kernels see dense buffers): the user's
``forward`` gets the sparse arrays themselves and outputs (and, in ``backward``, input gradients)
of the storage types the Prop asks for, as MXNet hands them. The call is recorded on the autograd
tape with an op whose gradient rule runs the user's ``backward`` the same way, with
``infer_storage_type_backward`` choosing the gradients' storage. Graphs (symbols, hybridized
blocks) stay dense.
"""
import numpy

from .. import autograd
from ..base import MXNetNotImplementedError
from ..device import current_device
from ..imperative import STATE
from ..ndarray.ndarray import NDArray
from ..ndarray.sparse_array import to_stype
from ..ops.registry import Op
from .custom_op import Instances

__all__ = ["run_sparse"]


def _array(stype, shape, dtype, device, cls):
    dense = cls._wrap(numpy.zeros(shape, dtype=dtype), device)
    return dense if stype == "default" else to_stype(dense, stype)


def _signature(arrays):
    return (tuple(tuple(a.shape) for a in arrays),
            tuple(numpy.dtype(a.dtype).name for a in arrays))


def run_sparse(info, slots, attrs, stypes, cls):
    """The outputs of the custom op ``info`` on ``slots`` (args + aux, some sparse), whose
    storage types ``stypes`` (input, output, aux lists) the Prop gave."""
    if STATE.deferred:
        raise MXNetNotImplementedError(f"Custom '{info.op_type}': sparse inputs in a traced "
                                       "(hybridized) graph; graphs run custom ops dense")
    device = slots[0]._device if slots else current_device()
    for array in slots:
        array.wait_to_read()
    shapes, dtypes = _signature(slots)
    out_shapes, out_dtypes = info.output_meta(shapes, dtypes)
    outputs = [_array(st, s, d, device, cls)
               for st, s, d in zip(stypes[1], out_shapes, out_dtypes)]
    instances = Instances(info)   # NOTE: per call, as MXNet's imperative operator state
    operator = instances.operator(device, shapes, dtypes)
    is_train = autograd.is_training()
    info.call(operator, "forward", device, is_train,
              dict(is_train=is_train, req=["write"] * len(outputs),
                   in_data=list(slots[:info.n_args]), out_data=outputs,
                   aux=list(slots[info.n_args:])))
    if STATE.recording:
        autograd.record_op(_tape_op(info, instances), attrs, list(slots), outputs)
    return outputs


def _tape_op(info, instances):
    n_args, n_aux = info.n_args, info.n_aux
    op = Op(name="Custom", compute=_not_a_kernel, attrs=(), num_inputs=n_args + n_aux,
            num_outputs=info.n_out, mutate_inputs=tuple(range(n_args, n_args + n_aux)),
            gradient=_gradient, hidden=True, nd_names=())
    op.instances = instances
    return op


def _not_a_kernel(xp, inputs, attrs):
    raise MXNetNotImplementedError("Custom on sparse arrays runs imperatively only")


def _stype(array):
    return getattr(array, "stype", "default") if array is not None else "default"


def _gradient(node, out_grads):
    """Run the user's backward on the saved (sparse) arrays; gradients of the storage types
    ``infer_storage_type_backward`` gives."""
    instances = node.op.instances
    info = instances.info
    args, aux = list(node.inputs[:info.n_args]), list(node.inputs[info.n_args:])
    outputs = list(node.outputs)
    stypes = info.prop.infer_storage_type_backward(
        [_stype(g) for g in out_grads], [_stype(a) for a in args], [_stype(o) for o in outputs],
        ["default"] * info.n_args, [_stype(a) for a in aux])
    device = args[0]._device if args else current_device()
    in_grads = [_array(st, a.shape, a.dtype, device, type(a) if not a._sparse else NDArray)
                for st, a in zip(stypes[3], args)]
    deps = set(info.bwd_ids)
    n_out = info.n_out
    shapes, dtypes = _signature(args + aux)
    info.call(instances.operator(device, shapes, dtypes), "backward", device, True,
              dict(req=["write"] * len(in_grads),
                   out_grad=[g if i in deps else None for i, g in enumerate(out_grads)],
                   in_data=args,
                   out_data=[o if n_out + info.n_args + i in deps else None
                             for i, o in enumerate(outputs)],
                   in_grad=in_grads, aux=aux))
    return in_grads + [None] * info.n_aux
