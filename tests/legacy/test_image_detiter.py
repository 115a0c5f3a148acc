"""MXNet 1.x's ``mx.image.ImageDetIter`` and detection augmenters on a tiny local image set: the
label layout (objects padded with -1), .lst / imglist / .rec (+ .idx) sources, the last-batch
modes, label-shape sync, and seeded crops / pads / flips checked against MXNet 1.9.1."""
import pathlib
import random
import sys

import numpy as np
import pytest
from PIL import Image

import mxlab as mx

sys.path.insert(0, str(pathlib.Path(__file__).parent.parent / "oracle"))
from mxnet_oracle import assert_same_outputs, requires_mxnet, run_mxlab  # noqa: E402

# NOTE: the same program runs under mxlab and MXNet 1.9.1 (PNG images: both decode them exactly)
CODE = """
import os, random, tempfile
from PIL import Image
root = tempfile.mkdtemp()
imgs, labels = inputs['imgs'], inputs['labels']   # labels: (n, 2 + 3 * 5), zero padded
entries = []
for k in range(imgs.shape[0]):
    Image.fromarray(imgs[k]).save(os.path.join(root, 'im%d.png' % k))
    n = int(inputs['counts'][k])
    entries.append([float(v) for v in labels[k, :2 + 5 * n]] + ['im%d.png' % k])
lst = os.path.join(root, 'det.lst')
with open(lst, 'w') as f:
    for k, e in enumerate(entries):
        f.write('\\t'.join([str(k)] + [str(v) for v in e]) + '\\n')
rec_path, idx_path = os.path.join(root, 'det.rec'), os.path.join(root, 'det.idx')
rec = mx.recordio.MXIndexedRecordIO(idx_path, rec_path, 'w')
for k, e in enumerate(entries):
    with open(os.path.join(root, e[-1]), 'rb') as f:
        header = mx.recordio.IRHeader(0, np.array(e[:-1], 'float32'), k, 0)
        rec.write_idx(k, mx.recordio.pack(header, f.read()))
rec.close()
Det = mx.image.ImageDetIter
SHAPE = (3, 16, 24)


def run(tag, it, epochs=1):
    outputs[tag + '_label_shape'] = np.array(it.label_shape)
    b = 0
    for ep in range(epochs):
        it.reset()
        for batch in it:
            outputs['%s_%d_label' % (tag, b)] = batch.label[0].asnumpy()
            outputs['%s_%d_pad' % (tag, b)] = np.array(batch.pad)
            if tag in ('plain', 'flip', 'rec', 'lst'):
                outputs['%s_%d_data' % (tag, b)] = batch.data[0].asnumpy()
            b += 1
    outputs[tag + '_batches'] = np.array(b)


random.seed(0)
run('plain', Det(2, SHAPE, imglist=entries, path_root=root), 2)
run('lst', Det(3, SHAPE, path_imglist=lst, path_root=root, last_batch_handle='roll_over'), 3)
run('discard', Det(3, SHAPE, path_imglist=lst, path_root=root, last_batch_handle='discard'), 2)
run('rec', Det(2, SHAPE, path_imgrec=rec_path))
random.seed(1)
run('recidx', Det(2, SHAPE, path_imgrec=rec_path, path_imgidx=idx_path, shuffle=True), 2)
random.seed(2)
run('flip', Det(2, SHAPE, imglist=entries, path_root=root, rand_mirror=True), 3)
random.seed(3)
run('crop', Det(2, SHAPE, imglist=entries, path_root=root, rand_crop=1,
                min_object_covered=[0.1, 0.5], area_range=(0.2, 1.0),
                aspect_ratio_range=(0.5, 2)), 4)
random.seed(4)
run('pad', Det(2, SHAPE, imglist=entries, path_root=root, rand_pad=1, area_range=(0.5, 3.0)), 4)
random.seed(5)
run('all', Det(2, SHAPE, imglist=entries, path_root=root, rand_crop=0.5, rand_pad=0.5,
               rand_mirror=True, min_eject_coverage=0.5, max_attempts=20), 4)
a = Det(2, SHAPE, imglist=entries[:2], path_root=root)
v = Det(2, SHAPE, imglist=entries, path_root=root)
outputs['sync_before'] = np.array(a.label_shape + v.label_shape)
a.sync_label_shape(v)
outputs['sync_after'] = np.array(a.label_shape + v.label_shape + a.provide_label[0][1])
a.reshape(data_shape=(3, 20, 20))
outputs['reshaped'] = np.array(a.provide_data[0][1])
crop = mx.image.DetRandomCropAug(min_object_covered=0.3, area_range=(0.1, 0.9))
random.seed(6)
lab = np.array([[1, 0.1, 0.2, 0.6, 0.9, 7], [2, 0.5, 0.5, 0.9, 0.8, 8]], 'float32')
for t in range(5):
    img, l2 = crop(mx.nd.array(imgs[0], dtype='uint8'), lab.copy())
    outputs['crop_aug_%d' % t] = l2
    outputs['crop_aug_img_%d' % t] = img.asnumpy()
pad = mx.image.DetRandomPadAug(area_range=(1.0, 2.5), pad_val=(1, 2, 3))
for t in range(3):
    img, l2 = pad(mx.nd.array(imgs[1], dtype='uint8'), lab.copy())
    outputs['pad_aug_%d' % t] = l2
    outputs['pad_aug_img_%d' % t] = img.asnumpy()
"""


