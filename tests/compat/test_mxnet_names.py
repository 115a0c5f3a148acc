"""MXNet's mx.base / mx.util / mx.test_utils names that user and test code import."""
import os

import numpy as np
import pytest

import mxlab as mx
from mxlab import base, test_utils, util


def test_base_type_tuples_and_constants():
    assert isinstance(np.int32(3), base.integer_types) and not isinstance(1.5, base.integer_types)
    assert isinstance(1.5, base.numeric_types) and isinstance(np.float16(1), base.numeric_types)
    assert isinstance("a", base.string_types) and base.mx_real_t is np.float32
    assert repr(base._Null) == "_Null"


def test_base_helpers():
    assert base.py_str(b"caf\xc3\xa9") == "café" and base.py_str("x") == "x"
    assert base._as_list([1]) == [1] and base._as_list((1, 2)) == [1, 2] and base._as_list(3) == [3]


def test_data_dir_follows_mxnet_home(monkeypatch, tmp_path):
    monkeypatch.delenv("MXNET_HOME", raising=False)
    assert base.data_dir() == os.path.join(os.path.expanduser("~"), ".mxnet")
    monkeypatch.setenv("MXNET_HOME", str(tmp_path))
    assert base.data_dir() == str(tmp_path)


def test_not_implemented_for_symbol_is_an_mxnet_not_implemented_error():
    err = base.NotImplementedForSymbol(test_base_helpers, "asnumpy")
    assert isinstance(err, mx.MXNetError) and isinstance(err, NotImplementedError)
    assert "asnumpy" in str(err)


def test_temporary_directory_yields_a_path_removed_afterwards():
    with util.TemporaryDirectory() as path:
        assert os.path.isdir(path)
        open(os.path.join(path, "f"), "w").close()
    assert not os.path.exists(path)


@pytest.mark.parametrize("number, dtype", [(1, np.int64), (2 ** 63, np.uint64), (0.5, np.float32),
                                           (1e30, np.float64), (np.float16(1), np.float16)])
def test_dtype_from_number(number, dtype):
    assert np.dtype(util.dtype_from_number(number)) == np.dtype(dtype)


def test_dtype_from_number_rejects_other_types():
    with pytest.raises(TypeError):
        util.dtype_from_number("1")
    with pytest.raises(ValueError):
        util.dtype_from_number(2 ** 64)


def test_default_array_follows_the_np_array_switch():
    assert type(util.default_array([1.0])) is mx.nd.NDArray
    with util.np_array(True):
        assert type(util.default_array([1.0])) is mx.np.ndarray


def test_wrap_ctx_to_device_func_accepts_ctx():
    @util.wrap_ctx_to_device_func
    def where(device=None):
        return device
    assert where(ctx=mx.cpu(0)) == mx.cpu(0) and where(device=mx.cpu(1)) == mx.cpu(1)
    with pytest.raises(ValueError):
        where(ctx=mx.cpu(), device=mx.cpu())


def test_gpu_queries_without_a_gpu():
    if util.get_gpu_count():
        pytest.skip("a GPU is present")
    with pytest.raises(mx.MXNetError):
        util.get_gpu_memory(0)


def test_set_flush_denorms_refuses_what_numpy_cannot_do():
    assert util.set_flush_denorms(False) is False
    with pytest.raises(mx.MXNetError):
        util.set_flush_denorms(True)


def test_star_import_gives_mxnet_names():
    namespace = {}
    exec("from mxlab.test_utils import *", namespace)  # noqa: S102  (star import: module level)
    for name in ("verify_generator", "check_gluon_hybridize_consistency", "is_cd_run",
                 "assert_almost_equal", "environment", "rand_ndarray", "default_device"):
        assert name in namespace, name


def test_verify_generator_accepts_the_right_distribution_and_rejects_a_wrong_one():
    stats = pytest.importorskip("scipy.stats")
    buckets, probs = test_utils.gen_buckets_probs_with_ppf(stats.norm.ppf, 5)
    assert len(buckets) == 5 and probs == [0.2] * 5
    def normal(n):
        return np.random.normal(size=n)
    assert len(test_utils.verify_generator(normal, buckets, probs, nsamples=20000)) == 5
    with pytest.raises(AssertionError, match="Generator test fails"):
        test_utils.verify_generator(lambda n: np.random.uniform(size=n), buckets, probs,
                                    nsamples=20000)


