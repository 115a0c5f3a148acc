"""DOT building and SVG layout for the graph explorer.

:func:`build_dot` turns a :class:`~mxlab.graph.graph.Graph` plus what a view adds (memory plan,
segments, partition, run times) into Graphviz DOT text; :func:`to_svg` lays it out in a Graphviz
worker process (:mod:`.layout`; a crash or timeout there shows :mod:`.fallback`'s simple
drawing). Node ids in the DOT text are ``n<nid>`` (collapsed blocks ``c<k>``); Graphviz writes
them as each SVG node's ``<title>``, which is how a click in the browser names the node. Every
name, label and tooltip is a DOT quoted string made by :func:`~mxlab.markup.dot_escape`, one
statement per line.

Large graphs stay drawable: block prefixes can be collapsed into one box, nodes filtered by op
name, and at most ``max_nodes`` nodes are drawn (the rest summarised in one note node).

Example
-------
>>> import mxlab as mx
>>> from mxlab.graph import Graph
>>> g = Graph(mx.sym.tanh(mx.sym.var('x'), name='t')._outputs)
>>> dot = build_dot(g)
>>> print(dot.splitlines()[5])
  n1 [label="t\\ntanh" shape=box fillcolor="#bebada" tooltip="t" id="n1" peripheries=2]
"""
import colorsys
import dataclasses
import re

from ..markup import dot_escape, dot_id, html_text
from ..viz.charts import svg_img

__all__ = [
    "WEIGHT_SUFFIXES",
    "DrawOptions",
    "block_path",
    "build_dot",
    "node_role",
    "palette_color",
    "path_of",
    "subgraph_id",
    "svg_html",
    "svg_img",
    "to_svg",
    "visible_nodes",
]

#: Variable names MXNet's visualization treats as weights (hidden by ``hide_weights``).
WEIGHT_SUFFIXES = ("_weight", "_bias", "_beta", "_gamma", "_moving_var", "_moving_mean",
                   "_running_var", "_running_mean", ".weight", ".bias", ".beta", ".gamma",
                   ".running_var", ".running_mean")

#: Fill colour per node role (the graph view).
ROLE_COLORS = {"input": "#8dd3c7", "param": "#d9d9d9", "head_grad": "#ffffb3", "op": "#bebada",
               "backward": "#fdb462", "sum_grad": "#fb8072", "copy": "#80b1d3",
               "mirror": "#b3de69", "subgraph": "#fccde5"}

_PALETTE = ("#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69",
            "#fccde5", "#bc80bd", "#ccebc5", "#ffed6f", "#a6cee3", "#b2df8a", "#fdbf6f")


def palette_color(i):
    """A colour for id ``i`` (storage id, subgraph id, segment); grey for None/-k.

    The first ids take a qualitative palette; later ones step the hue by the golden angle and
    cycle three lightness levels, so hundreds of storage blocks keep distinct colours.
    """
    if i is None or i < 0:
        return "#eeeeee"
    if i < len(_PALETTE):
        return _PALETTE[i]
    hue = (i * 137.508) % 360 / 360
    light = (0.80, 0.70, 0.88)[i % 3]
    red, green, blue = colorsys.hls_to_rgb(hue, light, 0.65)
    return "#{:02x}{:02x}{:02x}".format(*(round(c * 255) for c in (red, green, blue)))


@dataclasses.dataclass
class DrawOptions:
    """What to draw: ``view`` colouring, ``collapsed`` block prefixes, ``op_filter`` (substring
    of op names to keep), at most ``max_nodes`` nodes, the ``selected`` node id highlighted."""
    view: str = "graph"
    collapsed: frozenset = frozenset()
    op_filter: str = ""
    max_nodes: int = 300
    selected: int = None
    params: frozenset = frozenset()
    blocks: dict = dataclasses.field(default_factory=dict)
    block_labels: dict = dataclasses.field(default_factory=dict)
    display: dict = dataclasses.field(default_factory=dict)


def path_of(name, blocks):
    """Block path of node ``name``: from ``blocks`` (name -> path, e.g. a HybridBlock's
    structured parameter names) when known, else from the name itself (:func:`block_path`)."""
    if name in blocks:
        return blocks[name]
    forward = name.split("_backward")[0]
    return blocks[forward] if forward in blocks else block_path(name)


