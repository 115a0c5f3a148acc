"""The graph explorer: a plain-Python model (state, views, selection, refresh) and its widget.

:class:`ExplorerModel` holds everything the user can change (view, graph kind, selected node,
collapsed blocks, op filter, planner knobs) and renders DOT/SVG/HTML from the inspected object's
plain objects; it needs no browser, so it is what the tests drive. :class:`Explorer` is the
ipywidgets front: ToggleButtons for the views, a node picker, a clickable SVG canvas (an
anywidget whose JS sets ``selected`` when a node is clicked) and the detail and view panels. Both
have a static ``_repr_mimebundle_`` (SVG + HTML) for nbconvert and GitHub.

Example
-------
>>> import mxlab as mx
>>> model = ExplorerModel(Source(mx.sym.tanh(mx.sym.var('x'), name='t'), shapes={'x': (2,)}))
>>> model.select('t')['op']
'tanh'
>>> model.set_view('memory'); 'storage id' in model.panel_html()
True
"""
from ..base import MXNetValueError
from ..markup import html_text
from ..viz import charts
from . import legend
from .layout import layout
from .naming import derive_scopes, display_names
from .render import (
    DrawOptions,
    block_path,
    build_dot,
    node_role,
    subgraph_id,
    svg_html,
    to_svg,
)
from .sources import Source

__all__ = ["DEFAULT_MATCH_RANGE", "TABLE_CSS", "VIEWS", "ExplorerModel", "explore"]

VIEWS = ("graph", "partitions", "memory", "segments", "engine")
NO_PARTITION = ("no partition: this graph was not partitioned. Partition it with "
                "block.hybridize(backend='default', backend_opts=...) or "
                "mx.subgraph.partition(sym, backend, ...) and open the explorer again.")
_KNOBS = {"match_range": None, "sum_cap": None, "recompute": False}
#: Graphs with more nodes open with their blocks collapsed (see ExplorerModel.depth).
AUTO_COLLAPSE_NODES = 120
#: Rows per page of the view tables (memory plan, segments, engine events).
PAGE_ROWS = 40
#: The planner's matching range when none is set (NNVM_EXEC_MATCH_RANGE's default).
DEFAULT_MATCH_RANGE = 16
TABLE_CSS = """
.mxlab-table td, .mxlab-table th { padding: 2px 8px; border-bottom: 1px solid #e0e0e0;
  text-align: left; font-family: monospace; }
.mxlab-table th { background: #f3f3f3; }
"""


def _table(header, rows):
    head = "".join(f"<th>{html_text(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html_text(c)}</td>" for c in row) + "</tr>"
                   for row in rows)
    return (f"<table class='mxlab-table' style='font-size:11px;border-collapse:collapse'>"
            f"<tr>{head}</tr>{body}</table>")


