"""mx.callback and mx.monitor.Monitor as Module.fit and MXNet 1.x scripts use them."""
import logging

import numpy as np

import mxlab as mx


def _net():
    x = mx.sym.Variable("data")
    x = mx.sym.FullyConnected(x, num_hidden=2, name="fc_0")
    x = mx.sym.Activation(x, act_type="sigmoid", name="act_0")
    return mx.sym.LinearRegressionOutput(x, name="lro")


def _train_iter():
    rng = np.random.RandomState(0)
    return mx.io.NDArrayIter(rng.normal(size=(12, 2)), rng.normal(size=(12, 2)), batch_size=4,
                             label_name="lro_label")


def test_fit_calls_checkpoint_speedometer_and_progress_callbacks(tmp_path, caplog):
    prefix = str(tmp_path / "m")
    mod = mx.mod.Module(_net(), label_names=["lro_label"])
    seen = []
    with caplog.at_level(logging.INFO):
        mod.fit(_train_iter(), num_epoch=2, eval_metric="mse",
                epoch_end_callback=[mx.callback.do_checkpoint(prefix),
                                    mx.callback.module_checkpoint(mod, prefix + "-mod", 2, True)],
                batch_end_callback=[mx.callback.Speedometer(4, frequent=1),
                                    mx.callback.ProgressBar(total=3),
                                    mx.callback.log_train_metric(1),
                                    lambda param: seen.append((param.epoch, param.nbatch))])
    assert seen == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    assert (tmp_path / "m-0001.params").exists() and (tmp_path / "m-0002.params").exists()
    assert (tmp_path / "m-mod-0002.states").exists()
    assert not (tmp_path / "m-mod-0001.params").exists()
    messages = [r.getMessage() for r in caplog.records]
    assert any("Speed:" in m and "samples/sec" in m and "mse=" in m for m in messages)
    assert any(m.startswith("[") and "%" in m for m in messages)
    assert any(m.startswith("Epoch[1] Train-mse=") for m in messages)
    symbol, arg, _ = mx.model.load_checkpoint(prefix, 2)
    np.testing.assert_array_equal(arg["fc_0_weight"].asnumpy(),
                                  mod.get_params()[0]["fc_0_weight"].asnumpy())
    assert symbol.list_outputs() == ["lro_output"]


def test_validation_metrics_callback_logs_each_metric(caplog):
    param = mx.model.BatchEndParam(3, 0, mx.metric.create("mse"), {})
    param.eval_metric.update([mx.nd.zeros((2,))], [mx.nd.ones((2,))])
    with caplog.at_level(logging.INFO):
        mx.callback.LogValidationMetricsCallback()(param)
    assert caplog.records[-1].getMessage() == "Epoch[3] Validation-mse=1.000000"


def test_monitor_sees_outputs_gradients_and_arguments_matching_pattern():
    mod = mx.mod.Module(_net(), label_names=["lro_label"])
    it = _train_iter()
    mod.bind(it.provide_data, it.provide_label)
    mod.init_params(mx.init.One())
    mon = mx.mon.Monitor(2, stat_func=lambda x: mx.nd.sum(mx.nd.abs(x)), pattern="fc_0.*",
                         sort=True)
    mod.install_monitor(mon)
    batches = list(it)
    mon.tic()
    mod.forward_backward(batches[0])
    first = mon.toc()
    names = [name for _, name, _ in first]
    assert names == sorted(names) and all(n.startswith("fc_0") for n in names)
    assert {"fc_0_output", "fc_0_weight", "fc_0_bias"} <= set(names)
    assert sum("backward" in n for n in names) == 3    # data, weight and bias gradients
    stat = dict((name, value) for _, name, value in first)["fc_0_weight"]
    assert float(stat.strip()) == 4.0                    # sum |ones(2, 2)|
    mon.tic()                                            # step 1 of interval 2: not collected
    mod.forward_backward(batches[1])
    assert mon.toc() == []
