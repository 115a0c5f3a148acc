"""The signature-keyed plan cache: hits, misses, LRU, build-then-insert, switch, threads, keys."""

import threading

import numpy
import pytest

import mxlab as mx
from mxlab import op_cache
from mxlab.base import MXNetValueError


@pytest.fixture(autouse=True)
def _fresh_cache():
    op_cache.clear()
    previous = op_cache.set_limit(None)
    yield
    op_cache.set_limit(previous)
    op_cache.enable(True)
    op_cache.clear()


def _key(name, shape, **attrs):
    return op_cache.signature(name, attrs, [(shape, "float32")])


def test_hit_after_miss_and_info_counts():
    builds = []
    key = _key("demo", (2, 3), kernel=(3, 3))
    for _ in range(3):
        plan = op_cache.get_or_build(key, lambda: builds.append(1) or "plan")
    stats = op_cache.info()["demo"]
    assert plan == "plan" and len(builds) == 1
    assert (stats.hits, stats.misses, stats.size, stats.evictions) == (2, 1, 1, 0)
    assert stats.build_time >= 0 and op_cache.info().hit_rate == pytest.approx(2 / 3)


def test_whole_key_equality_with_rank_and_count_separation():
    """(2, 3) vs (2, 3, 1) vs two arrays (2,) and (3,): three different plans."""
    keys = [
        _key("demo", (2, 3)),
        _key("demo", (2, 3, 1)),
        op_cache.signature("demo", {}, [((2,), "float32"), ((3,), "float32")]),
        op_cache.signature("demo", {}, [((2, 3), "float64")]),
        op_cache.signature("demo", {}, [((2, 3), "float32")], device=("gpu", 0)),
    ]
    assert len(set(keys)) == len(keys)
    for i, key in enumerate(keys):
        op_cache.get_or_build(key, lambda i=i: i)
    assert [op_cache.get_or_build(k, lambda: None) for k in keys] == list(range(len(keys)))


def test_lru_bound_evicts_least_recently_used():
    op_cache.set_limit(2)
    a, b, c = (_key("demo", (n,)) for n in (1, 2, 3))
    op_cache.get_or_build(a, lambda: "a")
    op_cache.get_or_build(b, lambda: "b")
    op_cache.get_or_build(a, lambda: "a2")  # a is now the most recent
    op_cache.get_or_build(c, lambda: "c")  # evicts b
    assert op_cache.get_or_build(a, lambda: "rebuilt") == "a"
    assert op_cache.get_or_build(b, lambda: "b2") == "b2"
    stats = op_cache.info()["demo"]
    assert stats.size == 2 and stats.evictions == 2
    op_cache.set_limit(1)
    assert op_cache.info()["demo"].size == 1
    with pytest.raises(MXNetValueError, match="set_limit"):
        op_cache.set_limit(-1)


def test_failed_build_leaves_no_entry():
    key = _key("demo", (4,))

    def broken():
        raise RuntimeError("init failed")

    with pytest.raises(RuntimeError):
        op_cache.get_or_build(key, broken)
    assert op_cache.info()["demo"].size == 0 and op_cache.info()["demo"].failures == 1
    assert op_cache.get_or_build(key, lambda: "ok") == "ok"


def test_disable_switch_rebuilds_every_call_and_restores():
    key = _key("demo", (5,))
    with op_cache.disable():
        assert not op_cache.is_enabled()
        for _ in range(3):
            op_cache.get_or_build(key, lambda: "plan")
    assert op_cache.is_enabled()
    stats = op_cache.info()["demo"]
    assert (stats.misses, stats.hits, stats.size) == (3, 0, 0)
    op_cache.enable(False)
    assert not op_cache.is_enabled()
    op_cache.enable()
    assert op_cache.is_enabled()


def test_each_thread_has_its_own_cache():
    key = _key("demo", (6,))
    op_cache.get_or_build(key, lambda: "main")
    seen = []
    worker = threading.Thread(
        target=lambda: seen.append(
            (op_cache.get_or_build(key, lambda: "worker"), op_cache.info()["demo"].misses)
        )
    )
    worker.start()
    worker.join()
    # NOTE: the worker builds its own plan; info() sums both threads' misses
    assert seen == [("worker", 2)] and op_cache.get_or_build(key, lambda: "x") == "main"


def test_conv_pool_batchnorm_plans_go_through_the_cache():
    x = mx.nd.array(numpy.random.randn(2, 3, 8, 8))
    w = mx.nd.array(numpy.random.randn(4, 3, 3, 3))
    stats = [mx.nd.array(numpy.zeros(4)), mx.nd.array(numpy.ones(4))]
    params = [mx.nd.array(numpy.ones(4)), mx.nd.array(numpy.zeros(4))]
    for _ in range(3):
        y = mx.nd.Convolution(x, w, kernel=(3, 3), pad=(1, 1), num_filter=4, no_bias=True)
        y = mx.nd.BatchNorm(y, *params, *stats)
        mx.nd.Pooling(y, kernel=(2, 2), stride=(2, 2)).asnumpy()
    info = op_cache.info()
    # NOTE: a threaded engine's workers each build their plan once (MXNet's thread_local maps)
    engine = mx.engine.get_engine()
    threads = engine.num_workers if engine.is_async else 1
    for name in ("Convolution", "BatchNorm", "Pooling"):
        assert info[name].misses + info[name].hits == 3 and 1 <= info[name].misses <= threads
    text = repr(info)
    assert "Convolution" in text and "hit_rate" in text and "<table>" in info._repr_html_()


def test_disabled_cache_still_computes_the_same():
    x = mx.nd.array(numpy.random.randn(1, 2, 6, 6))
    w = mx.nd.array(numpy.random.randn(3, 2, 3, 3))
    on = mx.nd.Convolution(x, w, kernel=(3, 3), num_filter=3, no_bias=True).asnumpy()
    with op_cache.disable():
        off = mx.nd.Convolution(x, w, kernel=(3, 3), num_filter=3, no_bias=True).asnumpy()
    assert numpy.allclose(on, off, atol=1e-5)
    assert op_cache.info()["Convolution"].size == 1
