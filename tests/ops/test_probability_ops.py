"""The np/npx pieces ``gluon.probability`` runs on: ``npx.erfinv``/``erf``/``gammaln``/``digamma``,
``npx.constraint_check``, ``einsum`` with an ellipsis, ``broadcast_to`` keeping ``-2`` dims,
``where`` with a Python condition, ``&``/``|``/``^`` on mx.np arrays and the array-parameter
samplers of ``mx.np.random``/``mx.npx.random``. The opt-in oracle test compares with MXNet 1.9.1."""
import numpy
import pytest
import scipy.special
from helpers import assert_same_results, requires_oracle, run_both

import mxlab as mx
from mxlab.ops.random import SampleN

RNG = numpy.random.default_rng(5)


def test_erfinv_values_and_gradient():
    x = numpy.array([-0.99, -0.5, 0.0, 0.3, 0.9], "float32")
    a = mx.np.array(x)
    a.attach_grad()
    with mx.autograd.record():
        y = mx.npx.erfinv(a)
    y.backward()
    numpy.testing.assert_allclose(y.asnumpy(), scipy.special.erfinv(x), rtol=1e-5)
    want = numpy.sqrt(numpy.pi) / 2 * numpy.exp(scipy.special.erfinv(x) ** 2)
    numpy.testing.assert_allclose(a.grad.asnumpy(), want, rtol=1e-4)
    numpy.testing.assert_allclose(mx.nd.erfinv(mx.nd.array(x)).asnumpy(),
                                  scipy.special.erfinv(x), rtol=1e-5)


def test_erfinv_without_scipy_series():
    from mxlab.ops.special import _erfinv_newton
    x = numpy.linspace(-0.9999, 0.9999, 201)
    numpy.testing.assert_allclose(_erfinv_newton(numpy, x), scipy.special.erfinv(x), atol=1e-10)
    ends = _erfinv_newton(numpy, numpy.array([1.0, -1.0, 1.5]))
    assert ends[0] == numpy.inf and ends[1] == -numpy.inf and numpy.isnan(ends[2])


def test_npx_special_functions():
    x = numpy.array([0.5, 1.5, 4.0], "float32")
    a = mx.np.array(x)
    numpy.testing.assert_allclose(mx.npx.gammaln(a).asnumpy(), scipy.special.gammaln(x),
                                  rtol=1e-5)
    numpy.testing.assert_allclose(mx.npx.digamma(a).asnumpy(), scipy.special.digamma(x),
                                  rtol=1e-5)
    numpy.testing.assert_allclose(mx.npx.erf(a).asnumpy(), scipy.special.erf(x), rtol=1e-5)


def test_constraint_check():
    x = mx.np.array([1.0, 2.0])
    assert (mx.npx.constraint_check(x > 0, "x must be positive") * x).asnumpy().tolist() == \
        [1.0, 2.0]
    with pytest.raises(ValueError, match="x must exceed 1"):
        mx.npx.constraint_check(x > 1, "x must exceed 1").wait_to_read()


def test_einsum_ellipsis_broadcasts_with_gradients():
    a_np = RNG.normal(size=(2, 1, 3, 3))
    v_np = RNG.normal(size=(4, 3))
    a, v = mx.np.array(a_np, dtype="float64"), mx.np.array(v_np, dtype="float64")
    a.attach_grad()
    v.attach_grad()
    with mx.autograd.record():
        y = mx.np.einsum("...jk,...j->...k", a, v)
        (y * y).sum().backward()
    want = numpy.einsum("...jk,...j->...k", a_np, v_np)
    numpy.testing.assert_allclose(y.asnumpy(), want, rtol=1e-12)
    head = 2 * want
    grad_a = numpy.einsum("...k,...j->...jk", head, numpy.broadcast_to(v_np, (2, 4, 3)))
    numpy.testing.assert_allclose(a.grad.asnumpy(), grad_a.sum(1, keepdims=True), rtol=1e-10)
    grad_v = numpy.einsum("...jk,...k->...j", numpy.broadcast_to(a_np, (2, 4, 3, 3)), head)
    numpy.testing.assert_allclose(v.grad.asnumpy(), grad_v.sum(0), rtol=1e-10)
    assert mx.np.einsum("i...,i...", mx.np.ones((2, 3)), mx.np.ones((2, 3))).shape == (3,)


