"""``x[key]`` and ``x[key] = value`` for both array flavours, expressed as registered ops.

Every key becomes op calls with typed attributes, so deferred compute can trace it and autograd can
record it:

* basic keys (ints, slices with steps, ``None``, ``...``) -> ``slice`` + ``squeeze`` +
  ``expand_dims``
  (shape-agnostic, so a traced graph works for other batch sizes);
* one boolean array covering the leading axes -> ``_contrib_boolean_mask`` (dynamic output shape);
* any other key with integer/boolean arrays or lists -> ``_index_get`` (NumPy's advanced indexing);
* assignments -> ``_slice_assign`` / ``_slice_assign_scalar`` / ``_index_set`` writing the target in
  place.

Outside autograd recording and tracing, ``x[i]`` and ``x[a:b]`` (then only full slices) are views
sharing the data and the engine var, as MXNet's: ``x[0][1] = 5`` writes into ``x``.

Legacy ``mx.nd`` arrays keep MXNet 1.x's rule that an integer key never yields a 0-d array: ``x[1]``
on a 1-D array has shape ``(1,)``.

Example
-------
>>> import mxlab as mx
>>> x = mx.np.arange(12).reshape(3, 4)
>>> x[1:, None, ::-2].shape
(2, 1, 2)
"""

import math

import numpy

from ..base import MXNetIndexError, MXNetTypeError, MXNetValueError
from ..imperative import STATE, invoke
from ..ops.indexing import KEY_ARRAY, KEY_ELLIPSIS, KEY_INT, KEY_NONE, KEY_SLICE
from ..ops.registry import get_op
from .namespace import register_frontend
from .ndarray import NDArray, array

__all__ = ["getitem", "setitem"]

_HYBRID_NUMPY_MSG = "Indexing with a numpy array is not supported in HybridBlock."
_HYBRID_ADVANCED_MSG = "Advanced indexing is not supported in HybridBlock."


def _call(op_name, inputs, out=None, **attrs):
    op = get_op(op_name)
    return invoke(op, inputs, op.parse_attrs(attrs), out=out)[0]


def _is_int(k):
    return isinstance(k, (int, numpy.integer)) and not isinstance(k, (bool, numpy.bool_))


def _is_basic(k):
    return _is_int(k) or k is None or k is Ellipsis or isinstance(k, slice)


def _as_tuple(key):
    return key if isinstance(key, tuple) else (key,)


def _check_hybrid(arr, key):
    """Keys that deferred compute (HybridBlock tracing) cannot record raise MXNet's errors."""
    entries = _as_tuple(key)
    if any(isinstance(k, numpy.ndarray) for k in entries):
        raise MXNetTypeError(_HYBRID_NUMPY_MSG)
    if _single_mask(arr, key, full_rank=True) or _integer_arrays(key):
        return
    if not all(_is_basic(k) for k in entries):
        raise MXNetTypeError(_HYBRID_ADVANCED_MSG)


def _integer_arrays(key):
    """A tuple of integer mx arrays (none 0-d): MXNet 2.0 records it in a HybridBlock as one
    ``advanced_indexing_multiple`` node."""
    return isinstance(key, tuple) and bool(key) and all(
        isinstance(k, NDArray) and k.ndim > 0 and numpy.dtype(k.dtype).kind in "iu" for k in key)


def _single_mask(arr, key, full_rank=False):
    """True for one boolean mx array covering the leading axes (the whole array when
    ``full_rank``)."""
    if not isinstance(key, NDArray) or numpy.dtype(key.dtype) != numpy.bool_:
        return False
    n = key.ndim
    return n == arr.ndim if full_rank else (0 < n <= arr.ndim and key.shape == arr.shape[:n])


# -- basic keys ------------------------------------------------------------------------------------
def _expand_ellipsis(arr, entries):
    ellipses = [i for i, k in enumerate(entries) if k is Ellipsis]
    if len(ellipses) > 1:
        raise MXNetIndexError("an index can only have a single ellipsis ('...')")
    indexed = sum(1 for k in entries if k is not None and k is not Ellipsis)
    if indexed > arr.ndim:
        raise MXNetIndexError(
            f"too many indices for array: array is {arr.ndim}-dimensional, but {indexed} were "
            f"indexed"
        )
    if not ellipses:
        return list(entries)
    i = ellipses[0]
    return list(entries[:i]) + [slice(None)] * (arr.ndim - indexed) + list(entries[i + 1 :])


def _basic_plan(arr, entries):
    """begin/end/step per indexed axis, the int axes, and the result positions of ``None``
    entries."""
    shape = arr.shape
    begin, end, step, int_axes, new_axes = [], [], [], [], []
    axis = position = 0
    for k in entries:
        if k is None:
            new_axes.append(position)
            position += 1
            continue
        if _is_int(k):
            n = shape[axis]
            if not -n <= k < n:
                raise MXNetIndexError(f"index {k} is out of bounds for axis {axis} with size {n}")
            # NOTE: negative indices stay negative, so a traced graph works for other sizes.
            k = int(k)
            begin.append(k)
            end.append(None if k == -1 else k + 1)
            step.append(1)
            int_axes.append(axis)
        else:
            begin.append(k.start)
            end.append(k.stop)
            step.append(k.step)
            position += 1
        axis += 1
    return (tuple(begin), tuple(end), tuple(step)), int_axes, new_axes


