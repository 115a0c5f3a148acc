"""Checks that make a NumPy ``.npy`` / ``.npz`` file from someone else safe to hand to
``numpy.load``.

``numpy.load(..., allow_pickle=False)`` already refuses pickles, but it trusts the header: it
allocates the array the header declares before reading a byte of data, so a 100-byte ``.npy``
claiming ``(100000, 100000)`` asks for 74 GiB, and a 3 MB ``.npz`` of deflated zeros inflates to
3 GB. :func:`check_numpy_file` reads only the headers and refuses, with an error naming the file
and the entry, any array that is an object array, needs more bytes than the file (or zip entry)
holds, or, for compressed entries, inflates past ``MXLAB_NPZ_INFLATE_LIMIT`` bytes in all
(default 1 GiB).
"""
import os
import zipfile

import numpy

from ..base import MXNetValueError, env_int

__all__ = ["check_numpy_file", "INFLATE_LIMIT_DEFAULT"]

INFLATE_LIMIT_DEFAULT = 1 << 30
_HEADER_READERS = {(1, 0): numpy.lib.format.read_array_header_1_0,
                   (2, 0): numpy.lib.format.read_array_header_2_0}


def _header(handle, where):
    """``(shape, dtype)`` from a ``.npy`` header; refuses versions and dtypes it cannot bound."""
    try:
        version = numpy.lib.format.read_magic(handle)
        reader = _HEADER_READERS.get(version)
        if reader is None:
            raise MXNetValueError(f"{where}: .npy format version {version} is not supported")
        shape, _, dtype = reader(handle)
    except MXNetValueError:
        raise
    except (ValueError, SyntaxError, EOFError) as exc:
        raise MXNetValueError(f"{where}: not a valid .npy header ({exc})") from None
    if dtype.hasobject:
        raise MXNetValueError(f"{where}: holds Python objects (dtype {dtype}), which would need "
                              "unpickling; mxlab never unpickles array files")
    return shape, dtype


def _nbytes(shape, dtype):
    count = 1
    for d in shape:   # NOTE: Python ints: a product of hostile dims must not wrap around
        count *= d
    return count * dtype.itemsize


def _check_fits(where, shape, dtype, available):
    needed = _nbytes(shape, dtype)
    if needed > available:
        raise MXNetValueError(f"{where}: header declares shape {shape} of {dtype} ({needed} "
                              f"bytes), but only {available} bytes follow (truncated file or "
                              "corrupt header)")


def _check_npy(fname):
    with open(fname, "rb") as handle:
        shape, dtype = _header(handle, fname)
        available = os.fstat(handle.fileno()).st_size - handle.tell()
    _check_fits(fname, shape, dtype, available)


def _check_npz(fname):
    limit = env_int("MXLAB_NPZ_INFLATE_LIMIT", INFLATE_LIMIT_DEFAULT)
    inflated = 0
    try:
        archive = zipfile.ZipFile(fname)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise MXNetValueError(f"{fname}: not a valid .npz file ({exc})") from None
    with archive:
        for info in archive.infolist():
            where = f"{fname}: entry '{info.filename}'"
            if info.compress_type != zipfile.ZIP_STORED:
                inflated += info.file_size
                if inflated > limit:
                    raise MXNetValueError(
                        f"{where}: compressed entries inflate to more than {limit} bytes; "
                        "raise MXLAB_NPZ_INFLATE_LIMIT to open a file you trust")
            if not info.filename.endswith(".npy"):
                continue
            with archive.open(info) as handle:
                shape, dtype = _header(handle, where)
                header_size = handle.tell()
            _check_fits(where, shape, dtype, info.file_size - header_size)


def check_numpy_file(fname):
    """Raise :class:`MXNetValueError` unless every array in the ``.npy`` / ``.npz`` file
    ``fname`` can be read within the bytes the file holds (see the module docstring)."""
    with open(fname, "rb") as handle:
        is_npy = handle.read(6) == b"\x93NUMPY"
    (_check_npy if is_npy else _check_npz)(fname)
