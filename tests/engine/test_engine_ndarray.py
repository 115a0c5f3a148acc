"""The engines under the array API: ops pushed, waited for, versioned, failing, switched."""
import os
import subprocess
import sys

import numpy
import pytest

import mxlab as mx
from mxlab.base import MXNetValueError


def _chain(xp_mod, tanh, a, steps):
    """Elementwise chain with reuse of earlier results (reads of shared inputs, new outputs)."""
    values = [a]
    for k in range(steps):
        x, y = values[-1], values[k // 2]
        values.append(tanh(x * 0.5 + y) if k % 3 == 0 else x * y + 1.0)
    return values[-1]


def test_op_chain_matches_numpy(engine):
    host = numpy.random.uniform(-1, 1, (64, 64)).astype("float32")
    result = _chain(mx.np, mx.np.tanh, mx.np.array(host), 30)
    expected = _chain(numpy, numpy.tanh, host, 30)
    assert result.shape == (64, 64)
    numpy.testing.assert_allclose(result.asnumpy(), expected, rtol=1e-5, atol=1e-6)


def test_array_versions_follow_the_engine(engine):
    a = mx.np.array(numpy.ones((3, 3), "float32"))
    a.wait_to_read()
    version = a.version
    for _ in range(10):
        _ = a * 2
    mx.engine.wait_all()
    assert a.version == version
    b = a + 1
    b.wait_to_read()
    assert b.version == 1
    names = [e.name for e in mx.engine.event_log.events()]
    assert len(names) == 12 and names.count(names[-2]) == 10


def test_in_place_updates_count_as_writes(engine):
    a = mx.np.array(numpy.array([1.0, 2.0], "float32"))
    a.wait_to_read()
    version = a.version
    for _ in range(10):
        a += 1
    numpy.testing.assert_array_equal(a.asnumpy(), [11, 12])
    assert a.version == version + 10


def test_bulk_scope_under_the_array_api(engine):
    a = mx.np.array(numpy.array([1.0, 2.0], "float32"))
    previous = mx.engine.set_bulk_size(0)
    with mx.engine.bulk(4):
        b = a * 2
        c = b + 1
        d = c * c
    assert mx.engine.set_bulk_size(previous) == 0
    numpy.testing.assert_array_equal(d.asnumpy(), [9, 25])
    bulks = {e.bulk for e in mx.engine.event_log.events()[-3:]}
    assert len(bulks) == 1 and (bulks.pop() is None) == (engine.name == "NaiveEngine")


def test_array_op_error_surfaces_by_the_next_read(engine):
    x = mx.np.array(numpy.ones((2, 3), "float32"))
    y = mx.np.array(numpy.ones((4, 5), "float32"))
    with pytest.raises(MXNetValueError, match="add"):
        z = x + y
        z.asnumpy()
    numpy.testing.assert_array_equal((x + x).asnumpy(), numpy.full((2, 3), 2, "float32"))


def test_set_engine_switches_and_restores():
    before = mx.engine.get_engine()
    threaded = mx.engine.set_engine("ThreadedEngine")
    try:
        assert mx.engine.get_engine() is threaded and threaded.is_async
        out = mx.np.array(numpy.arange(4, dtype="float32")) * 3
        numpy.testing.assert_array_equal(out.asnumpy(), [0, 3, 6, 9])
    finally:
        assert mx.engine.set_engine(before) is before
    assert mx.engine.get_engine() is before


def test_unknown_engine_name_is_an_error():
    with pytest.raises(MXNetValueError, match="NoSuchEngine"):
        mx.engine.set_engine("NoSuchEngine")
    expected = {"NaiveEngine", "ThreadedEngine", "ThreadedEnginePerDevice"}
    assert expected <= set(mx.engine.engine_types())


def test_engine_type_comes_from_the_environment():
    code = ("import numpy, mxlab as mx; a = mx.np.array(numpy.ones((512, 512), 'float32'));"
            "b = mx.np.tanh(a * a + a);"
            "print(type(mx.engine.get_engine()).__name__, float(b.asnumpy().sum()))")
    env = dict(os.environ, MXNET_ENGINE_TYPE="ThreadedEnginePerDevice")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=60, check=True).stdout.split()
    assert out[0] == "ThreadedEnginePerDevice"
    assert float(out[1]) == pytest.approx(512 * 512 * numpy.tanh(2.0), rel=1e-5)


def test_resource_vars_are_one_per_kind_and_device():
    rng_cpu = mx.engine.resource_var("rng", mx.cpu())
    assert mx.engine.resource_var("rng", mx.cpu(0)) is rng_cpu
    assert mx.engine.resource_var("rng", mx.cpu(1)) is not rng_cpu
    assert mx.engine.resource_var("temp", mx.cpu()) is not rng_cpu
    assert rng_cpu.name == "rng:cpu(0)"
