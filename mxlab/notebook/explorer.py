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
import html

from ..base import MXNetValueError
from ..viz import charts
from .render import DrawOptions, build_dot, path_of, subgraph_id, svg_html, to_svg
from .sources import Source

__all__ = ["ExplorerModel", "Explorer", "explore", "VIEWS"]

VIEWS = ("graph", "partitions", "memory", "segments", "engine")
NO_PARTITION = ("no partition: this graph was not partitioned. Partition it with "
                "block.hybridize(backend='default', backend_opts=...) or "
                "mx.subgraph.partition(sym, backend, ...) and open the explorer again.")
_KNOBS = {"match_range": None, "sum_cap": None, "recompute": False}


def _table(header, rows):
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>"
                   for row in rows)
    return (f"<table class='mxlab-table' style='font-size:11px;border-collapse:collapse'>"
            f"<tr>{head}</tr>{body}</table>")


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
        Graphs with more nodes start with their top-level blocks collapsed, and at most this
        many nodes are drawn.
    """

    def __init__(self, source, kind=None, max_nodes=300):
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
        self._fingerprint = source.fingerprint()
        self._live = self._live_state()
        self._auto_collapse()

    # -- state -------------------------------------------------------------------------------------
    def _default_kind(self):
        kinds = self.source.kinds()
        return "full" if "full" in kinds else (kinds[-1] if kinds else "forward")

    def _auto_collapse(self):
        graph = self.graph
        if graph.indexed.num_nodes <= self.max_nodes:
            return
        blocks = self.source.block_paths(graph)
        self.collapsed = {p[0] for p in (path_of(n.name, blocks) for n in graph.indexed.nodes)
                          if p}

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
        self.view = view
        self.selected = {n.name: n.nid for n in self.graph.indexed.nodes}.get(name)
        self._live = self._live_state()
        self._changed()

    def _selected_name(self):
        return None if self.selected is None else self.graph.indexed[self.selected].name

    def set_kind(self, kind):
        if kind not in self.source.kinds() and kind != "forward":
            raise MXNetValueError(f"explorer: no '{kind}' graph; have {self.source.kinds()}")
        self.kind, self.selected, self.what_if = kind, None, None
        self._changed()

    def set_filter(self, op_filter):
        self.op_filter = op_filter or ""
        self._changed()

    def toggle_block(self, prefix):
        """Collapse the block ``prefix`` into one box, or expand it when collapsed."""
        self.collapsed ^= {prefix}
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
                           self.source.block_paths(self.graph), self.source.block_labels())

    def _plan_and_segments(self):
        if self.view == "partitions" and self.source.original is not None:
            return None, None           # NOTE: plans number the partitioned graph's entries
        if self.what_if is not None and self.what_if.kind == self.kind:
            return self.what_if.memory_plan, self.what_if.segments
        kind = "backward" if self.kind == "full" and self.view == "segments" else self.kind
        plan = self.source.memory_plan(self.kind)
        return plan, self.source.segments(kind) or self.source.segments(self.kind)

    def extras(self):
        plan, segments = self._plan_and_segments()
        return {"memory_plan": plan, "segments": segments,
                "partition": self.source.partition(self.graph),
                "run_times": self.source.run_times}

    def dot(self, with_selection=True):
        return build_dot(self.graph, self.options(with_selection), **self.extras())

    def svg(self, with_selection=True):
        return to_svg(self.dot(with_selection))

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
        facts = [f"<b>{html.escape(info['name'])}</b> ({html.escape(info['op'])}, node "
                 f"#{info['nid']})",
                 "attrs: " + html.escape(", ".join(f"{k}={v}" for k, v in info["attrs"].items())
                                         or "none"),
                 "segment: " + ("none" if seg is None else
                                f"{seg['index']} ({seg['part']}, ended by {seg['reason']})"),
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
        text = (f"<b>{html.escape(self.source.title)}</b> - {self.kind} graph, "
                f"{idx.num_nodes} nodes")
        if plan is not None:
            text += f" - memory: {html.escape(plan.summary())}"
        replans = self.source.replan_log
        if replans:
            last = replans[-1]
            text += (f"<br>re-plans: {len(replans)} (last: {html.escape(last.trigger)}: "
                     f"{html.escape(last.detail)})")
        if self.log:
            text += "<br><span style='color:#d62728'>" + html.escape(self.log[-1]) + "</span>"
        return text

    def panel_html(self):
        """The view's panel below the graph (tables and charts)."""
        return getattr(self, f"_panel_{self.view}")()

    def _panel_graph(self):
        passes = [p.name for p in self.graph.pass_log]
        return "passes run: " + html.escape(", ".join(passes) or "none")

    def _panel_partitions(self):
        part = self.source.partition(self.graph)
        if part is None:
            return f"<p class='mxlab-no-partition'>{html.escape(NO_PARTITION)}</p>"
        rows = [(i, part.nodes[i], ", ".join(names), ", ".join(part.inputs[i]),
                 ", ".join(part.outputs[i])) for i, names in enumerate(part.subgraphs)]
        excl = "".join(f"<li>{html.escape(x.message)}</li>" for x in part.exclusions)
        return (f"backend <b>{html.escape(part.backend)}</b>: {len(part.subgraphs)} subgraph(s)"
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
        note = " (what-if re-plan)" if self.what_if is not None else ""
        return (f"naive {plan.naive_bytes} B vs planned {plan.planned_bytes} B{note}"
                + _table(header, rows) + charts.figure_html(charts.lifetime_chart(plan)))

    def _panel_segments(self):
        _, segments = self._plan_and_segments()
        if not segments:
            return "<i>No bulk segments yet: call the op first.</i>"
        rows = [(i, s.part, len(s.nodes), ", ".join(s.names), s.reason, s.bulk)
                for i, s in enumerate(segments)]
        return _table(("segment", "part", "nodes", "members", "ended by", "bulk"), rows)

    def engine_events(self):
        """Engine events of this graph's ops (or, when none, the newest 200 events)."""
        from ..engine import event_log
        events = event_log.events()
        names = [n.name for n in self.graph.indexed.nodes]
        names += [n.op.name for n in self.graph.indexed.nodes if not n.is_variable]
        mine = charts.engine_events_for(events, names)
        return mine if mine else events[-200:]

    def _panel_engine(self):
        events = self.engine_events()
        rows = [(e.seq, e.name, e.thread, " ".join(f"v{v}@{k}" for v, k in e.reads),
                 " ".join(f"v{v}@{k}" for v, k in e.writes), f"{e.duration * 1e6:.1f}")
                for e in events[-30:]]
        return (_table(("seq", "op", "thread", "reads (var@version)", "writes", "us"), rows)
                + charts.figure_html(charts.version_chart(events))
                + charts.figure_html(charts.gantt_chart(events)))

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
        return (f"<div class='mxlab-explorer'><style>{_TABLE_CSS}</style>"
                f"<div>{self.summary_html()}</div>"
                f"{svg_html(self.svg())}<div>{self.details_html()}</div>"
                f"<div>{self.panel_html()}</div></div>")

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/html": self.static_html(), "image/svg+xml": self.svg(),
                "text/plain": f"<ExplorerModel {self.kind} graph, view {self.view}>"}


