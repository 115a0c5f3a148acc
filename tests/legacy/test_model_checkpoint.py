"""mx.model's 1.x checkpoint pair (prefix-symbol.json + prefix-NNNN.params)."""
import numpy as np
import pytest

import mxlab as mx


def _net():
    data = mx.sym.Variable("data")
    fc = mx.sym.FullyConnected(data, num_hidden=3, name="fc")
    return mx.sym.BatchNorm(fc, name="bn")


def test_checkpoint_round_trip_keeps_roles_and_values(tmp_path):
    prefix = str(tmp_path / "net")
    arg = {"fc_weight": mx.nd.array(np.arange(12).reshape(3, 4)), "fc_bias": mx.nd.ones((3,))}
    aux = {"bn_moving_mean": mx.nd.array([1.0, 2.0, 3.0])}
    mx.model.save_checkpoint(prefix, 7, _net(), arg, aux)
    assert (tmp_path / "net-0007.params").exists()
    symbol, arg2, aux2 = mx.model.load_checkpoint(prefix, 7)
    assert symbol.list_arguments() == _net().list_arguments()
    assert sorted(arg2) == ["fc_bias", "fc_weight"] and list(aux2) == ["bn_moving_mean"]
    np.testing.assert_array_equal(arg2["fc_weight"].asnumpy(), np.arange(12).reshape(3, 4))
    np.testing.assert_array_equal(aux2["bn_moving_mean"].asnumpy(), [1, 2, 3])
    raw = mx.nd.load(str(tmp_path / "net-0007.params"))
    assert sorted(raw) == ["arg:fc_bias", "arg:fc_weight", "aux:bn_moving_mean"]


def test_checkpoint_without_symbol_writes_only_params(tmp_path):
    prefix = str(tmp_path / "p")
    mx.model.save_checkpoint(prefix, 0, None, {"w": mx.nd.zeros((2,))}, {})
    assert not (tmp_path / "p-symbol.json").exists()
    arg, aux = mx.model.load_params(prefix, 0)
    assert list(arg) == ["w"] and aux == {}


def test_load_params_refuses_an_unnamed_list(tmp_path):
    mx.nd.save(str(tmp_path / "l-0001.params"), [mx.nd.zeros((2,))])
    with pytest.raises(ValueError, match="unnamed list"):
        mx.model.load_params(str(tmp_path / "l"), 1)


def test_batch_end_param_has_mxnets_fields():
    param = mx.model.BatchEndParam(epoch=1, nbatch=2, eval_metric=None, locals={})
    assert param.nbatch == 2 and type(param).__name__ == "BatchEndParams"
