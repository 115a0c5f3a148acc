"""MXNet's binary NDArray file format (``.params``, ``mx.nd.save``/``mx.nd.load``), read and written
exactly.

Layout (little endian; from MXNet's src/ndarray/ndarray.cc)::

    uint64 0x112 (list magic) | uint64 reserved | uint64 n | n x NDArray | uint64 m | m x (uint64
    len, bytes name) NDArray: uint32 magic (V2 0xF993fac9, V3 0xF993faca = NumPy shape semantics, V1
    0xF993fac8) |
             int32 storage type (V2/V3) | int32 ndim, int64 dims[ndim] | int32 dev_type, int32
             dev_id | int32 dtype flag | raw data

Only plain binary data is read: a parameter file can never execute code (no pickle anywhere).
"""
import io
import os
import struct
import zipfile

import numpy

from ..atomic_file import write_bytes
from ..base import MXNetTypeError, MXNetValueError
from ..device import Device, current_device
from ..util import is_np_shape, is_np_shape_global
from .numpy_files import check_numpy_file

__all__ = ["save", "load", "load_frombuffer", "DTYPE_FLAGS", "raw_bytes",
           "from_raw_bytes"]

_LIST_MAGIC = 0x112
_V1, _V2, _V3 = 0xF993FAC8, 0xF993FAC9, 0xF993FACA
DTYPE_FLAGS = {0: "float32", 1: "float64", 2: "float16", 3: "uint8", 4: "int32", 5: "int8",
               6: "int64", 7: "bool", 8: "int16", 9: "uint16", 10: "uint32", 11: "uint64"}
_FLAG_OF = {name: flag for flag, name in DTYPE_FLAGS.items()}


class _Reader:
    def __init__(self, buffer, source):
        self.view = memoryview(buffer)
        self.pos = 0
        self.source = source

    def take(self, size):
        if self.pos + size > len(self.view):
            raise MXNetValueError(f"{self.source}: truncated NDArray file (needed {size} more "
                                  f"bytes at offset {self.pos})")
        chunk = self.view[self.pos:self.pos + size]
        self.pos += size
        return chunk

    def unpack(self, fmt):
        return struct.unpack("<" + fmt, self.take(struct.calcsize("<" + fmt)))


_STYPES = {0: ("default", 0), 1: ("row_sparse", 1), 2: ("csr", 2)}   # flag: (stype, num aux)


class SparseRecord:
    """A sparse array read from a file: storage type, shape and NumPy components (data first)."""

    def __init__(self, stype, shape, components):
        self.stype, self.shape, self.components = stype, shape, components
        self.dtype = components[0].dtype


def to_array(item, device, cls):
    """An array of ``cls`` (sparse for a :class:`SparseRecord`) on ``device``."""
    if isinstance(item, SparseRecord):
        from .sparse_array import make_sparse
        return make_sparse(item.stype, item.components, item.shape, device, item.dtype)
    from .ndarray import array as make_array
    return make_array(item, dtype=item.dtype, device=device, cls=cls)


_MAX_NDIM = 32          # NOTE: numpy's limit is 32 (1.x) / 64 (2.x); MXNet never writes more
_DEV_TYPES = (1, 2, 3, 5)  # cpu, gpu, cpu_pinned, cpu_shared


