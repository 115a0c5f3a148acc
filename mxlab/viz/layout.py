"""In-process Graphviz layout (pygraphviz) with the C libraries' stderr chatter silenced.

Shared by ``mx.viz`` and the notebook layer (which sits above viz), so a graph lays out without
the ``dot`` binary and without label-size or fontconfig warnings landing in notebook cells.
"""
import contextlib
import os
import sys
import warnings

from ..base import MXNetRuntimeError

__all__ = ["quiet_layout", "pygraphviz_layout"]


@contextlib.contextmanager
def quiet_layout():
    """Silence Graphviz's C-level stderr (label-size and fontconfig warnings) during a layout.

    NOTE: they are written to file descriptor 2 by the bundled C libraries, so Python's
    ``warnings`` cannot filter them; without this they land in notebook cells.
    """
    sys.stderr.flush()
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def pygraphviz_layout(dot, format="svg"):  # noqa: A002  (Graphviz's name for it)
    """The bytes of DOT text ``dot`` laid out by ``dot`` in-process, in ``format``."""
    try:
        import pygraphviz
    except ImportError:
        raise MXNetRuntimeError("drawing a graph needs Graphviz: install pygraphviz "
                                "(`pip install pygraphviz`) or the `dot` binary") from None
    with quiet_layout():
        return pygraphviz.AGraph(string=dot).draw(format=format, prog="dot")
