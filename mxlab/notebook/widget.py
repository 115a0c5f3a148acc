"""The explorer's ipywidgets front: view buttons, pickers, planner knobs, the pannable canvas.

:class:`Explorer` keeps its widgets and its :class:`~mxlab.notebook.explorer.ExplorerModel` in
step both ways: a user change on a widget calls the model, and every model change (also one made
from code, e.g. ``ex.model.set_view('memory')``) is written back to every widget, buttons and
knobs included. The canvas is an anywidget: the SVG with pan (drag), zoom (wheel, +/-), fit,
an overview of the whole drawing, node clicks (select) and block clicks (collapse / expand).
"""
from ..base import MXNetValueError
from .explorer import DEFAULT_MATCH_RANGE, TABLE_CSS, VIEWS

__all__ = ["Explorer", "canvas_class"]

_CANVAS_JS = (__import__("pathlib").Path(__file__).with_name("canvas.js")).read_text()
_CANVAS_CSS = TABLE_CSS + """
.mxlab-selected polygon, .mxlab-selected ellipse, .mxlab-selected path {
  stroke: #d62728 !important; stroke-width: 3px !important; }
.mxlab-canvas { position: relative; height: 560px; border: 1px solid #ddd; overflow: hidden;
  background: #fff; }
.mxlab-canvas > svg.mxlab-main { width: 100%; height: 100%; cursor: grab; }
.mxlab-tools { position: absolute; top: 4px; left: 4px; z-index: 2; }
.mxlab-tools button { font: 12px sans-serif; margin-right: 2px; }
.mxlab-overview { position: absolute; right: 4px; bottom: 4px; width: 180px; height: 120px;
  border: 1px solid #999; background: rgba(255,255,255,0.9); z-index: 2; }
.mxlab-overview svg { width: 100%; height: 100%; }
.mxlab-cluster-hit { cursor: pointer; }
"""


def _block(text):
    """``text`` in a div with normal line height (ipywidgets' HTML uses the widget height)."""
    return f"<style>{TABLE_CSS}</style><div style='line-height:1.4'>{text}</div>"


def canvas_class():
    """The canvas widget class (anywidget, made on first use so importing needs no widgets)."""
    import anywidget
    import traitlets

    class GraphCanvas(anywidget.AnyWidget):
        """SVG of a graph. A node click sets ``selected`` to its DOT id (``n<nid>``, ``c<k>``
        for a collapsed block); a click on a drawn block's frame sets ``cluster_<path>``.
        ``highlight`` maps a CSS class to the DOT ids that get it (the engine replay's small
        per-step delta); ``extra_css`` styles those classes."""
        _esm = _CANVAS_JS
        _css = _CANVAS_CSS
        svg = traitlets.Unicode("").tag(sync=True)
        selected = traitlets.Unicode("").tag(sync=True)
        highlight = traitlets.Dict({}).tag(sync=True)
        extra_css = traitlets.Unicode("").tag(sync=True)

    return GraphCanvas


class Explorer:
    """The explorer widget (ipywidgets); ``model`` is its :class:`ExplorerModel`.

    Use :func:`~mxlab.notebook.explore` to make one. ``widget`` is the box shown in the notebook.
    """

    def __init__(self, model):
        import ipywidgets as w
        self.model = model
        self._syncing = False
        self.views = w.ToggleButtons(options=[v.capitalize() for v in VIEWS], value="Graph")
        self.kind = w.Dropdown(options=model.source.kinds() or ["forward"], value=model.kind,
                               description="graph", layout=w.Layout(width="180px"))
        # NOTE: contents are filled once, by the _update below (each costs a graph walk)
        self.picker = w.Dropdown(options=[], value=None, description="node",
                                 layout=w.Layout(width="320px"))
        self.filter = w.Text(value="", placeholder="filter by op", layout=w.Layout(width="150px"))
        self.depth = w.BoundedIntText(value=model.depth, min=0, max=16,
                                      description="collapse depth",
                                      style={"description_width": "initial"},
                                      layout=w.Layout(width="150px"))
        self.canvas = canvas_class()()
        self.header, self.legend, self.info, self.panel = (w.HTML() for _ in range(4))
        self.knobs = self._knob_widgets(w)
        controls = w.HBox([self.kind, self.picker, self.filter, self.depth])
        self.widget = w.VBox([self.header, self.views, controls, self.knobs, self.canvas,
                              self.legend, self.info, self.panel])
        self._wire()
        model.listeners.append(self._update)
        self._update(model)

    def _knob_widgets(self, w):
        style = {"description_width": "initial"}
        self.match_range = w.BoundedIntText(value=DEFAULT_MATCH_RANGE, min=0, max=1024,
                                            description="match range", style=style,
                                            layout=w.Layout(width="160px"))
        self.sum_cap = w.BoundedIntText(value=0, min=0, max=1024, description="sum cap",
                                        style=style, layout=w.Layout(width="130px"))
        self.recompute = w.Checkbox(value=False, description="mirror / recompute")
        self.reset = w.Button(description="reset knobs", layout=w.Layout(width="110px"))
        return w.HBox([self.match_range, self.sum_cap, self.recompute, self.reset])

    def _wire(self):
        m = self.model
        self._on(self.views, lambda view: m.set_view(view.lower()))
        self._on(self.kind, m.set_kind)
        self._on(self.filter, m.set_filter, allow_empty=True)
        self._on(self.picker, m.select)
        self._on(self.depth, m.set_depth, allow_empty=True)
        self._on(self.canvas, self._clicked, name="selected")
        for knob in (self.match_range, self.sum_cap, self.recompute):
            self._on(knob, lambda _: self._replan(), allow_empty=True)
        self.reset.on_click(lambda _: m.reset_knobs())

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
            if key.startswith("cluster_"):
                self.model.toggle_block(key[len("cluster_"):])
            else:
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
        return self.model.node_choices()

    def _update(self, model):
        self._syncing = True
        try:
            self._sync(model)
        finally:
            self._syncing = False

    def _sync(self, model):
        """Write the model's whole state into the widgets (the model -> widgets direction)."""
        self.header.value = _block(model.summary_html())
        self.views.value = model.view.capitalize()
        kinds = tuple(model.source.kinds() or ["forward"])
        if self.kind.options != kinds:
            self.kind.options = kinds
        self.kind.value = model.kind if model.kind in kinds else kinds[0]
        self.filter.value = model.op_filter
        self.depth.value = model.depth
        self._sync_knobs(model)
        self.canvas.svg = model.svg(with_selection=False)
        self.canvas.selected = "" if model.selected is None else f"n{model.selected}"
        names = self._names()
        if list(self.picker.options) != names:
            self.picker.options = names
        value = model.node_choice(model.selected)
        if self.picker.value != value:
            self.picker.value = value
        self.legend.value = _block(model.legend_html())
        self.info.value = _block(model.details_html())
        self.panel.value = _block(model.panel_html())

    def _sync_knobs(self, model):
        knobs = model.knobs
        self.match_range.value = (DEFAULT_MATCH_RANGE if knobs["match_range"] is None
                                  else knobs["match_range"])
        self.sum_cap.value = knobs["sum_cap"] or 0
        self.recompute.value = bool(knobs["recompute"])
        self.knobs.layout.display = "" if model.view == "memory" else "none"

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = self.widget._repr_mimebundle_(include=include, exclude=exclude) or {}
        bundle = dict(bundle)
        bundle.update(self.model._repr_mimebundle_())
        return bundle