def _trim(bounds):
    """Drop trailing full slices (``slice`` then covers fewer axes, which it allows)."""
    begin, end, step = (list(b) for b in bounds)
    while begin and begin[-1] is None and end[-1] is None and step[-1] in (None, 1):
        begin.pop()
        end.pop()
        step.pop()
    return tuple(begin), tuple(end), tuple(step)


def _basic_getitem(arr, entries):
    bounds, int_axes, new_axes = _basic_plan(arr, _expand_ellipsis(arr, entries))
    begin, end, step = _trim(bounds)
    result = (
        _call("slice", [arr], begin=begin, end=end, step=step) if begin else _call("_copy", [arr])
    )
    if arr._flavour == "nd" and int_axes and len(int_axes) == arr.ndim and not new_axes:
        int_axes = int_axes[
            :-1
        ]  # NOTE: MXNet 1.x: an all-integer key on mx.nd gives shape (1,), not ().
    if int_axes:
        result = _call("squeeze", [result], axis=tuple(int_axes))
    for position in new_axes:
        result = _call("expand_dims", [result], axis=position)
    return result


# -- advanced keys ---------------------------------------------------------------------------------
def _index_array(arr, k):
    """An index entry as an mx array on ``arr``'s device (lists and NumPy arrays are copied
    there)."""
    if isinstance(k, NDArray):
        return k.as_in_context(arr._device)
    host = numpy.asarray(k)
    if host.dtype.kind not in "biu":
        raise MXNetIndexError(
            f"arrays used as indices must be of integer or boolean type, got {host.dtype}"
        )
    return array(
        host if host.dtype.kind == "b" else host.astype(numpy.int64),
        device=arr._device,
        cls=type(arr),
    )


def _key_spec(arr, entries):
    """``(spec, arrays)`` for :func:`mxlab.ops.indexing._build_key`."""
    spec, arrays = [], []
    for k in entries:
        if _is_int(k):
            spec.append((KEY_INT, int(k)))
        elif isinstance(k, slice):
            spec.append((KEY_SLICE, k.start, k.stop, k.step))
        elif k is None:
            spec.append((KEY_NONE,))
        elif k is Ellipsis:
            spec.append((KEY_ELLIPSIS,))
        else:
            spec.append((KEY_ARRAY, len(arrays)))
            arrays.append(_index_array(arr, k))
    for k, (kind, *rest) in zip(entries, spec):
        if kind == KEY_SLICE and not all(v is None or _is_int(v) for v in rest):
            raise MXNetTypeError(f"slice indices must be integers or None, got {k}")
    return tuple(spec), arrays


def _check_ints(arr, entries):
    """Integer entries (and host-side index lists) out of range raise MXNetIndexError before any op
    runs; out-of-range values inside mx arrays surface when the result is read, as in MXNet."""
    axis = 0
    for k in _expand_ellipsis(arr, [k for k in entries if not _is_mask_like(k)]):
        if k is None:
            continue
        n = arr.shape[axis]
        host = (
            numpy.asarray(k) if isinstance(k, (list, tuple, numpy.ndarray)) or _is_int(k) else None
        )
        if host is not None and host.dtype.kind in "iu" and host.size:
            worst = int(host.max()) if int(host.max()) >= n else int(host.min())
            if not -n <= worst < n:
                raise MXNetIndexError(
                    f"index {worst} is out of bounds for axis {axis} with size {n}"
                )
        axis += 1


def _is_mask_like(k):
    return (
        isinstance(k, (NDArray, numpy.ndarray))
        and numpy.dtype(k.dtype) == numpy.bool_
        and k.ndim != 1
    )


def slice_is_contiguous(key, shape):
    """Whether the basic ``key`` (ints and slices, one per leading axis) selects one contiguous run
    of a C-ordered array of ``shape`` (MXNet's rule: from the last axis on, once an axis takes a
    proper part, every axis before it takes at most one element; a step other than 1 over several
    elements never is)."""
    lengths = []
    for k, n in zip(tuple(key) + (slice(None),) * (len(shape) - len(key)), shape):
        if _is_int(k):
            lengths.append((1, 1, n))
        else:
            start, stop, step = k.indices(n)
            lengths.append((len(range(start, stop, step)), step, n))
    if math.prod(length for length, _, _ in lengths) in (0, 1):
        return True
    is_subset = False
    for length, step, n in reversed(lengths):
        if length > 1 and step != 1:
            return False
        if is_subset and length > 1:
            return False
        is_subset = is_subset or length < n
    return True


