"""Testing helpers with MXNet's names and signatures (``mx.test_utils``).

Comparison with per-dtype default tolerances (:func:`assert_almost_equal`), random data
(:func:`rand_ndarray`, :func:`rand_shape_nd`), the default test device, and gradient checks by
central differences (:func:`check_numeric_gradient`) for a Symbol (through ``bind``) or for a plain
Python function of arrays (through ``mx.autograd``), plus :func:`check_symbolic_forward` and
:func:`check_symbolic_backward`.

Examples
--------
>>> import numpy
>>> import mxlab as mx
>>> from mxlab.test_utils import assert_almost_equal
>>> assert_almost_equal(mx.nd.array([1.0, 2.0]), numpy.array([1.0, 2.00001]))
"""
import contextlib
import functools
import inspect
import numbers
import os
import sys

import numpy as np

from .base import MXNetNotImplementedError, MXNetTypeError, MXNetValueError
from .device import Device, current_device, num_gpus
from .ndarray.ndarray import NDArray, ndarray
from .ndarray.ndarray import array as _new_array
from .util import getenv, is_np_array, setenv, use_np  # noqa: F401  (re-exported, as in MXNet)

__all__ = ["default_context", "default_device", "set_default_context", "set_default_device",
           "default_dtype", "default_rtols", "default_atols", "default_numeric_eps",
           "effective_dtype", "get_tolerance", "get_tols", "get_atol", "get_rtol", "get_etol",
           "same",
           "almost_equal", "assert_almost_equal", "assert_allclose",
           "assert_almost_equal_ignore_nan", "assert_almost_equal_with_err", "assert_exception",
           "retry", "environment", "random_arrays", "random_uniform_arrays", "random_sample",
           "rand_ndarray", "rand_shape_2d", "rand_shape_3d", "rand_shape_nd", "list_gpus",
           "numeric_grad", "check_numeric_gradient", "check_symbolic_forward",
           "check_symbolic_backward", "simple_forward", "use_np", "getenv", "setenv"]

_FLOATS = (np.float16, np.float32, np.float64)
_EXACT = (np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
          np.uint64)


def _table(float_values):
    """dtype -> tolerance: ``float_values`` for float16/32/64, 0 (exact) for ints and bool."""
    return {**{np.dtype(t): 0 for t in _EXACT}, **dict(zip(map(np.dtype, _FLOATS), float_values))}


# NOTE: MXNet's tables (python/mxnet/test_utils.py).
_RTOLS = _table((1e-2, 1e-4, 1e-5))
_ATOLS = _table((1e-1, 1e-3, 1e-20))
# NOTE: powers of two, so adding eps to an input drops no bits.
_NUMERIC_EPS = dict(zip(map(np.dtype, _FLOATS), (2.0 ** -6, 2.0 ** -9, 2.0 ** -14)))


# -- defaults ------------------------------------------------------------------------------------
def default_context():
    """The device tests run on: the thread's current device (``cpu(0)`` unless changed)."""
    return current_device()


default_device = default_context


def set_default_context(ctx):
    """Make ``ctx`` the thread's default device (what ``with ctx:`` does, without the scope)."""
    # NOTE: Device keeps the thread's default in Device._local.value (see Device.__enter__).
    Device._local.value = Device(ctx)


set_default_device = set_default_context


def default_dtype():
    """The dtype of random test data: float32, as in MXNet."""
    return np.float32


def default_rtols():
    """Relative tolerances per dtype used when ``rtol`` is not given."""
    return dict(_RTOLS)


def default_atols():
    """Absolute tolerances per dtype used when ``atol`` is not given."""
    return dict(_ATOLS)


def default_numeric_eps():
    """Finite-difference step per dtype for :func:`check_numeric_gradient`."""
    return dict(_NUMERIC_EPS)


def effective_dtype(dat):
    """The dtype whose tolerance applies to ``dat``: its own (mxlab never uses TF32 matmuls)."""
    return np.dtype(dat.dtype)


