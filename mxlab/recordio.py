"""``mx.recordio``: MXNet's RecordIO files (dmlc-core's format), byte for byte.

A record is ``magic, lrecord, data, zero padding to 4 bytes`` with ``magic = 0xced7230a`` and
``lrecord = cflag << 29 | length`` (little endian). Data containing the magic word at a 4-byte
aligned offset is split there into parts (``cflag`` 1 = first, 2 = middle, 3 = last; 0 = whole)
so a reader can resynchronise on the magic word; reading joins the parts back with the magic.
``MXIndexedRecordIO`` adds a text index of ``key\\tposition`` lines. Images are encoded with
Pillow where MXNet uses OpenCV (same channel order: BGR arrays, as ``cv2``), so ``pack_img``
bytes differ from MXNet's while everything else is identical.

Example
-------
>>> import mxlab as mx, os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "x.rec")
>>> w = mx.recordio.MXRecordIO(path, "w"); w.write(b"abc"); w.close()
>>> open(path, "rb").read().hex()
'0a23d7ce0300000061626300'
>>> mx.recordio.MXRecordIO(path, "r").read()
b'abc'
"""
import collections
import io
import numbers
import os
import struct
import weakref

import numpy

from .atomic_file import atomic_write
from .base import (MXNetFileNotFoundError, MXNetKeyError, MXNetNotImplementedError,
                   MXNetRuntimeError, MXNetValueError)

__all__ = ["MXRecordIO", "MXIndexedRecordIO", "IRHeader", "pack", "unpack", "pack_img",
           "unpack_img"]

_MAGIC = 0xced7230a
_MAGIC_BYTES = struct.pack("<I", _MAGIC)
_LENGTH_MASK = (1 << 29) - 1
_SIZE_CHECKED_ABOVE = 1 << 20    # bytes a record part may claim before the file size is checked


def _open_replacing(owner, path, mode):
    """A handle on a temporary file beside ``path`` and a callable that moves it over ``path``
    (once: on ``close()``, or when ``owner`` is collected or Python exits, as MXNet's writer
    flushes on destruction), so a writer killed half-way leaves the previous file whole."""
    writer = atomic_write(path, mode)
    handle = writer.__enter__()
    return handle, weakref.finalize(owner, _commit, writer, os.getpid())


def _commit(writer, pid):
    if os.getpid() == pid:   # NOTE: a forked child never replaces its parent's file
        writer.__exit__(None, None, None)


def _record_parts(buf):
    """(cflag, part) pairs of one record: ``buf`` split at 4-byte aligned magic words."""
    cuts = [i for i in range(0, len(buf) - len(buf) % 4, 4) if buf[i:i + 4] == _MAGIC_BYTES]
    if not cuts:
        return [(0, buf)]
    starts = [0] + [c + 4 for c in cuts]
    ends = cuts + [len(buf)]
    flags = [1] + [2] * (len(cuts) - 1) + [3]
    return [(f, buf[s:e]) for f, s, e in zip(flags, starts, ends)]


