"""The rest of ``mx.np``: every public name of MXNet's ``mx.np`` exists (or is listed as not
built, with the reason), values match NumPy, compositions differentiate."""
import numpy
import pytest
from helpers import check_np_function as check

import mxlab as mx

# NOTE: the public names of MXNet 2.0's mx.np (multiarray, utils, function_base, stride_tricks,
#   set_functions, type_functions, io, arrayprint and fallback __all__ lists) and mx.np.linalg.
MXNET_NP_NAMES = ["NAN", "NINF", "NZERO", "NaN", "PINF", "PZERO", "abs", "absolute",
                  "acos", "acosh", "add", "all", "allclose", "alltrue", "amax", "amin",
                  "any", "append", "apply_along_axis", "apply_over_axes", "arange", "arccos",
                  "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh", "argmax",
                  "argmin", "argpartition", "argsort", "argwhere", "around", "array",
                  "array_equal", "array_equiv", "array_split", "asarray", "asin", "asinh",
                  "atan", "atan2", "atanh", "atleast_1d", "atleast_2d", "atleast_3d",
                  "average", "bincount", "bitwise_and", "bitwise_invert", "bitwise_left_shift",
                  "bitwise_not", "bitwise_or", "bitwise_right_shift", "bitwise_xor",
                  "blackman", "bool", "bool_", "boolean_dtypes", "broadcast_arrays",
                  "broadcast_to", "can_cast", "cbrt", "ceil", "choose", "clip",
                  "column_stack", "compress", "concat", "concatenate", "copy", "copysign",
                  "corrcoef", "correlate", "cos", "cosh", "count_nonzero", "cov", "cross",
                  "cumprod", "cumsum", "deg2rad", "degrees", "delete", "diag",
                  "diag_indices_from", "diagflat", "diagonal", "diff", "digitize", "divide",
                  "divmod", "dot", "dsplit", "dstack", "dtype", "e", "ediff1d", "einsum",
                  "empty", "empty_like", "equal", "exp", "expand_dims", "expm1", "extract",
                  "eye", "fabs", "fill_diagonal", "finfo", "fix", "flatnonzero", "flip",
                  "fliplr", "flipud", "float16", "float32", "float64", "float_power",
                  "floating_dtypes", "floor", "floor_divide", "fmax", "fmin", "fmod",
                  "frexp", "from_dlpack", "full", "full_like", "gcd", "genfromtxt",
                  "greater", "greater_equal", "hamming", "hanning", "heaviside", "histogram",
                  "histogram2d", "histogram_bin_edges", "histogramdd", "hsplit", "hstack",
                  "hypot", "i0", "identity", "iinfo", "in1d", "indices", "inf", "inner",
                  "insert", "int16", "int32", "int64", "int8", "integer_dtypes", "interp",
                  "intersect1d", "invert", "isclose", "isfinite", "isin", "isinf", "isnan",
                  "isneginf", "isposinf", "ix_", "kron", "lcm", "ldexp", "less",
                  "less_equal", "lexsort", "linspace", "log", "log10", "log1p", "log2",
                  "logaddexp", "logical_and", "logical_not", "logical_or", "logical_xor",
                  "logspace", "matmul", "max", "maximum", "may_share_memory", "mean",
                  "median", "meshgrid", "min", "min_scalar_type", "minimum", "mirr", "mod",
                  "modf", "moveaxis", "msort", "multiply", "nan", "nan_to_num", "nanargmax",
                  "nanargmin", "nancumprod", "nancumsum", "nanmax", "nanmedian", "nanmin",
                  "nanpercentile", "nanprod", "nanquantile", "nanstd", "nansum", "nanvar",
                  "ndarray", "ndim", "negative", "newaxis", "nonzero", "not_equal", "npv",
                  "numeric_dtypes", "ones", "ones_like", "outer", "packbits", "pad",
                  "partition", "percentile", "permute_dims", "pi", "piecewise", "pmt",
                  "poly", "polyadd", "polydiv", "polyfit", "polyint", "polymul", "polysub",
                  "polyval", "positive", "pow", "power", "ppmt", "prod", "promote_types",
                  "ptp", "pv", "quantile", "rad2deg", "radians", "rate", "ravel", "real",
                  "reciprocal", "remainder", "repeat", "reshape", "resize", "result_type",
                  "rint", "roll", "rollaxis", "roots", "rot90", "round", "round_",
                  "row_stack", "searchsorted", "select", "set_printoptions", "setdiff1d",
                  "setxor1d", "shape", "shares_memory", "sign", "signbit", "sin", "sinh",
                  "size", "sort", "spacing", "split", "sqrt", "square", "squeeze", "stack",
                  "std", "subtract", "sum", "swapaxes", "take", "take_along_axis", "tan",
                  "tanh", "tensordot", "tile", "trace", "transpose", "trapz", "tri", "tril",
                  "tril_indices", "tril_indices_from", "trim_zeros", "triu", "triu_indices",
                  "triu_indices_from", "true_divide", "trunc", "uint16", "uint32", "uint64",
                  "uint8", "union1d", "unique", "unique_all", "unique_inverse",
                  "unique_values", "unpackbits", "unravel_index", "unwrap", "vander", "var",
                  "vdot", "vsplit", "vstack", "where", "zeros", "zeros_like"]
