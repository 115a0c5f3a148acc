"""mx.rnn.io (encode_sentences, BucketSentenceIter) and mx.rnn's checkpoints with per-gate
weights."""
import numpy as np
import pytest

import mxlab as mx


def test_encode_sentences_builds_and_extends_a_vocabulary():
    codes, vocab = mx.rnn.encode_sentences([["a", "b"], ["b", "c"]], invalid_label=0,
                                           start_label=0)
    assert vocab == {"\n": 0, "a": 1, "b": 2, "c": 3} and codes == [[1, 2], [2, 3]]
    codes, vocab = mx.rnn.encode_sentences([["a", "z"]], vocab={"a": 5}, unknown_token="UNK")
    assert codes == [[5, 0]] and vocab["UNK"] == 0
    with pytest.raises(KeyError, match="Unknown token z"):
        mx.rnn.encode_sentences([["z"]], vocab={"a": 1})


def _sentences():
    return [[1, 2, 3]] * 4 + [[4, 5, 6, 7, 8]] * 6 + [[9] * 9]


def test_bucket_iterator_pads_labels_and_groups_by_length():
    it = mx.rnn.BucketSentenceIter(_sentences(), batch_size=2, buckets=[3, 6], invalid_label=0)
    assert it.buckets == [3, 6] and it.default_bucket_key == 6
    assert it.provide_data[0].shape == (2, 6)
    batches = list(it)
    assert sorted(b.bucket_key for b in batches) == [3, 3, 6, 6, 6]
    for batch in batches:
        data, label = batch.data[0].asnumpy(), batch.label[0].asnumpy()
        assert data.shape == (2, batch.bucket_key) == batch.provide_data[0].shape
        np.testing.assert_array_equal(label[:, :-1], data[:, 1:])
        assert (label[:, -1] == 0).all()
        if batch.bucket_key == 6:
            np.testing.assert_array_equal(data[0], [4, 5, 6, 7, 8, 0])
    it.reset()
    assert len(list(it)) == 5


def test_bucket_iterator_time_major_and_default_buckets():
    it = mx.rnn.BucketSentenceIter(_sentences(), batch_size=3, layout="TN")
    assert it.buckets == [3, 5]
    batch = next(iter(it))
    assert batch.data[0].shape == (batch.bucket_key, 3)
    with pytest.raises(ValueError, match="layout"):
        mx.rnn.BucketSentenceIter(_sentences(), batch_size=2, layout="NTC")


def test_rnn_checkpoint_round_trip_unpacks_on_disk(tmp_path):
    cell = mx.rnn.FusedRNNCell(3, num_layers=1, mode="gru", prefix="g_")
    out, _ = cell.unroll(2, mx.sym.Variable("data"), layout="TNC", merge_outputs=True)
    size = out.infer_shape(data=(2, 1, 4))[0][1][0]
    flat = mx.nd.array(np.random.RandomState(0).rand(size))
    prefix = str(tmp_path / "gru")
    mx.rnn.save_rnn_checkpoint(cell, prefix, 3, out, {"g_parameters": flat}, {})
    on_disk = mx.nd.load(prefix + "-0003.params")
    assert "arg:g_l0_i2h_z_weight" in on_disk and "arg:g_parameters" not in on_disk
    sym, arg, aux = mx.rnn.load_rnn_checkpoint([cell], prefix, 3)
    assert sym.list_arguments() == out.list_arguments() and aux == {}
    np.testing.assert_array_equal(arg["g_parameters"].asnumpy(), flat.asnumpy())


def test_do_rnn_checkpoint_saves_every_period(tmp_path):
    cell = mx.rnn.RNNCell(2, prefix="r_")
    out, _ = cell.unroll(1, [mx.sym.Variable("x")])
    prefix = str(tmp_path / "r")
    args = {"r_i2h_weight": mx.nd.ones((2, 3)), "r_i2h_bias": mx.nd.zeros((2,)),
            "r_h2h_weight": mx.nd.ones((2, 2)), "r_h2h_bias": mx.nd.zeros((2,))}
    callback = mx.rnn.do_rnn_checkpoint(cell, prefix, period=2)
    for epoch in range(4):
        callback(epoch, out[0], args, {})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r-0002.params", "r-0004.params",
                                                         "r-symbol.json"]
