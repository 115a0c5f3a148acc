"""Sparse storage types (csr, row_sparse): construction, conversion, components and the sparse
kernels, with values checked against scipy.sparse and NumPy."""
import pickle

import numpy
import pytest

import mxlab as mx
from mxlab.base import MXNetError, MXNetValueError
from mxlab.ndarray.sparse import CSRNDArray, RowSparseNDArray

spsp = pytest.importorskip("scipy.sparse")
RNG = numpy.random.default_rng(7)


def _dense(shape, density=0.4, dtype="float32"):
    values = RNG.uniform(-1, 1, shape).astype(dtype)
    return values * (RNG.uniform(size=shape) < density)


def test_csr_components_match_scipy():
    dense = _dense((5, 7))
    csr = mx.nd.array(dense).tostype("csr")
    want = spsp.csr_matrix(dense)
    assert isinstance(csr, CSRNDArray) and csr.stype == "csr" and csr.shape == (5, 7)
    numpy.testing.assert_array_equal(csr.data.asnumpy(), want.data)
    numpy.testing.assert_array_equal(csr.indices.asnumpy(), want.indices)
    numpy.testing.assert_array_equal(csr.indptr.asnumpy(), want.indptr)
    assert csr.indices.dtype == numpy.int64 and csr._num_aux == 2
    assert (csr.asscipy() != want).nnz == 0
    numpy.testing.assert_array_equal(csr.asnumpy(), dense)


def test_csr_from_scipy_is_canonical_and_from_coo():
    messy = spsp.csr_matrix((numpy.array([1., 2, 3, 4]), numpy.array([2, 0, 2, 1]),
                             numpy.array([0, 3, 4])), shape=(2, 3))
    arr = mx.nd.sparse.array(messy)
    want = messy.copy()
    want.sum_duplicates()
    want.sort_indices()
    assert arr.indices.asnumpy().tolist() == want.indices.tolist()
    assert arr.data.asnumpy().tolist() == want.data.tolist() and arr.dtype == numpy.float64
    coo = mx.nd.sparse.csr_matrix(([5., 6.], ([1, 0], [0, 2])), shape=(2, 3))
    assert coo.asnumpy().tolist() == [[0, 0, 6], [5, 0, 0]]


def test_row_sparse_components_and_shapes():
    rsp = mx.nd.sparse.row_sparse_array(([[1., 2.], [3., 4.]], [1, 3]), shape=(5, 2))
    assert isinstance(rsp, RowSparseNDArray) and rsp.indices.asnumpy().tolist() == [1, 3]
    assert rsp.asnumpy().tolist() == [[0, 0], [1, 2], [0, 0], [3, 4], [0, 0]]
    inferred = mx.nd.sparse.row_sparse_array(([[1., 2.]], [2]))
    assert inferred.shape == (3, 2)
    with pytest.raises(MXNetValueError, match="Shape mismatch"):
        mx.nd.sparse.row_sparse_array((4, 2), shape=(3, 2))
    with pytest.raises(ValueError, match="unknown storage type"):
        mx.nd.sparse.zeros("dense", (2, 2))


@pytest.mark.parametrize("src, dst", [("default", "csr"), ("default", "row_sparse"),
                                      ("csr", "default"), ("row_sparse", "default"),
                                      ("csr", "row_sparse"), ("row_sparse", "csr"),
                                      ("csr", "csr")])
def test_cast_storage_every_direction(src, dst):
    dense = _dense((4, 6))
    arr = mx.nd.array(dense).tostype(src)
    out = mx.nd.cast_storage(arr, stype=dst)
    assert out.stype == dst
    numpy.testing.assert_array_equal(out.asnumpy(), dense)


def test_zeros_empty_copy_copyto_astype():
    z = mx.nd.zeros((3, 4), stype="csr", dtype="int32")
    assert z.stype == "csr" and z.dtype == numpy.int32 and z.asnumpy().sum() == 0
    assert mx.nd.sparse.empty("row_sparse", (3, 4)).asnumpy().sum() == 0
    dense = _dense((3, 4))
    rsp = mx.nd.array(dense).tostype("row_sparse")
    target = mx.nd.zeros((3, 4), stype="csr")
    rsp.copyto(target)
    assert target.stype == "csr"
    numpy.testing.assert_array_equal(target.asnumpy(), dense)
    assert rsp.astype("float32", copy=False) is rsp
    assert rsp.astype("float64").dtype == numpy.float64 and rsp.copy().stype == "row_sparse"
    assert pickle.loads(pickle.dumps(rsp)).asnumpy().tolist() == dense.tolist()


