"""Pieces of MXNet 1.9.1's ``example/`` scripts against real MXNet 1.9.1 (opt-in ``oracle``
tests): the same data pipeline gives the same arrays."""
import pathlib
import sys

import numpy
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent.parent / "oracle"))
from mxnet_oracle import requires_mxnet, run_mxlab, run_mxnet  # noqa: E402

pytestmark = [pytest.mark.oracle, requires_mxnet]

# NOTE: MXNet re-fetches a file whose SHA-1 is not the release's; the fake files are taken as they
#   are by turning that check off on its side (mxlab never fetches).
_WIKITEXT = """
import importlib, os, tempfile
T = importlib.import_module(mx.__name__ + '.gluon.contrib.data.text')
if hasattr(T, 'check_sha1'):
    T.check_sha1 = lambda *a: True
root = tempfile.mkdtemp()
lines = [' = Title = ', '', ' the cat sat on the mat . ', ' a dog , the cat and a bird . ', '']
for name in ('train', 'valid', 'test'):
    with open(os.path.join(root, 'wiki.%s.tokens' % name), 'w') as f:
        f.write('\\n'.join(lines * (3 if name == 'train' else 1)) + '\\n')
train = T.WikiText2(root, 'train', seq_len=5)
val = T.WikiText2(root, 'validation', vocab=train.vocabulary, seq_len=4)
outputs['n'] = len(train)
outputs['data'] = train._data.asnumpy()
outputs['label'] = train._label.asnumpy()
outputs['val'] = val._data.asnumpy()
outputs['vocab'] = np.array(train.vocabulary.idx_to_token)
outputs['first'] = train[1][0].asnumpy()
"""


def test_wikitext2_matches_mxnet():
    theirs = run_mxnet(_WIKITEXT, {})
    ours = run_mxlab(_WIKITEXT, {})
    assert int(ours["n"]) == int(theirs["n"])
    for key in ("data", "label", "val", "vocab", "first"):
        numpy.testing.assert_array_equal(ours[key], theirs[key], err_msg=key)
    assert ours["data"].dtype == theirs["data"].dtype


_MEAN_IMG = """
import os
rec, mean_path = str(inputs['rec']), str(inputs['mean'])
if os.path.exists(mean_path):
    os.remove(mean_path)
it = mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 6, 6), batch_size=4,
                           mean_img=mean_path, scale=0.5)
outputs['first'] = next(it).data[0].asnumpy()
outputs['mean'] = mx.nd.load(mean_path)['mean_img'].asnumpy()
again = mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 6, 6), batch_size=4,
                              mean_img=mean_path, scale=0.5)
outputs['loaded'] = next(again).data[0].asnumpy()
"""


def test_image_record_iter_mean_img_matches_mxnet(tmp_path):
    import mxlab as mx
    rng = numpy.random.RandomState(3)
    rec = mx.recordio.MXRecordIO(str(tmp_path / "img.rec"), "w")
    for i in range(6):     # PNG: both decoders give the same pixels
        img = rng.randint(0, 256, (8, 8, 3)).astype(numpy.uint8)
        rec.write(mx.recordio.pack_img(mx.recordio.IRHeader(0, float(i), i, 0), img,
                                       img_fmt=".png"))
    rec.close()
    inputs = {"rec": numpy.array(str(tmp_path / "img.rec")),
              "mean": numpy.array(str(tmp_path / "mean.bin"))}
    theirs = run_mxnet(_MEAN_IMG, inputs)
    ours = run_mxlab(_MEAN_IMG, inputs)
    for key in ("mean", "first", "loaded"):
        numpy.testing.assert_allclose(ours[key], theirs[key], rtol=1e-5, atol=1e-4, err_msg=key)


_ARRAY_DATASET = """
u = mx.nd.array(inputs['u'], dtype='int32')
s = mx.nd.array(inputs['s'])
m = mx.nd.array(inputs['m'])
ds = mx.gluon.data.ArrayDataset(u, s, m)
first = ds[1]
outputs['first_u'] = np.asarray(first[0])
outputs['first_m'] = first[2].asnumpy()
outputs['first_ndim'] = np.array([np.ndim(first[0]), np.ndim(first[1])])
for a, b, c in mx.gluon.data.DataLoader(ds, batch_size=3):
    outputs['a'], outputs['b'], outputs['c'] = a.asnumpy(), b.asnumpy(), c.asnumpy()
    break
"""


def test_array_dataset_of_1d_arrays_matches_mxnet():
    """example/recommenders: ArrayDataset(users, items, scores) of 1-d arrays batches to (N,)."""
    inputs = {"u": numpy.array([3, 1, 4, 1, 5]), "s": numpy.array([0.5, 1.5, 2.5, 3.5, 4.5]),
              "m": numpy.arange(10, dtype=numpy.float32).reshape(5, 2)}
    theirs = run_mxnet(_ARRAY_DATASET, inputs)
    ours = run_mxlab(_ARRAY_DATASET, inputs)
    for key in theirs:
        numpy.testing.assert_array_equal(ours[key], theirs[key], err_msg=key)
        assert ours[key].dtype == theirs[key].dtype, key