def _leading_view(arr, entries):
    """A basic key of ints and slices whose result is one contiguous run of ``arr`` (``arr[i]``,
    ``arr[a:b]``, ``arr[0, 1:3]``), outside recording and tracing: a view sharing the data and the
    engine var, as MXNet's (``x[0][1] = 5`` writes into ``x``); None for any other key."""
    if STATE.recording or STATE.deferred or not entries or arr.ndim == 0:
        return None
    if not all(_is_int(k) or k is Ellipsis or isinstance(k, slice) for k in entries):
        return None
    entries = _expand_ellipsis(arr, entries)
    for axis, k in enumerate(entries):
        n = arr.shape[axis]
        if _is_int(k) and not -n <= k < n:
            raise MXNetIndexError(f"index {k} is out of bounds for axis {axis} with size {n}")
    if not slice_is_contiguous(entries, arr.shape):
        return None
    view = arr.detach()          # NOTE: waits for (or computes) a pending value first
    # NOTE: the trailing ... keeps an all-int key a 0-d view instead of a NumPy scalar
    data = view._data[tuple(int(k) if _is_int(k) else k for k in entries) + (Ellipsis,)]
    if data.ndim == 0 and arr._flavour != "np":
        data = data.reshape(1)   # NOTE: MXNet 1.x's x[i, j] of a 2-d array has shape (1,)
    view._data = data
    view._shape = tuple(data.shape)
    return view


def getitem(arr, key):
    """``arr[key]`` (see the module docstring for how each key kind is expressed as ops)."""
    if STATE.deferred:
        _check_hybrid(arr, key)
    view = _leading_view(arr, _as_tuple(key))
    if view is not None:
        return view
    if _single_mask(arr, key):
        return _call("_contrib_boolean_mask", [arr, key], axis=0)
    entries = _as_tuple(key)
    if all(_is_basic(k) for k in entries):
        return _basic_getitem(arr, entries)
    _check_ints(arr, entries)
    spec, arrays = _key_spec(arr, entries)
    return _call("_index_get", [arr] + arrays, key=spec, num_arrays=len(arrays))


# -- assignment ------------------------------------------------------------------------------------
def _value_array(arr, value):
    if isinstance(value, NDArray):
        return value.as_in_context(arr._device)
    return array(
        numpy.asarray(value, dtype=numpy.dtype(arr.dtype)), device=arr._device, cls=type(arr)
    )


def _is_scalar(value):
    return isinstance(value, (int, float, bool, numpy.generic))


def _region_value(value, region_shape, int_axes, new_axes=()):
    """Reshape ``value`` (NumPy broadcasting against ``arr[key]``: the region without int axes,
    with the ``None`` axes at ``new_axes``) to the kept-dims region."""
    shape = tuple(value.shape)
    target = [d for i, d in enumerate(region_shape) if i not in int_axes]
    for position in new_axes:
        target.insert(position, 1)
    while len(shape) > len(target) and shape[0] == 1:
        shape = shape[1:]
    if len(shape) > len(target):
        raise MXNetIndexError(
            f"cannot assign a value of shape {value.shape} to a region of shape {tuple(target)}"
        )
    shape = (1,) * (len(target) - len(shape)) + shape
    if any(v not in (1, d) for v, d in zip(shape, target)):
        raise MXNetValueError(
            f"cannot assign a value of shape {value.shape} to a region of shape {tuple(target)}"
        )
    full = [d for i, d in enumerate(shape) if i not in new_axes]
    for axis in int_axes:
        full.insert(axis, 1)
    full = tuple(full) + (1,) * (len(region_shape) - len(full))
    if full == tuple(value.shape):
        return value
    return _call("_np_reshape", [value], newshape=full)


def setitem(arr, key, value):
    """``arr[key] = value``: the target array is written by an assignment op (its version
    increases)."""
    if STATE.deferred:
        _check_hybrid(arr, key)
    entries = _as_tuple(key)
    if isinstance(key, NDArray) or not all(_is_basic(k) for k in entries):
        _check_ints(arr, entries)
        spec, arrays = _key_spec(arr, entries)
        _call(
            "_index_set",
            [arr, _value_array(arr, value)] + arrays,
            out=[arr],
            key=spec,
            num_arrays=len(arrays),
        )
        return
    bounds, int_axes, new_axes = _basic_plan(arr, _expand_ellipsis(arr, entries))
    if _is_scalar(value):
        _call(
            "_slice_assign_scalar",
            [arr],
            out=[arr],
            scalar=_python_scalar(value),
            begin=bounds[0],
            end=bounds[1],
            step=bounds[2],
        )
        return
    value = _value_array(arr, value)
    region = tuple(len(range(n)[slice(b, e, s)]) for n, b, e, s in zip(arr.shape, *bounds))
    region += tuple(arr.shape[len(region) :])
    value = _region_value(value, region, int_axes, new_axes)
    _call("_slice_assign", [arr, value], out=[arr], begin=bounds[0], end=bounds[1], step=bounds[2])


def _python_scalar(value):
    return value.item() if isinstance(value, numpy.generic) else value


register_frontend("np", "nd", name="_getitem")(getitem)
register_frontend("np", "nd", name="_setitem")(setitem)
