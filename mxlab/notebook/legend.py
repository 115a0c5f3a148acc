"""The legend drawn under every explorer view: what each fill colour, border and edge means.

Only what the drawn graph uses is listed (the roles present, the storage blocks of the plan, the
subgraphs, the segments), so the legend stays short and every colour on the canvas is named.

Example
-------
>>> 'pool block' in memory_legend([0, 1, -2])
True
"""
from ..markup import html_text

from .render import ROLE_COLORS, palette_color

__all__ = ["SHAPES_NOTE", "group_legend", "memory_legend", "note", "role_legend"]

ROLE_TEXT = {"input": "input", "param": "parameter", "head_grad": "head gradient",
             "op": "forward op", "backward": "backward op (dashed)", "sum_grad": "sum_grad "
             "(gradient aggregation)", "copy": "_copy", "mirror": "mirror (recomputed)",
             "subgraph": "subgraph node"}
SPECIAL_STORAGE = {-1: "-1 unassigned (shape unknown)", -2: "-2 external (inputs, outputs the "
                   "caller owns)", -3: "-3 dynamic (shape known at run time)"}
SHAPES_NOTE = ("double border: graph output; 3-D box: collapsed block (click to expand; click a "
               "block frame's title to collapse it); dotted edge: control dependency")
_MAX_SWATCHES = 80


def _swatch(color, text, border="#555"):
    return (f"<span style='display:inline-flex;align-items:center;margin:1px 8px 1px 0'>"
            f"<span style='display:inline-block;width:12px;height:12px;background:{color};"
            f"border:1px solid {border};margin-right:4px'></span>{html_text(text)}</span>")


def _box(title, swatches, note=""):
    body = "".join(swatches)
    tail = f"<div style='color:#666'>{html_text(note)}</div>" if note else ""
    return (f"<div class='mxlab-legend' style='font:11px sans-serif;margin:4px 0'>"
            f"<b>{html_text(title)}</b>: {body}{tail}</div>")


def role_legend(roles):
    """Legend of node-role fill colours for the roles in ``roles``."""
    items = [_swatch(ROLE_COLORS[r], ROLE_TEXT[r]) for r in ROLE_COLORS if r in roles]
    return _box("node roles", items, SHAPES_NOTE)


def memory_legend(storage_ids):
    """Legend of storage-block colours (nodes and edges) for the ids in ``storage_ids``."""
    ids = sorted(set(storage_ids))
    pool = [i for i in ids if i >= 0]
    items = [_swatch(palette_color(i), f"pool block {i}") for i in pool[:_MAX_SWATCHES]]
    if len(pool) > _MAX_SWATCHES:
        items.append(f"... and {len(pool) - _MAX_SWATCHES} more pool blocks")
    items += [_swatch(palette_color(i), SPECIAL_STORAGE[i]) for i in ids if i < 0]
    items.append(_swatch("#ffffff", "white: planned by another graph kind"))
    return _box("storage blocks (fill of the producing node, colour of its output edges)",
                items, "edge label: the entry's shape")


def note(text):
    """A one-line legend note."""
    return _box("legend", [], text)


def group_legend(title, groups, note=""):
    """Legend for numbered groups (``{id: text}``: subgraphs, segments)."""
    ids = sorted(groups)
    items = [_swatch(palette_color(i), groups[i]) for i in ids[:_MAX_SWATCHES]]
    if len(ids) > _MAX_SWATCHES:
        items.append(f"... and {len(ids) - _MAX_SWATCHES} more")
    items.append(_swatch("#eeeeee", "none"))
    return _box(title, items, note)
