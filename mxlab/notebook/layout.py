"""Graph layout for the explorer, off the kernel, with fallbacks that say what they left out.

:func:`layout` lays DOT text out in a Graphviz worker process (:mod:`mxlab.viz.layout`). When the
worker crashes, errs or runs out of time, the caller gets a :class:`Layout` whose ``fallback``
says what happened: the graph drawn again without edge labels (what makes Graphviz's mincross
abort on clustered graphs), or else the simple layered drawing of :mod:`.fallback`.

Example
-------
>>> result = layout('digraph { a -> b }')
>>> result.fallback is None and result.svg.startswith('<svg')
True
"""
import dataclasses
import functools
import re

from ..viz.layout import POOL, LayoutError
from . import fallback

__all__ = ["Layout", "layout", "without_edge_labels"]


@dataclasses.dataclass(frozen=True)
class Layout:
    """An SVG drawing; ``fallback`` is None for Graphviz's full drawing, else what was left out
    and why."""
    svg: str
    fallback: str = None


def without_edge_labels(dot):
    """``dot`` with the edge labels left out (Graphviz's mincross aborts on some clustered
    graphs with edge labels, and lays the same graph out without them)."""
    return _EDGE_LABEL.sub(r"\1", dot)


_EDGE_LABEL = re.compile(r'^(\s*\w+ -> \w+ \[)label="[^"]*"', re.MULTILINE)


@functools.lru_cache(maxsize=64)
def layout(dot, timeout=None):
    """Lay ``dot`` out in a worker. When Graphviz crashes, errs or times out: again without
    edge labels, and failing that the layered fallback; ``fallback`` then says what happened."""
    try:
        return Layout(_svg(POOL.run(dot, timeout)))
    except LayoutError as exc:
        reason = str(exc)
    simpler = without_edge_labels(dot)
    if simpler != dot and "longer than" not in reason:
        try:
            return Layout(_svg(POOL.run(simpler, timeout)),
                          f"{reason}; drawn again without edge labels")
        except LayoutError as exc:
            reason += f"; without edge labels too ({exc})"
    return Layout(fallback.layered_svg(dot, reason), reason + "; simple layered layout shown")


def _svg(data):
    svg = data.decode("utf-8")
    return svg[svg.find("<svg"):]