def get_tolerance(dat, tol, default_tol):
    """``tol`` if a number, else the entry for ``dat``'s dtype in ``tol`` or ``default_tol``."""
    if isinstance(tol, numbers.Number):
        return tol
    dtype = effective_dtype(dat)
    table = {**default_tol, **(tol or {})}
    if dtype not in table:
        raise MXNetTypeError(f"get_tolerance: no default tolerance for dtype {dtype}; "
                             "pass rtol and atol")
    return table[dtype]


def get_tols(x, y, rtol, atol):
    """The ``(rtol, atol)`` for comparing ``x`` and ``y``: the looser default of the two dtypes."""
    x, y = (np.asarray(v) if isinstance(v, (numbers.Number, list, tuple)) else v for v in (x, y))
    rtol = max(get_tolerance(x, rtol, _RTOLS), get_tolerance(y, rtol, _RTOLS))
    atol = max(get_tolerance(x, atol, _ATOLS), get_tolerance(y, atol, _ATOLS))
    return rtol, atol


def get_atol(atol=None, dtype=np.dtype(np.float64)):
    """``atol``, or the default absolute tolerance of ``dtype``."""
    return _ATOLS[np.dtype(dtype)] if atol is None else atol


def get_rtol(rtol=None, dtype=np.dtype(np.float64)):
    """``rtol``, or the default relative tolerance of ``dtype``."""
    return _RTOLS[np.dtype(dtype)] if rtol is None else rtol


def get_etol(etol=None):
    """``etol`` (the fraction of elements allowed to mismatch), 0 by default."""
    return 0 if etol is None else etol


# -- comparison ----------------------------------------------------------------------------------
def _as_numpy(value):
    """A NumPy array from an mxlab array, a CuPy array, a number or a nested list."""
    if isinstance(value, NDArray):
        return value.asnumpy()
    if hasattr(value, "get") and hasattr(value, "__cuda_array_interface__"):
        return value.get()
    return np.asarray(value)


def same(a, b):
    """Whether ``a`` and ``b`` have equal shapes and elements."""
    return np.array_equal(_as_numpy(a), _as_numpy(b))


def _check_shapes(a, b, names=("a", "b")):
    if a.shape != b.shape:
        raise AssertionError(f"{names[0]}.shape = {a.shape} and {names[1]}.shape = {b.shape} "
                             "are not equal")


def almost_equal(a, b, rtol=None, atol=None, equal_nan=False, use_broadcast=True):
    """Whether ``a`` and ``b`` are equal within tolerances (by default per dtype)."""
    rtol, atol = get_tols(a, b, rtol, atol)
    a, b = _as_numpy(a), _as_numpy(b)
    if not use_broadcast:
        _check_shapes(a, b)
    return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def _violations(a, b, rtol, atol, equal_nan):
    """Per-element |a - b| / (atol + rtol |b|): > 1 where elements differ, inf for NaN misses."""
    a, b = np.broadcast_arrays(a.astype(np.float64), b.astype(np.float64))
    with np.errstate(invalid="ignore", over="ignore"):
        absdiff = np.where(a == b, 0.0, np.abs(a - b))
        ratio = absdiff / (atol + rtol * np.abs(b) + 1e-20)
    close = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    ratio = np.where(close, np.minimum(np.nan_to_num(ratio), 1.0),
                     np.nan_to_num(ratio, nan=np.inf, posinf=np.inf))
    return a, b, ratio, close


def _mismatch_report(a, b, rtol, atol, names, equal_nan, mismatches):
    """The AssertionError text: worst error, mismatch fraction, largest mismatches and locations."""
    a, b, ratio, close = _violations(a, b, rtol, atol, equal_nan)
    bad = np.flatnonzero(~close)
    worst = bad[np.argsort(-ratio.ravel()[bad], kind="stable")][:max(mismatches[0], 1)]
    lines = [f"Error {ratio.ravel()[worst[0]]:f} exceeds tolerance rtol={rtol:e}, atol={atol:e} "
             f"(mismatch {100.0 * bad.size / max(a.size, 1):f}%: {bad.size} of {a.size} elements)."]
    for rank, flat in enumerate(worst, 1):
        index = np.unravel_index(flat, a.shape)
        lines.append(f"{rank:3d}: Error {ratio.ravel()[flat]:f}  "
                     f"Location {tuple(map(int, index))}, "
                     f"{names[0]}={a.ravel()[flat]:.8f}, {names[1]}={b.ravel()[flat]:.8f}")
    with np.printoptions(threshold=20, edgeitems=3, suppress=True):
        lines += [f" {name}: {np.array2string(v, prefix='  ')}" for name, v in zip(names, (a, b))]
    return "\n".join(lines)