def test_broadcast_to_minus_two_where_scalar_condition_and_bitwise_operators():
    assert mx.np.broadcast_to(mx.np.ones(3), (2, -2)).shape == (2, 3)
    got = mx.np.where(True, numpy.inf, mx.np.ones((2, 2)))
    assert numpy.isinf(got.asnumpy()).all() and got.shape == (2, 2)
    a, b = mx.np.array([1, 0, 1]) > 0, mx.np.array([1, 1, 0]) > 0
    assert (a | b).asnumpy().tolist() == [True, True, True]
    assert (a & b).asnumpy().tolist() == [True, False, False]
    assert (a ^ b).asnumpy().tolist() == [False, True, True]
    assert (mx.np.array([6], dtype="int32") | 1).asnumpy().tolist() == [7]


def test_array_parameter_sampler_shapes():
    loc, scale = mx.np.zeros((2, 1)), mx.np.ones(3)
    assert mx.np.random.normal(loc, scale).shape == (2, 3)
    assert mx.np.random.normal(loc, scale, size=SampleN((5,))).shape == (5, 2, 3)
    assert mx.np.random.normal(loc, scale, size=(4, 2, 3)).shape == (4, 2, 3)
    assert mx.np.random.normal(0.0, 1.0, size=SampleN((5,))).shape == (5,)
    assert mx.npx.random.normal_n(loc, 1.0, (4,)).shape == (4, 2, 1)
    assert mx.npx.random.uniform_n(0.0, scale, 4).shape == (4, 3)
    assert mx.npx.random.bernoulli(mx.np.array([0.2, 0.8]), size=SampleN((6,))).shape == (6, 2)
    assert mx.npx.tensor_poisson(mx.np.ones(2), (3,)).shape == (2, 3)
    assert mx.npx.scalar_poisson(2.0, (3,)).shape == (3,)
    with pytest.raises(ValueError, match="cannot broadcast to size"):
        mx.np.random.normal(loc, scale, size=(3,))


@pytest.mark.parametrize("name, params, mean", [
    ("uniform", (1.0, [2.0, 5.0]), [1.5, 3.0]),
    ("normal", ([1.0, -2.0], 0.5), [1.0, -2.0]),
    ("exponential", ([0.5, 2.0],), [0.5, 2.0]),
    ("gumbel", ([0.0, 1.0], 2.0), [2 * numpy.euler_gamma, 1 + 2 * numpy.euler_gamma]),
    ("laplace", ([0.0, 3.0], 1.0), [0.0, 3.0]),
    ("weibull", ([1.0, 2.0],), [1.0, numpy.sqrt(numpy.pi) / 2]),
    ("pareto", ([3.0, 5.0],), [0.5, 0.25]),
    ("beta", ([2.0, 1.0], 2.0), [0.5, 1 / 3]),
    ("chisquare", ([2.0, 6.0],), [2.0, 6.0]),
])
def test_array_parameter_sampler_means(name, params, mean):
    mx.random.seed(1)
    args = [mx.np.array(p) if isinstance(p, list) else p for p in params]
    draws = getattr(mx.np.random, name)(*args, size=SampleN((6000,))).asnumpy()
    assert draws.shape == (6000, 2)
    numpy.testing.assert_allclose(draws.mean(0), mean, rtol=0.08, atol=0.05)


def test_location_scale_samplers_are_reparameterised():
    loc, scale = mx.np.array([1.0, 2.0]), mx.np.array([0.5, 3.0])
    loc.attach_grad()
    scale.attach_grad()
    with mx.autograd.record():
        y = mx.np.random.normal(loc, scale, size=SampleN((10,)))
    y.backward()
    noise = (y.asnumpy() - loc.asnumpy()) / scale.asnumpy()
    numpy.testing.assert_allclose(loc.grad.asnumpy(), [10.0, 10.0])
    numpy.testing.assert_allclose(scale.grad.asnumpy(), noise.sum(0), rtol=1e-5)