class MXRecordIO:
    """Sequential reading (``flag='r'``) or writing (``flag='w'``) of a RecordIO file."""

    def __init__(self, uri, flag):
        if flag not in ("r", "w"):
            raise MXNetValueError(f"MXRecordIO: flag must be 'r' or 'w', got {flag!r}")
        self.uri, self.flag = str(uri), flag
        self.handle, self.is_open, self._commits = None, False, []
        self.open()

    @property
    def writable(self):
        return self.flag == "w"

    def open(self):
        """Open the file; a writer writes a temporary file that replaces it on :meth:`close`."""
        try:
            if self.writable:
                self.handle = self._open_replacing(self.uri, "wb")
            else:
                self.handle = open(self.uri, "rb")   # noqa: SIM115
        except FileNotFoundError:
            raise MXNetFileNotFoundError(f"MXRecordIO: {self.uri!r} not found") from None
        self.pid = os.getpid()
        self.is_open = True

    def close(self):
        """Close the file (idempotent)."""
        if self.is_open:
            if not self.writable:
                self.handle.close()
            commits, self._commits = self._commits, []
            for commit in commits:   # NOTE: the records, then the index that points into them
                commit()
            self.is_open = False

    def _open_replacing(self, path, mode):
        handle, commit = _open_replacing(self, path, mode)
        self._commits.append(commit)
        return handle

    def __del__(self):
        self.close()

    def __getstate__(self):
        """Pickling (DataLoader workers) keeps the path and mode, not the open file."""
        state = self.__dict__.copy()
        state["handle"], state["is_open"], state["_commits"] = None, False, []
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.open()

    def reset(self):
        """Back to the start (a writer truncates the file again)."""
        self.close()
        self.open()

    def _check(self, writing):
        if not self.is_open:
            raise MXNetRuntimeError(f"MXRecordIO: {self.uri} is closed")
        if writing != self.writable:
            raise MXNetRuntimeError(f"MXRecordIO: {self.uri} was opened with flag "
                                    f"{self.flag!r}")

    def write(self, buf):
        """Append one record (bytes)."""
        self._check(writing=True)
        buf = bytes(buf)
        if len(buf) > _LENGTH_MASK:
            raise MXNetValueError(f"MXRecordIO: a record holds < 2**29 bytes, got {len(buf)}")
        for cflag, part in _record_parts(buf):
            self.handle.write(_MAGIC_BYTES + struct.pack("<I", cflag << 29 | len(part)) + part)
        self.handle.write(b"\0" * (-len(buf) % 4))

    def read(self):
        """The next record's bytes, or ``None`` at the end of the file.

        Every header is checked (magic word, continuation flag) and every part must be in the
        file in full, padding included, as dmlc-core checks: a corrupt or truncated file raises
        ``MXNetValueError`` ("Invalid RecordIO File", the file and the byte offset) instead of
        returning a short record."""
        self._check(writing=False)
        parts = []
        while True:
            head = self.handle.read(8)
            if not head and not parts:
                return None
            if len(head) < 8:
                raise self._invalid(len(head), f"the file ends inside a record header "
                                               f"({len(head)} of 8 bytes)")
            magic, lrec = struct.unpack("<II", head)
            if magic != _MAGIC:
                raise self._invalid(8, f"bad magic 0x{magic:08x}")
            cflag, length = lrec >> 29, lrec & _LENGTH_MASK
            if cflag not in ((2, 3) if parts else (0, 1)):
                raise self._invalid(8, f"continuation flag {cflag} "
                                       f"{'inside' if parts else 'outside'} a split record")
            parts.append(self._read_part(length))
            if cflag in (0, 3):
                return _MAGIC_BYTES.join(parts)

    def _read_part(self, length):
        """The ``length`` bytes of the part whose header was just read (its padding skipped).
        A length over ``_SIZE_CHECKED_ABOVE`` is first checked against the file's size, so a
        forged length field cannot make the reader allocate up to 512 MiB."""
        padded = length + (-length % 4)
        if padded > _SIZE_CHECKED_ABOVE:
            left = os.fstat(self.handle.fileno()).st_size - self.handle.tell()
            if padded > left:
                raise self._invalid(8, self._short(length, padded, max(left, 0)))
        data = self.handle.read(padded)
        if len(data) != padded:
            raise self._invalid(8 + len(data), self._short(length, padded, len(data)))
        return data[:length] if padded != length else data

    @staticmethod
    def _short(length, padded, left):
        return f"the length field says {length} bytes (padded to {padded}) but the file holds " \
               f"{left} more"

    def _invalid(self, back, detail):
        """dmlc-core's message, naming the file and the byte offset of the bad header (``back``
        bytes before the current position: the offset is found only when it is needed)."""
        offset = self.handle.tell() - back
        return MXNetValueError(f"Invalid RecordIO File {self.uri}: {detail} at byte {offset}")

    def tell(self):
        """The current byte position (a record's start before reading or writing it)."""
        return self.handle.tell()


class MXIndexedRecordIO(MXRecordIO):
    """RecordIO with random access through an index file of ``key\\tposition`` lines."""

    def __init__(self, idx_path, uri, flag, key_type=int):
        self.idx_path, self.key_type = str(idx_path), key_type
        self.idx, self.keys, self.fidx = {}, [], None
        super().__init__(uri, flag)

    def open(self):
        super().open()
        self.idx, self.keys = {}, []
        if self.writable:
            self.fidx = self._open_replacing(self.idx_path, "w")
        else:
            self.fidx = open(self.idx_path, self.flag)   # noqa: SIM115
        if not self.writable:
            size = os.fstat(self.handle.fileno()).st_size
            for key, pos in _read_index(self.fidx, self.idx_path, self.key_type, size):
                self.idx[key] = pos
                self.keys.append(key)

    def close(self):
        if self.is_open and not self.writable:
            self.fidx.close()
        super().close()

    def __getstate__(self):
        state = super().__getstate__()
        state["fidx"] = None
        return state

    def seek(self, idx):
        """Position the reader at record ``idx``."""
        self._check(writing=False)
        if idx not in self.idx:
            raise MXNetKeyError(f"MXIndexedRecordIO: no key {idx!r} in {self.idx_path}")
        self.handle.seek(self.idx[idx])

    def read_idx(self, idx):
        """The record stored under key ``idx``."""
        self.seek(idx)
        return self.read()

    def write_idx(self, idx, buf):
        """Append a record under key ``idx`` (written to the index file)."""
        key = self.key_type(idx)
        pos = self.tell()
        self.write(buf)
        self.fidx.write(f"{key}\t{pos}\n")
        self.idx[key] = pos
        self.keys.append(key)