def node_role(graph, nid, params=frozenset()):
    """Role of node ``nid``: input, param, head_grad, op, backward, sum_grad, copy, mirror,
    subgraph (the labels the graph view shows)."""
    node = graph.indexed[nid].node
    if node.op is None:
        if node.name.endswith("_head_grad"):
            return "head_grad"
        if node.name in params or node.name.endswith(WEIGHT_SUFFIXES):
            return "param"
        return "input"
    if "__mirror_of__" in node.extra:
        return "mirror"
    if node.name.startswith("sum_grad"):
        return "sum_grad"
    if node.op.name == "_copy":
        return "copy"
    if node.subgraphs:
        return "subgraph"
    return "backward" if nid >= graph.num_forward_nodes else "op"


def block_path(name):
    """Gluon block prefixes of a node name, outermost first: ``net.0.weight`` -> ``['net',
    'net.0']``; ``fc1_weight`` -> ``['fc1']``; names without a block prefix -> ``[]``."""
    if "_backward" in name:
        name = name.split("_backward")[0]   # NOTE: gradient nodes join their forward node's block
        return block_path(name) if "_" in name or "." in name else []
    if "." in name:
        parts = name.split(".")[:-1]
        return [".".join(parts[:i + 1]) for i in range(len(parts))]
    head = name.split("_")[0]
    if "_" in name and re.search(r"[a-z]\d+$", head):
        return [head]
    return []


def subgraph_id(partition, name):
    """Subgraph id of ``name``: an original node inside it, or the node that replaced it."""
    sub = partition.subgraph_of(name)
    if sub is None and name in partition.nodes:
        sub = partition.nodes.index(name)
    return sub


def _excluded_names(partition):
    """``{node name: seed}`` of the nodes a cycle check excluded from the seed's subgraph."""
    return {n: x.seed for x in (partition.exclusions if partition else ()) for n in x.excluded}


def _collapsed_prefix(name, collapsed, blocks):
    return next((p for p in path_of(name, blocks) if p in collapsed), None)


def visible_nodes(graph, options):
    """``(node ids drawn, collapsed prefix per hidden node id, count left out)`` for
    ``options``."""
    idx = graph.indexed
    keep = []
    for n in idx.nodes:
        if options.op_filter and not n.is_variable and options.op_filter not in n.op.name:
            continue
        if options.op_filter and n.is_variable:
            continue
        keep.append(n.nid)
    folded = {nid: p for nid in keep
              if (p := _collapsed_prefix(idx[nid].name, options.collapsed, options.blocks))
              is not None}
    shown = [nid for nid in keep if nid not in folded]
    left_out = max(0, len(shown) - options.max_nodes)
    return shown[:options.max_nodes], folded, left_out


def _node_label(graph, nid, role, extra_line, display=None):
    node = graph.indexed[nid].node
    lines = [(display or {}).get(node.name, node.name)]
    if node.op is not None:
        lines.append(node.op.name)
    tag = {"head_grad": "head gradient", "sum_grad": "sum_grad", "copy": "_copy",
           "mirror": f"mirror of {node.extra.get('__mirror_of__', '')}"}.get(role)
    if tag and tag not in lines:
        lines.append(tag)
    if extra_line:
        lines.append(extra_line)
    return "\\n".join(dot_escape(x) for x in lines)


class _Colors:
    """Per-view fill colour and extra label line of a node; edge colours for the memory view."""

    def __init__(self, graph, view, extras):
        self.graph, self.view, self.extras = graph, view, extras
        self.plan = extras.get("memory_plan")
        self.partition = extras.get("partition")
        self.times = extras.get("run_times") or {}
        self.segment_of = {nid: i for i, s in enumerate(extras.get("segments") or [])
                           for nid in s.nodes}

    def node(self, nid, role):
        name = self.graph.indexed[nid].name
        if self.view == "memory" and self.plan is not None:
            eid = self.graph.indexed.node_row_ptr[nid]
            start, stop = self.plan.node_range or (0, self.graph.indexed.num_nodes)
            if eid >= len(self.plan.entries) or not start <= nid < stop:
                return "#ffffff", None        # NOTE: planned by another kind's plan
            sid = self.plan.entries[eid].storage_id
            return palette_color(sid), {-2: "external", -3: "dynamic"}.get(sid, f"sid={sid}")
        if self.view == "partitions" and self.partition is not None:
            sub = subgraph_id(self.partition, name)
            return palette_color(sub), None if sub is None else f"subgraph {sub}"
        if self.view == "segments" and self.segment_of:
            seg = self.segment_of.get(nid)
            return palette_color(seg), None if seg is None else f"segment {seg}"
        if self.view == "engine" and name in self.times:
            return ROLE_COLORS[role], f"{self.times[name] * 1e6:.0f} us"
        return ROLE_COLORS[role], None

    def edge(self, eid, head):
        if self.view == "partitions" and self.partition is not None:
            idx = self.graph.indexed
            tail = subgraph_id(self.partition, idx[idx.node_of_entry(eid)].name)
            if tail != subgraph_id(self.partition, idx[head].name):
                return ' color="#d62728" penwidth=2'   # NOTE: a boundary entry
            return ""
        if self.view != "memory" or self.plan is None or eid >= len(self.plan.entries):
            return ""
        sid = self.plan.entries[eid].storage_id
        return f' color="{palette_color(sid) if sid >= 0 else "#999999"}" penwidth=2'


