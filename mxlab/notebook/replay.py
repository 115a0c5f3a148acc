"""Engine replay: step through the recorded engine events of a cell or a CachedOp call.

:class:`ReplayModel` turns a list of :class:`~mxlab.engine.EngineEvent` (in push order) into one
small, precomputed state per step: the graph nodes the op runs, the ``(var, version)`` pairs it
reads, the versions each written var goes from and to, the vars (buffers) live at that moment,
and the ops that overlapped it on other engine threads. :class:`Replay` is its widget: an
ipywidgets ``Play`` linked to a slider, the explorer's canvas and a step panel. Moving the slider
sends only the step's highlight lists and a short HTML panel to the browser (the SVG is sent
once), so a 2,000-node graph replays without redrawing.

Example
-------
>>> import mxlab as mx
>>> mx.engine.event_log.clear()
>>> a = mx.nd.ones((2,)); a += 1
>>> model = ReplayModel(mx.engine.event_log.events())
>>> [s["name"] for s in model.steps]
['_ones', '_plus_scalar']
>>> model.steps[1]["writes"][0][1:]         # a's var: version 1 -> 2
(1, 2)
"""
from ..markup import html_text
from ..viz import charts

__all__ = ["Replay", "ReplayModel", "event_nodes", "replay"]


def _members(event):
    """Node names an event ran: itself, or a bulk segment's members (``segment3:a,b,c``)."""
    head, _, members = event.name.partition(":")
    if head.startswith("segment") and members:
        return [m for m in members.rstrip(".").split(",") if m]
    return [event.name]


def event_nodes(event, segments_by_head):
    """Node names ``event`` ran; a segment event's names are completed from the plan's segment
    whose names begin with the (possibly shortened) list in the event name."""
    names = _members(event)
    if not event.name.startswith("segment"):
        return names
    for segment_names in segments_by_head.get(names[0], ()):
        if segment_names[:len(names) - 1] == names[:-1]:
            return list(segment_names)
    return names


def _overlaps(events):
    """``{seq: [names of events on other threads whose run intersects it]}`` (sweep by start)."""
    ordered = sorted(events, key=lambda e: e.start)
    out = {e.seq: [] for e in events}
    active = []
    for e in ordered:
        active = [a for a in active if a.end > e.start]
        for a in active:
            if a.thread != e.thread:
                out[e.seq].append(a.name)
                out[a.seq].append(e.name)
        active.append(e)
    return out


def _last_use(events):
    """``{var: index of the last step reading or writing it}``."""
    last = {}
    for i, e in enumerate(events):
        for var, _ in e.reads + e.writes:
            last[var] = i
    return last


class ReplayModel:
    """Precomputed per-step states of ``events`` (push order), mapped onto ``graph_model``'s
    drawing when given (an :class:`~mxlab.notebook.explorer.ExplorerModel`)."""

    def __init__(self, events, graph_model=None):
        self.events = sorted(events, key=lambda e: (e.push_seq is None, e.push_seq, e.seq))
        self.graph_model = graph_model
        self.steps = self._precompute()

    def _dot_ids(self):
        """``{node name: DOT id drawn for it}`` (a collapsed block's box for hidden nodes)."""
        if self.graph_model is None:
            return {}
        model = self.graph_model
        cid = {p: f"c{k}" for k, p in enumerate(sorted(model.collapsed))}
        paths = model.block_paths()
        ids = {}
        for n in model.graph.indexed.nodes:
            box = next((p for p in paths.get(n.name, ()) if p in model.collapsed), None)
            ids[n.name] = cid[box] if box is not None else f"n{n.nid}"
        return ids

    def _segments_by_head(self):
        if self.graph_model is None:
            return {}
        source, heads = self.graph_model.source, {}
        for kind in source.kinds():
            for seg in source.segments(kind) or ():
                heads.setdefault(seg.names[0], []).append(seg.names)
        return heads

    def _precompute(self):
        dot_ids, heads = self._dot_ids(), self._segments_by_head()
        overlaps, last = _overlaps(self.events), _last_use(self.events)
        producer, version, born, steps = {}, {}, {}, []
        for i, e in enumerate(self.events):
            names = event_nodes(e, heads)
            running = sorted({dot_ids[n] for n in names if n in dot_ids})
            writes = []
            for var, after in e.writes:
                writes.append((var, version.get(var, after - 1), after))
                version[var] = after
                producer[var] = running
                born.setdefault(var, i)
            for var, seen in e.reads:
                version.setdefault(var, seen)
                born.setdefault(var, i)
            live = sorted(v for v, start in born.items() if start <= i <= last[v])
            steps.append({
                "seq": e.seq, "name": e.name, "thread": e.thread, "nodes": names,
                "running": running, "reads": list(e.reads), "writes": writes,
                "read_nodes": sorted({d for v, _ in e.reads for d in producer.get(v, ())}
                                     - set(running)),
                "live": live, "live_nodes": sorted({d for v in live for d in producer.get(v, ())}
                                                   - set(running)),
                "overlap": overlaps[e.seq], "us": e.duration * 1e6, "error": e.error})
        return steps

    def step_html(self, i):
        """The step panel: what runs, what it reads and writes (versions), what is live."""
        if not self.steps:
            return "<i>No engine events recorded: run something, then open the replay.</i>"
        s = self.steps[i]
        writes = " ".join(f"v{v}: {a}&rarr;{b}" for v, a, b in s["writes"]) or "-"
        overlap = (f"<b>overlapped</b> on other threads by: "
                   f"{html_text(', '.join(s['overlap'][:8]))}" if s["overlap"]
                   else "ran alone (no other engine thread busy)")
        live = " ".join(f"v{v}" for v in s["live"][:40])
        more = f" ... ({len(s['live'])} in all)" if len(s["live"]) > 40 else ""
        return (f"<div class='mxlab-replay-step'><b>step {i + 1}/{len(self.steps)}</b> - "
                f"event #{s['seq']} <b>{html_text(s['name'][:120])}</b> on thread "
                f"{html_text(s['thread'])}, {s['us']:.1f} us"
                + (f" <span style='color:#d62728'>error: {html_text(s['error'])}</span>"
                   if s["error"] else "")
                + f"<br>reads (var@version): {charts.versions_text(s['reads'])}"
                + f"<br>writes (var: version before&rarr;after): {writes}"
                + f"<br>live buffers: {live or '-'}{more}<br>{overlap}</div>")


