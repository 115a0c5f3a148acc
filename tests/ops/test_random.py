"""Random sampling: reproducibility under ``mx.random.seed``, shapes, dtypes, ranges and rough
moments, the three namespaces (``mx.random``, ``mx.nd.random``, ``mx.np.random``), op flags and
errors."""

import numpy
import pytest

import mxlab as mx
from mxlab.base import MXNetValueError
from mxlab.ops.registry import get_op


@pytest.fixture(autouse=True)
def _restore_seed():
    yield
    mx.random.seed(0)


SAMPLERS = [
    lambda: mx.nd.random.uniform(-1, 2, shape=(50,)),
    lambda: mx.nd.random.normal(1, 2, shape=(50,)),
    lambda: mx.nd.random.randint(0, 100, shape=(50,)),
    lambda: mx.np.random.uniform(size=(50,)),
    lambda: mx.np.random.normal(size=50),
    lambda: mx.np.random.randint(10, size=(50,)),
    lambda: mx.random.uniform(shape=(5, 10)),
]


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_same_seed_same_numbers(sampler):
    mx.random.seed(123)
    first = sampler().asnumpy()
    second = sampler().asnumpy()
    mx.random.seed(123)
    again = sampler().asnumpy()
    numpy.testing.assert_array_equal(first, again)
    assert not numpy.array_equal(first, second)


def test_uniform_range_dtype_and_mean():
    mx.random.seed(1)
    x = mx.nd.random.uniform(-1, 3, shape=(4000,)).asnumpy()
    assert x.dtype == numpy.float32 and x.min() >= -1 and x.max() < 3
    assert abs(x.mean() - 1.0) < 0.1
    assert mx.np.random.uniform(0, 1, size=(2, 3), dtype="float64").dtype == numpy.float64


def test_normal_moments():
    mx.random.seed(2)
    x = mx.np.random.normal(5.0, 0.5, size=(4000,)).asnumpy()
    assert abs(x.mean() - 5.0) < 0.05 and abs(x.std() - 0.5) < 0.05


def test_randint_bounds_and_dtypes():
    x = mx.nd.random.randint(3, 7, shape=(1000,))
    assert x.dtype == numpy.int32 and set(x.asnumpy().tolist()) == {3, 4, 5, 6}
    y = mx.np.random.randint(4, size=(1000,))
    assert y.dtype == numpy.int64 and set(y.asnumpy().tolist()) == {0, 1, 2, 3}
    with pytest.raises(MXNetValueError, match="randint: low"):
        mx.np.random.randint(5, 5, size=(2,))


def test_size_none_gives_0d_and_shapes():
    assert mx.np.random.uniform().shape == ()
    assert mx.np.random.rand(2, 3).shape == (2, 3) and mx.np.random.randn(4).shape == (4,)
    assert mx.nd.random_uniform(shape=(2,)).shape == (2,) and mx.nd.random_normal(
        shape=(3,)
    ).shape == (3,)


def test_device_and_per_device_seed():
    x = mx.nd.random.uniform(shape=(3,), ctx=mx.cpu(1))
    assert x.context == mx.cpu(1)
    mx.random.seed(9, ctx=mx.cpu(0))
    a = mx.np.random.uniform(size=(3,)).asnumpy()
    mx.random.seed(9, ctx=mx.cpu(0))
    b = mx.np.random.uniform(size=(3,)).asnumpy()
    numpy.testing.assert_array_equal(a, b)


def test_bernoulli_and_shuffle():
    mx.random.seed(3)
    b = mx.np.random.bernoulli(prob=0.25, size=(4000,)).asnumpy()
    assert set(numpy.unique(b).tolist()) <= {0.0, 1.0} and abs(b.mean() - 0.25) < 0.05
    x = mx.np.arange(20)
    before = x.version
    mx.np.random.shuffle(x)
    assert sorted(x.asnumpy().tolist()) == list(range(20)) and x.version > before
    y = mx.nd.random.shuffle(mx.nd.arange(20).reshape((10, 2)))
    assert sorted(y.asnumpy()[:, 0].tolist()) == list(range(0, 20, 2))
    assert (y.asnumpy()[:, 1] - y.asnumpy()[:, 0] == 1).all()  # rows move whole