def _cluster_tree(graph, nids, blocks):
    """``{prefix: [nids directly in it]}`` plus children per prefix, for nested clusters."""
    members, children = {}, {}
    paths = {nid: path_of(graph.indexed[nid].name, blocks) for nid in nids}
    prefixes = {p for path in paths.values() for p in path}
    for nid in nids:
        name = graph.indexed[nid].name
        path = paths[nid] or ([name] if name in prefixes else [])
        members.setdefault(path[-1] if path else None, []).append(nid)
        for parent, child in zip([None] + path, path):
            children.setdefault(parent, [])
            if child not in children[parent]:
                children[parent].append(child)
    return members, children


def _emit_clusters(lines, prefix, tree, node_line, labels, depth=1):
    members, children = tree
    for nid in members.get(prefix, []):
        lines.append("  " * depth + node_line(nid))
    for child in children.get(prefix, []):
        lines.append("  " * depth + f'subgraph "cluster_{dot_id(child)}" {{')
        lines.append("  " * depth + f'  label="{dot_escape(labels.get(child, child))}" '
                     'style="rounded,dashed" color="#888888" fontcolor="#555555"')
        _emit_clusters(lines, child, tree, node_line, labels, depth + 1)
        lines.append("  " * depth + "}")


def _group_clusters(lines, groups, node_line, label_of, style):
    """One cluster per group id (partitions, segments); ``groups`` maps id -> nids."""
    for gid, nids in groups.items():
        lines.append(f'  subgraph "cluster_g{gid}" {{')
        lines.append(f'    label="{dot_escape(label_of(gid))}" style="{style}" '
                     f'fillcolor="{palette_color(gid)}40" color="{palette_color(gid)}"')
        lines.extend("    " + node_line(nid) for nid in nids)
        lines.append("  }")


def _groups(view, graph, shown, extras):
    """Cluster groups of the partitions and segments views (``None`` for block clusters)."""
    names = [graph.indexed[nid].name for nid in shown]
    if view == "partitions" and extras.get("partition") is not None:
        part = extras["partition"]
        groups = {}
        for nid, name in zip(shown, names):
            sub = subgraph_id(part, name)
            if sub is not None:
                groups.setdefault(sub, []).append(nid)
        return groups, lambda g: f"subgraph {g}: {part.nodes[g]}"
    if view == "segments" and extras.get("segments"):
        segs = extras["segments"]
        groups = {}
        for i, seg in enumerate(segs):
            inside = [nid for nid in seg.nodes if nid in set(shown)]
            if inside:
                groups[i] = inside
        return groups, lambda g: f"segment {g} ({segs[g].part}): ended by {segs[g].reason}"
    return None, None