def det_inputs():
    rng = np.random.RandomState(0)
    n = 5
    imgs = rng.randint(0, 255, (n, 16, 24, 3)).astype('uint8')
    counts = rng.randint(1, 4, n)
    labels = np.zeros((n, 2 + 15), 'float32')
    labels[:, 0], labels[:, 1] = 2, 5
    for k in range(n):
        for j in range(counts[k]):
            xy, wh = rng.uniform(0, 0.6, 2), rng.uniform(0.15, 0.4, 2)
            labels[k, 2 + 5 * j:7 + 5 * j] = [rng.randint(0, 5), xy[0], xy[1], xy[0] + wh[0],
                                              xy[1] + wh[1]]
    return {'imgs': imgs, 'labels': labels, 'counts': counts.astype('float32')}


def _images(tmp_path, n=3, size=(16, 24)):
    """``n`` PNG files and their imglist entries (one or two boxes each)."""
    rng = np.random.RandomState(7)
    entries = []
    for k in range(n):
        Image.fromarray(rng.randint(0, 255, size + (3,)).astype("uint8")).save(
            tmp_path / f"im{k}.png")
        boxes = [[k, 0.1, 0.2, 0.5, 0.6]] + ([[9, 0.5, 0.5, 0.9, 0.8]] if k % 2 else [])
        entries.append([2, 5] + [v for b in boxes for v in b] + [f"im{k}.png"])
    return entries


def test_labels_are_padded_with_minus_one_to_the_most_objects(tmp_path):
    entries = _images(tmp_path)
    it = mx.image.ImageDetIter(2, (3, 16, 24), imglist=entries, path_root=str(tmp_path))
    assert it.label_shape == (2, 5) and it.provide_label == [("label", (2, 2, 5))]
    batch = it.next()
    assert batch.data[0].shape == (2, 3, 16, 24) and batch.pad == 0
    label = batch.label[0].asnumpy()
    np.testing.assert_allclose(label[0], [[0, .1, .2, .5, .6], [-1] * 5])
    np.testing.assert_allclose(label[1], [[1, .1, .2, .5, .6], [9, .5, .5, .9, .8]])
    image = np.asarray(Image.open(tmp_path / "im0.png"))
    np.testing.assert_array_equal(batch.data[0].asnumpy()[0], image.transpose(2, 0, 1))
    last = it.next()     # 'pad': the last batch wraps to the first image
    assert last.pad == 1
    np.testing.assert_allclose(last.label[0].asnumpy()[1], label[0])
    with pytest.raises(StopIteration):
        it.next()


def test_last_batch_modes_and_reset(tmp_path):
    entries = _images(tmp_path, n=5)
    root = str(tmp_path)
    discard = mx.image.ImageDetIter(2, (3, 16, 24), imglist=entries, path_root=root,
                                    last_batch_handle="discard")
    assert [b.pad for b in discard] == [0, 0]
    roll = mx.image.ImageDetIter(2, (3, 16, 24), imglist=entries, path_root=root,
                                 last_batch_handle="roll_over")
    assert [b.pad for b in roll] == [0, 0]
    roll.reset()
    first = roll.next()      # the rolled-over image (#5) then the first of the new epoch
    assert first.label[0].asnumpy()[:, 0, 0].tolist() == [4, 0]
    with pytest.raises(ValueError, match="last_batch_handle"):
        mx.image.ImageDetIter(2, (3, 16, 24), imglist=entries, last_batch_handle="keep")


def test_sync_label_shape_and_reshape(tmp_path):
    entries = _images(tmp_path)
    one = mx.image.ImageDetIter(1, (3, 16, 24), imglist=entries[:1], path_root=str(tmp_path))
    two = mx.image.ImageDetIter(1, (3, 16, 24), imglist=entries, path_root=str(tmp_path))
    assert (one.label_shape, two.label_shape) == ((1, 5), (2, 5))
    assert two.sync_label_shape(one) is one and one.label_shape == (2, 5)
    assert one.next().label[0].shape == (1, 2, 5)
    with pytest.raises(ValueError, match="reduce label count from 2 to 1"):
        one.reshape(label_shape=(1, 5))
    with pytest.raises(ValueError, match="object width inconsistent: 5 vs 6"):
        one.reshape(label_shape=(3, 6))
    with pytest.raises(ValueError, match="3 channels"):
        one.reshape(data_shape=(1, 8, 8))
    one.reshape(data_shape=(3, 8, 12))
    assert one.provide_data == [("data", (1, 3, 8, 12))]
    one.reset()     # the augmenters still resize to 16x24 (as MXNet's): refused, naming both
    with pytest.raises(ValueError, match=r"\(16, 24, 3\) after augmentation.*\(3, 8, 12\)"):
        one.next()