MXNET_LINALG_NAMES = ["norm", "svd", "cholesky", "qr", "inv", "det", "slogdet", "solve",
                      "tensorinv", "tensorsolve", "pinv", "eigvals", "eig", "eigvalsh",
                      "eigh", "lstsq", "matrix_rank", "cross", "diagonal", "outer",
                      "tensordot", "trace", "matrix_transpose", "vecdot", "svdvals",
                      "vector_norm", "matrix_norm", "cond", "matrix_power", "multi_dot"]
NOT_BUILT = {name: "financial functions left NumPy 1.20 for numpy_financial; MXNet only "
                   "re-exported NumPy's" for name in ("mirr", "npv", "pmt", "ppmt", "pv", "rate")}


def test_every_mxnet_np_name_exists_or_is_listed_as_not_built():
    missing = [n for n in MXNET_NP_NAMES if not hasattr(mx.np, n) and n not in NOT_BUILT]
    assert missing == []
    assert [n for n in MXNET_LINALG_NAMES if not hasattr(mx.np.linalg, n)] == []


X = numpy.array([[1.5, -2.0, 0.5], [3.0, 0.25, -1.0]])
V = numpy.array([3.0, 1.0, 2.0])
INT = numpy.array([12, 7, 5, 3])


@pytest.mark.parametrize("call", [
    "tril(a, -1)", "triu(a, 1)", "diagonal(a)", "trace(a, 1)", "diagflat(v, 1)", "outer(a, v)",
    "inner(a, a)", "vdot(a, a)", "kron(a, v)", "tensordot(a, a, axes=([1], [1]))",
    "einsum('ij,kj->ik', a, a)", "einsum('ii->i', a[:, :2])", "cross(v, v[::-1])",
    "diff(a, axis=1)", "diff(v, n=2, prepend=0)", "ediff1d(v, to_end=9)", "roll(a, 1, axis=1)",
    "roll(a, -2)", "rot90(a)", "rot90(a, 3)", "flipud(a)", "fliplr(a)", "rollaxis(a, 1)",
    "atleast_3d(v)", "column_stack([v, v])", "dstack([a, a])", "append(a, v)",
    "average(a, axis=1, weights=v)", "polyval(v, a)", "fmax(a, v)", "fmin(a, v)", "fmod(a, v)",
    "copysign(v, a[0])", "ldexp(a, 2)", "logaddexp(a, v)", "pad(a, 1)",
    "pad(a, ((0, 1), (2, 0)), mode='edge')", "meshgrid(v, v[:2])[0]",
    "meshgrid(v, v[:2], indexing='ij')[1]", "broadcast_arrays(a, v)[1]", "hsplit(a, 3)[1]",
    "absolute(a)", "around(a)", "amax(a, axis=0)", "rad2deg(a)", "permute_dims(a, (1, 0))",
    "concat([a, a], axis=0)", "logspace(0, 2, 3)", "identity(2)", "tri(3, 2, 1)",
    "median(a)", "quantile(a, 0.3, axis=1)", "unique(a)", "isnan(a)", "nan_to_num(a)",
    "interp(v, [0, 4], [0, 8])", "hanning(4)", "triu_indices(3, 1)[1]", "positive(a)",
    "sort(a, axis=None)", "count_nonzero(a > 0)", "searchsorted(v[[1, 2, 0]], 1.5)",
])
def test_values_match_numpy(call):
    scope = {"a": X, "v": V}
    want = eval("np." + call, {"np": numpy}, scope)
    got = eval("np." + call, {"np": mx.np},
               {k: mx.np.array(v, dtype=v.dtype) for k, v in scope.items()})
    got = got.asnumpy() if isinstance(got, mx.np.ndarray) else numpy.asarray(got)
    numpy.testing.assert_allclose(got, numpy.asarray(want, dtype=got.dtype), rtol=1e-6)


@pytest.mark.parametrize("name", ["bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
                                  "right_shift", "gcd", "lcm"])
def test_integer_ops_match_numpy(name):
    x = mx.np.array(INT, dtype="int32")
    got = getattr(mx.np, name)(x, mx.np.array(INT[::-1], dtype="int32"))
    assert got.dtype == numpy.int32
    assert got.asnumpy().tolist() == getattr(numpy, name)(INT, INT[::-1]).tolist()
    assert getattr(mx.np, name)(x, 2).asnumpy().tolist() == getattr(numpy, name)(INT, 2).tolist()


def test_bitwise_on_bool_and_floats_rejected():
    flags = mx.np.array([True, False])
    assert mx.np.bitwise_xor(flags, flags).asnumpy().tolist() == [False, False]
    assert (~flags).asnumpy().tolist() == [False, True]
    with pytest.raises(TypeError, match="bitwise_and"):
        mx.np.bitwise_and(mx.np.ones(2), mx.np.ones(2)).wait_to_read()


