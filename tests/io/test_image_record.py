"""ImageRecordIter / ImageRecordUInt8Iter, ImageIter(path_imgrec), ImageRecordDataset.

Records are PNG (lossless), so the decoded pixels are known exactly and every expectation here is
computed from the stored arrays. The same iterators against MXNet 1.9.1 are in
tests/oracle/test_mxnet_oracle.py (opt-in)."""
import numpy
import pytest

import mxlab as mx

SIZES = [(10, 12), (8, 8), (9, 14), (12, 9), (8, 11)]


@pytest.fixture
def records(tmp_path):
    """Five RGB images of different sizes in ``one.rec`` (label i) and ``two.rec`` (labels
    [i, 10 + i], with an index file)."""
    rng = numpy.random.default_rng(0)
    images = [rng.integers(0, 256, size=(h, w, 3), dtype=numpy.uint8) for h, w in SIZES]
    one = mx.recordio.MXRecordIO(str(tmp_path / "one.rec"), "w")
    two = mx.recordio.MXIndexedRecordIO(str(tmp_path / "two.idx"), str(tmp_path / "two.rec"),
                                        "w")
    for i, img in enumerate(images):
        # NOTE: pack_img takes OpenCV's BGR order, as MXNet's
        one.write(mx.recordio.pack_img((0, i, i, 0), img[..., ::-1], img_fmt=".png"))
        two.write_idx(i, mx.recordio.pack_img((0, [i, 10 + i], i, 0), img[..., ::-1],
                                              img_fmt=".png"))
    one.close()
    two.close()
    return str(tmp_path / "one.rec"), images


def _two(path):
    return path.replace("one.rec", "two.rec")


def _center(img, height, width):
    y, x = (img.shape[0] - height) // 2, (img.shape[1] - width) // 2
    return img[y:y + height, x:x + width].transpose(2, 0, 1)


def test_center_crop_and_mxnet_normalisation(records):
    path, images = records
    it = mx.io.ImageRecordIter(path_imgrec=path, data_shape=(3, 8, 8), batch_size=3,
                               mean_r=10, mean_g=20, mean_b=30, std_r=2, std_g=3, std_b=4,
                               scale=0.5)
    batches = list(it)
    assert [b.pad for b in batches] == [0, 1]
    data = numpy.concatenate([b.data[0].asnumpy() for b in batches])
    mean = numpy.array([10, 20, 30], "float32").reshape(3, 1, 1)
    std = numpy.array([2, 3, 4], "float32").reshape(3, 1, 1)
    for i, img in enumerate(images + images[:1]):        # the pad wraps to the first image
        want = (_center(img, 8, 8).astype("float32") - mean) * 0.5 / std
        numpy.testing.assert_allclose(data[i], want, rtol=1e-6)
    assert batches[1].label[0].asnumpy().tolist() == [3, 4, 0]
    assert it.provide_data[0].shape == (3, 3, 8, 8)


def test_uint8_iter_label_width_mirror_and_zero_fill(records):
    path, images = records
    it = mx.io.ImageRecordUInt8Iter(path_imgrec=_two(path), data_shape=(3, 8, 8), batch_size=2,
                                    label_width=2, mirror=True, round_batch=False)
    batches = list(it)
    last = batches[-1]
    assert last.data[0].dtype == numpy.uint8 and last.pad == 1
    numpy.testing.assert_array_equal(last.data[0].asnumpy()[0],
                                     _center(images[4], 8, 8)[:, :, ::-1])
    assert not last.data[0].asnumpy()[1].any()                # zeros, never garbage
    assert last.label[0].asnumpy().tolist() == [[4, 14], [0, 0]]


def test_resize_and_enlarge_give_the_data_shape(records):
    path, _ = records
    for kwargs in ({"resize": 7, "data_shape": (3, 6, 6)}, {"data_shape": (3, 11, 11)}):
        batch = next(iter(mx.io.ImageRecordIter(path_imgrec=path, batch_size=5, **kwargs)))
        assert batch.data[0].shape == (5,) + kwargs["data_shape"]
        assert batch.data[0].asnumpy().std() > 10             # pixels, not a constant fill


def test_shuffle_is_seeded_and_parts_split_the_records(records):
    path, _ = records

    def labels(**kwargs):
        it = mx.io.ImageRecordIter(path_imgrec=path, data_shape=(3, 8, 8), batch_size=1,
                                   **kwargs)
        return [int(b.label[0].asnumpy()[0]) for b in it]
    shuffled = labels(shuffle=True, seed=3)
    assert sorted(shuffled) == [0, 1, 2, 3, 4] and shuffled == labels(shuffle=True, seed=3)
    assert labels(num_parts=2, part_index=0) + labels(num_parts=2, part_index=1) == \
        [0, 1, 2, 3, 4]


def test_image_iter_and_image_record_dataset_read_records(records):
    path, images = records
    it = mx.image.ImageIter(batch_size=5, data_shape=(3, 8, 8), path_imgrec=path)
    batch = it.next()
    for i, img in enumerate(images):
        numpy.testing.assert_array_equal(batch.data[0].asnumpy()[i], _center(img, 8, 8))
    assert batch.label[0].asnumpy().tolist() == [0, 1, 2, 3, 4]
    dataset = mx.gluon.data.vision.ImageRecordDataset(_two(path))
    image, label = dataset[2]
    assert len(dataset) == 5 and list(label) == [2, 12]
    numpy.testing.assert_array_equal(image.asnumpy(), images[2])


@pytest.mark.parametrize("kwargs, kind, words", [
    ({"max_rotate_angle": 10}, NotImplementedError, "max_rotate_angle"),
    ({"no_such_option": 1}, ValueError, "no_such_option"),
    ({"data_shape": (2, 8, 8)}, ValueError, "data_shape"),
    ({"label_width": 2}, ValueError, "label_width"),
])
def test_bad_parameters_are_named(records, kwargs, kind, words):
    path, _ = records
    args = {"path_imgrec": path, "data_shape": (3, 8, 8), "batch_size": 2, **kwargs}
    with pytest.raises(mx.MXNetError, match=words) as err:
        next(iter(mx.io.ImageRecordIter(**args)))
    assert isinstance(err.value, kind)


def test_a_missing_record_file_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.rec"):
        mx.io.ImageRecordIter(path_imgrec=str(tmp_path / "nope.rec"), data_shape=(3, 8, 8),
                              batch_size=1)
    with pytest.raises(FileNotFoundError, match="nope"):
        mx.gluon.data.RecordFileDataset(str(tmp_path / "nope.rec"))