_REPLAY_CSS = """
.mxlab-running polygon, .mxlab-running ellipse, .mxlab-running path, .mxlab-running rect {
  stroke: #ff7f0e !important; stroke-width: 4px !important; }
.mxlab-read polygon, .mxlab-read ellipse, .mxlab-read rect { stroke: #1f77b4 !important;
  stroke-width: 3px !important; }
.mxlab-live polygon, .mxlab-live ellipse, .mxlab-live rect { stroke-dasharray: 4 2; }
"""


class Replay:
    """The replay widget: Play/step slider over :class:`ReplayModel` steps, the graph with the
    running node (orange), the nodes whose outputs it reads (blue) and live buffers (dashed)."""

    def __init__(self, model):
        import ipywidgets as w

        from .widget import canvas_class
        self.model = model
        last = max(len(model.steps) - 1, 0)
        self.play = w.Play(value=0, min=0, max=last, step=1, interval=500, description="play")
        self.slider = w.IntSlider(value=0, min=0, max=last, description="step",
                                  layout=w.Layout(width="500px"))
        w.jslink((self.play, "value"), (self.slider, "value"))
        self.info = w.HTML(model.step_html(0))
        parts = [w.HBox([self.play, self.slider])]
        self.canvas = None
        if model.graph_model is not None:
            self.canvas = canvas_class()(svg=model.graph_model.svg(with_selection=False),
                                         extra_css=_REPLAY_CSS)
            parts.append(self.canvas)
        self._chart = (charts.figure_html(charts.gantt_chart(model.events)) if model.events
                       else "")
        parts += [self.info, w.HTML(self._chart)]
        self.widget = w.VBox(parts)
        self.slider.observe(lambda change: self.show(change["new"]), names="value")
        self.show(0)

    def show(self, i):
        """Step ``i``: the panel text and the three highlight lists (all the browser gets)."""
        self.info.value = self.model.step_html(i)
        if self.canvas is not None and self.model.steps:
            s = self.model.steps[i]
            self.canvas.highlight = {"mxlab-running": s["running"],
                                     "mxlab-read": s["read_nodes"],
                                     "mxlab-live": s["live_nodes"]}

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = dict(self.widget._repr_mimebundle_(include=include, exclude=exclude) or {})
        static = self.model.step_html(0) + self._chart
        if self.model.graph_model is not None:
            from .render import svg_html
            static = svg_html(self.model.graph_model.svg(with_selection=False)) + static
        bundle.update({"text/html": static, "text/plain": f"<Replay: {len(self.model.steps)} "
                                                          "engine steps>"})
        return bundle


def replay(obj=None, events=None, kind=None, **explore_args):
    """Replay engine events step by step.

    Parameters
    ----------
    obj : CachedOp, HybridBlock, Symbol or executor, optional
        Draw its graph and highlight the nodes each event runs.
    events : list of EngineEvent, optional
        Default: the events of ``obj``'s graph in the engine log (with ``obj``), else the whole
        log (a cell: call ``mx.engine.event_log.clear()`` first).
    kind : str, optional
        The graph kind drawn (forward, full, backward).

    Returns
    -------
    Replay
    """
    from ..engine import event_log
    from .explorer import ExplorerModel
    from .sources import Source
    graph_model = None
    if obj is not None:
        graph_model = ExplorerModel(Source(obj, **explore_args), kind)
        if events is None:
            events = graph_model.engine_events()
    if events is None:
        events = event_log.events()
    return Replay(ReplayModel(events, graph_model))
