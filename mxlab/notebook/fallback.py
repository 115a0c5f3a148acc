"""The fallback drawing: a layered layout computed in Python from the explorer's own DOT text.

Shown when Graphviz crashes, errs or times out (see :mod:`.layout`). Nodes go in rows by longest
path from the inputs, ordered in each row by the mean position of their inputs (one barycentre
sweep); edges are straight lines. Each node keeps its DOT id as the SVG ``<title>`` inside a
``g.node``, like Graphviz's output, so clicks still select nodes. A banner says why this simpler
drawing is shown.

Example
-------
>>> svg = layered_svg('digraph {\\n  n0 [label="x"]\\n  n0 -> n1 []\\n}', 'test')
>>> svg.count('class="node"'), 'test' in svg
(2, True)
"""
import html
import re

from ..markup import html_text

__all__ = ["label_lines", "layered_svg", "parse_dot"]

_NODE = re.compile(r'^\s*(\w+) \[(.*)\]\s*$')
_EDGE = re.compile(r'^\s*(\w+) -> (\w+)')
_ATTR = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')
_ESCAPED = re.compile(r'\\(.)')
_W, _H, _GAP_X, _GAP_Y, _TOP = 150, 34, 16, 40, 46


def parse_dot(dot):
    """``(nodes {id: {attr: value}} in order, edges [(tail, head)])`` of the DOT text the
    explorer writes (one statement per line)."""
    nodes, edges = {}, []
    for line in dot.splitlines():
        edge = _EDGE.match(line)
        if edge:
            edges.append(edge.groups())
            continue
        node = _NODE.match(line)
        if node and node.group(1) not in ("graph", "node", "edge"):
            nodes[node.group(1)] = dict(_ATTR.findall(node.group(2)))
    for tail, head in edges:
        for key in (tail, head):
            nodes.setdefault(key, {"label": key})
    return nodes, edges


def _ranks(nodes, edges):
    """Longest-path row per node (Kahn's order; nodes left on a cycle follow their placed
    inputs)."""
    preds = {k: [] for k in nodes}
    succs = {k: [] for k in nodes}
    for tail, head in edges:
        preds[head].append(tail)
        succs[tail].append(head)
    waiting = {k: len(set(preds[k])) for k in nodes}
    ready = [k for k in nodes if not waiting[k]]
    rank = {}
    while ready or len(rank) < len(nodes):
        if not ready:
            ready = [next(k for k in nodes if k not in rank)]
        key = ready.pop()
        if key in rank:
            continue
        rank[key] = 1 + max((rank[p] for p in preds[key] if p in rank), default=-1)
        for head in set(succs[key]):
            waiting[head] -= 1
            if waiting[head] == 0:
                ready.append(head)
    return rank, preds


def _positions(nodes, edges):
    rank, preds = _ranks(nodes, edges)
    rows = {}
    for key in nodes:
        rows.setdefault(rank[key], []).append(key)
    column = {}
    for r in sorted(rows):
        def weight(key):
            placed = [column[p] for p in preds[key] if p in column]
            return sum(placed) / len(placed) if placed else len(column)
        rows[r].sort(key=weight)
        for i, key in enumerate(rows[r]):
            column[key] = i
    return {key: (column[key] * (_W + _GAP_X) + 10, _TOP + rank[key] * (_H + _GAP_Y))
            for key in nodes}, max(len(r) for r in rows.values()), len(rows)


def label_lines(label):
    """The text lines of a DOT escString label as Graphviz shows them: ``\\n``/``\\l``/``\\r``
    break lines, any other escaped character stands for itself, entities are decoded."""
    text = _ESCAPED.sub(lambda m: "\n" if m.group(1) in "nlr" else m.group(1), label)
    return html.unescape(text).split("\n")


def _node_svg(key, attrs, x, y):
    lines = label_lines(attrs.get("label", key))[:3]
    fill = html_text(attrs.get("fillcolor", "#ffffff"))
    texts = "".join(f'<text x="{x + _W / 2}" y="{y + 12 + 10 * i}" text-anchor="middle" '
                    f'font-family="Helvetica" font-size="9">{html_text(t[:28])}</text>'
                    for i, t in enumerate(lines))
    return (f'<g class="node" id="{html_text(key)}"><title>{html_text(key)}</title>'
            f'<rect x="{x}" y="{y}" width="{_W}" height="{_H}" rx="5" fill="{fill}" '
            f'stroke="#555555"/>{texts}</g>')


def layered_svg(dot, reason):
    """SVG of ``dot`` drawn in rows, with a banner giving ``reason`` for the fallback."""
    nodes, edges = parse_dot(dot)
    if not nodes:
        nodes = {"empty": {"label": "(nothing to draw)"}}
    pos, widest, depth = _positions(nodes, edges)
    width = max(widest * (_W + _GAP_X) + 20, 600)
    height = _TOP + depth * (_H + _GAP_Y) + 10
    lines = "".join(f'<line class="edge" x1="{pos[t][0] + _W / 2}" y1="{pos[t][1] + _H}" '
                    f'x2="{pos[h][0] + _W / 2}" y2="{pos[h][1]}" stroke="#888888"/>'
                    for t, h in edges)
    body = "".join(_node_svg(k, a, *pos[k]) for k, a in nodes.items())
    banner = (f'<text class="mxlab-fallback" x="10" y="18" font-family="Helvetica" '
              f'font-size="13" fill="#d62728">Simple layered layout (Graphviz layout not '
              f'available: {html_text(reason)})</text>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}pt" height="{height}pt" '
            f'viewBox="0 0 {width} {height}"><g class="graph">{banner}{lines}{body}</g></svg>')