def _read_array(reader, i):
    where = f"array {i}"
    (magic,) = reader.unpack("I")
    if magic <= _MAX_NDIM:
        # NOTE: MXNet's oldest files (before V1) have no magic: it is the ndim, uint32 dims follow
        shape = reader.unpack(f"{magic}I") if magic else ()
        return (_read_dense(reader, where, shape), _V1) if magic else None
    if magic not in (_V1, _V2, _V3):
        raise MXNetValueError(f"{reader.source}: {where}: not an MXNet NDArray (bad magic "
                              f"{magic:#x})")
    stype, storage_shape = 0, None
    if magic != _V1:
        (stype,) = reader.unpack("i")
        if stype not in _STYPES:
            raise MXNetValueError(f"{reader.source}: {where}: unknown storage type {stype} "
                                  "(expected 0 dense, 1 row_sparse, 2 csr)")
        if stype:
            storage_shape = _read_shape(reader, where)
    (ndim,) = reader.unpack("i")
    if magic == _V3 and ndim == -1 or magic != _V3 and ndim == 0:
        return None   # NOTE: MXNet's "none" array (no shape, no data)
    if not 0 <= ndim <= _MAX_NDIM:
        raise MXNetValueError(f"{reader.source}: {where}: ndim {ndim} is invalid (expected 0 to "
                              f"{_MAX_NDIM}, or the 'none' marker)")
    shape = reader.unpack(f"{ndim}q") if ndim > 0 else ()
    if any(d < 0 for d in shape):
        raise MXNetValueError(f"{reader.source}: {where}: negative dimension in shape {shape}")
    if stype:
        dtype = _read_device_and_dtype(reader, where)
        return _read_sparse(reader, where, stype, storage_shape, shape, dtype), magic
    return _read_dense(reader, where, shape), magic


def _read_device_and_dtype(reader, where):
    """The record's device (validated, then ignored: loaded on the host) and dtype."""
    dev_type, dev_id = reader.unpack("ii")
    if dev_type not in _DEV_TYPES or dev_id < 0:
        raise MXNetValueError(f"{reader.source}: {where}: invalid device (dev_type {dev_type}, "
                              f"dev_id {dev_id}; expected dev_type in {_DEV_TYPES}, dev_id >= 0)")
    (flag,) = reader.unpack("i")
    if flag not in DTYPE_FLAGS:
        raise MXNetValueError(f"{reader.source}: {where}: unsupported dtype flag {flag} (expected "
                              f"one of {sorted(DTYPE_FLAGS)})")
    return numpy.dtype(DTYPE_FLAGS[flag])


def _read_dense(reader, where, shape):
    """The device, dtype flag and data of a dense array of ``shape`` (a host copy)."""
    return _read_data(reader, where, shape, _read_device_and_dtype(reader, where))


def _read_shape(reader, where):
    (ndim,) = reader.unpack("i")
    if not 0 <= ndim <= _MAX_NDIM:
        raise MXNetValueError(f"{reader.source}: {where}: ndim {ndim} is invalid")
    shape = reader.unpack(f"{ndim}q") if ndim > 0 else ()
    if any(d < 0 for d in shape):
        raise MXNetValueError(f"{reader.source}: {where}: negative dimension in shape {shape}")
    return shape


def _read_sparse(reader, where, stype, storage_shape, shape, dtype):
    """MXNet's sparse record: aux (type, shape) pairs, the stored values, then each aux array."""
    aux = []
    for _ in range(_STYPES[stype][1]):
        (flag,) = reader.unpack("i")
        if flag not in DTYPE_FLAGS:
            raise MXNetValueError(f"{reader.source}: {where}: bad aux dtype flag {flag}")
        aux.append((_read_shape(reader, where), numpy.dtype(DTYPE_FLAGS[flag])))
    # NOTE: MXNet writes the values' blob (its rows: the aux arrays' length) but a storage
    #   shape that can be stale (a row_sparse array from tostype saves (0, n) with 2 rows)
    stored = aux[0][0][0] if _STYPES[stype][0] == "row_sparse" else aux[1][0][0]
    values_shape = (stored,) + tuple(storage_shape[1:] if _STYPES[stype][0] == "row_sparse"
                                     else ())
    data = _read_data(reader, where, values_shape, dtype)
    comps = [_read_data(reader, where, s, d) for s, d in aux]
    if _STYPES[stype][0] == "csr":
        comps = comps[1:] + comps[:1]   # NOTE: MXNet stores (indptr, indices); ours: indices 1st
    return SparseRecord(_STYPES[stype][0], tuple(shape), (data, *comps))