def test_array_parameters_draw_per_element():
    mx.random.seed(4)
    low, high = mx.nd.array([0.0, 10.0]), mx.nd.array([1.0, 10.5])
    x = mx.nd.random.uniform(low, high, shape=(500,)).asnumpy()
    assert x.shape == (2, 500) and x.dtype == numpy.float32
    assert x[0].min() >= 0 and x[0].max() < 1 and x[1].min() >= 10 and x[1].max() < 10.5
    y = mx.nd.random.normal(mx.nd.array([0.0, 100.0]), 0.1).asnumpy()
    assert y.shape == (2,) and abs(y[1] - 100) < 1
    mx.random.seed(4)
    again = mx.nd.random.uniform(low, high, shape=(500,)).asnumpy()
    numpy.testing.assert_array_equal(x, again)
    op = get_op("_sample_uniform")
    assert op.infer_shapes(op.parse_attrs({"shape": (3,)}), [(2,), (2,)])[1] == [(2, 3)]


def test_ops_declare_rng_and_no_gradient():
    for name in (
        "_random_uniform",
        "_random_normal",
        "_random_randint",
        "_npi_uniform",
        "_shuffle",
    ):
        op = get_op(name)
        assert op.is_random and op.resources == ("rng",)
    op = get_op("_random_uniform")
    attrs = op.parse_attrs({"shape": (2, 5), "dtype": "float16"})
    assert op.infer_shapes(attrs, []) == ([], [(2, 5)]) and op.infer_types(attrs, []) == (
        [],
        ["float16"],
    )
    for alias in ("uniform", "random_uniform", "normal", "random_normal", "randint"):
        assert get_op(alias).is_random


def test_errors():
    with pytest.raises(MXNetValueError, match="random.seed: seed_state must be an integer"):
        mx.random.seed("abc")
    with pytest.raises(MXNetValueError, match="scale.*must be non-negative"):
        mx.nd.random.normal(0, -1, shape=(2,))
    with pytest.raises(MXNetValueError, match=r"np.random.uniform: .*\(2,\).*size \(3,\)"):
        mx.np.random.uniform(mx.np.zeros((2,)), mx.np.ones((2,)), size=(3,))
    with pytest.raises(MXNetValueError, match="bernoulli: give exactly one"):
        mx.np.random.bernoulli(size=(2,))


def test_np_multinomial_counts_shapes_and_seeding():
    # D2L's probability section: `from mxnet.numpy.random import multinomial`
    from mxlab.numpy.random import multinomial

    mx.random.seed(3)
    counts = multinomial(10000, [1 / 6] * 6)
    assert counts.shape == (6,) and counts.dtype == numpy.int64
    assert int(counts.sum()) == 10000 and (abs(counts.asnumpy() / 10000 - 1 / 6) < 0.03).all()
    mx.random.seed(3)
    assert (multinomial(10000, [1 / 6] * 6).asnumpy() == counts.asnumpy()).all()
    batch = mx.np.random.multinomial(5, mx.np.array([0.2, 0.8, 0.0]), size=(2, 4))
    assert batch.shape == (2, 4, 3) and (batch.asnumpy().sum(-1) == 5).all()
    assert (batch.asnumpy()[..., 2] == 0).all()


def test_np_multinomial_rejects_bad_pvals():
    with pytest.raises(MXNetValueError, match="pvals"):
        mx.np.random.multinomial(10, [0.6, 0.6])
    with pytest.raises(MXNetValueError, match="pvals"):
        mx.np.random.multinomial(10, [-0.1, 1.1])


@pytest.mark.parametrize("size, shape", [(None, (0,)), (0, (0, 0)), ((0, 2), (0, 2, 0)),
                                         ((3,), (3, 0))])
def test_multinomial_without_outcomes_gives_empty_counts(size, shape):
    # MXNet 1.9.1: pvals [] or () gives int64 counts of shape size + (0,)
    out = mx.np.random.multinomial(10, [], size=size)
    assert out.shape == shape and out.dtype == numpy.int64
    with pytest.raises(MXNetValueError, match="pvals"):
        mx.np.random.multinomial(10, [0.7, 0.6])


def test_negative_seeds_are_seeds_as_in_mxnet():
    # MXNet's seed is a C int: negative values seed as well (test_random::test_random_seed)
    draws = []
    for seed in (-5, -5, 5):
        mx.random.seed(seed)
        draws.append(mx.random.uniform(shape=(3,)).asnumpy().tolist())
    assert draws[0] == draws[1] and draws[0] != draws[2]
