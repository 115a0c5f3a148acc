"""MXNet's other distributions: samplers (moments, seeds, shapes), densities and their gradients,
the special functions under them. Values against MXNet 1.9.1 in the oracle test at the end;
every execution path in tests/test_op_paths.py."""
import math

import numpy
import pytest
from helpers import assert_same_results, requires_oracle, run_both

import mxlab as mx
from mxlab.ops import special
from mxlab.ops.random import SampleN

N = 40000

# name, parameters, mean, variance (MXNet's parameterisations)
MOMENTS = [
    ("gamma", {"alpha": 9.0, "beta": 0.5}, 4.5, 9.0 * 0.25),
    ("exponential", {"scale": 0.25}, 0.25, 1 / 16),
    ("binomial", {"n": 10.0, "p": 0.3}, 3.0, 2.1),
    ("poisson", {"lam": 3.0}, 3.0, 3.0),
    ("negative_binomial", {"k": 3.0, "p": 0.4}, 3.0 * 0.6 / 0.4, 3.0 * 0.6 / 0.16),
    ("generalized_negative_binomial", {"mu": 2.0, "alpha": 0.3}, 2.0, 2.0 + 0.3 * 4.0),
]


@pytest.mark.parametrize("name,params,mean,var", MOMENTS, ids=[m[0] for m in MOMENTS])
def test_scalar_parameter_draws_have_the_distributions_moments(name, params, mean, var):
    mx.random.seed(11)
    x = getattr(mx.nd.random, name)(**params, shape=(N,)).asnumpy().astype("float64")
    assert x.shape == (N,) and x.dtype == numpy.float64
    sd_of_mean = math.sqrt(var / N)
    assert abs(x.mean() - mean) < 5 * sd_of_mean
    assert abs(x.var() - var) < 0.08 * var