_CANVAS_JS = """
function render({ model, el }) {
  const box = document.createElement("div");
  box.className = "mxlab-canvas";
  box.style.maxHeight = "560px";
  box.style.overflow = "auto";
  const draw = () => {
    box.innerHTML = model.get("svg");
    box.querySelectorAll("g.node").forEach((g) => {
      const title = g.querySelector("title");
      const key = title ? title.textContent : "";
      g.style.cursor = "pointer";
      g.classList.toggle("mxlab-selected", key === model.get("selected"));
      g.addEventListener("click", () => {
        model.set("selected", key);
        model.save_changes();
      });
    });
  };
  model.on("change:svg", draw);
  model.on("change:selected", draw);
  draw();
  el.appendChild(box);
}
export default { render };
"""
_TABLE_CSS = """
.mxlab-table td, .mxlab-table th { padding: 2px 8px; border-bottom: 1px solid #e0e0e0;
  text-align: left; font-family: monospace; }
.mxlab-table th { background: #f3f3f3; }
"""
_CANVAS_CSS = _TABLE_CSS + """
.mxlab-selected polygon, .mxlab-selected ellipse, .mxlab-selected path {
  stroke: #d62728 !important; stroke-width: 3px !important; }
"""


def _block(text):
    """``text`` in a div with normal line height (ipywidgets' HTML uses the widget height)."""
    return f"<style>{_TABLE_CSS}</style><div style='line-height:1.4'>{text}</div>"


def _canvas_class():
    import anywidget
    import traitlets

    class GraphCanvas(anywidget.AnyWidget):
        """SVG of a graph; clicking a node sets ``selected`` to its DOT id (``n<nid>``)."""
        _esm = _CANVAS_JS
        _css = _CANVAS_CSS
        svg = traitlets.Unicode("").tag(sync=True)
        selected = traitlets.Unicode("").tag(sync=True)

    return GraphCanvas