def test_csr_row_slicing_and_setitem():
    dense = _dense((6, 5))
    csr = mx.nd.array(dense).tostype("csr")
    assert csr[1:4].stype == "csr"
    numpy.testing.assert_array_equal(csr[1:4].asnumpy(), dense[1:4])
    numpy.testing.assert_array_equal(csr[-1].asnumpy(), dense[-1:])
    part = mx.nd.slice(csr, begin=(1, 1), end=(3, 4))
    assert part.stype == "csr"
    numpy.testing.assert_array_equal(part.asnumpy(), dense[1:3, 1:4])
    csr[:] = numpy.ones((6, 5))
    assert csr.asnumpy().sum() == 30
    with pytest.raises(MXNetValueError, match="only supports"):
        csr[1] = mx.nd.ones((1, 5))


def test_check_format_names_the_broken_invariant():
    good = mx.nd.array(_dense((4, 4))).tostype("csr")
    good.check_format()
    bad = mx.nd.sparse.csr_matrix(([7., 8., 9.], [2, 1, 1], [0, 2, 2, 3]), shape=(3, 4))
    with pytest.raises(MXNetError, match="not strictly ascending"):
        bad.check_format()
    rsp = mx.nd.sparse.row_sparse_array(([[1., 2.], [3., 4.]], [1, 4]), shape=(3, 2))
    with pytest.raises(MXNetError, match="row indices must lie"):
        rsp.check_format()


@pytest.mark.parametrize("transpose_a", [False, True])
def test_csr_dot_dense_matches_scipy(transpose_a):
    dense = _dense((5, 7))
    rhs = RNG.normal(size=(5 if transpose_a else 7, 3)).astype("float32")
    out = mx.nd.dot(mx.nd.array(dense).tostype("csr"), mx.nd.array(rhs), transpose_a=transpose_a)
    sp = spsp.csr_matrix(dense)
    want = (sp.T if transpose_a else sp) @ rhs
    assert out.stype == ("row_sparse" if transpose_a else "default")
    numpy.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_dense_dot_csr_is_csr():
    lhs = RNG.normal(size=(2, 5)).astype("float32")
    rhs = _dense((5, 4))
    out = mx.nd.sparse.dot(mx.nd.array(lhs), mx.nd.array(rhs).tostype("csr"))
    assert out.stype == "csr"
    numpy.testing.assert_allclose(out.asnumpy(), lhs @ rhs, rtol=1e-5, atol=1e-6)
    dense = mx.nd.sparse.dot(mx.nd.array(lhs), mx.nd.array(rhs).tostype("csr"),
                             forward_stype="default")
    assert dense.stype == "default"


@pytest.mark.parametrize("stype", ["csr", "row_sparse"])
def test_elemwise_ops_keep_storage_types(stype):
    a, b = _dense((4, 5)), _dense((4, 5))
    x, y = mx.nd.array(a).tostype(stype), mx.nd.array(b).tostype(stype)
    for fn, want in ((mx.nd.elemwise_add, a + b), (mx.nd.elemwise_sub, a - b),
                     (mx.nd.elemwise_mul, a * b)):
        out = fn(x, y)
        assert out.stype == stype
        numpy.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6)
    assert mx.nd.elemwise_add(x, mx.nd.array(b)).stype == "default"
    assert mx.nd.elemwise_mul(x, mx.nd.array(b)).stype == stype
    total = mx.nd.add_n(x, y, x)
    assert total.stype == stype
    numpy.testing.assert_allclose(total.asnumpy(), 2 * a + b, rtol=1e-6)


def test_scalar_and_unary_ops_follow_whether_zero_stays_zero():
    a = _dense((4, 5))
    x = mx.nd.array(a).tostype("row_sparse")
    assert (x * 2).stype == "row_sparse" and (x + 1).stype == "default"
    assert (x > 0).stype == "row_sparse" and (x >= 0).stype == "default"
    numpy.testing.assert_allclose((x + 1).asnumpy(), a + 1)
    for name in ("abs", "sign", "square", "relu", "negative"):
        out = getattr(mx.nd, name)(x)
        assert out.stype == "row_sparse", name
        want = {"abs": numpy.abs, "sign": numpy.sign, "square": numpy.square,
                "relu": lambda v: numpy.maximum(v, 0), "negative": numpy.negative}[name](a)
        numpy.testing.assert_allclose(out.asnumpy(), want)
    root = abs(x).sqrt()
    assert root.stype == "row_sparse"
    numpy.testing.assert_allclose(root.asnumpy(), numpy.sqrt(numpy.abs(a)), rtol=1e-6)
    assert mx.nd.sigmoid(x).stype == "default"   # storage fallback: sigmoid(0) != 0


