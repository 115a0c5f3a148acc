"""Checks that two ways of computing agree (MXNet's ``check_gluon_hybridize_consistency``,
``compare_optimizer`` and friends)."""
import json

import numpy as np

from .. import autograd
from ..base import MXNetValueError

__all__ = [
    "check_consistency",
    "check_gluon_hybridize_consistency",
    "compare_ndarray_tuple",
    "compare_optimizer",
    "compare_optimizer_noise_seeded",
    "same_array",
    "same_symbol_structure",
]


def _assert_close(a, b, rtol, atol):
    from ..test_utils import assert_almost_equal
    assert_almost_equal(a, b, rtol=rtol, atol=atol)


def _run_block(net, data_l, use_autograd):
    """``(output, input gradients or None)`` of one call of ``net`` on copies of ``data_l``."""
    inputs = [x.copy() for x in data_l]
    if not use_autograd:
        return net(*inputs).asnumpy(), None
    for x in inputs:
        x.attach_grad()
    with autograd.record():
        out = net(*inputs)
    out.backward(out)
    return out.asnumpy(), [x.grad.asnumpy() for x in inputs]


def check_gluon_hybridize_consistency(net_builder, data_l, numpy_func=None, test_grad=True,
                                      rtol=1e-4, atol=1e-4):
    """Build the block with ``net_builder()`` four times (imperative/hybridized, with and without
    autograd) from the same initial parameters; outputs and input gradients must agree, and match
    ``numpy_func`` on the inputs when given."""
    reference_out, reference_grads, params = None, None, None
    for hybridize in (False, True):
        for use_autograd in ((False, True) if test_grad else (False,)):
            net = net_builder()
            if params is None:
                net.initialize()
            else:
                net.load_dict(params)
            if hybridize:
                net.hybridize()
            out, grads = _run_block(net, data_l, use_autograd)
            if params is None:   # NOTE: after the first call, deferred initialization is done
                params = {k: v.data().asnumpy() for k, v in net.collect_params().items()}
            if reference_out is None:
                reference_out = out
            else:
                _assert_close(out, reference_out, rtol, atol)
            if grads is not None:
                if reference_grads is None:
                    reference_grads = grads
                for grad, expected in zip(grads, reference_grads):
                    _assert_close(grad, expected, rtol, atol)
    if numpy_func is not None:
        expected = numpy_func(*[x.asnumpy() for x in data_l])
        _assert_close(reference_out, expected, rtol, atol)


def compare_ndarray_tuple(t1, t2, rtol=None, atol=None):
    """Assert two (nested tuples of) arrays are almost equal; ``None`` on either side passes."""
    if t1 is None or t2 is None:
        return
    if isinstance(t1, tuple):
        for a, b in zip(t1, t2):
            compare_ndarray_tuple(a, b, rtol, atol)
    else:
        _assert_close(t1, t2, rtol, atol)


def _weights_and_grads(shapes, dtype, w_stype, g_stype):
    """MXNet's pairs: ``(w1, w2, g1, g2)``; a sparse side (density 1 for weights) is given to
    the second optimizer, its dense copy to the first."""
    from .. import random
    from ..test_utils import default_device, rand_ndarray
    device = default_device()
    pairs = []
    for shape in shapes:
        pair = []
        for stype, density in ((w_stype, 1), (g_stype, None)):
            if stype == "default":
                second = random.uniform(shape=shape, ctx=device, dtype=dtype)
                pair.append((second.copyto(device), second))
            elif stype in ("row_sparse", "csr"):
                second = rand_ndarray(shape, stype, density=density, dtype=dtype)
                pair.append((second.copyto(device).tostype("default"), second))
            else:
                raise MXNetValueError(f"compare_optimizer: unknown storage type {stype!r}")
        pairs.append((pair[0][0], pair[0][1], pair[1][0], pair[1][1]))
    return pairs


def _compare(opt1, opt2, shapes, dtype, w_stype, g_stype, rtol, atol, compare_states, seed):
    from .. import random
    pairs = _weights_and_grads(shapes, dtype, w_stype, g_stype)
    w1, w2, g1, g2 = (list(x) for x in zip(*pairs))
    s1 = [opt1.create_state_multi_precision(i, w) for i, w in enumerate(w1)]
    s2 = [opt2.create_state_multi_precision(i, w) for i, w in enumerate(w2)]
    if compare_states:
        for a, b in zip(s1, s2):
            compare_ndarray_tuple(a, b)
    indices = list(range(len(shapes)))
    for opt, weights, grads, states in ((opt1, w1, g1, s1), (opt2, w2, g2, s2)):
        if seed is not None:
            random.seed(seed)   # NOTE: both optimizers draw the same noise
        opt.update_multi_precision(indices, weights, grads, states)
    if compare_states:
        compare_ndarray_tuple(tuple(s1), tuple(s2), rtol=rtol, atol=atol)
    compare_ndarray_tuple(tuple(w1), tuple(w2), rtol=rtol, atol=atol)