def test_discrete_buckets_count_values():
    stats = pytest.importorskip("scipy.stats")
    del stats
    p, observed, _ = test_utils.chi_square_check(lambda n: np.random.randint(0, 3, n),
                                                 [0, 1, 2], [1 / 3] * 3, nsamples=3000)
    assert observed.sum() == 3000 and p > 1e-6


def test_mean_and_var_checks():
    assert test_utils.mean_check(lambda n: np.random.normal(2.0, 1.0, n), 2.0, 1.0, 20000)
    assert not test_utils.mean_check(lambda n: np.random.normal(3.0, 1.0, n), 2.0, 1.0, 20000)
    assert test_utils.var_check(lambda n: np.random.normal(0.0, 2.0, n), 2.0, 20000)


def test_check_gluon_hybridize_consistency_passes_and_catches_a_mismatch():
    def build():
        net = mx.gluon.nn.Dense(3)
        return net
    x = mx.nd.random.uniform(shape=(2, 4))
    test_utils.check_gluon_hybridize_consistency(build, [x])
    with pytest.raises(AssertionError):
        test_utils.check_gluon_hybridize_consistency(build, [x], numpy_func=lambda a: a[:, :3])


def test_compare_optimizer_agrees_and_disagrees():
    sgd = mx.optimizer.SGD
    if not hasattr(sgd, "update_multi_precision"):
        pytest.skip("optimizers lack update_multi_precision")
    test_utils.compare_optimizer(sgd(learning_rate=0.1), sgd(learning_rate=0.1), [(3, 4)],
                                 np.float32)
    with pytest.raises(AssertionError):
        test_utils.compare_optimizer(sgd(learning_rate=0.1), sgd(learning_rate=0.5), [(3, 4)],
                                     np.float32)


def test_small_helpers():
    assert test_utils.is_op_runnable() and not test_utils.has_tvm_ops()
    a = np.ones((2, 3, 4))
    assert test_utils.collapse_sum_like(a, (3, 1)).tolist() == [[8.0]] * 3
    assert test_utils.np_reduce(a, (0, 2), True, np.sum).shape == (1, 3, 1)
    assert test_utils.assign_each(np.array([1.0, 4.0]), np.sqrt).tolist() == [1.0, 2.0]
    assert test_utils.assign_each2(np.array([1, 2]), np.array([3, 4]), max).tolist() == [3, 4]
    assert test_utils.create_2d_tensor(2, 3).asnumpy().tolist() == [[0, 0, 0], [1, 1, 1]]
    assert test_utils.create_vector(3).asnumpy().tolist() == [0, 1, 2]
    x = mx.nd.zeros((2,))
    assert test_utils.same_array(x, x) and not test_utils.same_array(x, x.copy())


def test_matrix_generators():
    q = test_utils.new_orthonormal_matrix_2d(4)
    np.testing.assert_allclose(q @ q.T, np.eye(4), atol=1e-10)
    m = test_utils.new_matrix_with_real_eigvals_nd((2, 3, 3))
    assert m.shape == (2, 3, 3) and np.all(np.isreal(np.linalg.eigvals(m)))
    s = test_utils.new_sym_matrix_with_real_eigvals_nd((2, 3, 3))
    np.testing.assert_allclose(s, np.swapaxes(s, -1, -2), atol=1e-10)


def test_same_symbol_structure():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    assert test_utils.same_symbol_structure(mx.sym.exp(a), mx.sym.exp(b))
    assert not test_utils.same_symbol_structure(mx.sym.exp(a), mx.sym.sin(b))


def test_discard_stderr_silences_file_descriptor_two(capfd):
    with test_utils.discard_stderr():
        os.write(2, b"hidden\n")
    os.write(2, b"shown\n")
    assert capfd.readouterr().err == "shown\n"


def test_alias_gives_mx_nd_the_cached_op():
    # MXNet's test_ndarray.test_cached builds mx.nd.CachedOp(sym) and calls it with arrays.
    from mxlab.compat import backend_names
    from mxlab.compat.internal import ndarray_internal
    backend_names.attach()
    op = mx.nd.CachedOp(mx.sym.Variable("x") * 2 + 1)
    assert ndarray_internal.CachedOp is mx.nd.CachedOp
    assert op(mx.nd.array([1.0, 2.0])).asnumpy().tolist() == [3.0, 5.0]