def test_dtype_groups_and_type_functions():
    assert mx.np.float32 in mx.np.floating_dtypes and mx.np.int64 in mx.np.integer_dtypes
    assert mx.np.bool_ in mx.np.boolean_dtypes and len(mx.np.numeric_dtypes) == 11
    assert mx.np.finfo(mx.np.float32).eps == numpy.finfo(numpy.float32).eps
    assert mx.np.result_type(mx.np.ones(2, dtype="int32"), 1.0) == numpy.float64
    assert mx.np.allclose(mx.np.ones(2), mx.np.ones(2)) is True


def test_fallbacks_are_eager_and_not_recorded():
    x = mx.np.array([3.0, 1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.np.median(x)
    assert isinstance(y, mx.np.ndarray) and float(y) == 2.0 and y._ag is None


def test_fill_diagonal_writes_in_place():
    a = mx.np.zeros((3, 3))
    mx.np.fill_diagonal(a, 5.0)
    assert a.asnumpy().trace() == 15.0


@pytest.mark.parametrize("name, fn, inputs", [
    ("tril_triu", lambda xp, a: xp.tril(a, -1) * 2 + xp.triu(a), [X]),
    ("trace_diagonal", lambda xp, a: xp.trace(a) + xp.diagonal(a, 1), [X]),
    ("einsum_matmul", lambda xp, a, b: xp.einsum("ij,kj->ik", a, b), [X, X[::-1]]),
    ("einsum_diag", lambda xp, a: xp.einsum("ii->i", a), [X[:, :2]]),
    ("einsum_implicit_sum", lambda xp, a, v: xp.einsum("ij,j", a, v), [X, V]),
    ("tensordot", lambda xp, a, b: xp.tensordot(a, b, axes=([1], [1])), [X, X[::-1]]),
    ("outer_inner_kron", lambda xp, a, v: (xp.outer(a, v), xp.inner(a, a), xp.kron(a, v)), [X, V]),
    ("cross", lambda xp, a, b: xp.cross(a, b), [X, X[::-1]]),
    ("diff_roll_rot90", lambda xp, a: (xp.diff(a, axis=0), xp.roll(a, 1, axis=1), xp.rot90(a)),
     [X]),
    ("pad_constant", lambda xp, a: xp.pad(a, ((1, 0), (0, 2))), [X]),
    ("fmax_fmod_logaddexp",
     lambda xp, a, v: (xp.fmax(a, v + 0.1), xp.fmod(a, v + 0.3), xp.logaddexp(a, v)),
     [X, V]),
    ("average_polyval", lambda xp, a, v: (xp.average(a, axis=1, weights=v), xp.polyval(v, a)),
     [X, V]),
    ("meshgrid", lambda xp, a, b: xp.meshgrid(a, b)[0] * xp.meshgrid(a, b)[1], [V, V[:2]]),
    ("nan_to_num_copysign", lambda xp, a, v: xp.nan_to_num(a) * xp.copysign(v, a[0]), [X, V]),
])
def test_gradients_match_central_differences(name, fn, inputs):
    check(fn, *[numpy.array(x) for x in inputs])


def test_extras_trace_in_a_hybridized_block():
    class Net(mx.gluon.HybridBlock):
        def forward(self, a):
            return mx.np.einsum("ij,kj->ik", mx.np.tril(a), a) + mx.np.trace(a)
    net = Net()
    net.hybridize()
    a = mx.np.array(X[:, :2])
    want = numpy.einsum("ij,kj->ik", numpy.tril(X[:, :2]), X[:, :2]) + numpy.trace(X[:, :2])
    for _ in range(2):
        numpy.testing.assert_allclose(net(a).asnumpy(), want, rtol=1e-6)


@pytest.mark.parametrize("name", ["floor", "ceil", "trunc", "fix", "rint", "round", "sign"])
def test_piecewise_constant_ops_give_zero_gradients_under_autograd(name):
    x = mx.np.array([1.5, -2.25])
    x.attach_grad()
    with mx.autograd.record():
        y = (getattr(mx.np, name)(x) * x).sum()
    y.backward()
    numpy.testing.assert_allclose(x.grad.asnumpy(), getattr(numpy, name)(x.asnumpy()))


def test_ravel_multi_index_and_unravel_index_match_numpy_within_bounds():
    coords = numpy.array([[3, 6, 6, 0], [4, 5, 1, 0]])
    flat = mx.nd.ravel_multi_index(mx.nd.array(coords), shape=(7, 6)).asnumpy()
    numpy.testing.assert_array_equal(flat, numpy.ravel_multi_index(coords, (7, 6)))
    back = mx.nd.unravel_index(mx.nd.array(flat), shape=(7, 6)).asnumpy()
    numpy.testing.assert_array_equal(back, coords)
    # NOTE: like MXNet, the first axis is not wrapped (NumPy would refuse the index)
    numpy.testing.assert_array_equal(
        mx.nd.unravel_index(mx.nd.array([100]), shape=(7, 6)).asnumpy(), [[16], [4]])