@requires_oracle
@pytest.mark.oracle
def test_probability_ops_match_mxnet():
    # NOTE: `a` broadcasts against `v` but not the other way: MXNet 1.9.1's einsum gradient for an
    #   operand with size-1 ellipsis dims is not the sum over them (mxlab's matches central
    #   differences, test_einsum_ellipsis_broadcasts_with_gradients)
    code = """
mx.npx.set_np()
x = mx.np.array(inputs["x"]); a = mx.np.array(inputs["a"]); v = mx.np.array(inputs["v"])
x.attach_grad(); a.attach_grad(); v.attach_grad()
with mx.autograd.record():
    y = mx.npx.erfinv(x)
    e = mx.np.einsum("...jk,...j->...k", a, v)
    (y.sum() + (e * e).sum()).backward()
outputs.update(erfinv=y.asnumpy(), erfinv_grad=x.grad.asnumpy(), einsum=e.asnumpy(),
               einsum_grad_a=a.grad.asnumpy(), einsum_grad_v=v.grad.asnumpy(),
               gammaln=mx.npx.gammaln(x + 1).asnumpy(), erf=mx.npx.erf(x).asnumpy(),
               check=(mx.npx.constraint_check(x < 1, "m") * x).asnumpy(),
               bcast=mx.np.broadcast_to(v, (2, -2, -2)).asnumpy())
mx.npx.reset_np()
"""
    inputs = {"x": RNG.uniform(-0.9, 0.9, 5).astype("float32"),
              "a": RNG.normal(size=(2, 4, 3, 3)).astype("float32"),
              "v": RNG.normal(size=(4, 3)).astype("float32")}
    mine, theirs = run_both(code, inputs)
    assert_same_results(mine, theirs, rtol=1e-4, atol=1e-5)


def test_gamma_draws_have_the_implicit_reparameterisation_gradient():
    import scipy.stats as ss
    shape = mx.np.array([0.7, 2.0, 5.0])
    shape.attach_grad()
    with mx.autograd.record():
        draws = mx.np.random.gamma(shape, 1.5)
    draws.backward()
    x, a = draws.asnumpy().astype("float64") / 1.5, shape.asnumpy().astype("float64")
    eps = 1e-4 * a
    dcdf = (ss.gamma.cdf(x, a + eps) - ss.gamma.cdf(x, a - eps)) / (2 * eps)
    numpy.testing.assert_allclose(shape.grad.asnumpy(), -dcdf / ss.gamma.pdf(x, a) * 1.5,
                                  rtol=1e-3)


@pytest.mark.parametrize("call", [
    lambda: mx.np.random.gamma(0.0, 1.0),
    lambda: mx.np.random.gamma(mx.np.array([1.0, -1.0]), 1.0),
    lambda: mx.np.random.gamma(mx.np.ones(2), mx.np.array([1.0, 0.0])),
    lambda: mx.np.random.weibull(-1.0),
    lambda: mx.npx.random.bernoulli(mx.np.array([0.5, 1.5])),
])
def test_sampler_parameter_checks(call):
    with pytest.raises(ValueError, match="must be|shape < 0"):
        call().wait_to_read()


def test_zero_size_draws_stay_in_the_graph():
    a = mx.np.ones((1,))
    a.attach_grad()
    with mx.autograd.record():
        out = mx.np.random.beta(a, a, size=(4, 0))
    out.backward()
    assert out.shape == (4, 0) and a.grad.asnumpy().tolist() == [0.0]


def test_npx_random_multinomial_counts_trials_per_batch_element():
    n = mx.np.array([[3.0, 5.0]])
    prob = mx.np.array([[[0.5, 0.5, 0.0], [0.0, 0.0, 1.0]]])
    counts = mx.npx.random.multinomial(n, prob, shape=(4,))
    assert counts.shape == (1, 2, 4, 3)
    values = counts.asnumpy()
    assert (values.sum(-1) == numpy.array([3.0, 5.0])[:, None]).all()
    assert (values[0, 0, :, 2] == 0).all() and (values[0, 1, :, 2] == 5).all()
