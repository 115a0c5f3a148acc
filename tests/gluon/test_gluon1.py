"""Gluon 1 (MXNet 1.x) naming and sharing next to Gluon 2 structure (mxlab/gluon/gluon1.py)."""
import numpy as np
import pytest

import mxlab as mx
from mxlab.gluon import nn


class _MLP(nn.Block):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.hidden = nn.Dense(4)
            self.out = nn.Dense(2)
        self.scale = self.params.get("scale", shape=(2,), init=mx.init.One())

    def forward(self, x):
        return self.out(self.hidden(x)) * self.scale.data()


def test_prefix_name_and_name_scope():
    net = _MLP(prefix="mlp_")
    assert (net.prefix, net.name) == ("mlp_", "mlp")
    assert (net.hidden.prefix, net.out.name) == ("mlp_dense0_", "mlp_dense1")


def test_default_names_count_per_class():
    a, b = nn.Dense(2), nn.Dense(2)
    assert a.name.startswith("dense") and b.name.startswith("dense") and a.name != b.name


def test_params_get_creates_a_prefixed_parameter_and_finds_it_again():
    net = _MLP(prefix="m_")
    assert net.scale.name == "m_scale" and list(net.params) == ["m_scale"]
    assert net.params.get("scale") is net.scale
    with pytest.raises(ValueError, match="desired attribute does not match"):
        net.params.get("scale", shape=(3,))


def test_params_get_fills_unknown_shape_dimensions():
    params = mx.gluon.ParameterDict("p_")
    w = params.get("w", shape=(0, 3))
    assert params.get("w", shape=(2, 3)) is w and w.shape == (2, 3)


def test_collect_params_of_gluon1_code_has_full_name_keys_in_mxnet_order():
    net = _MLP(prefix="mlp_")
    params = net.collect_params()
    assert list(params) == ["mlp_scale", "mlp_dense0_weight", "mlp_dense0_bias",
                            "mlp_dense1_weight", "mlp_dense1_bias"]
    assert params["mlp_dense0_weight"] is net.hidden.weight
    assert params.get("scale") is net.scale   # NOTE: MXNet 1.x: get() finds prefix + name


def test_gluon2_collect_params_keys_are_structural_and_gluon1_names_also_find():
    net = nn.HybridSequential()
    net.add(nn.Dense(4, in_units=2))
    params = net.collect_params()
    assert list(params) == ["0.weight", "0.bias"]
    assert params[net[0].prefix + "weight"] is net[0].weight


def test_forward_with_params_get_parameter_trains():
    net = _MLP()
    net.initialize()
    x = mx.nd.ones((1, 3))
    with mx.autograd.record():
        y = net(x).sum()
    y.backward()
    assert net(x).shape == (1, 2) and net.scale.grad().shape == (2,)


def test_params_keyword_shares_parameters_with_built_in_layers():
    first = nn.Dense(3, in_units=2)
    second = nn.Dense(3, in_units=2, params=first.params)
    assert second.weight is first.weight and second.bias is first.bias
    assert second.name != first.name
    first.initialize()
    x = mx.nd.ones((1, 2))
    assert np.array_equal(first(x).asnumpy(), second(x).asnumpy())


def test_get_constant():
    params = mx.gluon.ParameterDict("c_")
    const = params.get_constant("k", [1.0, 2.0])
    assert params.get_constant("k") is const and const.grad_req == "null"
    with pytest.raises(ValueError, match="specify value"):
        params.get_constant("other")


def test_update_refuses_a_different_parameter_under_the_same_name():
    a, b = mx.gluon.ParameterDict("x_"), mx.gluon.ParameterDict("x_")
    a.get("w", shape=(1,))
    a.update(a)
    b.get("w", shape=(1,))
    with pytest.raises(ValueError, match="different Parameters"):
        a.update(b)


def test_parameter_dict_save_and_load_round_trip(tmp_path):
    net = _MLP(prefix="mlp_")
    net.initialize()
    net(mx.nd.ones((1, 3)))
    path = str(tmp_path / "p.params")
    net.params.save(path, strip_prefix="mlp_")
    again = _MLP(prefix="mlp_")
    again.params.load(path, restore_prefix="mlp_")
    assert np.array_equal(again.scale.data().asnumpy(), net.scale.data().asnumpy())
    with pytest.raises(ValueError, match="does not start with"):
        net.params.save(path, strip_prefix="other_")


def test_load_dict_takes_numpy_arrays_and_names_missing_ones():
    net = nn.Dense(2, in_units=3)
    net.load_dict({"weight": np.ones((2, 3), np.float32), "bias": np.zeros(2, np.float32)})
    assert net(mx.nd.ones((1, 3))).asnumpy().tolist() == [[3.0, 3.0]]
    with pytest.raises(ValueError, match="'bias' is missing in the dict"):
        nn.Dense(2, in_units=3).load_dict({"weight": np.ones((2, 3), np.float32)})


def test_name_manager_prefix_names_blocks():
    with mx.name.Prefix("pre_"):
        block = nn.Dense(2)
    assert block.name.startswith("pre_dense")
