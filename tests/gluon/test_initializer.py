"""mx.init: statistics and shapes of each initializer, name-based defaults and ``create``."""
import math

import numpy
import pytest

import mxlab as mx


def filled(init, shape, name="fc_weight"):
    arr = mx.nd.zeros(shape)
    init(name, arr)
    return arr.asnumpy()


def test_uniform_and_normal_statistics():
    mx.random.seed(0)
    u = filled(mx.init.Uniform(0.5), (200, 100))
    assert u.min() >= -0.5 and u.max() <= 0.5 and abs(u.mean()) < 0.01
    assert u.std() == pytest.approx(0.5 / math.sqrt(3), rel=0.03)
    n = filled(mx.init.Normal(0.2), (200, 100))
    assert abs(n.mean()) < 0.01 and n.std() == pytest.approx(0.2, rel=0.03)


@pytest.mark.parametrize("factor_type,factor", [("avg", (64 * 9 + 32 * 9) / 2),
                                                ("in", 64 * 9), ("out", 32 * 9)])
def test_xavier_scales(factor_type, factor):
    mx.random.seed(1)
    w = filled(mx.init.Xavier("uniform", factor_type, magnitude=3), (32, 64, 3, 3))
    bound = math.sqrt(3 / factor)
    assert abs(w).max() <= bound and abs(w).max() > 0.95 * bound
    g = filled(mx.init.Xavier("gaussian", factor_type, magnitude=2), (32, 64, 3, 3))
    assert g.std() == pytest.approx(math.sqrt(2 / factor), rel=0.05)
    with pytest.raises(ValueError, match="cannot be applied to vector"):
        filled(mx.init.Xavier(), (5,))


def test_msra_prelu_is_gaussian_xavier():
    mx.random.seed(2)
    w = filled(mx.init.MSRAPrelu(slope=0.0), (128, 256))
    assert w.std() == pytest.approx(math.sqrt(2 / ((128 + 256) / 2)), rel=0.05)


def test_orthogonal_rows_are_orthonormal_times_scale():
    mx.random.seed(3)
    w = filled(mx.init.Orthogonal(scale=2.0), (4, 3, 2))
    flat = w.reshape(4, 6)
    numpy.testing.assert_allclose(flat @ flat.T, 4 * numpy.eye(4), atol=1e-4)


def test_constants_and_name_defaults():
    assert (filled(mx.init.Constant(0.5), (2, 3)) == 0.5).all()
    assert (filled(mx.init.One(), (3,)) == 1).all()
    assert (filled(mx.init.Zero(), (3,)) == 0).all()
    xavier = mx.init.Xavier()
    defaults = {"fc_bias": 0.0, "bn_gamma": 1.0, "bn_beta": 0.0, "bn_moving_mean": 0.0,
                "bn_moving_var": 1.0}
    for name, value in defaults.items():
        assert (filled(xavier, (3,), name) == value).all(), name
    with pytest.raises(ValueError, match="Unknown initialization pattern for fc_scale"):
        filled(xavier, (3,), "fc_scale")
    own = mx.init.InitDesc("fc_bias", {"__init__": mx.init.Constant(7.0)})
    assert (filled(xavier, (2,), own) == 7).all()


def test_create_by_name_and_json():
    assert isinstance(mx.init.create("xavier"), mx.init.Xavier)
    assert isinstance(mx.init.create("zeros"), mx.init.Zero)
    restored = mx.init.create(mx.init.Normal(0.3).dumps())
    assert isinstance(restored, mx.init.Normal) and restored.sigma == 0.3
    with pytest.raises(ValueError, match="Cannot find initializer"):
        mx.init.create("nosuch")


def test_parameter_init_wins_over_block_initializer():
    net = mx.gluon.nn.Dense(3, in_units=2, weight_initializer=mx.init.Constant(2.0))
    net.initialize(mx.init.One())
    assert (net.weight.data().asnumpy() == 2).all()
    assert (net.bias.data().asnumpy() == 0).all()
    net.initialize(mx.init.One(), force_reinit=True)
    assert (net.weight.data().asnumpy() == 2).all()
