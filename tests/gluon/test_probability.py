"""``mx.gluon.probability``: densities against scipy.stats, KL divergences, transformations,
hybridized blocks against imperative runs, reparameterised gradients and StochasticBlock losses."""
import numpy
import pytest
import scipy.stats as ss

import mxlab as mx
from mxlab.gluon import HybridBlock
from mxlab.gluon import probability as mgp

RNG = numpy.random.default_rng(3)


def _arr(x):
    return mx.np.array(numpy.asarray(x, "float32"))


def _close(got, want, rtol=1e-4, atol=1e-5):
    numpy.testing.assert_allclose(got.asnumpy(), want, rtol=rtol, atol=atol)


def test_continuous_log_prob_cdf_and_moments_match_scipy():
    loc, scale = RNG.normal(size=(2, 3)), RNG.uniform(0.5, 2, (2, 3))
    x = RNG.normal(size=(2, 3))
    normal = mgp.Normal(_arr(loc), _arr(scale))
    _close(normal.log_prob(_arr(x)), ss.norm(loc, scale).logpdf(x))
    _close(normal.cdf(_arr(x)), ss.norm(loc, scale).cdf(x))
    q = RNG.uniform(0.05, 0.95, (2, 3))
    _close(normal.icdf(_arr(q)), ss.norm(loc, scale).ppf(q), rtol=1e-3)
    _close(normal.entropy(), ss.norm(loc, scale).entropy())
    alpha, beta = RNG.uniform(0.5, 3, 4), RNG.uniform(0.5, 3, 4)
    u = RNG.uniform(0.1, 0.9, 4)
    _close(mgp.Beta(_arr(alpha), _arr(beta)).log_prob(_arr(u)), ss.beta(alpha, beta).logpdf(u),
           rtol=1e-3)
    _close(mgp.Gamma(_arr(alpha), _arr(beta)).log_prob(_arr(u)),
           ss.gamma(alpha, scale=beta).logpdf(u), rtol=1e-3)
    _close(mgp.Laplace(0.0, _arr(beta)).variance, ss.laplace(0, beta).var())


def test_discrete_log_prob_matches_scipy():
    prob = RNG.uniform(0.1, 0.9, 5)
    k = numpy.array([0, 1, 1, 0, 1], "float32")
    _close(mgp.Bernoulli(prob=_arr(prob)).log_prob(_arr(k)), ss.bernoulli(prob).logpmf(k))
    rate = RNG.uniform(1, 5, 5)
    counts = numpy.array([0, 2, 3, 1, 7], "float32")
    _close(mgp.Poisson(_arr(rate)).log_prob(_arr(counts)), ss.poisson(rate).logpmf(counts),
           rtol=1e-3)
    p = numpy.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])
    cat = mgp.Categorical(3, prob=_arr(p))
    _close(cat.log_prob(_arr([2, 0])), numpy.log([0.5, 0.6]))


def test_kl_divergence_closed_form_and_register_kl():
    p = mgp.Normal(_arr([0.0, 1.0]), _arr([1.0, 2.0]))
    q = mgp.Normal(_arr([1.0, 1.0]), _arr([2.0, 1.0]))
    s1, s2, diff = numpy.array([1.0, 2.0]), numpy.array([2.0, 1.0]), numpy.array([-1.0, 0.0])
    want = numpy.log(s2 / s1) + (s1 ** 2 + diff ** 2) / (2 * s2 ** 2) - 0.5
    _close(mgp.kl_divergence(p, q), want)

    class Point(mgp.Distribution):
        def __init__(self, value):
            self.value = value
            super().__init__(event_dim=0)

    @mgp.register_kl(Point, Point)
    def _kl_point(a, b):
        return mx.np.abs(a.value - b.value)

    assert float(mgp.kl_divergence(Point(_arr(1.0)), Point(_arr(3.0)))) == 2.0


def test_transformed_distribution_is_lognormal():
    base = mgp.Normal(_arr([0.0, 0.5]), _arr([1.0, 0.5]))
    lognormal = mgp.TransformedDistribution(base, [mgp.ExpTransform()])
    x = numpy.array([0.7, 2.0])
    _close(lognormal.log_prob(_arr(x)), ss.lognorm(s=[1.0, 0.5], scale=numpy.exp([0.0, 0.5]))
           .logpdf(x), rtol=1e-4)
    affine = mgp.AffineTransform(_arr(1.0), _arr(2.0))
    assert affine(_arr(3.0)).item() == 7.0 and affine.inv(_arr(7.0)).item() == 3.0


class _LogProb(HybridBlock):
    def forward(self, loc, scale, x):
        dist = mgp.Normal(loc, scale, validate_args=True)
        return dist.log_prob(x), dist.sample_n(4)


def test_hybridized_block_matches_imperative():
    loc, scale, x = _arr(RNG.normal(size=3)), _arr(RNG.uniform(1, 2, 3)), _arr(RNG.normal(size=3))
    net = _LogProb()
    want, draws = net(loc, scale, x)
    net.hybridize()
    for _ in range(2):          # the second call runs the cached graph
        got, hybrid_draws = net(loc, scale, x)
        _close(got, want.asnumpy(), rtol=1e-6)
        assert hybrid_draws.shape == draws.shape == (4, 3)
    with pytest.raises(ValueError, match="Constraint violated"):
        net(loc, -scale, x)[0].wait_to_read()


def test_rsample_gradients_flow_to_parameters():
    loc, scale = _arr([0.5, -1.0]), _arr([1.0, 2.0])
    loc.attach_grad()
    scale.attach_grad()
    with mx.autograd.record():
        y = mgp.Normal(loc, scale).sample_n(8)
    y.backward()
    _close(loc.grad, [8.0, 8.0])
    _close(scale.grad, ((y.asnumpy() - loc.asnumpy()) / scale.asnumpy()).sum(0), rtol=1e-5)
    assert mgp.Normal.has_grad and not mgp.Bernoulli.has_grad


class _VAEStep(mgp.StochasticBlock):
    @mgp.StochasticBlock.collectLoss
    def forward(self, loc):
        qz = mgp.Normal(loc, mx.np.ones_like(loc))
        self.add_loss(mgp.kl_divergence(qz, mgp.Normal(mx.np.zeros_like(loc),
                                                       mx.np.ones_like(loc))))
        return qz.sample()


@pytest.mark.parametrize("hybridize", [False, True])
def test_stochastic_block_collects_losses(hybridize):
    net = mgp.StochasticSequential()
    net.add(_VAEStep(), _VAEStep())
    if hybridize:
        net.hybridize()
    loc = _arr([1.0, -2.0])
    out = net(loc)
    assert out.shape == (2,)
    assert len(net.losses) == 2
    _close(net.losses[0][0], [0.5, 2.0])       # KL(N(mu, 1) || N(0, 1)) = mu^2 / 2

    class Forgot(mgp.StochasticBlock):
        def forward(self, x):
            return x

    with pytest.raises(ValueError, match="collectLoss"):
        Forgot()(loc)