def _read_data(reader, where, shape, dtype):
    count = 1
    for d in shape:   # NOTE: Python ints: a product of hostile dims must not wrap around
        count *= d
    nbytes = count * dtype.itemsize
    if nbytes > len(reader.view) - reader.pos:
        raise MXNetValueError(f"{reader.source}: {where}: shape {shape} of {dtype.name} needs "
                              f"{nbytes} bytes, but only {len(reader.view) - reader.pos} remain "
                              f"(truncated file or corrupt shape)")
    return numpy.frombuffer(reader.take(nbytes), dtype=dtype).reshape(shape).copy()


def _read_name(reader, i):
    (length,) = reader.unpack("Q")
    raw = bytes(reader.take(length))
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MXNetValueError(f"{reader.source}: name {i} is not UTF-8 text ({raw[:40]!r}, bad "
                              f"byte at {exc.start})") from None


def load_frombuffer(buffer, source="<buffer>", check_np_shape=False):
    """Decode a saved list/dict of arrays from bytes; returns ``(arrays, names, np_semantics)``.

    Everything read is validated (magic numbers, ndim, dims, device, dtype flag, sizes against
    the bytes left, UTF-8 names); errors name ``source``, the array or name and what was expected.
    ``check_np_shape`` (``mx.nd.load``'s rule in MXNet 1.x) refuses a record saved with NumPy
    shape semantics outside them, and one saved without them inside an ``np_shape()`` scope.
    """
    reader = _Reader(buffer, source)
    header, _reserved = reader.unpack("QQ")
    if header != _LIST_MAGIC:
        raise MXNetValueError(f"{source}: not an MXNet NDArray file (bad header {header:#x})")
    (count,) = reader.unpack("Q")
    arrays, np_semantics = [], False
    for i in range(count):
        item = _read_array(reader, i)
        if check_np_shape and item is not None:
            _check_np_shape(item[1] == _V3, source, i)
        arrays.append(None if item is None else item[0])
        np_semantics = np_semantics or (item is not None and item[1] == _V3)
    (n_names,) = reader.unpack("Q")
    if n_names and n_names != len(arrays):
        raise MXNetValueError(f"{source}: {n_names} names for {len(arrays)} arrays")
    names = [_read_name(reader, i) for i in range(n_names)]
    return arrays, names, np_semantics


def _check_np_shape(saved_np, source, i):
    if saved_np and not is_np_shape():
        raise MXNetValueError(f"{source}: array {i}: ndarray was saved in np shape semantics, "
                              "must be loaded in the same semantics. Please turn on np shape "
                              "semantics in Python using `with np_shape(True)` or decorator "
                              "`use_np_shape` to scope the code of loading the ndarray.")
    if not saved_np and is_np_shape() and not is_np_shape_global():
        raise MXNetValueError(f"{source}: array {i}: ndarray was not saved in np shape "
                              "semantics, but being loaded in np shape semantics. Please turn "
                              "off np shape semantics in Python using `with np_shape(False)` to "
                              "scope the code of loading the ndarray.")


def raw_bytes(host, np_semantics=False):
    """One array's record (MXNet's ``MXNDArraySaveRawBytes``: what ``NDArray.__getstate__``
    pickles)."""
    out = io.BytesIO()
    _write_array(out, host, np_semantics)
    return out.getvalue()


def from_raw_bytes(buffer, source="pickled NDArray"):
    """The host array of one record written by :func:`raw_bytes` or MXNet (any device: loaded on
    the host, as MXNet does when the saved GPU is absent)."""
    item = _read_array(_Reader(bytes(buffer), source), 0)
    if item is None:
        raise MXNetValueError(f"{source}: holds MXNet's 'none' array (no shape, no data)")
    return item[0]