@pytest.mark.parametrize("name,params,mean,var", MOMENTS, ids=[m[0] for m in MOMENTS])
def test_array_parameters_draw_per_element_and_the_seed_repeats_them(name, params, mean, var):
    arrays = {k: mx.nd.array([v, v]) for k, v in params.items()}
    fn = getattr(mx.nd.random, name)
    mx.random.seed(5)
    first = fn(**arrays, shape=(N // 2,)).asnumpy()
    mx.random.seed(5)
    again = fn(**arrays, shape=(N // 2,)).asnumpy()
    assert first.shape == (2, N // 2)
    numpy.testing.assert_array_equal(first, again)
    assert abs(first.mean() - mean) < 5 * math.sqrt(var / N)


def test_generalized_negative_binomial_with_zero_dispersion_is_poisson():
    mx.random.seed(3)
    x = mx.nd.random.generalized_negative_binomial(mx.nd.array([4.0]), mx.nd.array([0.0]),
                                                   shape=(N,)).asnumpy()
    assert abs(x.mean() - 4.0) < 0.06 and abs(x.var() - 4.0) < 0.3


def test_legacy_empty_shape_draws_one_value_and_like_takes_the_inputs_shape():
    assert mx.nd.random.gamma().shape == (1,)
    with mx.util.np_shape(True):
        assert mx.nd.random.exponential(shape=()).shape == ()
    like = mx.nd.random.poisson_like(mx.nd.zeros((2, 3), dtype="float64"), lam=2.0)
    assert like.shape == (2, 3) and like.dtype == numpy.float64
    assert (like.asnumpy() == numpy.round(like.asnumpy())).all()


def test_a_symbol_sampler_with_no_shape_takes_the_consumers_shape():
    """MXNet 1.x reads an empty shape as unknown: the graph infers it (here from X)."""
    x = mx.sym.var("X")
    y = mx.sym.random.exponential(scale=0.5) + x
    assert y.infer_shape(X=(300, 40))[1] == [(300, 40)]
    out = y._bind(mx.cpu(), {"X": mx.nd.zeros((300, 40))}).forward()[0].asnumpy()
    assert out.shape == (300, 40) and len(numpy.unique(out)) > 1000
    assert abs(out.mean() - 0.5) < 0.02


def test_symbol_parameters_give_a_sample_node():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    s = mx.sym.random.negative_binomial(a, b, shape=(3,))
    assert s.get_internals()[-1].tojson().count("_sample_negative_binomial") == 1
    out = s.eval(a=mx.nd.array([2.0, 5.0]), b=mx.nd.array([0.5, 0.5]))[0]
    assert out.shape == (2, 3)


NP_MOMENTS = [
    ("gamma", (2.0, 3.0), 6.0), ("exponential", (2.0,), 2.0), ("beta", (2.0, 6.0), 0.25),
    ("chisquare", (3.0,), 3.0), ("lognormal", (0.0, 0.5), math.exp(0.125)),
    ("logistic", (1.0, 2.0), 1.0), ("gumbel", (0.0, 1.0), 0.5772156649),
    ("laplace", (2.0, 1.0), 2.0), ("pareto", (3.0,), 0.5), ("power", (3.0,), 0.75),
    ("rayleigh", (2.0,), 2.0 * math.sqrt(math.pi / 2)), ("weibull", (1.0,), 1.0),
    ("f", (5.0, 10.0), 10.0 / 8.0),
]


@pytest.mark.parametrize("name,args,mean", NP_MOMENTS, ids=[m[0] for m in NP_MOMENTS])
def test_numpy_samplers_follow_numpys_parameterisation(name, args, mean):
    mx.random.seed(2)
    x = getattr(mx.np.random, name)(*args, size=(N,))
    assert isinstance(x, mx.np.ndarray) and x.shape == (N,) and x.dtype == numpy.float32
    assert abs(float(x.asnumpy().astype("float64").mean()) - mean) < 0.05 * max(1.0, mean)


def test_numpy_choice_and_errors():
    mx.random.seed(0)
    picks = mx.np.random.choice(4, size=(2000,), p=[0.0, 0.5, 0.5, 0.0]).asnumpy()
    assert set(numpy.unique(picks)) == {1, 2}
    values = mx.np.random.choice(mx.np.array([10.0, 20.0, 30.0]), size=5, replace=True)
    assert set(values.asnumpy()) <= {10.0, 20.0, 30.0}
    assert sorted(mx.np.random.choice(5, 5, replace=False).asnumpy()) == [0, 1, 2, 3, 4]
    with pytest.raises(TypeError, match="gamma"):
        mx.np.random.gamma(1.0, 2.0, 3.0, 4.0)
    # array shapes draw per element; SampleN((n,)) prepends n draws (MXNet 2.0's sample_n form)
    draws = mx.np.random.gamma(mx.np.array([2.0, 5.0]), 3.0, size=SampleN((4000,))).asnumpy()
    assert draws.shape == (4000, 2)
    numpy.testing.assert_allclose(draws.mean(0), [6.0, 15.0], rtol=0.06)


# -- densities ------------------------------------------------------------------------------------
def _lgamma(x):
    return numpy.vectorize(math.lgamma)(x)


def _log_densities(x, p):
    """Closed forms, written independently of the kernels (float64)."""
    return {
        "normal": lambda: (-0.5 * ((x - p[0]) / p[1]) ** 2 - numpy.log(p[1])
                           - 0.5 * math.log(2 * math.pi)),
        "gamma": lambda: (p[0] * numpy.log(p[1]) + (p[0] - 1) * numpy.log(x) - p[1] * x
                          - _lgamma(p[0])),
        "exponential": lambda: numpy.log(p[0]) - p[0] * x,
    }


@pytest.mark.parametrize("name", ["normal", "gamma", "exponential"])
@pytest.mark.parametrize("is_log", [False, True])
def test_continuous_densities_match_closed_forms(name, is_log):
    rng = numpy.random.default_rng(0)
    x = rng.uniform(0.2, 3.0, size=(2, 3, 5))
    params = [rng.uniform(0.5, 2.0, size=(2, 3)) for _ in range(1 if name == "exponential" else 2)]
    out = getattr(mx.nd, f"random_pdf_{name}")(mx.nd.array(x, dtype="float64"),
                                                *[mx.nd.array(p, dtype="float64") for p in params],
                                                is_log=is_log).asnumpy()
    want = _log_densities(x, [p[..., None] for p in params])[name]()
    numpy.testing.assert_allclose(out, want if is_log else numpy.exp(want), rtol=1e-10)


def _param_grads_numeric(fn, params, eps=1e-6):
    grads = []
    for i, p in enumerate(params):
        g = numpy.zeros_like(p)
        for idx in numpy.ndindex(p.shape):
            up, down = [q.copy() for q in params], [q.copy() for q in params]
            up[i][idx] += eps
            down[i][idx] -= eps
            g[idx] = (fn(*up).sum() - fn(*down).sum()) / (2 * eps)
        grads.append(g)
    return grads


@pytest.mark.parametrize("name,params", [
    ("poisson", [[2.0, 5.0]]), ("negative_binomial", [[3.0, 1.5], [0.4, 0.7]]),
    ("generalized_negative_binomial", [[2.0, 4.0], [0.3, 0.8]]),
    ("dirichlet", [[[1.5, 2.0, 0.7], [3.0, 1.0, 2.0]]]),
])
def test_discrete_and_dirichlet_parameter_gradients_match_differences(name, params):
    params = [numpy.array(p) for p in params]
    if name == "dirichlet":
        raw = numpy.random.default_rng(1).uniform(0.2, 1.0, size=(2, 4, 3))
        sample = raw / raw.sum(axis=-1, keepdims=True)
    else:
        sample = numpy.array([[0.0, 1.0, 4.0], [2.0, 5.0, 7.0]])
    op = getattr(mx.nd, f"random_pdf_{name}")

    def density(*ps):
        args = [mx.nd.array(v, dtype="float64") for v in (sample, *ps)]
        return op(*args, is_log=True).asnumpy()
    arrays = [mx.nd.array(v, dtype="float64") for v in (sample, *params)]
    for a in arrays:
        a.attach_grad()
    with mx.autograd.record():
        y = op(*arrays, is_log=True)
    y.backward()
    for got, want in zip(arrays[1:], _param_grads_numeric(density, params)):
        numpy.testing.assert_allclose(got.grad.asnumpy(), want, rtol=1e-5, atol=1e-7)
    if name == "dirichlet":
        assert y.shape == (2, 4)
    else:
        numpy.testing.assert_array_equal(arrays[0].grad.asnumpy(), 0.0)


def test_density_shapes_are_checked():
    with pytest.raises(ValueError, match="random_pdf_normal: sample shape"):
        mx.nd.random_pdf_normal(mx.nd.ones((3, 2)), mx.nd.ones((2,)),
                                mx.nd.ones((2,))).wait_to_read()
    with pytest.raises(ValueError, match="random_pdf_dirichlet"):
        mx.nd.random_pdf_dirichlet(mx.nd.ones((2, 4)), mx.nd.ones((2, 3))).wait_to_read()


# -- special functions ----------------------------------------------------------------------------
def test_special_function_fallbacks_match_lgamma_differences():
    """The series used without SciPy, against derivatives of math.lgamma."""
    x = numpy.array([-2.5, -0.3, 0.15, 0.5, 1.0, 2.7, 7.5, 40.0])
    h = 1e-4
    lg = numpy.vectorize(math.lgamma)
    numpy.testing.assert_allclose(special._digamma_series(numpy, x),
                                  (lg(x + h) - lg(x - h)) / (2 * h), rtol=1e-6, atol=1e-6)
    numpy.testing.assert_allclose(special._trigamma_series(numpy, x),
                                  (lg(x + h) - 2 * lg(x) + lg(x - h)) / h ** 2, rtol=1e-4)
    assert special._digamma_series(numpy, numpy.array([1.0]))[0] == pytest.approx(-0.5772156649)


def test_gamma_ops_and_their_gradients():
    x = mx.nd.array([0.5, 1.0, 4.0, 6.5], dtype="float64")
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.gammaln(x)
    y.backward()
    numpy.testing.assert_allclose(y.asnumpy(), [math.lgamma(v) for v in (0.5, 1.0, 4.0, 6.5)])
    numpy.testing.assert_allclose(x.grad.asnumpy(), special.digamma(numpy, x.asnumpy()))
    numpy.testing.assert_allclose(mx.nd.gamma(x).asnumpy(), [math.gamma(v) for v in
                                                             (0.5, 1.0, 4.0, 6.5)])


ORACLE_CODE = """
x, p1, p2 = (mx.nd.array(inputs[k], dtype="float64") for k in ("x", "p1", "p2"))
counts = mx.nd.array(inputs["counts"], dtype="float64")
cases = {"normal": (x, p1, p2), "gamma": (x, p1, p2), "exponential": (x, p1),
         "uniform": (x, p1 - 1, p2 + 3), "poisson": (counts, p1),
         "negative_binomial": (counts, p1 + 1, p2 / 3),
         "generalized_negative_binomial": (counts, p1, p2)}
for name, args in cases.items():
    for is_log in (False, True):
        args = [a.copy() for a in args]
        for a in args:
            a.attach_grad()
        with mx.autograd.record():
            y = getattr(mx.nd, "random_pdf_" + name)(*args, is_log=is_log)
        y.backward(mx.nd.ones_like(y) * 0.5)
        key = name + ("_log" if is_log else "")
        outputs[key] = y.asnumpy()
        for i, a in enumerate(args):
            outputs[key + "_grad%d" % i] = a.grad.asnumpy()
outputs["gammaln"] = mx.nd.gammaln(p1 * 3).asnumpy()
outputs["gamma"] = mx.nd.gamma(p1 * 3).asnumpy()
"""


@pytest.mark.oracle
@requires_oracle
def test_densities_and_gradients_match_mxnet():
    rng = numpy.random.default_rng(4)
    inputs = {"x": rng.uniform(0.2, 3.0, size=(2, 3, 4)), "p1": rng.uniform(0.5, 2.0, size=(2, 3)),
              "p2": rng.uniform(0.5, 2.0, size=(2, 3)),
              "counts": rng.integers(0, 6, size=(2, 3, 4)).astype("float64")}
    assert_same_results(*run_both(ORACLE_CODE, inputs), rtol=1e-6, atol=1e-9)


def test_multinomial_counts_form_and_the_categorical_form():
    mx.random.seed(9)
    counts = mx.nd.random.multinomial(n=mx.nd.array([1000, 4]), p=mx.nd.array([[0.2, 0.8],
                                                                               [0.5, 0.5]]),
                                      shape=(3,))
    assert counts.shape == (2, 3, 2) and counts.dtype == numpy.float32
    numpy.testing.assert_array_equal(counts.asnumpy().sum(axis=-1), [[1000] * 3, [4] * 3])
    assert abs(counts.asnumpy()[0, :, 0].mean() - 200) < 60
    assert mx.nd.random.multinomial(mx.nd.array([[0.0, 1.0]]), shape=4).asnumpy().tolist() == \
        [[1, 1, 1, 1]]
    with pytest.raises(ValueError, match="not a mix"):
        mx.nd.random.multinomial(mx.nd.array([[0.5, 0.5]]), n=mx.nd.array([3]))


def test_nd_op_module_spells_the_same_functions():
    assert mx.nd.op.random_pdf_poisson is mx.nd.random_pdf_poisson
    with mx.np_shape():
        res = mx.nd.op.random_pdf_dirichlet(sample=mx.nd.ones((4, 0)), alpha=mx.nd.ones((0,)))
    assert res.shape == (4,)


def test_rand_zipfian_counts_follow_the_log_uniform_law():
    mx.random.seed(6)
    true = mx.nd.array([0, 3, 9], dtype="int32")
    sampled, count_true, count_sampled = mx.nd.contrib.rand_zipfian(true, 4000, 20)
    classes = sampled.asnumpy()
    assert classes.dtype == numpy.int64 and classes.min() >= 0 and classes.max() < 20
    law = numpy.log((numpy.arange(20) + 2) / (numpy.arange(20) + 1)) / math.log(21)
    numpy.testing.assert_allclose(count_true.asnumpy(), law[[0, 3, 9]] * 4000)
    numpy.testing.assert_allclose(count_sampled.asnumpy(), law[classes] * 4000)
    assert abs((classes == 0).mean() - law[0]) < 0.03
    outs = mx.sym.contrib.rand_zipfian(mx.sym.var("t"), 5, 20)
    got = mx.sym.Group(outs).eval(t=true)
    numpy.testing.assert_allclose(got[1].asnumpy(), law[[0, 3, 9]] * 5)


def test_unique_zipfian_rows_are_distinct_and_count_their_draws():
    classes, tries = mx.nd._sample_unique_zipfian(range_max=50, shape=(3, 20))
    assert classes.shape == (3, 20) and tries.shape == (3,)
    for row, n in zip(classes.asnumpy(), tries.asnumpy()):
        assert len(set(row.tolist())) == 20 and row.max() < 50 and n >= 20
    with pytest.raises(ValueError, match="cannot draw 60 distinct"):
        mx.nd._sample_unique_zipfian(range_max=50, shape=(1, 60))
        mx.nd.waitall()     # NOTE: under ThreadedEngine the kernel's error surfaces here


def test_positional_shape_dtype_follow_the_parameters_as_in_mxnet():
    """``uniform(low, high, shape, dtype)``: MXNet's positional order (as
    test_contrib_control_flow calls it)."""
    x = mx.nd.random.uniform(0, 1, (2, 3), "float64")
    assert x.shape == (2, 3) and x.dtype == numpy.float64
    assert mx.sym.random.normal(0, 1, (4,)).eval()[0].shape == (4,)
    assert mx.np.random.gamma(1.0, 2.0, (3,)).shape == (3,)
    with pytest.raises(TypeError, match="multiple values for argument 'shape'"):
        mx.nd.random.uniform(0, 1, (2,), shape=(3,))
    with pytest.raises(TypeError, match="positional arguments"):
        mx.nd.random.uniform(0, 1, (2,), "float32", None, None, 7)
