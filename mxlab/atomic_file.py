"""The one writer of every file mxlab saves: a file either keeps its last good contents or gets
all of its new ones.

A save killed half-way (a notebook kernel restarted, an out-of-memory kill) must never leave a
truncated checkpoint where the previous one was. :func:`atomic_write` writes to a fresh temporary
file in the target's own folder (``tempfile.mkstemp``: a unique name, created exclusively, so a
file or symlink planted beside the target is never followed and two processes saving one path do
not collide), flushes and fsyncs it, then ``os.replace``\\ s it over the target, which is atomic
on POSIX and Windows. On any error the temporary file is removed and the target is untouched.

Example
-------
>>> import os, tempfile
>>> from mxlab.atomic_file import atomic_write, write_bytes
>>> folder = tempfile.mkdtemp()
>>> path = os.path.join(folder, "a.txt")
>>> with atomic_write(path, "w") as f:
...     _ = f.write("hello")
>>> open(path).read()
'hello'
>>> write_bytes(path, b"bye")
>>> open(path, "rb").read(), sorted(os.listdir(folder))
(b'bye', ['a.txt'])
"""
import contextlib
import os
import tempfile

__all__ = ["atomic_write", "write_bytes", "write_text"]


def _fsync_folder(folder):
    """Make the rename itself durable (POSIX); a no-op where folders cannot be opened."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_write(path, mode="wb", encoding=None):
    """Open a temporary file beside ``path`` for writing; on a clean exit it replaces ``path``.

    ``mode`` is ``"wb"`` or ``"w"`` (text, ``encoding`` default UTF-8). The new file gets the
    permissions a plain ``open(path, "w")`` would give (0o666 less the umask), or those of the
    file it replaces.
    """
    if mode not in ("wb", "w"):
        raise ValueError(f"atomic_write: mode must be 'wb' or 'w', got {mode!r}")
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.",
                               suffix=".tmp")
    try:
        with os.fdopen(fd, mode, encoding=(encoding or "utf-8") if mode == "w" else None) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, _mode_for(path))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_folder(folder)


def _mode_for(path):
    """The permissions of the file being replaced, else 0o666 less the umask (mkstemp's 0o600
    would make saved checkpoints unreadable to the user's group)."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        return 0o666 & ~_umask()


def _umask():
    """The process's umask, read without changing it where the OS shows it (Linux), since
    setting it to read it races with other threads creating files."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


def write_bytes(path, data):
    """Replace ``path``'s contents with ``data`` atomically."""
    with atomic_write(path, "wb") as f:
        f.write(data)


def write_text(path, text, encoding="utf-8"):
    """Replace ``path``'s contents with ``text`` atomically."""
    with atomic_write(path, "w", encoding=encoding) as f:
        f.write(text)