def test_bad_labels_and_no_images_are_errors(tmp_path):
    entries = _images(tmp_path)
    entries[1] = [2, 5, 0, 0.5, 0.5, 0.4, 0.4, "im1.png"]      # only an empty box
    with pytest.raises(RuntimeError, match="no valid label"):    # as MXNet: while sizing labels
        mx.image.ImageDetIter(2, (3, 16, 24), imglist=entries, path_root=str(tmp_path))
    entries[1] = [2, 5, 0, 0.5, 0.5, 0.9, 0.9, 1, 0.5, 0.5, 0.4, 0.4, "im1.png"]
    it = mx.image.ImageDetIter(2, (3, 16, 24), imglist=entries, path_root=str(tmp_path))
    assert it.label_shape == (1, 5)     # the empty box is dropped
    entries[1] = [2, 4, 0, 0.5, 0.5, 0.9, 0.9, 1, "im1.png"]
    with pytest.raises(RuntimeError, match="inconsistent with annotation width 4"):
        mx.image.ImageDetIter(2, (3, 16, 24), imglist=entries, path_root=str(tmp_path))
    with pytest.raises(ValueError, match="found no image"):
        mx.image.ImageDetIter(2, (3, 16, 24), imglist=[], path_root=str(tmp_path))
    with pytest.raises(ValueError, match="path_imgrec, path_imglist or imglist"):
        mx.image.ImageDetIter(2, (3, 16, 24))


def test_augmenters_move_the_boxes():
    img = mx.nd.array(np.arange(2 * 4 * 3).reshape(2, 4, 3), dtype="uint8")
    label = np.array([[0, 0.0, 0.25, 0.5, 0.75]], "float32")
    flipped, out = mx.image.DetHorizontalFlipAug(1.0)(img, label.copy())
    np.testing.assert_array_equal(flipped.asnumpy(), img.asnumpy()[:, ::-1])
    np.testing.assert_allclose(out, [[0, 0.5, 0.25, 1.0, 0.75]])
    random.seed(0)
    padded, out = mx.image.DetRandomPadAug(area_range=(2, 4), pad_val=(1, 2, 3))(img, label)
    h, w = padded.shape[:2]
    assert h > 2 and w > 4 and padded.asnumpy()[0, 0].tolist() in ([1, 2, 3], [0, 1, 2])
    np.testing.assert_allclose((out[0, 3] - out[0, 1]) * w, 0.5 * 4, rtol=1e-5)
    augs = mx.image.CreateDetAugmenter((3, 8, 8), resize=10, rand_crop=0.5, rand_pad=0.5,
                                       rand_mirror=True, mean=True, std=True)
    assert [type(a).__name__ for a in augs] == [
        "DetBorrowAug", "DetRandomSelectAug", "DetHorizontalFlipAug", "DetRandomSelectAug",
        "DetBorrowAug", "DetBorrowAug", "DetBorrowAug"]
    with pytest.raises(TypeError, match="invalid Augmenter"):
        mx.image.DetBorrowAug(mx.image.DetHorizontalFlipAug(0.5))
    assert mx.image.det.DetRandomCropAug is mx.image.DetRandomCropAug


def test_draw_next_needs_opencv(tmp_path):
    it = mx.image.ImageDetIter(1, (3, 16, 24), imglist=_images(tmp_path), path_root=str(tmp_path))
    try:
        import cv2  # noqa: F401
    except ImportError:
        with pytest.raises(NotImplementedError, match="cv2"):
            next(it.draw_next())
    else:   # pragma: no cover - OpenCV is optional
        assert next(it.draw_next()).shape == (16, 24, 3)


def test_pinned_program_runs():
    out = run_mxlab(CODE, det_inputs())
    assert out["plain_label_shape"].tolist() == [3, 5]
    assert int(out["lst_batches"]) == 5 and int(out["discard_batches"]) == 2
    assert out["sync_after"].tolist() == [3, 5, 3, 5, 2, 3, 5]


@pytest.mark.oracle
@requires_mxnet
def test_matches_mxnet_1_9_1():
    assert_same_outputs(CODE, det_inputs(), rtol=1e-6)