def _read_index(lines, idx_path, key_type, rec_size):
    """``(key, position)`` of every ``key\\tposition`` line of an index file; a malformed line
    or a position that is no record header of the ``.rec`` (negative, or less than a header
    before its end) raises naming the line (MXNet raises ``ValueError`` on the former and reads
    ``None`` at a position past the end)."""
    for number, line in enumerate(lines, start=1):
        fields = line.strip().split("\t")
        try:
            if len(fields) != 2:
                raise ValueError(f"{len(fields)} tab-separated fields, expected key and position")
            key, pos = key_type(fields[0]), int(fields[1])
        except (TypeError, ValueError) as err:
            raise MXNetValueError(f"MXIndexedRecordIO: {idx_path} line {number} {line!r} is "
                                  f"not 'key<TAB>position': {err}") from None
        if not 0 <= pos <= rec_size - 8:
            raise MXNetValueError(f"MXIndexedRecordIO: {idx_path} line {number}: position {pos} "
                                  f"is outside the {rec_size}-byte RecordIO file")
        yield key, pos


def header_positions(uri):
    """``[(IRHeader, byte position)]`` of every image record of ``uri``, in file order (an mxlab
    helper: image iterators read labels up front and seek to a record when they decode it)."""
    reader = MXRecordIO(uri, "r")
    try:
        found = []
        while True:
            position = reader.tell()
            record = reader.read()
            if record is None:
                return found
            found.append((unpack(record)[0], position))
    finally:
        reader.close()


def read_at(reader, position):
    """The record starting at byte ``position`` of the open ``reader``."""
    reader.handle.seek(position)
    return reader.read()


IRHeader = collections.namedtuple("HEADER", ["flag", "label", "id", "id2"])
IRHeader.__doc__ = """An image record's header: ``flag`` (the label's length when it is an
array, else 0), ``label`` (a float or an array), ``id`` and ``id2`` (the record's id)."""
_IR_FORMAT = "IfQQ"
_IR_SIZE = struct.calcsize(_IR_FORMAT)


def pack(header, s):
    """An image record: the header (an array label is stored after it as float32) and ``s``."""
    header = IRHeader(*header)
    if isinstance(header.label, numbers.Number):
        header = header._replace(flag=0)
    else:
        label = numpy.asarray(header.label, dtype=numpy.float32)
        header = header._replace(flag=label.size, label=0)
        s = label.tobytes() + s
    return struct.pack(_IR_FORMAT, *header) + s


def unpack(s):
    """``(IRHeader, payload)`` of an image record; one too short for its header or for the
    labels its header counts raises (MXNet raises ``struct.error`` / ``ValueError``)."""
    if len(s) < _IR_SIZE:
        raise MXNetValueError(f"recordio.unpack: an image record holds a {_IR_SIZE}-byte header, "
                              f"got {len(s)} bytes")
    header = IRHeader(*struct.unpack(_IR_FORMAT, s[:_IR_SIZE]))
    s = s[_IR_SIZE:]
    if header.flag * 4 > len(s):
        raise MXNetValueError(f"recordio.unpack: the header counts {header.flag} float32 labels "
                              f"but the record holds {len(s)} bytes after it")
    if header.flag > 0:
        header = header._replace(label=numpy.frombuffer(s, numpy.float32, header.flag))
        s = s[header.flag * 4:]
    return header, s


def _pil():
    try:
        from PIL import Image
    except ImportError:   # pragma: no cover - Pillow is a base dependency
        raise MXNetNotImplementedError("mx.recordio images need Pillow") from None
    return Image


def unpack_img(s, iscolor=-1):
    """``(IRHeader, image)``: the image decoded as a uint8 array, BGR like ``cv2.imdecode``
    (``iscolor``: 1 colour, 0 grayscale, -1 as stored)."""
    header, payload = unpack(s)
    image = _pil().open(io.BytesIO(payload))
    if iscolor == 0:
        image = image.convert("L")
    elif iscolor == 1 or image.mode not in ("L", "RGB"):
        image = image.convert("RGB")
    img = numpy.asarray(image)
    return header, img[..., ::-1].copy() if img.ndim == 3 else img


def pack_img(header, img, quality=95, img_fmt=".jpg"):
    """An image record of ``img`` (a BGR or grayscale uint8 array, as OpenCV) encoded as
    ``img_fmt`` (``.jpg`` with ``quality``, or ``.png`` with compression level ``quality``)."""
    formats = {".jpg": "JPEG", ".jpeg": "JPEG", ".png": "PNG"}
    if img_fmt.lower() not in formats:
        raise MXNetValueError(f"pack_img: img_fmt must be one of {sorted(formats)}, got "
                              f"{img_fmt!r}")
    img = numpy.asarray(img)
    rgb = img[..., ::-1] if img.ndim == 3 else img
    out = io.BytesIO()
    kind = formats[img_fmt.lower()]
    options = {"quality": quality} if kind == "JPEG" else {"compress_level": min(quality, 9)}
    _pil().fromarray(numpy.ascontiguousarray(rgb)).save(out, format=kind, **options)
    return pack(header, out.getvalue())
