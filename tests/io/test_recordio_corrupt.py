"""Corrupt or truncated RecordIO files raise instead of reading short records.

The good file is what MXNet 1.9.1 writes for three records of 20, 56 and 8 bytes (headers at
bytes 0, 28 and 92, 108 bytes in all). MXNet 1.9.1 (dmlc-core's ``RecordIOReader``) reads the
first record, then on the second raises ``MXNetError``:

- cut inside the record:            "Check failed: ... Invalid RecordIO File upper_align=56"
- cut inside the header:            "Check failed: nread == sizeof(header): Inavlid RecordIO File"
- bad magic:                        "Check failed: header[0] == ...kMagic: Invalid RecordIO File"
- length field 1000 (or 2**29 - 1): "... Invalid RecordIO File upper_align=1000" (it allocates
  the claimed length first; mxlab checks the file size before reading).

mxlab raises ``MXNetValueError`` with "Invalid RecordIO File", the path and the header's byte
offset. Where MXNet is laxer mxlab is stricter: a split record cut after its first part reads as
the end of the file in MXNet (mxlab raises), stray continuation flags are joined by MXNet
(mxlab raises), an index position past the end reads ``None`` in MXNet (mxlab raises at open).
"""
import os
import struct

import numpy
import pytest

import mxlab as mx
from mxlab.base import MXNetError, MXNetValueError

HOSTILE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "hostile_files")
MAGIC = struct.pack("<I", 0xced7230a)


def _good(tmp_path):
    """The bytes MXNet 1.9.1 writes for records of 20, 56 and 8 bytes."""
    path = tmp_path / "good.rec"
    w = mx.recordio.MXIndexedRecordIO(tmp_path / "good.idx", path, "w")
    for key, record in enumerate([b"a" * 20, b"b" * 56, b"c" * 8]):
        w.write_idx(key, record)
    w.close()
    data = path.read_bytes()
    assert len(data) == 108 and (tmp_path / "good.idx").read_text() == "0\t0\n1\t28\n2\t92\n"
    return data


def _second_read_fails(path, match):
    reader = mx.recordio.MXRecordIO(path, "r")
    assert reader.read() == b"a" * 20
    with pytest.raises(MXNetError, match=match) as info:
        reader.read()
    assert isinstance(info.value, ValueError)
    assert "Invalid RecordIO File" in str(info.value) and str(path) in str(info.value)
    return str(info.value)


@pytest.mark.parametrize("name, cut, match", [
    ("inside_record", lambda d: d[:56], "holds 20 more at byte 28"),
    ("inside_header", lambda d: d[:32], "ends inside a record header .4 of 8 bytes. at byte 28"),
    ("bad_magic", lambda d: d[:28] + b"\0" * 4 + d[32:], "bad magic 0x00000000 at byte 28"),
    ("long_length", lambda d: d[:32] + struct.pack("<I", 1000) + d[36:],
     "says 1000 bytes .* holds 72 more at byte 28"),
    ("last_record_cut", lambda d: d[:106], "says 8 bytes .* holds 6 more at byte 92"),
])
def test_the_corruptions_mxnet_refuses_raise(tmp_path, name, cut, match):
    path = tmp_path / f"{name}.rec"
    path.write_bytes(cut(_good(tmp_path)))
    reader = mx.recordio.MXRecordIO(path, "r")
    if name == "last_record_cut":
        assert reader.read() == b"a" * 20 and reader.read() == b"b" * 56
        with pytest.raises(MXNetError, match=match):
            reader.read()
        return
    _second_read_fails(path, match)


def test_a_29_bit_length_is_checked_against_the_file_before_reading(tmp_path, monkeypatch):
    path = tmp_path / "huge.rec"
    data = _good(tmp_path)
    path.write_bytes(data[:32] + struct.pack("<I", (1 << 29) - 1) + data[36:])
    reader = mx.recordio.MXRecordIO(path, "r")
    assert reader.read() == b"a" * 20
    sizes = []
    real_read = reader.handle.read
    monkeypatch.setattr(reader, "handle", _SpyHandle(reader.handle, sizes, real_read))
    with pytest.raises(MXNetValueError, match=f"says {(1 << 29) - 1} bytes"):
        reader.read()
    assert max(sizes) == 8    # only the header was read: no 512 MiB buffer


class _SpyHandle:
    """A file handle recording the sizes asked of ``read``."""

    def __init__(self, handle, sizes, real_read):
        self._handle, self._sizes, self._read = handle, sizes, real_read

    def read(self, n=-1):
        self._sizes.append(n)
        return self._read(n)

    def __getattr__(self, name):
        return getattr(self._handle, name)


def test_split_records_check_their_continuation_flags(tmp_path):
    path = tmp_path / "split.rec"
    w = mx.recordio.MXRecordIO(path, "w")
    w.write(b"xxxx" + MAGIC + b"yyyy")      # parts: cflag 1 'xxxx', cflag 3 'yyyy'
    w.close()
    data = path.read_bytes()
    assert mx.recordio.MXRecordIO(path, "r").read() == b"xxxx" + MAGIC + b"yyyy"
    # cut after the first part: MXNet 1.9.1 reads None (end of file); mxlab raises
    path.write_bytes(data[:12])
    with pytest.raises(MXNetValueError, match="ends inside a record header .0 of 8"):
        mx.recordio.MXRecordIO(path, "r").read()
    # a lone last part, or a first part followed by a whole record: MXNet joins them
    lone_last = MAGIC + struct.pack("<I", 3 << 29 | 4) + b"yyyy"
    first_then_whole = data[:12] + MAGIC + struct.pack("<I", 4) + b"yyyy"
    for bad, offset in ((lone_last, 0), (first_then_whole, 12)):
        path.write_bytes(bad)
        with pytest.raises(MXNetValueError, match=f"continuation flag .* at byte {offset}"):
            mx.recordio.MXRecordIO(path, "r").read()


