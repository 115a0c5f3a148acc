"""mx.metric / gluon.metric: every scenario of fixtures/mxnet191/metric_scenarios.py gives the
values MXNet 1.9.1 gave (metrics.npz), plus the API's edges."""
import importlib.util
import pathlib

import numpy
import pytest

import mxlab as mx

FIXTURES = pathlib.Path(__file__).parent / "fixtures" / "mxnet191"
_spec = importlib.util.spec_from_file_location("metric_scenarios",
                                               FIXTURES / "metric_scenarios.py")
scenarios = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scenarios)
WANT = numpy.load(FIXTURES / "metrics.npz")
GOT = scenarios.run(mx)


@pytest.mark.parametrize("key", sorted(WANT.files))
def test_metric_values_equal_mxnet_191(key):
    numpy.testing.assert_allclose(GOT[key], WANT[key], rtol=1e-6, atol=1e-7)


def test_metric_api_edges():
    assert mx.metric is mx.gluon.metric_v1
    acc = mx.metric.create("acc")
    assert numpy.isnan(acc.get()[1])
    with pytest.raises(ValueError, match="does not match"):
        acc.update([mx.nd.array([1, 0])], [])
    with pytest.raises(ValueError, match="Cannot find metric 'nope'"):
        mx.metric.create("nope")
    custom = mx.metric.np(lambda label, pred: float((label == pred).mean()), name="eq")
    custom.update([mx.nd.array([1, 2])], [mx.nd.array([1, 3])])
    assert custom.get() == ("eq", 0.5)
    composite = mx.metric.create(["acc", "mse"])
    assert composite.get_name_value()[0][0] == "accuracy"
    with pytest.raises(ValueError, match="binary"):
        mx.metric.F1().update([mx.nd.array([0, 1, 2])], [mx.nd.ones((3, 2))])