def _page_of(rows, page, size):
    """``(rows on page ``page``, a 'rows a-b of n' note)``; the page is clamped."""
    pages = max(1, -(-len(rows) // size))
    page = min(max(page, 0), pages - 1)
    shown = rows[page * size:(page + 1) * size]
    if pages == 1:
        return shown, ""
    note = (f"<div class='mxlab-page'>rows {page * size + 1}-{page * size + len(shown)} of "
            f"{len(rows)} (page {page + 1} of {pages}; set the page above)</div>")
    return shown, note


def _fmt_shape(shape):
    return "?" if shape is None else "x".join(str(d) for d in shape) or "()"


class ExplorerModel:
    """State and rendering of one explorer (no widgets: unit-testable).

    Parameters
    ----------
    source : Source
    kind : str, optional
        Graph kind to show first (default: the newest plan: backward, full or forward).
    max_nodes : int
        At most this many nodes are drawn (the rest summarised in one note).
    depth : int, optional
        Collapse every block this many levels deep (0: none; default: 0 for graphs up to
        ``AUTO_COLLAPSE_NODES`` nodes, else the shallowest depth showing at least 6 blocks).
    """

    def __init__(self, source, kind=None, max_nodes=300, depth=None):
        from ..engine import event_log
        event_log.enable()   # NOTE: the Engine view reads it (off by default in scripts)
        self.source = source
        self.view = "graph"
        self.kind = kind or self._default_kind()
        self.selected = None
        self.collapsed = set()
        self.op_filter = ""
        self.max_nodes = max_nodes
        self.knobs = dict(_KNOBS)
        self.what_if = None
        self.log = []
        self.listeners = []
        self._names_cache = {}
        self.page = 0
        self.page_rows = PAGE_ROWS
        self._fingerprint = source.fingerprint()
        self._live = self._live_state()
        self.depth = self._default_depth() if depth is None else depth
        self.collapsed = self._collapse_at(self.depth)

    # -- state -------------------------------------------------------------------------------------
    def _default_kind(self):
        kinds = self.source.kinds()
        return "full" if "full" in kinds else (kinds[-1] if kinds else "forward")

    def _collapse_at(self, depth):
        """Every block path ``depth`` levels deep (0: none)."""
        if depth <= 0:
            return set()
        return {p[depth - 1] for p in self.block_paths().values() if len(p) >= depth}

    def _default_depth(self):
        """0 for small graphs; else the shallowest depth showing at least 6 blocks."""
        if self.graph.indexed.num_nodes <= AUTO_COLLAPSE_NODES:
            return 0
        paths = list(self.block_paths().values())
        deepest = max((len(p) for p in paths), default=0)
        for depth in range(1, deepest + 1):
            if len({p[depth - 1] for p in paths if len(p) >= depth}) >= 6:
                return depth
        return deepest

    def set_depth(self, depth):
        """Collapse every block ``depth`` levels deep (0 expands everything)."""
        self.depth = max(0, int(depth))
        self.collapsed = self._collapse_at(self.depth)
        self._changed()

    def block_paths(self):
        """``{node name: block path}`` of the drawn graph, every node placed that can be
        (parameter-free layers and backward nodes too, see :mod:`.naming`)."""
        graph = self.graph
        key = ("paths", id(graph))
        if key not in self._names_cache:
            by_name = {n.name: block_path(n.name) for n in graph.indexed.nodes}
            by_name = {name: path for name, path in by_name.items() if path}
            blocks = self.source.block_paths(graph)
            # NOTE: only a Gluon block's scopes are spread to neighbours; a name prefix
            #   (fc1_weight) says nothing about the nodes around it
            self._names_cache[key] = derive_scopes(graph, {**by_name, **blocks}) if blocks \
                else by_name
        return self._names_cache[key]

    def display_names(self):
        """``{node name: name by block path}`` (see :func:`.naming.display_names`)."""
        graph = self.graph
        key = ("names", id(graph))
        if key not in self._names_cache:
            params = {}
            if hasattr(self.source.obj, "collect_params"):
                params = {p.var().name: k for k, p in self.source.obj.collect_params().items()}
            self._names_cache[key] = display_names(graph, self.block_paths(), params)
        return self._names_cache[key]

    def node_choices(self):
        """``[(label, node name)]`` for the node picker, labelled by block path and op."""
        shown = self.display_names()
        op = {n.nid: "var" if n.is_variable else n.op.name for n in self.graph.indexed.nodes}
        return [(f"{shown.get(n.name, n.name)} - {op[n.nid]} ({n.name})", n.name)
                for n in self.graph.indexed.nodes]

    def node_choice(self, nid):
        return None if nid is None else self.graph.indexed[nid].name

    @property
    def graph(self):
        """The graph drawn now (the what-if re-plan's graph while one is active)."""
        if self.view == "partitions" and self.source.original is not None:
            return self.source.original
        if self.what_if is not None and self.what_if.kind == self.kind:
            return self.what_if.graph
        return self.source.graph(self.kind)

    def _changed(self):
        for callback in list(self.listeners):
            callback(self)

    def set_view(self, view):
        if view not in VIEWS:
            raise MXNetValueError(f"explorer: unknown view '{view}'; views: {list(VIEWS)}")
        name = self._selected_name()
        self.view, self.page = view, 0
        self.selected = {n.name: n.nid for n in self.graph.indexed.nodes}.get(name)
        self._live = self._live_state()
        self._changed()

    def _selected_name(self):
        return None if self.selected is None else self.graph.indexed[self.selected].name

    def set_kind(self, kind):
        if kind not in self.source.kinds() and kind != "forward":
            raise MXNetValueError(f"explorer: no '{kind}' graph; have {self.source.kinds()}")
        self.kind, self.selected = kind, None
        self.knobs, self.what_if = dict(_KNOBS), None
        self.collapsed = self._collapse_at(self.depth)
        self._changed()

    def set_page(self, page):
        """Show page ``page`` (0-based) of the view's table."""
        self.page = max(0, int(page))
        self._changed()

    def set_filter(self, op_filter):
        self.op_filter = op_filter or ""
        self._changed()

    def toggle_block(self, prefix):
        """Collapse the block ``prefix`` into one box, or expand it when collapsed (its child
        blocks then show collapsed, so a deep model opens one level at a time)."""
        if prefix in self.collapsed:
            self.collapsed.discard(prefix)
            depth = prefix.count(".") + 2
            self.collapsed |= {p[depth - 1] for p in self.block_paths().values()
                               if len(p) >= depth and p[depth - 2] == prefix}
        else:
            self.collapsed = {p for p in self.collapsed if not p.startswith(prefix + ".")}
            self.collapsed.add(prefix)
        self._changed()

    def node_id(self, key):
        """Node id of a name, an id, or a DOT id (``n12``; ``c3`` names a collapsed block)."""
        idx = self.graph.indexed
        if isinstance(key, int):
            return key
        for n in idx.nodes:
            if n.name == key:
                return n.nid
        if key[:1] == "n" and key[1:].isdigit() and int(key[1:]) < idx.num_nodes:
            return int(key[1:])
        raise MXNetValueError(f"explorer: no node named '{key}' in the {self.kind} graph")

    def select(self, key):
        """Select a node (name, id or DOT id); a collapsed block's id expands it. Returns the
        node's :meth:`details` (None for a block)."""
        if isinstance(key, str) and key[:1] == "c" and key[1:].isdigit():
            self.toggle_block(sorted(self.collapsed)[int(key[1:])])
            return None
        self.selected = self.node_id(key)
        self._changed()
        return self.details()

    # -- rendering ---------------------------------------------------------------------------------
    def options(self, with_selection=True):
        return DrawOptions(self.view, frozenset(self.collapsed), self.op_filter, self.max_nodes,
                           self.selected if with_selection else None, self.source.params,
                           self.block_paths(), self.source.block_labels(),
                           self.display_names())

    def _plan_and_segments(self):
        if self.view == "partitions" and self.source.original is not None:
            return None, None           # NOTE: plans number the partitioned graph's entries
        if self.what_if is not None and self.what_if.kind == self.kind:
            return self.what_if.memory_plan, self.what_if.segments
        return self.source.memory_plan(self.kind), self._segments()

    def _segments(self):
        """Segments of the drawn kind; for ``full``, its forward segments then the backward
        plan's (both number the same gradient graph), so every view names a node's segment
        the same way."""
        own = list(self.source.segments(self.kind) or ())
        if self.kind != "full" or "backward" not in self.source.kinds():
            return own
        backward = self.source.graph("backward")
        if backward.indexed.num_nodes != self.graph.indexed.num_nodes:
            return own
        return own + list(self.source.segments("backward") or ())

    def extras(self):
        plan, segments = self._plan_and_segments()
        return {"memory_plan": plan, "segments": segments,
                "partition": self.source.partition(self.graph),
                "run_times": self.source.run_times}

    def dot(self, with_selection=True):
        """DOT text of the view now; the last few are kept, as one state is drawn for the
        canvas, the static picture and the layout note alike."""
        extras = self.extras()
        key = (id(self.graph), self.view, self.kind, frozenset(self.collapsed), self.op_filter,
               self.max_nodes, self.selected if with_selection else None,
               id(extras["memory_plan"]), tuple(map(id, extras["segments"] or ())),
               id(extras["partition"]), tuple(sorted(extras["run_times"].items())))
        cache = self._names_cache.setdefault("dot", {})
        if key not in cache:
            if len(cache) >= 8:
                cache.pop(next(iter(cache)))
            cache[key] = build_dot(self.graph, self.options(with_selection), **extras)
        return cache[key]

    def svg(self, with_selection=True):
        return to_svg(self.dot(with_selection))

    def layout_note(self):
        """None when Graphviz drew the view; else what the drawing left out and why."""
        return layout(self.dot(with_selection=False)).fallback

    def details(self, nid=None):
        """Everything known about node ``nid`` (default: the selected one) as a dict."""
        nid = self.selected if nid is None else nid
        if nid is None:
            return None
        graph = self.graph
        idx = graph.indexed
        n = idx[nid]
        shapes, dtypes = graph.attrs.get("shape"), graph.attrs.get("dtype")
        plan, segments = self._plan_and_segments()
        part = self.source.partition(graph)

        def entry(eid):
            row = {"entry": idx.entry_label(eid),
                   "shape": shapes[eid] if shapes else None,
                   "dtype": dtypes[eid] if dtypes else None}
            if plan is not None and eid < len(plan.entries):
                p = plan.entries[eid]
                row.update(storage_id=p.storage_id, request=p.request, bytes=p.nbytes,
                           inplace_source=p.inplace_source)
            return row

        seg = next(((i, s) for i, s in enumerate(segments or ()) if nid in s.nodes), None)
        return {"name": n.name, "op": "var" if n.is_variable else n.op.name, "nid": nid,
                "attrs": {k: str(v) for k, v in n.node.attrs.items()},
                "extra": dict(n.node.extra),
                "inputs": [entry(e) for e in n.inputs],
                "outputs": [entry(e) for e in idx.output_entries(nid)],
                "segment": None if seg is None else {"index": seg[0], "reason": seg[1].reason,
                                                     "part": seg[1].part},
                "subgraph": None if part is None else subgraph_id(part, n.name),
                "last_run_time": self.source.run_times.get(n.name)}

    def details_html(self):
        info = self.details()
        if info is None:
            return "<i>Click a node (or pick one above) to see its details.</i>"
        keys = ("entry", "shape", "dtype", "storage_id", "request", "bytes", "inplace_source")
        rows = [[io] + [r.get(k, "") for k in keys]
                for io, group in (("in", info["inputs"]), ("out", info["outputs"]))
                for r in group]
        seg = info["segment"]
        facts = [(f"<b>{html_text(info['name'])}</b> ({html_text(info['op'])}, node "
                  f"#{info['nid']})"),
                 "attrs: " + html_text(", ".join(f"{k}={v}" for k, v in info["attrs"].items())
                                       or "none"),
                 "segment: " + ("none" if seg is None else html_text(
                     f"{seg['index']} ({seg['part']}, ended by {seg['reason']})")),
                 f"subgraph: {'none' if info['subgraph'] is None else info['subgraph']}",
                 "last run time: " + ("n/a (set cached_op.time_nodes = True and run it)"
                                      if info["last_run_time"] is None else
                                      f"{info['last_run_time'] * 1e6:.1f} us")]
        return ("<div class='mxlab-details'>" + "<br>".join(facts)
                + _table(("", ) + keys, rows) + "</div>")

    def summary_html(self):
        """Title line: object, kind, node count, plans, re-plans (newest last)."""
        idx = self.graph.indexed
        plan, _ = self._plan_and_segments()
        text = (f"<b>{html_text(self.source.title)}</b> - {self.kind} graph, "
                f"{idx.num_nodes} nodes")
        if plan is not None:
            text += f" - memory: {html_text(plan.summary())}"
        replans = self.source.replan_log
        if replans:
            last = replans[-1]
            text += (f"<br>re-plans: {len(replans)} (last: {html_text(last.trigger)}: "
                     f"{html_text(last.detail)})")
        note = self.layout_note()
        if note:
            text += f"<br><span class='mxlab-layout-note' style='color:#d62728'>layout: " \
                    f"{html_text(note)}</span>"
        if self.what_if is not None:
            text += (f"<br><b>what-if re-plan active</b>: {html_text(self.knob_text())} "
                     "(reset knobs to see the object's own plan)")
        if self.log:
            text += "<br><span style='color:#d62728'>" + html_text(self.log[-1]) + "</span>"
        return text

    def panel_html(self):
        """The view's panel below the graph (tables and charts)."""
        return getattr(self, f"_panel_{self.view}")()

    def legend_html(self):
        """What the colours, borders and edges of the current view mean."""
        graph = self.graph
        roles = {node_role(graph, n.nid, self.source.params) for n in graph.indexed.nodes}
        if self.view == "memory":
            plan, _ = self._plan_and_segments()
            if plan is not None:
                return legend.memory_legend(e.storage_id for e in plan.entries)
        if self.view == "partitions":
            part = self.source.partition(graph)
            if part is not None:
                return legend.group_legend("subgraphs", {i: f"subgraph {i}: {n}" for i, n in
                                                         enumerate(part.nodes)},
                                           "red edge: crosses a subgraph boundary; red dashed "
                                           "border: excluded by the cycle check")
        if self.view == "segments":
            _, segments = self._plan_and_segments()
            if segments:
                return legend.group_legend("bulk segments", {i: f"segment {i} ({s.part})"
                                                             for i, s in enumerate(segments)})
        text = legend.role_legend(roles)
        if self.view == "engine":
            text += legend.note("node label: last run time (set cached_op.time_nodes = True); "
                                "reads/writes as v<var>@<version>")
        return text

    def _panel_graph(self):
        passes = [p.name for p in self.graph.pass_log]
        return "passes run: " + html_text(", ".join(passes) or "none")

    def _panel_partitions(self):
        part = self.source.partition(self.graph)
        if part is None:
            return f"<p class='mxlab-no-partition'>{html_text(NO_PARTITION)}</p>"
        rows = [(i, part.nodes[i], ", ".join(names), ", ".join(part.inputs[i]),
                 ", ".join(part.outputs[i])) for i, names in enumerate(part.subgraphs)]
        excl = "".join(f"<li>{html_text(x.message)}</li>" for x in part.exclusions)
        return (f"backend <b>{html_text(part.backend)}</b>: {len(part.subgraphs)} subgraph(s)"
                + _table(("id", "node", "members", "boundary inputs", "outputs"), rows)
                + (f"exclusions:<ul>{excl}</ul>" if excl else ""))

    def _panel_memory(self):
        plan, _ = self._plan_and_segments()
        if plan is None:
            return ("<i>No memory plan yet: call the op (record and run backward for the "
                    "full/backward plans), or give shapes= for a Symbol.</i>")
        rows = [(e.eid, e.node, _fmt_shape(e.shape), e.dtype, e.nbytes, e.storage_id,
                 "" if e.inplace_source is None else e.inplace_source, e.request or "input")
                for e in plan.entries]
        header = ("eid", "node", "shape", "dtype", "bytes", "storage id", "in-place source",
                  "request")
        note = f" (what-if re-plan: {self.knob_text()})" if self.what_if is not None else ""
        rows, page_note = _page_of(rows, self.page, self.page_rows)
        return (f"naive {plan.naive_bytes} B vs planned {plan.planned_bytes} B{note}"
                + _table(header, rows) + page_note
                + self._chart(("lifetimes", id(plan)), lambda: charts.lifetime_chart(plan)))

    def _panel_segments(self):
        _, segments = self._plan_and_segments()
        if not segments:
            return "<i>No bulk segments yet: call the op first.</i>"
        rows = [(i, s.part, len(s.nodes), ", ".join(s.names), s.reason, s.bulk)
                for i, s in enumerate(segments)]
        rows, page_note = _page_of(rows, self.page, self.page_rows)
        return _table(("segment", "part", "nodes", "members", "ended by", "bulk"),
                      rows) + page_note

    def engine_events(self):
        """Engine events of this graph's ops (none when it has not run: never other cells')."""
        from ..engine import event_log
        # NOTE: by node name only: an op name (tanh) also matches other cells' imperative ops
        names = [n.name for n in self.graph.indexed.nodes]
        return charts.engine_events_for(event_log.events(), names)

    def _panel_engine(self):
        events = self.engine_events()
        if not events:
            return ("<i>No engine events for this graph yet: run it (call the CachedOp or "
                    "block, or bind and run the Symbol) and the view fills in.</i>")
        rows = [(e.seq, e.name, e.thread, charts.versions_text(e.reads),
                 charts.versions_text(e.writes), f"{e.duration * 1e6:.1f}")
                for e in reversed(events)]
        rows, page_note = _page_of(rows, self.page, self.page_rows)
        return (_table(("seq", "op", "thread", "reads (var@version)", "writes", "us"), rows)
                + page_note + self._chart(("engine", events[-1].seq, len(events)),
                                          lambda: charts.engine_charts(events)))

    def _chart(self, key, build):
        """A chart's ``<img>``, drawn once per key (a plan, an event range): matplotlib takes
        most of a view switch otherwise."""
        if key not in self._names_cache:
            figures = build()
            figures = figures if isinstance(figures, tuple) else (figures,)
            self._names_cache[key] = "".join(charts.figure_html(f) for f in figures)
        return self._names_cache[key]

    # -- live --------------------------------------------------------------------------------------
    def replan(self, **knobs):
        """What-if re-plan with planner knobs (``match_range``, ``sum_cap``, ``recompute``);
        the inspected object keeps its own plans. Returns the new MemoryPlan."""
        unknown = set(knobs) - set(_KNOBS)
        if unknown:
            raise MXNetValueError(f"explorer: unknown planner knobs {sorted(unknown)}; "
                                  f"knobs: {sorted(_KNOBS)}")
        self.knobs.update(knobs)
        self.what_if = self.source.replan(self.kind, **self.knobs)
        self._changed()
        return self.what_if.memory_plan

    def reset_knobs(self):
        """Drop the what-if: planner knobs back to their defaults, the object's own plan shown."""
        self.knobs, self.what_if = dict(_KNOBS), None
        self._changed()

    def knob_text(self):
        """The planner knobs in force, e.g. ``match_range=0, sum_cap=default, recompute=on``."""
        match = self.knobs["match_range"]
        return (f"match_range={DEFAULT_MATCH_RANGE if match is None else match}"
                f"{'' if match is not None else ' (default)'}, "
                f"sum_cap={self.knobs['sum_cap'] or 'none'}, "
                f"recompute={'on' if self.knobs['recompute'] else 'off'}")

    def _live_state(self):
        """What the views draw beyond the source: the newest partition and, in the Engine view,
        the newest engine event."""
        from .. import subgraph
        from ..engine import event_log
        last_event = None
        if self.view == "engine":
            events = event_log.events()
            last_event = events[-1].seq if events else None
        return id(subgraph.last_partition()), last_event

    def refresh(self):
        """Re-read the inspected object; True (and listeners told) when something drawn changed.

        A re-plan or new trace switches to the newest plan (keeping the selected node by name);
        a new partition or new engine events only re-render.
        """
        fingerprint = self.source.fingerprint()
        live = self._live_state()
        if (fingerprint, live) == (self._fingerprint, self._live):
            return False
        replanned = fingerprint != self._fingerprint
        self._fingerprint, self._live = fingerprint, live
        if replanned:
            name = self._selected_name()
            self.kind, self.what_if = self._default_kind(), None
            names = {n.name: n.nid for n in self.graph.indexed.nodes}
            self.selected = names.get(name)
        self._changed()
        return True

    def static_html(self):
        return (f"<div class='mxlab-explorer'><style>{TABLE_CSS}</style>"
                f"<div>{self.summary_html()}</div>"
                f"{svg_html(self.svg())}<div>{self.legend_html()}</div>"
                f"<div>{self.details_html()}</div>"
                f"<div>{self.panel_html()}</div></div>")

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/html": self.static_html(), "image/svg+xml": self.svg(),
                "text/plain": f"<ExplorerModel {self.kind} graph, view {self.view}>"}


def explore(obj, kind=None, shapes=None, dtypes=None, partition=None, original=None,
            max_nodes=300):
    """Open the graph explorer on a CachedOp, HybridBlock, Symbol or executor.

    Parameters
    ----------
    obj : CachedOp, HybridBlock, Symbol or executor
    kind : str, optional
        forward, full or backward (default: the newest plan).
    shapes, dtypes : dict, optional
        Input shapes (and dtypes) to plan a bare Symbol.
    partition : Partition, optional
        Drawn by the Partitions view.
    original : Symbol, optional
        The symbol before partitioning (drawn by the Partitions view, subgraphs as clusters).

    Returns
    -------
    Explorer
        Display it (last expression of a cell); ``.model`` is scriptable.

    Example
    -------
    >>> import mxlab as mx
    >>> ex = explore(mx.sym.tanh(mx.sym.var('x')), shapes={'x': (3,)})
    >>> ex.model.set_view('memory')
    """
    from . import live
    from .widget import Explorer
    model = ExplorerModel(Source(obj, shapes, dtypes, partition, original), kind, max_nodes)
    explorer = Explorer(model)
    live.track(model)
    return explorer