def _is_one_shape(shapes):
    """MXNet 1.x passes one shape (a tuple of ints), 2.0 a list of shapes."""
    return isinstance(shapes, tuple) and all(isinstance(d, (int, np.integer)) for d in shapes)


def _compare_one(opt1, opt2, shape, dtype, w_stype, g_stype, rtol, atol, compare_states):
    """MXNet 1.x's single-tensor form: both optimizers update index ``0`` (a scalar index)."""
    ((w1, w2, g1, g2),) = _weights_and_grads([shape], dtype, w_stype, g_stype)
    s1 = opt1.create_state_multi_precision(0, w1)
    s2 = opt2.create_state_multi_precision(0, w2)
    if compare_states:
        compare_ndarray_tuple(s1, s2)
    opt1.update_multi_precision(0, w1, g1, s1)
    opt2.update_multi_precision(0, w2, g2, s2)
    if compare_states:
        compare_ndarray_tuple(s1, s2, rtol=rtol, atol=atol)
    _assert_close(w1, w2, rtol, atol)


def _compare_multi_tensor(opt1, opt2, shapes, dtype, rtol, atol, compare_states, ntensors):
    """MXNet 1.x's multi-tensor form: ``opt2`` updates all ``ntensors`` in one call, ``opt1``
    (the single-tensor reference) one at a time."""
    from .. import random
    from ..test_utils import default_device
    w1 = [random.uniform(shape=s, ctx=default_device(), dtype=dtype) for s in shapes]
    g1 = [random.uniform(shape=s, ctx=default_device(), dtype=dtype) for s in shapes]
    w2, g2 = [w.copy() for w in w1], [g.copy() for g in g1]
    s2 = [opt2.create_state_multi_precision(0, w2[i]) for i in range(ntensors)]
    opt2.update_multi_precision(list(range(ntensors)), w2, g2, s2)
    for i in range(ntensors):
        s1 = opt1.create_state_multi_precision(i, w1[i])
        opt1.update_multi_precision(i, w1[i], g1[i], s1)
        if compare_states:
            compare_ndarray_tuple(s1, s2[i], rtol, atol)
        compare_ndarray_tuple(w1[i], w2[i], rtol, atol)


def compare_optimizer(opt1, opt2, shapes, dtype, w_stype="default", g_stype="default",
                      rtol=1e-4, atol=1e-5, compare_states=True, ntensors=None):
    """One multi-precision update of random weights by both optimizers must agree.

    ``shapes`` is a list of shapes (MXNet 2.0: both update all at once), or, as in MXNet 1.x,
    one shape (both update index 0); MXNet 1.x's ``ntensors`` with a list compares ``opt2``'s
    multi-tensor update with ``opt1`` updating one tensor at a time.
    """
    if _is_one_shape(shapes):
        _compare_one(opt1, opt2, shapes, dtype, w_stype, g_stype, rtol, atol, compare_states)
    elif ntensors is not None:
        _compare_multi_tensor(opt1, opt2, shapes, dtype, rtol, atol, compare_states, ntensors)
    else:
        _compare(opt1, opt2, shapes, dtype, w_stype, g_stype, rtol, atol, compare_states, None)


def compare_optimizer_noise_seeded(opt1, opt2, shapes, dtype, noise_seed, w_stype="default",
                                   g_stype="default", rtol=1e-4, atol=1e-5, compare_states=True):
    """:func:`compare_optimizer` for optimizers that add noise: both draw it from ``noise_seed``."""
    _compare(opt1, opt2, shapes, dtype, w_stype, g_stype, rtol, atol, compare_states, noise_seed)


def same_symbol_structure(sym1, sym2):
    """Whether two symbols have the same op sequence (names may differ)."""
    ops1 = [n["op"] for n in json.loads(sym1.tojson())["nodes"]]
    ops2 = [n["op"] for n in json.loads(sym2.tojson())["nodes"]]
    return all(a == b for a, b in zip(ops1, ops2))


