"""Private MXNet modules its unittests import (mxnet.operator, numpy_op_signature,
numpy_dispatch_protocol, amp) and the small names they need (py_slice, LSTMBias, npx.savez)."""
import numpy as np
import pytest

import mxlab as mx
from mxlab.compat.internal import amp, numpy_dispatch_protocol, numpy_op_signature, operator


def test_operator_lists_registered_ops():
    names = operator.get_all_registered_operators()
    assert "_np_sum" in names and names == sorted(names)
    groups = operator.get_all_registered_operators_grouped()
    assert "_np_sum" in groups["np_sum"]


def test_custom_op_registers():
    @operator.register("compat_sqr")
    class SqrProp(operator.CustomOpProp):
        pass
    assert "compat_sqr" in mx.operator.registered_op_types()


def test_custom_op_assign_honours_req():
    dst = mx.nd.ones((2,))
    operator.CustomOp().assign(dst, "add", mx.nd.ones((2,)))
    assert dst.asnumpy().tolist() == [2.0, 2.0]
    operator.CustomOp().assign(dst, "null", mx.nd.zeros((2,)))
    assert dst.asnumpy().tolist() == [2.0, 2.0]


def test_builtin_op_by_mxnet_name():
    assert numpy_op_signature._get_builtin_op("_np_linalg_svd") is mx.np.linalg.svd
    assert numpy_op_signature._get_builtin_op("_npx_relu") is mx.npx.relu
    assert numpy_op_signature._get_builtin_op("_npi_add") is None
    with pytest.raises(ValueError, match="no_such_op"):
        numpy_op_signature._get_builtin_op("_np_no_such_op")


def test_dispatch_lists_and_decorators():
    assert "sum" in numpy_dispatch_protocol._NUMPY_ARRAY_FUNCTION_LIST
    assert "add" in numpy_dispatch_protocol._NUMPY_ARRAY_UFUNC_LIST
    assert "add" not in numpy_dispatch_protocol._NUMPY_ARRAY_FUNCTION_LIST

    @numpy_dispatch_protocol.with_array_function_protocol
    def failing():
        raise KeyError("boom")
    with pytest.raises(RuntimeError, match="failing.*boom"):
        failing()


def test_alias_resolves_the_private_modules():
    import mxlab.compat as compat
    compat.install()
    try:
        import mxnet
        from mxnet.amp.amp import bfloat16
        from mxnet.ndarray.ndarray import py_slice
        from mxnet.operator import get_all_registered_operators  # noqa: F401
        assert bfloat16 is amp.bfloat16 and bfloat16.itemsize == 2 and py_slice is slice
        assert mxnet.operator is operator
    finally:
        compat.uninstall()


def test_lstm_bias_sets_the_forget_gate():
    param = mx.gluon.Parameter("i2h_bias", shape=(8,), init=mx.init.LSTMBias(forget_bias=2.5))
    param.initialize()
    assert param.data().asnumpy().tolist() == [0, 0, 2.5, 2.5, 0, 0, 0, 0]
    assert mx.init.create("lstmbias").forget_bias == 1.0


def test_npx_save_and_savez_write_numpy_files(tmp_path):
    a, b = mx.np.array([[1.0, 2.0]]), mx.np.array([3], dtype="int32")
    single, bundle = str(tmp_path / "a.any"), str(tmp_path / "b.any")
    mx.npx.save(single, a)
    assert np.load(single).tolist() == [[1.0, 2.0]]
    assert mx.npx.load(single).asnumpy().tolist() == [[1.0, 2.0]]
    assert mx.nd.load(single)[0].asnumpy().tolist() == [[1.0, 2.0]]
    mx.npx.savez(bundle, a, extra=b)
    with np.load(bundle) as loaded:
        assert sorted(loaded.files) == ["arr_0", "extra"]
    back = mx.npx.load(bundle)
    assert back["extra"].dtype == np.int32 and back["arr_0"].shape == (1, 2)
    with pytest.raises(mx.base.MXNetValueError, match="arr_0"):
        mx.npx.savez(bundle, a, arr_0=b)
    with pytest.raises(TypeError, match="only accepts arrays"):
        mx.npx.savez(bundle, [1, 2])


def test_test_utils_star_hands_out_what_mxnet_imports():
    namespace = {}
    exec("from mxlab.test_utils import *", namespace)
    assert namespace["sys"].__name__ == "sys" and "use_np_default_dtype" in namespace


def test_empty_npz_loads(tmp_path):
    path = str(tmp_path / "empty.npz")
    mx.npx.savez(path)
    assert len(mx.npx.load(path)) == 0


def test_array_namespace_follows_the_2021_array_api():
    x = mx.np.array([1.0, 2.0])
    assert x.__array_namespace__() is mx.np and x.__array_namespace__("2021.12") is mx.np
    for bad in ("2020.09", "2021.24", "latest"):
        with pytest.raises(ValueError, match="array API version"):
            x.__array_namespace__(bad)


def test_legacy_concatenate_and_onehot_encode():
    parts = [mx.nd.ones((2, 3)), mx.nd.zeros((1, 3))]
    assert mx.nd.concatenate(parts).asnumpy().sum() == 6.0
    assert mx.nd.concatenate(parts, axis=0).shape == (3, 3)
    assert mx.nd.concatenate(parts[:1], always_copy=False) is parts[0]
    assert mx.nd.concatenate(parts[:1]) is not parts[0]
    with pytest.raises(ValueError, match="at least one"):
        mx.nd.concatenate([])
    out = mx.nd.zeros((3, 4))
    assert mx.nd.onehot_encode(mx.nd.array([0, 3, 1]), out) is out
    assert out.asnumpy().argmax(axis=1).tolist() == [0, 3, 1]