def test_storage_fallback_reads_dense_and_writes_sparse_out():
    a = _dense((3, 4))
    x = mx.nd.array(a).tostype("csr")
    out = mx.nd.exp(x)
    assert type(out) is mx.nd.NDArray
    numpy.testing.assert_allclose(out.asnumpy(), numpy.exp(a), rtol=1e-6)
    target = mx.nd.zeros((3, 4), stype="row_sparse")
    mx.nd.broadcast_add(mx.nd.ones((3, 4)), mx.nd.ones((3, 4)), out=target)
    assert target.stype == "row_sparse" and target.asnumpy().sum() == 24


def test_retain_square_sum_where_getnnz():
    rsp = mx.nd.sparse.row_sparse_array(([[1., 2.], [3., 4.], [5., 6.]], [0, 2, 3]),
                                        shape=(4, 2))
    kept = mx.nd.sparse.retain(rsp, indices=mx.nd.array([2, 3, 1]))
    assert kept.stype == "row_sparse" and kept.indices.asnumpy().tolist() == [2, 3]
    with pytest.raises(MXNetError, match="row_sparse"):
        mx.nd.sparse.retain(mx.nd.ones((2, 2)), indices=mx.nd.array([0]))
    sq = mx.nd.sparse.square_sum(rsp, axis=1, keepdims=True)
    assert sq.stype == "row_sparse" and sq.asnumpy().ravel().tolist() == [5, 0, 25, 61]
    cond = mx.nd.array([[1, 0], [0, 1]]).tostype("csr")
    out = mx.nd.sparse.where(cond, mx.nd.ones((2, 2)), mx.nd.zeros((2, 2)))
    assert out.asnumpy().tolist() == [[1, 0], [0, 1]]
    csr = mx.nd.array(_dense((4, 6))).tostype("csr")
    assert mx.nd.contrib.getnnz(csr, axis=1).asnumpy().tolist() == \
        csr.asscipy().getnnz(axis=1).tolist()


@pytest.mark.parametrize("stype", ["csr", "row_sparse"])
def test_save_load_roundtrip_keeps_storage(tmp_path, stype):
    dense = _dense((5, 3), dtype="float64")
    arr = mx.nd.array(dense, dtype="float64").tostype(stype)
    fname = str(tmp_path / "sparse.params")
    mx.nd.save(fname, {"w": arr, "d": mx.nd.ones(2)})
    back = mx.nd.load(fname)
    assert back["w"].stype == stype and back["w"].dtype == numpy.float64
    numpy.testing.assert_array_equal(back["w"].asnumpy(), dense)
    assert back["d"].stype == "default"


def test_rand_sparse_generators():
    from mxlab.test_utils import create_sparse_array, rand_sparse_ndarray
    arr, (values, indices) = rand_sparse_ndarray((6, 3), "row_sparse", density=1.0)
    assert indices.tolist() == list(range(6)) and values.shape == (6, 3)
    csr, _ = rand_sparse_ndarray((32, 100), "csr", density=0.1, distribution="powerlaw")
    assert len(csr.data) == 320
    rsp = create_sparse_array((5, 2), "row_sparse", rsp_indices=[3, 1])
    assert rsp.indices.asnumpy().tolist() == [1, 3]


def test_npz_sparse_folders_scipy_and_savez(tmp_path):
    matrix = spsp.random(5, 7, density=0.4, format="csr", random_state=1)
    spsp.save_npz(tmp_path / "scipy.npz", matrix)
    loaded = mx.nd.load(str(tmp_path / "scipy.npz"))[""]
    assert loaded.stype == "csr" and (loaded.asscipy() != matrix).nnz == 0
    rsp = mx.nd.array(_dense((4, 3))).tostype("row_sparse")
    mx.npx.savez(str(tmp_path / "ours.npz"), loaded, r=rsp, d=mx.nd.ones(2))
    back = mx.nd.load(str(tmp_path / "ours.npz"))
    assert {k: v.stype for k, v in back.items()} == {"arr_0": "csr", "r": "row_sparse",
                                                     "d": "default"}
    numpy.testing.assert_array_equal(back["r"].asnumpy(), rsp.asnumpy())
    assert spsp.load_npz(tmp_path / "scipy.npz").shape == (5, 7)
