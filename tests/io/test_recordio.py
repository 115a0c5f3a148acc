"""``mx.recordio`` writes the bytes MXNet 1.9.1 writes (fixtures/mxnet191/make_recordio.py made
the reference files) and reads them back, with random access through the index."""
import importlib.util
import os
import pickle

import numpy
import pytest

import mxlab as mx

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "mxnet191")


def _records():
    """The records the maker wrote (it imports mxnet only when run)."""
    spec = importlib.util.spec_from_file_location("make_recordio",
                                                  os.path.join(HERE, "make_recordio.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.RECORDS


def test_written_bytes_equal_mxnet_191(tmp_path):
    records = _records()
    w = mx.recordio.MXIndexedRecordIO(tmp_path / "r.idx", tmp_path / "r.rec", "w")
    for i, r in enumerate(records):
        w.write_idx(i, r)
    w.write_idx(len(records), mx.recordio.pack((0, [1.5, 2.0], 7, 0), b"payload"))
    w.write_idx(len(records) + 1, mx.recordio.pack((0, 3.0, 8, 1), b"p2"))
    w.close()
    for ext in ("rec", "idx"):
        assert (tmp_path / f"r.{ext}").read_bytes() == \
            open(os.path.join(HERE, f"records.{ext}"), "rb").read()


def test_reads_mxnet_files_sequentially_and_by_key():
    records = _records()
    reader = mx.recordio.MXRecordIO(os.path.join(HERE, "records.rec"), "r")
    for r in records:
        assert reader.read() == r
    header, payload = mx.recordio.unpack(reader.read())
    assert header.flag == 2 and header.label.tolist() == [1.5, 2.0] and payload == b"payload"
    header, payload = mx.recordio.unpack(reader.read())
    assert (header.flag, header.label, header.id, header.id2) == (0, 3.0, 8, 1)
    assert reader.read() is None
    indexed = mx.recordio.MXIndexedRecordIO(os.path.join(HERE, "records.idx"),
                                            os.path.join(HERE, "records.rec"), "r")
    assert indexed.keys == list(range(len(records) + 2))
    for key in reversed(indexed.keys[:len(records)]):
        assert indexed.read_idx(key) == records[key]
    clone = pickle.loads(pickle.dumps(indexed))
    assert clone.read_idx(3) == records[3]


def test_images_round_trip_in_bgr_and_errors(tmp_path):
    img = numpy.zeros((4, 6, 3), numpy.uint8)
    img[..., 0] = 200    # blue in OpenCV's channel order
    header, back = mx.recordio.unpack_img(mx.recordio.pack_img((0, 1.0, 0, 0), img,
                                                               img_fmt=".png"))
    assert header.label == 1.0 and (back == img).all()
    with pytest.raises(ValueError, match="img_fmt"):
        mx.recordio.pack_img((0, 1.0, 0, 0), img, img_fmt=".bmp")
    writer = mx.recordio.MXRecordIO(tmp_path / "w.rec", "w")
    with pytest.raises(RuntimeError, match="flag 'w'"):
        writer.read()
    (tmp_path / "bad.rec").write_bytes(b"notarecord")
    with pytest.raises(ValueError, match="bad magic"):
        mx.recordio.MXRecordIO(tmp_path / "bad.rec", "r").read()