class Explorer:
    """The explorer widget (ipywidgets); ``model`` is its :class:`ExplorerModel`.

    Use :func:`explore` to make one. ``widget`` is the ipywidgets box shown in the notebook.
    """

    def __init__(self, model):
        import ipywidgets as w
        self.model = model
        self._syncing = False
        self.views = w.ToggleButtons(options=[v.capitalize() for v in VIEWS], value="Graph")
        self.kind = w.Dropdown(options=model.source.kinds() or ["forward"], value=model.kind,
                               description="graph", layout=w.Layout(width="180px"))
        self.picker = w.Dropdown(options=self._names(), value=None, description="node",
                                 layout=w.Layout(width="280px"))
        self.filter = w.Text(value="", placeholder="filter by op", layout=w.Layout(width="150px"))
        self.canvas = _canvas_class()(svg=model.svg(with_selection=False))
        self.header = w.HTML(model.summary_html())
        self.info = w.HTML(model.details_html())
        self.panel = w.HTML(model.panel_html())
        self.knobs = self._knob_widgets(w)
        controls = w.HBox([self.kind, self.picker, self.filter])
        self.widget = w.VBox([self.header, self.views, controls, self.knobs, self.canvas,
                              self.info, self.panel])
        self._wire()
        model.listeners.append(self._update)
        self._update(model)

    def _knob_widgets(self, w):
        self.match_range = w.BoundedIntText(value=16, min=0, max=1024, description="match range",
                                            style={"description_width": "initial"},
                                            layout=w.Layout(width="200px"))
        self.sum_cap = w.BoundedIntText(value=0, min=0, max=1024, description="sum cap",
                                        style={"description_width": "initial"},
                                        layout=w.Layout(width="200px"))
        self.recompute = w.Checkbox(value=False, description="mirror / recompute")
        return w.HBox([self.match_range, self.sum_cap, self.recompute])

    def _wire(self):
        m = self.model
        self._on(self.views, lambda view: m.set_view(view.lower()))
        self._on(self.kind, m.set_kind)
        self._on(self.filter, m.set_filter, allow_empty=True)
        self._on(self.picker, m.select)
        self._on(self.canvas, self._clicked, name="selected")
        for knob in (self.match_range, self.sum_cap, self.recompute):
            self._on(knob, lambda _: self._replan(), allow_empty=True)

    def _on(self, widget, action, name="value", allow_empty=False):
        """Call ``action(new value)`` on user changes only (not while :meth:`_update` syncs
        the widgets to the model, e.g. new Dropdown options resetting the value)."""
        def handler(change):
            if self._syncing or (not allow_empty and change["new"] in (None, "")):
                return
            action(change["new"])
        widget.observe(handler, names=name)

    def _clicked(self, key):
        try:
            self.model.select(key)
        except MXNetValueError as exc:
            self.model.log.append(str(exc))
            self._update(self.model)

    def _replan(self):
        try:
            self.model.replan(match_range=self.match_range.value,
                              sum_cap=self.sum_cap.value or None,
                              recompute=self.recompute.value)
        except Exception as exc:  # noqa: BLE001  (shown in the widget, never raised into a cell)
            self.model.log.append(f"re-plan failed: {type(exc).__name__}: {exc}")
            self._update(self.model)

    def _names(self):
        return [n.name for n in self.model.graph.indexed.nodes]

    def _update(self, model):
        self._syncing = True
        try:
            self._sync(model)
        finally:
            self._syncing = False

    def _sync(self, model):
        self.header.value = _block(model.summary_html())
        self.canvas.svg = model.svg(with_selection=False)
        selected = "" if model.selected is None else f"n{model.selected}"
        self.canvas.selected = selected
        if self.kind.options != tuple(model.source.kinds() or ["forward"]):
            self.kind.options = model.source.kinds() or ["forward"]
        names = self._names()
        if list(self.picker.options) != names:
            self.picker.options = names
        name = model._selected_name()
        if self.picker.value != name:
            self.picker.value = name
        self.knobs.layout.display = "" if model.view == "memory" else "none"
        self.info.value = _block(model.details_html())
        self.panel.value = _block(model.panel_html())

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = self.widget._repr_mimebundle_(include=include, exclude=exclude) or {}
        bundle = dict(bundle)
        bundle.update(self.model._repr_mimebundle_())
        return bundle


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
    model = ExplorerModel(Source(obj, shapes, dtypes, partition, original), kind, max_nodes)
    explorer = Explorer(model)
    live.track(model)
    return explorer