def _write_array(out, host, np_semantics):
    host = numpy.array(host, order="C", copy=None)  # NOTE: ascontiguousarray makes 0-d 1-d
    name = host.dtype.name
    if name not in _FLAG_OF:
        raise MXNetTypeError(f"cannot save dtype {name} in MXNet's NDArray format")
    if not np_semantics and host.ndim == 0:
        host = host.reshape(1)  # NOTE: legacy (V2) files have no 0-d arrays: ndim 0 means "none".
    out.write(struct.pack("<Iii", _V3 if np_semantics else _V2, 0, host.ndim))
    out.write(struct.pack(f"<{host.ndim}q", *host.shape))
    out.write(struct.pack("<iii", 1, 0, _FLAG_OF[name]))   # saved as cpu(0), like MXNet
    out.write(host.tobytes())


def _write_sparse(out, array):
    """MXNet's V2 sparse record (``NDArray::Save``): the values' storage shape, the shape, the
    device, the dtype, each aux array's (dtype, shape), the values, then the aux arrays."""
    comps = [numpy.ascontiguousarray(c) for c in array._components()]
    data, aux = comps[0], comps[1:]
    if array.stype == "csr":
        aux = aux[1:] + aux[:1]    # NOTE: MXNet's aux order: indptr, indices
    out.write(struct.pack("<Iii", _V2, 1 if array.stype == "row_sparse" else 2, data.ndim))
    out.write(struct.pack(f"<{data.ndim}q", *data.shape))
    out.write(struct.pack("<i", len(array.shape)))
    out.write(struct.pack(f"<{len(array.shape)}q", *array.shape))
    out.write(struct.pack("<iii", 1, 0, _FLAG_OF[data.dtype.name]))
    for a in aux:
        out.write(struct.pack("<ii", _FLAG_OF[a.dtype.name], a.ndim))
        out.write(struct.pack(f"<{a.ndim}q", *a.shape))
    for a in [data] + aux:
        out.write(a.tobytes())


def _to_host(array):
    from .ndarray import NDArray
    if getattr(array, "_sparse", False):
        return array
    if isinstance(array, NDArray):
        return array.asnumpy()
    if isinstance(array, numpy.ndarray):
        return array
    raise MXNetTypeError(f"save: expected NDArray values, got {type(array).__name__}")


def save(fname, data, np_semantics=None):
    """Save an array, a list of arrays or a ``{name: array}`` dict in MXNet's format
    (``mx.nd.save``).

    ``np_semantics`` (default: True for ``mx.np`` arrays and under NumPy shape semantics, as
    MXNet) writes V3 records that keep 0-d shapes.
    """
    from .ndarray import NDArray, ndarray
    if not isinstance(fname, (str, os.PathLike)):
        raise MXNetTypeError(f"save: fname must be a path, got {type(fname).__name__}")
    if isinstance(data, NDArray):
        data = [data]
    if isinstance(data, dict):
        names, arrays = [str(k) for k in data], list(data.values())
    elif isinstance(data, (list, tuple)):
        names, arrays = [], list(data)
    else:
        raise MXNetTypeError("save: data must be an NDArray, a list or a dict, got "
                             f"{type(data).__name__}")
    if np_semantics is None:
        np_semantics = is_np_shape() or any(isinstance(a, ndarray) for a in arrays)
    out = io.BytesIO()
    out.write(struct.pack("<QQQ", _LIST_MAGIC, 0, len(arrays)))
    for array in arrays:
        host = _to_host(array)
        if isinstance(host, NDArray):
            _write_sparse(out, host)
        else:
            _write_array(out, host, np_semantics)
    out.write(struct.pack("<Q", len(names)))
    for name in names:
        encoded = name.encode("utf-8")
        out.write(struct.pack("<Q", len(encoded)))
        out.write(encoded)
    write_bytes(fname, out.getvalue())   # NOTE: atomic: a failed save keeps the last good file


# NOTE: MXNet 2.0's npx.save / npx.savez write NumPy's own .npy / .npz (a zip) files.
_NUMPY_MAGICS = (b"\x93NUMPY", b"PK\x03\x04", b"PK\x05\x06")   # NOTE: last: an empty zip