def assert_almost_equal(a, b, rtol=None, atol=None, names=("a", "b"), equal_nan=False,
                        use_broadcast=True, mismatches=(10, 10)):
    """Assert ``a`` and ``b`` (mxlab, NumPy or CuPy arrays, numbers) are equal within tolerances.

    Parameters
    ----------
    rtol, atol : None, float, or dict dtype -> float
        Tolerances; ``None`` takes the default for the dtypes (the looser of ``a``'s and ``b``'s).
    names : pair of str
        Names used in the error message.
    equal_nan : bool
        Whether NaNs in the same places compare equal.
    use_broadcast : bool
        When False, the shapes must be equal.
    mismatches : pair of int
        How many of the largest mismatches the message lists (``mismatches[0]``); every mismatch is
        counted (``mismatches[1]``, MXNet's counting limit, is accepted for compatibility).

    Examples
    --------
    >>> import numpy
    >>> assert_almost_equal(numpy.float32([1, 2]), numpy.float32([1, 2.0001]))
    >>> assert_almost_equal(numpy.float32([1, 2]), numpy.float32([1, 3]))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    AssertionError: Error 769.230769 exceeds tolerance rtol=1.000000e-04, atol=1.000000e-03 ...
    """
    rtol, atol = get_tols(a, b, rtol, atol)
    a, b = _as_numpy(a), _as_numpy(b)
    if not use_broadcast:
        _check_shapes(a, b, names)
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise AssertionError(f"{names[0]}.shape = {a.shape} and {names[1]}.shape = {b.shape} "
                             "do not broadcast") from None
    if a.dtype == np.bool_ and b.dtype == np.bool_:
        np.testing.assert_equal(a, b, err_msg=f"{names[0]} != {names[1]}")
        return
    if np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan):
        return
    raise AssertionError(_mismatch_report(a, b, rtol, atol, names, equal_nan, mismatches))


