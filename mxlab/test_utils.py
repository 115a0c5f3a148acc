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
import numbers
import os
import sys

import numpy as np

from .base import MXNetTypeError, MXNetValueError
from .device import Device, current_device, num_gpus
from .ndarray.ndarray import NDArray
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
           "use_np", "getenv", "setenv"]

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
    """A standard-normal ``mx.nd.NDArray`` of ``shape``; a random sparse array for ``stype``
    'csr' / 'row_sparse' (see :func:`rand_sparse_ndarray`).

    Examples
    --------
    >>> rand_ndarray((2, 3)).shape
    (2, 3)
    """
    if stype != "default":
        from .testing.sparse_data import rand_sparse_ndarray
        arr, _ = rand_sparse_ndarray(shape, stype, density=density, dtype=dtype,
                                     modifier_func=modifier_func,
                                     shuffle_csr_indices=shuffle_csr_indices,
                                     distribution=distribution, ctx=ctx)
        return arr
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


# NOTE: gradient checks (check_numeric_gradient, check_symbolic_*) live in testing/gradients.py.
from .testing import *  # noqa: E402,F401,F403  (more of MXNet's names, in their own modules)
from .testing import __all__ as _more  # noqa: E402

# NOTE: MXNet's test_utils has no __all__, so `from mxnet.test_utils import *` also hands out what
# it imports, and MXNet's own tests use those names (mx, np, NDArray, ...) without importing them.
import numpy.random as rnd  # noqa: E402,F401
import time, gzip, struct, traceback, platform, errno, logging, bz2, zipfile, json  # noqa
from collections import OrderedDict  # noqa: E402,F401
from contextlib import contextmanager  # noqa: E402,F401
from .util import use_np_default_dtype  # noqa: E402,F401
import numpy.testing as npt  # noqa: E402,F401
from .symbol import Symbol  # noqa: E402,F401
from .device import Context, current_context  # noqa: E402,F401  (MXNet 1.x's test_utils has them)
from .runtime import Features  # noqa: E402,F401
from .util import get_cuda_compute_capability  # noqa: E402,F401
from .ndarray import array  # noqa: E402,F401

mx = sys.modules[__name__.rpartition(".")[0]]   # NOTE: the package, still importing us
_IMPORTED_BY_MXNET = ["mx", "np", "npt", "rnd", "NDArray", "Symbol", "current_device", "os",
                      "numbers", "functools", "sys", "time", "gzip", "struct", "traceback",
                      "platform", "errno", "logging", "bz2", "zipfile", "json", "OrderedDict",
                      "contextmanager", "use_np", "use_np_default_dtype", "getenv", "setenv",
                      "Context", "current_context", "Features", "get_cuda_compute_capability",
                      "array"]
__all__ += _more + _IMPORTED_BY_MXNET