@pytest.mark.parametrize("name, match", [
    ("recordio_truncated.rec", "holds 20 more at byte 28"),
    ("recordio_bad_magic.rec", "bad magic 0x00000000 at byte 28"),
    ("recordio_huge_length.rec", f"says {(1 << 29) - 1} bytes .* at byte 28"),
])
def test_hostile_corpus_files_raise(name, match):
    """Files in tests/hostile_files, cut from the 108-byte file MXNet 1.9.1 wrote."""
    _second_read_fails(os.path.join(HOSTILE, name), match)


def test_every_reader_of_rec_files_raises(tmp_path):
    """Gluon's RecordFileDataset, image.ImageIter and io.ImageRecordIter read through read()."""
    corrupt = os.path.join(HOSTILE, "recordio_truncated.rec")
    (tmp_path / "t.idx").write_text("0\t0\n1\t28\n")
    (tmp_path / "t.rec").write_bytes(open(corrupt, "rb").read())
    dataset = mx.gluon.data.RecordFileDataset(str(tmp_path / "t.rec"))
    assert dataset[0] == b"a" * 20
    with pytest.raises(MXNetValueError, match="Invalid RecordIO File"):
        dataset[1]
    images = tmp_path / "images.rec"
    w = mx.recordio.MXRecordIO(images, "w")
    for label in (0.0, 1.0):
        w.write(mx.recordio.pack_img((0, label, 0, 0), numpy.zeros((2, 2, 3), numpy.uint8),
                                     img_fmt=".png"))
    w.close()
    images.write_bytes(images.read_bytes()[:-6])
    with pytest.raises(MXNetValueError, match="Invalid RecordIO File .*images.rec"):
        mx.image.ImageIter(1, (3, 2, 2), path_imgrec=str(images))
    with pytest.raises(MXNetValueError, match="Invalid RecordIO File .*images.rec"):
        mx.io.ImageRecordIter(path_imgrec=str(images), data_shape=(3, 2, 2), batch_size=1)


def test_image_records_too_short_for_their_header_raise():
    """MXNet 1.9.1 raises struct.error here."""
    with pytest.raises(MXNetValueError, match="24-byte header, got 5"):
        mx.recordio.unpack(b"short")
    forged = struct.pack("IfQQ", 1000, 0, 0, 0) + b"\0" * 8    # MXNet: numpy's ValueError
    with pytest.raises(MXNetValueError, match="counts 1000 float32 labels"):
        mx.recordio.unpack(forged)


@pytest.mark.parametrize("text, match", [
    ("0\t0\nfoo\n", "line 2 'foo\\\\n' is not"),            # MXNet: ValueError (int('foo'))
    ("0\t0\n1\tabc\n", "line 2 .* invalid literal"),        # MXNet: ValueError
    ("0\t0\n\n1\t28\n", "line 2"),                          # MXNet: ValueError on the blank line
    ("0\t0\t9\n", "3 tab-separated fields"),                # MXNet: reads the first two
    ("0\t0\n1\t5000\n", "position 5000 is outside the 108-byte"),   # MXNet: reads None
    ("0\t0\n1\t108\n", "position 108 is outside"),          # MXNet: reads None
    ("0\t0\n1\t-4\n", "position -4"),                       # MXNet: fseek fails on read
])
def test_malformed_index_files_raise_at_open(tmp_path, text, match):
    _good(tmp_path)
    (tmp_path / "bad.idx").write_text(text)
    with pytest.raises(MXNetValueError, match=match) as info:
        mx.recordio.MXIndexedRecordIO(tmp_path / "bad.idx", tmp_path / "good.rec", "r")
    assert str(tmp_path / "bad.idx") in str(info.value)


def test_index_positions_inside_a_record_and_unknown_keys_raise(tmp_path):
    _good(tmp_path)
    (tmp_path / "mid.idx").write_text("0\t0\n1\t30\n")
    reader = mx.recordio.MXIndexedRecordIO(tmp_path / "mid.idx", tmp_path / "good.rec", "r")
    assert reader.read_idx(0) == b"a" * 20
    with pytest.raises(MXNetValueError, match="bad magic .* at byte 30"):   # MXNet: bad magic
        reader.read_idx(1)
    with pytest.raises(MXNetError, match="no key 7") as info:
        reader.read_idx(7)
    assert isinstance(info.value, KeyError)


def test_a_record_over_the_size_check_threshold_still_reads(tmp_path):
    big = bytes(range(256)) * 5000 + b"x"    # > 1 MiB, unaligned: read through the size check
    w = mx.recordio.MXRecordIO(tmp_path / "big.rec", "w")
    w.write(big)
    w.close()
    reader = mx.recordio.MXRecordIO(tmp_path / "big.rec", "r")
    assert reader.read() == big and reader.read() is None