def _load_numpy_file(fname):
    """``(arrays, names, np_semantics)`` of a .npy (one unnamed array) or .npz file."""
    check_numpy_file(fname)
    try:
        loaded = numpy.load(fname, allow_pickle=False)
        if isinstance(loaded, numpy.ndarray):
            return [loaded], [], True
        with loaded:
            return _read_npz(loaded)
    except (ValueError, EOFError, zipfile.BadZipFile) as exc:
        if isinstance(exc, MXNetValueError):
            raise
        raise MXNetValueError(f"{os.fspath(fname)}: not a valid NumPy file ({exc})") from None


def _read_npz(loaded):
    groups = {}
    for entry in loaded.files:   # NOTE: sparse arrays are folders: name/data, name/indices..
        folder, _, part = entry.rpartition("/")
        groups.setdefault(folder, {})[part] = entry
    names, arrays = [], []
    for folder, parts in groups.items():
        record = _sparse_npz(loaded, parts)
        if record is not None:
            names.append(folder)
            arrays.append(record)
        else:
            names += list(parts.values())
            arrays += [loaded[e] for e in parts.values()]
    return arrays, names, True


_NPZ_PARTS = {"csr": {"data", "indices", "indptr", "format", "shape"},
              "row_sparse": {"data", "indices", "format", "shape"}}


def _sparse_npz(loaded, parts):
    """A :class:`SparseRecord` of one scipy / MXNet 2 sparse ``.npz`` folder, else None."""
    if "format" not in parts:
        return None
    stype = bytes(numpy.asarray(loaded[parts["format"]]).tobytes()).rstrip(b"\0").decode(
        "ascii", "replace").replace("\0", "")
    if stype not in _NPZ_PARTS or set(parts) != _NPZ_PARTS[stype]:
        return None
    shape = tuple(int(d) for d in loaded[parts["shape"]])
    comps = [loaded[parts["data"]], loaded[parts["indices"]].astype("int64")]
    if stype == "csr":
        comps.append(loaded[parts["indptr"]].astype("int64"))
    return SparseRecord(stype, shape, tuple(comps))


def npz_entries(name, array):
    """The ``.npz`` entries of one array: itself, or a sparse array's folder (MXNet 2's and scipy's
    layout: ``name/data``, ``name/indices``[, ``name/indptr``], ``name/shape``, ``name/format``)."""
    if not getattr(array, "_sparse", False):
        return {name: array.asnumpy()}
    comps = array._components()
    entries = {f"{name}/data": numpy.array(comps[0]), f"{name}/indices": numpy.array(comps[1]),
               f"{name}/shape": numpy.array(array.shape, dtype="int64"),
               f"{name}/format": numpy.array(array.stype.encode("ascii"))}
    if array.stype == "csr":
        entries[f"{name}/indptr"] = numpy.array(comps[2])
    return entries


def load(fname, device=None, cls=None, check_np_shape=False):
    """Load arrays saved by ``save`` or by real MXNet: a list, or a dict when the file has names
    (``check_np_shape``: see :func:`load_frombuffer`)."""
    from .ndarray import NDArray, ndarray
    if not isinstance(fname, (str, os.PathLike)):
        raise MXNetTypeError(f"load: fname must be a path, got {type(fname).__name__}")
    with open(fname, "rb") as handle:
        content = handle.read()
    if content.startswith(_NUMPY_MAGICS):
        arrays, names, np_semantics = _load_numpy_file(fname)
    else:
        arrays, names, np_semantics = load_frombuffer(content, os.fspath(fname),
                                                      check_np_shape)
    cls = cls or (ndarray if np_semantics else NDArray)
    device = Device(device) if device is not None else current_device()
    values = [None if a is None else to_array(a, device, cls) for a in arrays]
    return dict(zip(names, values)) if names else values
