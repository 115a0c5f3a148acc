"""Small pieces of the patterns MXNet 1.9.1's ``example/`` scripts use: the MNIST getters of
``mx.test_utils``, the profiler's trace written at exit, ..."""
import gzip
import json
import os
import struct
import subprocess
import sys

import numpy as np
import pytest

import mxlab as mx


def _write_mnist(folder, n, gz):
    rng = np.random.RandomState(0)
    labels = rng.randint(0, 10, n).astype(np.uint8)
    images = rng.randint(0, 256, (n, 28, 28)).astype(np.uint8)
    opener, ext = (gzip.open, ".gz") if gz else (open, "")
    for prefix in ("train", "t10k"):
        with opener(os.path.join(folder, f"{prefix}-images-idx3-ubyte{ext}"), "wb") as f:
            f.write(struct.pack(">IIII", 2051, n, 28, 28) + images.tobytes())
        with opener(os.path.join(folder, f"{prefix}-labels-idx1-ubyte{ext}"), "wb") as f:
            f.write(struct.pack(">II", 2049, n) + labels.tobytes())
    return labels, images


# -- mx.test_utils: the MNIST getters ------------------------------------------------------------
def test_get_mnist_reads_gz_files_of_the_current_folder(tmp_path, monkeypatch):
    labels, images = _write_mnist(str(tmp_path), 6, gz=True)
    monkeypatch.chdir(tmp_path)
    mnist = mx.test_utils.get_mnist()
    assert sorted(mnist) == ["test_data", "test_label", "train_data", "train_label"]
    assert mnist["train_data"].shape == (6, 1, 28, 28)
    assert mnist["train_data"].dtype == np.float32
    np.testing.assert_allclose(mnist["train_data"][:, 0], images / np.float32(255))
    assert mnist["test_label"].dtype == np.int8
    np.testing.assert_array_equal(mnist["test_label"], labels)


def test_get_mnist_iterator_gives_flat_or_image_batches(tmp_path, monkeypatch):
    os.makedirs(tmp_path / "data")
    labels, _ = _write_mnist(str(tmp_path / "data"), 8, gz=False)
    monkeypatch.chdir(tmp_path)
    train, val = mx.test_utils.get_mnist_iterator(batch_size=4, input_shape=(784,))
    assert train.provide_data[0].shape == (4, 784)
    seen = np.concatenate([b.label[0].asnumpy() for b in val])   # MNISTIter shuffles by default
    np.testing.assert_array_equal(np.sort(seen), np.sort(labels))
    train, _ = mx.test_utils.get_mnist_iterator(batch_size=2, input_shape=(1, 28, 28))
    assert train.provide_data[0].shape == (2, 1, 28, 28)


# -- mx.profiler: the trace written at exit ------------------------------------------------------
_PROFILED_SCRIPT = """
import mxlab as mx
mx.profiler.set_config(profile_all=True, filename={name!r})
mx.profiler.set_state('run')
mx.nd.sqrt(mx.nd.ones((2, 2))).wait_to_read()
mx.profiler.set_state('stop')
"""


@pytest.mark.parametrize("dump_first", [False, True])
def test_profiler_that_ran_writes_its_trace_at_exit(tmp_path, dump_first):
    path = tmp_path / "trace.json"
    script = _PROFILED_SCRIPT.format(name=str(path))
    if dump_first:    # an explicit dump, then the file removed: nothing is written again
        script += "mx.profiler.dump()\nimport os; os.remove({!r})\n".format(str(path))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    subprocess.run([sys.executable, "-c", script], check=True, env=env, cwd=tmp_path)
    if dump_first:
        assert not path.exists()
        return
    names = {e["name"] for e in json.loads(path.read_text())["traceEvents"]}
    assert "sqrt" in names


# -- Module.bind: (name, shape, dtype) entries (example/rnn/word_lm's provide_data) ----------------
def test_module_binds_name_shape_dtype_tuples():
    data = mx.sym.Variable("data")
    emb = mx.sym.Embedding(data, input_dim=5, output_dim=2, name="embed")
    mod = mx.mod.Module(mx.sym.sum(emb), data_names=["data"], label_names=None)
    mod.bind(data_shapes=[("data", (2, 3), np.int32)], for_training=False)
    mod.init_params(initializer=mx.init.One())
    assert mod.data_shapes[0].dtype == np.int32
    assert mod._exec_group.execs[0].arg_dict["data"].dtype == np.int32
    batch = mx.io.DataBatch([mx.nd.array([[0, 1, 2], [3, 4, 0]], dtype="int32")])
    mod.forward(batch, is_train=False)
    np.testing.assert_allclose(mod.get_outputs()[0].asnumpy(), [12.0])
    with pytest.raises(TypeError, match="name, shape"):
        mod.bind(data_shapes=[("data",)], force_rebind=True)


