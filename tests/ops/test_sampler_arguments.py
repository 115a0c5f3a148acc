"""Every sampler refuses impossible sizes and parameters with a clear MXNetValueError, and accepts
what MXNet 1.9.1 accepts (checked there: ``mx.np.random.uniform(1, 0)`` samples, ``size=0`` is an
empty draw; ``size=(-2,)``, ``size=-1``, ``normal(scale=-1)`` and ``bernoulli(prob=1.5)`` raise).
"""
import numpy
import pytest

import mxlab as mx
from mxlab.base import MXNetTypeError, MXNetValueError
from mxlab.gluon.probability.utils import sample_n_shape_converter


def _tuple(s):
    return s if isinstance(s, tuple) else (s,)


SAMPLERS = {
    "np.uniform": lambda s: mx.np.random.uniform(size=s),
    "np.uniform(arrays)": lambda s: mx.np.random.uniform(mx.np.zeros(1), 1.0, size=s),
    "np.normal": lambda s: mx.np.random.normal(size=s),
    "np.randint": lambda s: mx.np.random.randint(0, 5, size=s),
    "np.gamma": lambda s: mx.np.random.gamma(1.0, size=s),
    "np.exponential": lambda s: mx.np.random.exponential(size=s),
    "np.beta": lambda s: mx.np.random.beta(1.0, 2.0, size=s),
    "np.poisson": lambda s: mx.np.random.poisson(1.0, size=s),
    "np.laplace": lambda s: mx.np.random.laplace(size=s),
    "np.choice": lambda s: mx.np.random.choice(5, size=s),
    "np.multinomial": lambda s: mx.np.random.multinomial(3, [0.5, 0.5], size=s),
    "np.multivariate_normal": lambda s: mx.np.random.multivariate_normal(
        mx.np.zeros(2), mx.np.eye(2), size=s),
    "np.rand": lambda s: mx.np.random.rand(*_tuple(s)),
    "np.randn": lambda s: mx.np.random.randn(*_tuple(s)),
    "npx.bernoulli": lambda s: mx.npx.random.bernoulli(prob=0.5, size=s),
    "npx.uniform_n": lambda s: mx.npx.random.uniform_n(0.0, 1.0, batch_shape=s),
    "nd.uniform": lambda s: mx.nd.random.uniform(shape=s),
    "nd.normal": lambda s: mx.nd.random.normal(shape=s),
    "nd.randint": lambda s: mx.nd.random.randint(0, 5, shape=s),
    "nd.gamma": lambda s: mx.nd.random.gamma(shape=s),
    "nd.poisson": lambda s: mx.nd.random.poisson(shape=s),
    "nd.negative_binomial": lambda s: mx.nd.random.negative_binomial(shape=s),
    "nd.multinomial": lambda s: mx.nd.random.multinomial(mx.nd.array([0.5, 0.5]), shape=s),
    "nd.sample_normal": lambda s: mx.nd.sample_normal(mx.nd.zeros(1), mx.nd.ones(1), shape=s),
    "random.uniform": lambda s: mx.random.uniform(shape=s),
    "sym.random.normal": lambda s: mx.sym.random.normal(shape=s).eval()[0],
}


@pytest.mark.parametrize("size", [(-2,), -1, (2, -3), (-2, 3), (-5,)],
                         ids=["(-2,)", "-1", "(2,-3)", "(-2,3)", "(-5,)"])
@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_negative_size_raises(name, size):
    with pytest.raises(MXNetValueError, match="negative"):
        SAMPLERS[name](size).wait_to_read()


@pytest.mark.parametrize("name", ["np.uniform", "np.normal", "np.choice", "npx.bernoulli",
                                  "nd.uniform", "nd.normal", "random.uniform"])
def test_zero_size_is_an_empty_draw(name):
    assert SAMPLERS[name]((0, 2)).shape == (0, 2)


@pytest.mark.parametrize("size", [2.5, "3", (2, 1.5), [None]])
def test_non_integer_size_raises(size):
    with pytest.raises((MXNetTypeError, MXNetValueError)):
        mx.np.random.uniform(size=size).wait_to_read()


def test_sym_shape_keeps_mxnet_unknown_dim():
    """MXNet 1.x symbols may leave a dim unknown (-1) for the graph to infer; below -1 raises."""
    x = mx.sym.var("x")
    assert (x + mx.sym.random.uniform(shape=(-1, 3))).infer_shape(x=(2, 3))[1] == [(2, 3)]
    with pytest.raises(MXNetValueError, match="negative"):
        mx.sym.random.uniform(shape=(-2, 3))


@pytest.mark.parametrize("call", [
    lambda: mx.np.random.normal(0, -1, size=(2,)),
    lambda: mx.nd.random.normal(0, -1, shape=(2,)),
    lambda: mx.nd.random.uniform(1, 0, shape=(2,)),
    lambda: mx.np.random.randint(5, 2, size=(2,)),
    lambda: mx.np.random.exponential(-1, size=(2,)),
    lambda: mx.np.random.gamma(-1, size=(2,)),
    lambda: mx.nd.random.poisson(-1, shape=(2,)),
    lambda: mx.np.random.choice(3, size=(5,), replace=False),
    lambda: mx.np.random.multinomial(-1, [0.5, 0.5]),
    lambda: mx.np.random.multinomial(3, [0.7, 0.7]),
    lambda: mx.np.random.beta(-1, 1, size=(2,)),
    lambda: mx.np.random.pareto(-1, size=(2,)),
    lambda: mx.np.random.lognormal(0, -1, size=(2,)),
    lambda: mx.npx.random.bernoulli(prob=1.5, size=(2,)),
    lambda: mx.npx.random.bernoulli(prob=-0.1, size=(2,)),
    lambda: mx.nd.random.negative_binomial(-1, 0.5, shape=(2,)),
], ids=["np.normal scale<0", "nd.normal scale<0", "nd.uniform low>high", "randint low>=high",
        "exponential scale<0", "gamma shape<0", "poisson lam<0", "choice too many",
        "multinomial n<0", "multinomial sum>1", "beta a<0", "pareto a<0", "lognormal sigma<0",
        "bernoulli p>1", "bernoulli p<0", "negative_binomial k<0"])
def test_impossible_parameters_raise_like_mxnet(call):
    with pytest.raises(MXNetValueError):
        call().wait_to_read()


def test_np_uniform_with_low_above_high_samples_like_mxnet():
    draws = mx.np.random.uniform(1.0, 0.0, size=(2000,)).asnumpy()
    assert draws.shape == (2000,) and ((draws > 0.0) & (draws <= 1.0)).all()
    assert abs(draws.mean() - 0.5) < 0.05


def test_sample_n_form_still_prepends():
    """gluon.probability's sample_n (MXNet 2.0's ``(-2, *s)``) is its own type, not a size."""
    assert mx.npx.random.uniform_n(mx.np.zeros(2), 1.0, batch_shape=(3,)).shape == (3, 2)
    assert mx.np.random.normal(mx.np.zeros(2), 1.0,
                               size=sample_n_shape_converter(4)).shape == (4, 2)
    assert mx.np.random.normal(0.0, 1.0, size=sample_n_shape_converter((4, 5))).shape == (4, 5)
    normal = mx.gluon.probability.Normal(mx.np.zeros(3), mx.np.ones(3))
    assert normal.sample_n(6).shape == (6, 3)
    draws = mx.gluon.probability.MultivariateNormal(
        mx.np.zeros(2), scale_tril=mx.np.eye(2)).sample_n(5)
    assert draws.shape == (5, 2) and numpy.isfinite(draws.asnumpy()).all()