def assert_allclose(a, b, rtol=1e-07, atol=0, equal_nan=True):
    """:func:`assert_almost_equal` with ``numpy.testing.assert_allclose``'s defaults."""
    assert_almost_equal(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


def assert_almost_equal_ignore_nan(a, b, rtol=None, atol=None, names=("a", "b")):
    """:func:`assert_almost_equal` ignoring every position where either array is NaN."""
    a, b = np.copy(_as_numpy(a)), np.copy(_as_numpy(b))
    nan_mask = np.logical_or(np.isnan(a), np.isnan(b))
    a[nan_mask] = 0
    b[nan_mask] = 0
    assert_almost_equal(a, b, rtol, atol, names)


def assert_almost_equal_with_err(a, b, rtol=None, atol=None, etol=None, names=("a", "b"),
                                 equal_nan=False, mismatches=(10, 10)):
    """:func:`assert_almost_equal` that lets a fraction ``etol`` of the elements mismatch."""
    etol = get_etol(etol)
    if etol <= 0:
        assert_almost_equal(a, b, rtol, atol, names, equal_nan, mismatches=mismatches)
        return
    rtol, atol = get_tols(a, b, rtol, atol)
    a, b = _as_numpy(a), _as_numpy(b)
    close = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if np.mean(~close) > etol:
        raise AssertionError(f"{100.0 * np.mean(~close):f}% of elements mismatch, "
                             f"more than etol={etol}\n"
                             + _mismatch_report(a, b, rtol, atol, names, equal_nan, mismatches))


def assert_exception(f, exception_type, *args, **kwargs):
    """Assert that ``f(*args, **kwargs)`` raises ``exception_type``."""
    try:
        f(*args, **kwargs)
    except exception_type:
        return
    raise AssertionError(f"{getattr(f, '__name__', f)} did not raise {exception_type.__name__}")


def retry(n):
    """Decorator re-running a stochastic test up to ``n`` times until it passes."""
    if n < 1:
        raise MXNetValueError(f"retry: n must be at least 1, got {n}")

    def decorate(test):
        @functools.wraps(test)
        def wrapper(*args, **kwargs):
            for attempt in range(n):
                try:
                    return test(*args, **kwargs)
                except AssertionError:
                    if attempt == n - 1:
                        raise
        return wrapper
    return decorate


@contextlib.contextmanager
def environment(*args):
    """Set environment variables inside a ``with`` block: ``environment('NAME', value)`` or a dict.

    ``None`` unsets a variable; previous values come back on exit.
    """
    if len(args) == 2:
        changes = {args[0]: args[1]}
    elif len(args) == 1 and isinstance(args[0], dict):
        changes = args[0]
    else:
        raise MXNetTypeError("environment() takes (name, value) or a dict of name -> value")
    saved = {name: os.environ.get(name) for name in changes}
    try:
        for name, value in changes.items():
            setenv(name, value)
        yield
    finally:
        for name, value in saved.items():
            setenv(name, value)


# -- random data ---------------------------------------------------------------------------------
def random_arrays(*shapes):
    """Standard-normal arrays of :func:`default_dtype`, one per shape (an array for one shape)."""
    arrays = [np.array(np.random.randn(*s), dtype=default_dtype()) for s in shapes]
    return arrays[0] if len(arrays) == 1 else arrays


def random_uniform_arrays(*shapes, low=0.0, high=1.0, dtype=None):
    """Uniform NumPy arrays in ``[low, high)``, one per shape."""
    return [np.random.uniform(low, high, size=s).astype(dtype or default_dtype()) for s in shapes]


def random_sample(population, k):
    """``k`` distinct elements of ``population`` in random order."""
    if not 0 <= k <= len(population):
        raise MXNetValueError(f"random_sample: k={k} must be between 0 and {len(population)}")
    return [population[i] for i in np.random.permutation(len(population))[:k]]


def rand_ndarray(shape, stype="default", density=None, dtype=None, modifier_func=None,
                 shuffle_csr_indices=False, distribution=None, ctx=None):
    """A standard-normal ``mx.nd.NDArray`` of ``shape`` (dense only: mxlab has no sparse storage).

    Examples
    --------
    >>> rand_ndarray((2, 3)).shape
    (2, 3)
    """
    if stype != "default":
        raise MXNetNotImplementedError(f"rand_ndarray: storage type {stype!r} is not supported; "
                                       "mxlab arrays are dense (stype='default')")
    return _new_array(random_arrays(shape), dtype=dtype or default_dtype(),
                      device=ctx or default_context(), cls=NDArray)


def rand_shape_2d(dim0=10, dim1=10, allow_zero_size=False):
    """A random 2-d shape with dims in ``[1, dim]`` (``[0, dim]`` with ``allow_zero_size``)."""
    return rand_shape_nd(2, (dim0, dim1), allow_zero_size)


def rand_shape_3d(dim0=10, dim1=10, dim2=10, allow_zero_size=False):
    """A random 3-d shape with dims in ``[1, dim]`` (``[0, dim]`` with ``allow_zero_size``)."""
    return rand_shape_nd(3, (dim0, dim1, dim2), allow_zero_size)


def rand_shape_nd(num_dim, dim=10, allow_zero_size=False):
    """A random ``num_dim``-d shape; ``dim`` is the largest size (one int, or one per axis)."""
    low = 0 if allow_zero_size else 1
    highs = np.broadcast_to(np.asarray(dim) + 1, (num_dim,))
    return tuple(int(np.random.randint(low, high)) for high in highs)


def list_gpus():
    """Indices of the visible GPUs (empty without CuPy or CUDA)."""
    return list(range(num_gpus()))


# -- gradient checking ---------------------------------------------------------------------------
def _autograd():
    """``mxlab.autograd``, with a clear error where it is missing."""
    try:
        from . import autograd
    except ImportError as exc:
        raise MXNetNotImplementedError("gradient checks of Python functions need mxlab.autograd, "
                                       f"which is not available ({exc})") from exc
    return autograd


def _as_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


class _FunctionTarget:
    """A Python function of mxlab arrays, run imperatively and differentiated by ``mx.autograd``."""

    def __init__(self, fn, location, ctx, dtype):
        self.fn = fn
        self.keyword = isinstance(location, dict)
        if not self.keyword:
            location = dict(zip(_positional_names(fn, len(location)), location))
        self.cls = _array_class(location.values())
        self.ctx = ctx
        self.location = {k: _to_host(v, dtype) for k, v in location.items()}

    def _call(self, arrays):
        return _as_list(self.fn(**arrays) if self.keyword else self.fn(*arrays.values()))

    def _arrays(self, values):
        return {k: _new_array(v, device=self.ctx, cls=self.cls) for k, v in values.items()}

    def forward(self, values, is_train):
        autograd = _autograd()
        arrays = self._arrays(values)
        with autograd.train_mode() if is_train else autograd.predict_mode():
            return [_as_numpy(out) for out in self._call(arrays)]

    def gradient(self, values, head_grads, grad_req, initial, is_train):
        autograd = _autograd()
        arrays = self._arrays(values)
        marked = [k for k in arrays if grad_req[k] != "null"]
        grads = {k: _new_array(initial[k], device=self.ctx, cls=self.cls) for k in marked}
        autograd.mark_variables([arrays[k] for k in marked], [grads[k] for k in marked],
                                grad_reqs=[grad_req[k] for k in marked])
        with autograd.record(train_mode=is_train):
            outputs = self._call(arrays)
        heads = [_new_array(h, device=self.ctx, cls=self.cls) for h in head_grads]
        autograd.backward(outputs, head_grads=heads)
        return {k: (grads[k].asnumpy() if k in grads else initial[k]) for k in values}


class _SymbolTarget:
    """A Symbol: forward by ``Symbol.eval``, gradients by an executor (``Symbol.bind``)."""

    def __init__(self, sym, location, aux_states, ctx, dtype):
        self.sym, self.ctx, self.dtype = sym, ctx, dtype
        names = sym.list_arguments()
        if isinstance(location, dict):
            if set(location) != set(names):
                raise MXNetValueError("Symbol arguments and keys of the given location do not "
                                      f"match: symbol args {sorted(names)}, location keys "
                                      f"{sorted(location)}")
        else:
            location = dict(zip(names, location))
        self.location = {k: _to_host(location[k], dtype) for k in names}
        self.aux = _parse_aux_states(sym, aux_states, dtype)

    def bind(self, values, args_grad=None, grad_req="null"):
        args = {k: _new_array(v, device=self.ctx, cls=NDArray) for k, v in values.items()}
        aux = {k: _new_array(v, device=self.ctx, cls=NDArray) for k, v in self.aux.items()} or None
        return self.sym.bind(self.ctx, args=args, args_grad=args_grad, grad_req=grad_req,
                             aux_states=aux)

    def evaluate(self, values, is_train):
        """The output arrays; fresh aux arrays each call (a training forward updates them)."""
        autograd = _autograd()
        arrays = {k: _new_array(v, device=self.ctx, cls=NDArray)
                  for k, v in {**values, **self.aux}.items()}
        with autograd.train_mode() if is_train else autograd.predict_mode():
            return _as_list(self.sym.eval(ctx=self.ctx, **arrays))

    def forward(self, values, is_train):
        return [out.asnumpy() for out in self.evaluate(values, is_train)]

    def gradient(self, values, head_grads, grad_req, initial, is_train):
        grads = {k: _new_array(initial[k], device=self.ctx, cls=NDArray) for k in values}
        exe = self.bind(values, args_grad=grads, grad_req=grad_req)
        exe.forward(is_train=is_train)
        exe.backward([_new_array(h, device=self.ctx, cls=NDArray) for h in head_grads])
        return {k: g.asnumpy() for k, g in grads.items()}


class _ExecutorTarget:
    """An already bound executor (MXNet's ``numeric_grad(executor, ...)``); forward only."""

    def __init__(self, executor, location, dtype):
        self.exe = executor
        self.location = {k: _to_host(v, dtype) for k, v in location.items()}

    def forward(self, values, is_train):
        for k, v in values.items():
            target = self.exe.arg_dict[k]
            _new_array(v, device=target.context, cls=NDArray).copyto(target)
        self.exe.forward(is_train=is_train)
        return [out.asnumpy() for out in self.exe.outputs]


def _positional_names(fn, count):
    """Argument names of ``fn`` for messages (``arg0``, ``arg1``... where they cannot be read)."""
    try:
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    names = [p.name for p in params[:count]]
    return names + [f"arg{i}" for i in range(len(names), count)]


def _array_class(values):
    """The array class a function receives: that of the given arrays, else by ``is_np_array()``."""
    classes = {type(v) for v in values if isinstance(v, NDArray)}
    if len(classes) == 1:
        return classes.pop()
    return ndarray if is_np_array() else NDArray


def _to_host(value, dtype):
    host = _as_numpy(value)
    if dtype == "asnumpy":
        return np.array(host)
    return np.array(host, dtype=dtype)


def _parse_aux_states(sym, aux_states, dtype):
    if aux_states is None:
        return {}
    names = sym.list_auxiliary_states()
    if isinstance(aux_states, dict):
        if set(aux_states) != set(names):
            raise MXNetValueError(f"Symbol aux_states names and given aux_states do not match: "
                                  f"symbol aux names {sorted(names)}, given {sorted(aux_states)}")
        return {k: _to_host(aux_states[k], dtype) for k in names}
    return {k: _to_host(v, dtype) for k, v in zip(names, aux_states)}


def _is_symbol(obj):
    return hasattr(obj, "list_arguments") and hasattr(obj, "bind")


def _make_target(sym_or_fn, location, aux_states, ctx, dtype):
    if _is_symbol(sym_or_fn):
        return _SymbolTarget(sym_or_fn, location, aux_states, ctx, dtype)
    if hasattr(sym_or_fn, "arg_dict") and hasattr(sym_or_fn, "forward"):
        return _ExecutorTarget(sym_or_fn, location, dtype)
    if callable(sym_or_fn):
        if aux_states is not None:
            raise MXNetValueError("aux_states only apply to a Symbol; a function keeps its own "
                                  "state")
        return _FunctionTarget(sym_or_fn, location, ctx, dtype)
    raise MXNetTypeError("expected a Symbol, an executor or a function of arrays, got "
                         f"{type(sym_or_fn).__name__}")


def _central_differences(objective, location, eps, names):
    """d objective / d location[name] per element: (f(x + eps/2) - f(x - eps/2)) / eps."""
    grads = {}
    for name in names:
        value = location[name]
        if value.dtype.kind != "f":
            continue
        grad = np.zeros(value.shape, dtype=np.float64)
        flat = value.reshape(-1)  # NOTE: a view: the perturbation is seen through `location`
        for i in range(flat.size):
            original = flat[i]
            flat[i] = original + eps / 2
            f_plus = objective(location)
            flat[i] = original - eps / 2
            f_minus = objective(location)
            flat[i] = original
            grad.reshape(-1)[i] = (f_plus - f_minus) / eps
        grads[name] = grad.astype(value.dtype)
    return grads


def numeric_grad(executor, location, aux_states=None, eps=1e-4, use_forward_train=True,
                 dtype=default_dtype()):
    """Numerical gradient of ``sum(outputs[0])`` by central differences.

    Parameters
    ----------
    executor : Executor, Symbol, or callable
        What computes the outputs: a bound executor (MXNet's form), a Symbol, or a Python
        function of mxlab arrays (``location`` a list gives positional arguments, a dict keyword
        arguments).
    location : list or dict of numpy arrays
        The point at which to differentiate.
    eps : float
        Total step: inputs move by ``+-eps/2``.

    Returns
    -------
    dict
        Argument name -> NumPy gradient (integer-typed arguments are left out).

    Examples
    --------
    >>> import numpy
    >>> import mxlab as mx
    >>> g = numeric_grad(lambda x: x * x, [numpy.array([1.0, 2.0])], dtype=numpy.float64)
    >>> numpy.round(g["x"], 6)
    array([2., 4.])
    """
    target = _make_target(executor, location, aux_states, default_context(), dtype)

    def objective(values):
        return float(np.sum(target.forward(values, use_forward_train)[0], dtype=np.float64))
    return _central_differences(objective, target.location, eps, list(target.location))


def _grad_requests(grad_nodes, names):
    if grad_nodes is None:
        return {k: "write" for k in names}
    if isinstance(grad_nodes, dict):
        requests = {k: "null" for k in names}
        requests.update(grad_nodes)
        return requests
    unknown = set(grad_nodes) - set(names)
    if unknown:
        raise MXNetValueError(f"grad_nodes {sorted(unknown)} are not arguments; arguments: {names}")
    return {k: "write" if k in grad_nodes else "null" for k in names}


def check_numeric_gradient(sym, location, aux_states=None, numeric_eps=None, rtol=None, atol=None,
                           grad_nodes=None, use_forward_train=True, ctx=None, grad_stype_dict=None,
                           dtype=default_dtype()):
    """Check the backward pass of a Symbol or Python function against central differences.

    Both sides differentiate ``sum_i sum(outputs[i] * P_i)`` for random projections ``P_i`` in
    ``[0.1, 1.1)``, so every output element and every output take part.

    Parameters
    ----------
    sym : Symbol or callable
        A Symbol (bound with ``sym.bind``) or a function of mxlab arrays returning an array or a
        list of arrays (differentiated with ``mx.autograd``).
    location : list or dict of arrays
        The point: values for ``sym.list_arguments()`` (or the function's arguments, positional
        for a list, keywords for a dict).
    numeric_eps : float, optional
        Finite-difference step; default per dtype (:func:`default_numeric_eps`).
    rtol, atol : float, optional
        Tolerances; default per dtype.
    grad_nodes : list of names or dict name -> grad_req, optional
        Which arguments to check (default all); ``grad_req`` 'write', 'add' or 'null'.
    use_forward_train : bool
        Whether the finite-difference forwards run in training mode.
    dtype : numpy float dtype
        The dtype of the arrays both sides compute with.

    Examples
    --------
    >>> import numpy
    >>> import mxlab as mx
    >>> check_numeric_gradient(lambda a, b: a * b, [numpy.ones((2, 2)), numpy.ones((2, 2)) + 1])
    """
    if grad_stype_dict:
        raise MXNetNotImplementedError("check_numeric_gradient: grad_stype_dict (sparse "
                                       "gradients) is not supported; mxlab arrays are dense")
    dtype = np.dtype(dtype).type
    if dtype not in _FLOATS:
        raise MXNetTypeError(f"check_numeric_gradient: dtype must be float16/32/64, got {dtype}")
    target = _make_target(sym, location, aux_states, ctx or default_context(), dtype)
    values = target.location
    grad_req = _grad_requests(grad_nodes, list(values))
    outputs = target.forward(values, use_forward_train)
    projections = [(np.random.rand(*out.shape) + 0.1).astype(dtype) for out in outputs]
    initial = {k: np.random.normal(0, 0.01, size=v.shape).astype(dtype) for k, v in values.items()}
    analytic = target.gradient(values, projections, grad_req, initial, is_train=True)

    def objective(point):
        outs = target.forward(point, use_forward_train)
        return float(sum(np.sum(o.astype(np.float64) * p) for o, p in zip(outs, projections)))

    eps = get_tolerance(outputs[0], numeric_eps, _NUMERIC_EPS)
    checked = [k for k, req in grad_req.items() if req != "null"]
    point = {k: v.copy() for k, v in values.items()}
    numeric = _central_differences(objective, point, eps, checked)
    for name, req in grad_req.items():
        names = (f"NUMERICAL_{name}", f"BACKWARD_{name}")
        if req == "null":
            assert_almost_equal(initial[name], analytic[name], rtol, atol, names)
        elif name in numeric:
            expected = numeric[name] + (initial[name] if req == "add" else 0)
            assert_almost_equal(expected, analytic[name], rtol, atol, names)


# -- symbolic forward / backward -----------------------------------------------------------------
def _host_list(values, names):
    if isinstance(values, dict):
        return [values[k] for k in names]
    return list(values)


def check_symbolic_forward(sym, location, expected, rtol=None, atol=None, aux_states=None, ctx=None,
                           equal_nan=False, dtype=default_dtype()):
    """Run ``sym`` forward (inference mode) at ``location``; compare each output with ``expected``.

    ``expected`` is a list in ``sym.list_outputs()`` order or a dict keyed by output name. Returns
    the output arrays.

    Examples
    --------
    >>> import mxlab as mx
    >>> c = mx.sym.var('a') * mx.sym.var('b')
    >>> _ = check_symbolic_forward(c, [[1.0, 2.0], [3.0, 4.0]], [[3.0, 8.0]])
    """
    target = _SymbolTarget(sym, location, aux_states, ctx or default_context(), dtype)
    outputs = target.evaluate(target.location, is_train=False)
    names = sym.list_outputs()
    for name, want, got in zip(names, _host_list(expected, names), outputs):
        labels = (f"EXPECTED_{name}", f"FORWARD_{name}")
        assert_almost_equal(want, got, rtol, atol, labels, equal_nan=equal_nan)
    return outputs


def check_symbolic_backward(sym, location, out_grads, expected, rtol=None, atol=None,
                            aux_states=None, grad_req="write", ctx=None, grad_stypes=None,
                            equal_nan=False, dtype=default_dtype()):
    """Run ``sym`` forward and backward with head gradients ``out_grads``; compare gradients.

    ``expected`` is a list in ``sym.list_arguments()`` order or a dict keyed by argument name;
    ``grad_req`` a string, list or dict of 'write' / 'add' / 'null'. Gradient buffers start with
    random values, so 'add' and 'null' are checked too. Returns the gradient arrays by name.
    """
    if grad_stypes:
        raise MXNetNotImplementedError("check_symbolic_backward: grad_stypes (sparse gradients) "
                                       "is not supported")
    target = _SymbolTarget(sym, location, aux_states, ctx or default_context(), dtype)
    names = list(target.location)
    expected = dict(zip(names, expected)) if isinstance(expected, (list, tuple)) else expected
    if isinstance(grad_req, str):
        grad_req = dict.fromkeys(names, grad_req)
    elif isinstance(grad_req, (list, tuple)):
        grad_req = dict(zip(names, grad_req))
    initial = {k: np.random.normal(size=v.shape).astype(v.dtype)
               for k, v in target.location.items()}
    grads = {k: _new_array(initial[k], device=target.ctx, cls=NDArray) for k in names}
    exe = target.bind(target.location, args_grad=grads, grad_req=grad_req)
    exe.forward(is_train=True)
    heads = None
    if out_grads is not None:
        heads = [_new_array(_to_host(g, dtype), device=target.ctx, cls=NDArray)
                 for g in _host_list(out_grads, sym.list_outputs())]
    exe.backward(heads)
    for name, want in expected.items():
        labels = (f"EXPECTED_{name}", f"BACKWARD_{name}")
        got = grads[name].asnumpy()
        req = grad_req[name]
        if req == "null":
            assert_almost_equal(initial[name], got, rtol, atol, labels, equal_nan=equal_nan)
        else:
            base = initial[name] if req == "add" else 0
            assert_almost_equal(_as_numpy(want) + base, got, rtol, atol, labels,
                                equal_nan=equal_nan)
    return grads


def simple_forward(sym, ctx=None, is_train=False, **inputs):
    """Run ``sym`` forward on NumPy ``inputs`` (by argument name); NumPy output(s) back."""
    target = _SymbolTarget(sym, inputs, None, ctx or default_context(), "asnumpy")
    outputs = target.forward(target.location, is_train)
    return outputs[0] if len(outputs) == 1 else outputs


from .testing import *  # noqa: E402,F401,F403  (more of MXNet's names, in their own modules)
from .testing import __all__ as _more  # noqa: E402

# NOTE: MXNet's test_utils has no __all__, so `from mxnet.test_utils import *` also hands out what
# it imports, and MXNet's own tests use those names (mx, np, NDArray, ...) without importing them.
import numpy.random as rnd  # noqa: E402
import numpy.testing as npt  # noqa: E402
from .symbol import Symbol  # noqa: E402

mx = sys.modules[__name__.rpartition(".")[0]]   # NOTE: the package, still importing us
_IMPORTED_BY_MXNET = ["mx", "np", "npt", "rnd", "NDArray", "Symbol", "current_device", "os",
                      "numbers", "functools"]
__all__ += _more + _IMPORTED_BY_MXNET