# -- gluon.contrib.data.text (example/gluon/word_language_model) ---------------------------------
def test_wikitext2_reads_the_release_archive_and_shifts_labels(tmp_path):
    import zipfile
    with zipfile.ZipFile(tmp_path / "wikitext-2-v1.zip", "w") as zf:
        zf.writestr("wikitext-2/wiki.train.tokens", " x y z \n\n y z x \n")
    train = mx.gluon.contrib.data.text.WikiText2(str(tmp_path), "train", seq_len=3)
    assert (tmp_path / "wiki.train.tokens").exists()
    assert len(train) == 2 and train.frequencies["x"] == 2
    data, label = train[0]
    tokens = train.vocabulary.to_tokens
    assert tokens(data.asnumpy().tolist()) == ["x", "y", "z"]
    assert tokens(label.asnumpy().tolist()) == ["y", "z", "<eos>"]
    assert data.dtype == np.int32


def test_wikitext2_names_a_missing_file_and_a_bad_segment(tmp_path):
    text = mx.gluon.contrib.data.text
    with pytest.raises(FileNotFoundError, match="wiki.test.tokens"):
        text.WikiText103(str(tmp_path), "test")
    with pytest.raises(ValueError, match="segment"):
        text.WikiText2(str(tmp_path), "valid")


# -- ImageRecordIter(mean_img=) (example/stochastic-depth, example/image-classification) ---------
def test_image_record_iter_creates_then_uses_a_mean_image(tmp_path):
    rec = mx.recordio.MXRecordIO(str(tmp_path / "a.rec"), "w")
    pixels = [np.full((4, 4, 3), v, np.uint8) for v in (10, 30)]
    for i, img in enumerate(pixels):
        rec.write(mx.recordio.pack_img(mx.recordio.IRHeader(0, float(i), i, 0), img,
                                       img_fmt=".png"))
    rec.close()
    mean_path = str(tmp_path / "mean.bin")
    it = mx.io.ImageRecordIter(path_imgrec=str(tmp_path / "a.rec"), data_shape=(3, 4, 4),
                               batch_size=2, mean_img=mean_path)
    np.testing.assert_allclose(mx.nd.load(mean_path)["mean_img"].asnumpy(), 20.0)
    np.testing.assert_allclose(next(it).data[0].asnumpy()[:, 0, 0, 0], [-10.0, 10.0])
    with pytest.raises(ValueError, match="shape"):
        mx.io.ImageRecordIter(path_imgrec=str(tmp_path / "a.rec"), data_shape=(3, 2, 2),
                              batch_size=2, mean_img=mean_path)


# -- mx.contrib.quantization (example/quantization) ----------------------------------------------
def test_quantization_imports_and_names_itself_as_not_built():
    from mxlab.contrib import quantization
    assert quantization.cpu() == mx.cpu()      # scripts use names its star import brings
    sym = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc")
    with pytest.raises(NotImplementedError, match="quantize_model: INT8 quantization"):
        quantization.quantize_model(sym=sym, arg_params={}, aux_params={}, ctx=mx.cpu())
    with pytest.raises(NotImplementedError, match="quantize_net_v2"):
        quantization.quantize_net_v2(None)


# -- `from mxnet.metric import Accuracy` (example/gluon/image_classification.py) -----------------
def test_mxnet_metric_is_an_importable_module_under_the_alias():
    import importlib

    from mxlab import compat
    was_installed = compat.is_installed()
    compat.install()
    try:
        metric = importlib.import_module("mxnet.metric")
        assert metric is mx.metric
        acc = metric.CompositeEvalMetric([metric.Accuracy(), metric.TopKAccuracy(2)])
        acc.update([mx.nd.array([1, 0])], [mx.nd.array([[0.2, 0.8], [0.9, 0.1]])])
        assert acc.get()[1] == [1.0, 1.0]
    finally:
        if not was_installed:
            compat.uninstall()