def same_array(array1, array2):
    """Whether two arrays share memory: a change to one shows in the other."""
    array1[:] += 1
    shared = np.array_equal(array1.asnumpy(), array2.asnumpy())
    array1[:] -= 1
    return shared and np.array_equal(array1.asnumpy(), array2.asnumpy())


def _least_precise(dt1, dt2):
    return dt1 if dt2 is None or np.dtype(dt1).itemsize < np.dtype(dt2).itemsize else dt2


def _random_params(exe, arg_params, scale, use_uniform, rand_type):
    """Random host values for every argument without one (sorted by name: reproducible)."""
    params = dict(arg_params or {})
    for name, arr in sorted(exe.arg_dict.items()):
        if name not in params:
            values = (np.random.uniform(-0.92 * scale, 0.92 * scale, size=arr.shape)
                      if use_uniform else np.random.normal(size=arr.shape, scale=scale))
            params[name] = values.astype(rand_type)
    return params


def _compare_executors(exe_list, gt, names, gt_idx, rtol, atol, equal_nan, raise_on_err,
                       arrays):
    from ..test_utils import assert_almost_equal
    for i, exe in enumerate(exe_list):
        if i == gt_idx:
            continue
        for name, arr in zip(names, arrays(exe)):
            if gt.get(name) is None:
                assert arr is None, name
                continue
            try:
                assert_almost_equal(arr, gt[name], rtol=rtol, atol=atol, equal_nan=equal_nan,
                                    names=(f"ctx {i}", f"ctx {gt_idx} at {name}"))
            except AssertionError:
                if raise_on_err:
                    raise


def check_consistency(sym, ctx_list, scale=1.0, grad_req="write", arg_params=None,
                      aux_params=None, rtol=None, atol=None, raise_on_err=True, ground_truth=None,
                      equal_nan=False, use_uniform=False, rand_type=np.float64):
    """MXNet's check that a symbol gives the same outputs (and, unless ``grad_req`` is 'null',
    gradients) for every entry of ``ctx_list`` (``{'ctx': ..., <arg>: shape, 'type_dict':
    {...}}``): the most precise first output is the ground truth. Returns the ground truth."""
    from ..symbol import Symbol
    assert len(ctx_list) > 1
    syms = [sym] * len(ctx_list) if isinstance(sym, Symbol) else list(sym)
    output_names, arg_names = syms[0].list_outputs(), syms[0].list_arguments()
    exe_list = [s._simple_bind(grad_req=grad_req, **ctx) for s, ctx in zip(syms, ctx_list)]
    arg_params = _random_params(exe_list[0], arg_params, scale, use_uniform, rand_type)
    aux_params = {n: (aux_params or {}).get(n, 0) for n in exe_list[0].aux_dict}
    for exe in exe_list:
        for name, arr in exe.arg_dict.items():
            arr[:] = arg_params[name]
        for name, arr in exe.aux_dict.items():
            arr[:] = aux_params[name]
        if grad_req == "add":
            for arr in exe.grad_arrays:
                if arr is not None:
                    arr[:] = 0
        exe.forward(is_train=False)
    gt_idx = int(np.argmax([np.dtype(exe.outputs[0].dtype) for exe in exe_list]))
    gt = ground_truth or exe_list[gt_idx].output_dict.copy()
    _compare_executors(exe_list, gt, output_names, gt_idx, rtol, atol, equal_nan, raise_on_err,
                       lambda exe: exe.outputs)
    if grad_req == "null":
        return gt
    for exe in exe_list:
        exe.forward(is_train=True)
    dtypes = [out.dtype for out in exe_list[0].outputs]
    for exe in exe_list:
        dtypes = [_least_precise(out.dtype, dt) for out, dt in zip(exe.outputs, dtypes)]
    heads = [out.astype(dt).asnumpy() for out, dt in zip(exe_list[0].outputs, dtypes)]
    for exe in exe_list:
        exe.backward([_like(h, out) for h, out in zip(heads, exe.outputs)])
    if ground_truth is None:
        gt = dict(exe_list[gt_idx].output_dict)
        gt.update(exe_list[gt_idx].grad_dict)
    _compare_executors(exe_list, gt, output_names + arg_names, gt_idx, rtol, atol, equal_nan,
                       raise_on_err, lambda exe: list(exe.outputs) + list(exe.grad_arrays))
    return gt


def _like(host, out):
    from ..ndarray import array
    return array(host, ctx=out.context, dtype=out.dtype)
