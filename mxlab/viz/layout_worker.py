"""Graphviz layout worker: DOT in, SVG out, in its own process (run as a script, no mxlab import).

Graphviz's ``dot`` can abort the whole process on some graphs (``mincross.c: fixLabelOrder``
assertions); running it here means such an abort ends this worker, never the user's kernel.
Protocol on stdin/stdout, one request at a time: a 4-byte big-endian length and the UTF-8 text
``"<format>\n<dot>"``; the reply is ``b"O"`` (ok) or ``b"E"`` (error), a 4-byte length and the
drawing (SVG, PDF, PNG, ...) or the error message.
Graphviz's C warnings go to this process's stderr, which the parent discards.
"""
import shutil
import struct
import subprocess
import sys


def _layout(dot, fmt):
    if shutil.which("dot"):
        done = subprocess.run(["dot", f"-T{fmt}"], input=dot.encode(), capture_output=True,
                              check=False)
        if done.returncode:
            raise RuntimeError(f"dot exited with status {done.returncode}: "
                               f"{done.stderr.decode(errors='replace')[-300:]}")
        return done.stdout
    import pygraphviz
    return pygraphviz.AGraph(string=dot).draw(format=fmt, prog="dot")


def _read_exactly(stream, size):
    data = b""
    while len(data) < size:
        chunk = stream.read(size - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def serve(inp, out):
    """Answer requests until stdin closes."""
    while True:
        head = _read_exactly(inp, 4)
        if head is None:
            return
        fmt, _, dot = _read_exactly(inp, struct.unpack(">I", head)[0]).decode("utf-8") \
            .partition("\n")
        try:
            status, body = b"O", _layout(dot, fmt)
        except Exception as exc:  # noqa: BLE001  (reported to the parent, which falls back)
            status, body = b"E", f"{type(exc).__name__}: {exc}".encode()
        out.write(status + struct.pack(">I", len(body)) + body)
        out.flush()


if __name__ == "__main__":
    try:
        import pygraphviz  # noqa: F401  (imported once, before the first request: a warm worker)
    except ImportError:
        pass
    serve(sys.stdin.buffer, sys.stdout.buffer)