def build_dot(graph, options=None, **extras):
    """Graphviz DOT text of ``graph`` for ``options`` (:class:`DrawOptions`).

    ``extras``: ``memory_plan`` (MemoryPlan), ``segments`` (list of Segment), ``partition``
    (Partition, whose node names refer to ``graph``), ``run_times`` (name -> seconds).
    """
    options = options or DrawOptions()
    idx = graph.indexed
    shown, folded, left_out = visible_nodes(graph, options)
    shown_set = set(shown)
    colors = _Colors(graph, options.view, extras)
    outputs = {idx.node_of_entry(e) for e in idx.outputs}
    excluded = _excluded_names(extras.get("partition"))

    def node_line(nid):
        role = node_role(graph, nid, options.params)
        fill, extra = colors.node(nid, role)
        shape = "ellipse" if idx[nid].is_variable else "box"
        label = _node_label(graph, nid, role, extra, options.display)
        attrs = f'label="{label}" shape={shape} fillcolor="{fill}"'
        attrs += f' tooltip="{dot_escape(idx[nid].name)}" id="n{nid}"'
        if nid in outputs:
            attrs += " peripheries=2"
        if role == "backward":
            attrs += ' style="filled,dashed"'
        if options.view == "partitions" and idx[nid].name in excluded:
            seed = dot_escape(excluded[idx[nid].name])
            attrs += f' color="#d62728" style="filled,dashed" xlabel="excluded (cycle from {seed})"'
        if nid == options.selected:
            attrs += ' color="#d62728" penwidth=3'
        return f"n{nid} [{attrs}]"

    lines = [f'digraph "{dot_id(options.view)}" {{',
             '  graph [rankdir=TB fontname="Helvetica" fontsize=10 nodesep=0.25 ranksep=0.35]',
             ('  node [style="rounded,filled" fontname="Helvetica" fontsize=10 '
              'margin="0.08,0.03" height=0.3]'),
             '  edge [fontname="Helvetica" fontsize=8 arrowsize=0.6 color="#555555"]']
    groups, label_of = _groups(options.view, graph, shown, extras)
    if groups is not None:
        grouped = {nid for nids in groups.values() for nid in nids}
        style = "filled,rounded" if options.view == "segments" else "filled,bold"
        _group_clusters(lines, groups, node_line, label_of, style)
        lines.extend("  " + node_line(nid) for nid in shown if nid not in grouped)
    else:
        tree = _cluster_tree(graph, shown, options.blocks)
        _emit_clusters(lines, None, tree, node_line, options.block_labels)
    # NOTE: a collapsed box's DOT id is c<k>, k its index in sorted(collapsed) (what a click
    #   sends back); only boxes hiding a node are drawn.
    cid = {p: f"c{k}" for k, p in enumerate(sorted(options.collapsed))}
    for prefix in sorted(set(folded.values())):
        k = cid[prefix][1:]
        count = sum(1 for p in folded.values() if p == prefix)
        title = dot_escape(options.block_labels.get(prefix, prefix))
        lines.append(f'  c{k} [label="{title}\\n({count} nodes, collapsed)" shape=box3d '
                     f'fillcolor="#e5e5e5" id="c{k}" tooltip="{dot_escape(prefix)}"]')
    if left_out:
        lines.append(f'  more [label="... {left_out} more nodes not drawn\\n(filter by op or '
                     'collapse blocks)" shape=note fillcolor="#ffffff"]')
    lines.extend(_edges(graph, shown_set, folded, cid, colors, options))
    lines.append("}")
    return "\n".join(lines)


def _edges(graph, shown, folded, cid, colors, options):
    idx = graph.indexed

    def endpoint(nid):
        if nid in shown:
            return f"n{nid}"
        return cid.get(folded.get(nid))

    seen, lines = set(), []
    for n in idx.nodes:
        head = endpoint(n.nid)
        if head is None:
            continue
        for eid in n.inputs:
            tail = endpoint(idx.node_of_entry(eid))
            if tail is None or tail == head or (tail, head, eid) in seen:
                continue
            seen.add((tail, head, eid))
            label = _edge_label(graph, eid) if options.view == "memory" else ""
            lines.append(f'  {tail} -> {head} [{label}{colors.edge(eid, n.nid)}]')
        for dep in n.control_deps:
            tail = endpoint(dep)
            if tail is not None and tail != head:
                lines.append(f'  {tail} -> {head} [style=dotted arrowhead=empty]')
    return lines


def _edge_label(graph, eid):
    shapes = graph.attrs.get("shape")
    if not shapes or eid >= len(shapes) or shapes[eid] is None:
        return ""
    return f'label="{"x".join(str(d) for d in shapes[eid])}"'


def to_svg(dot):
    """Lay ``dot`` out as SVG text in a Graphviz worker process (see :mod:`.layout`); when
    Graphviz crashes, errs or times out, the simple layered drawing that says so."""
    from .layout import layout
    return layout(dot).svg


def svg_html(svg, caption=""):
    """The SVG as an image in a scrollable box (the static HTML fallback)."""
    cap = f"<div style='font:12px sans-serif;color:#555'>{html_text(caption)}</div>"
    return (f"<div class='mxlab-graph' style='max-height:600px;overflow:auto'>"
            f"{svg_img(svg)}</div>" + (cap if caption else ""))
