"""Live views: refresh open explorers after every executed cell (IPython ``post_run_cell``).

Explorers register themselves with :func:`track` (weakly: a closed, collected explorer drops
out). After each cell the hook asks every tracked model to :meth:`refresh` (re-planned CachedOps,
new partitions, new engine events show without the user calling anything). The hook never raises
into the user's cell: an error is appended to the model's ``log`` (shown in the widget header).

Example
-------
>>> from IPython.core.interactiveshell import InteractiveShell
>>> shell = InteractiveShell.instance()
>>> enable(shell); is_enabled()
True
>>> disable(); is_enabled()
False
"""
import weakref

from ..markup import html_text

__all__ = [
    "EngineView",
    "close_engine_view",
    "disable",
    "enable",
    "engine_view",
    "is_enabled",
    "refresh_all",
    "track",
    "tracked",
]

_MODELS = weakref.WeakSet()
_STATE = {"shell": None, "engine_view": None}


def track(model):
    """Refresh ``model`` after each cell while live views are on."""
    _MODELS.add(model)


def tracked():
    return list(_MODELS)


def refresh_all(*_):
    """Refresh every tracked model; returns how many changed. Errors go to each model's log.

    The cell's pushed ops are drained first (threaded engines), so the views show what it did;
    an op's error stays for the cell that next syncs.
    """
    changed = 0
    if _MODELS:
        from ..engine import drain
        drain()
    for model in list(_MODELS):
        try:
            changed += bool(model.refresh())
        except Exception as exc:  # noqa: BLE001  (never raise into the user's cell)
            model.log.append(f"live refresh failed: {type(exc).__name__}: {exc}")
    return changed


def enable(shell=None):
    """Register the post_run_cell hook on ``shell`` (default: the running IPython)."""
    shell = shell or _current_shell()
    if shell is None or _STATE["shell"] is shell:
        return
    disable()
    shell.events.register("post_run_cell", refresh_all)
    _STATE["shell"] = shell


def disable():
    """Remove the hook (``%mx_live off``); open explorers stop refreshing."""
    shell = _STATE["shell"]
    if shell is not None:
        try:
            shell.events.unregister("post_run_cell", refresh_all)
        except ValueError:
            pass
    _STATE["shell"] = None


def is_enabled():
    return _STATE["shell"] is not None


def _current_shell():
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()


class EngineView:
    """The live engine view (``%mx_engine on``): newest events, var versions, Gantt per thread.

    ``refresh()`` re-renders when new engine events arrived; ``html`` is the current rendering.
    """

    def __init__(self, last=200):
        from ..engine import event_log
        event_log.enable()   # NOTE: this view reads it (off by default in scripts)
        self.last, self.log, self.html, self._seen = last, [], "", None
        self.widget = None
        self.refresh()

    def events(self):
        from ..engine import event_log
        return event_log.events()[-self.last:]

    def refresh(self):
        from ..viz import charts
        events = self.events()
        seen = events[-1].seq if events else None
        if seen == self._seen and self.html:
            return False
        self._seen = seen
        rows = "".join("<tr>" + "".join(f"<td>{html_text(c)}</td>" for c in (
            e.seq, e.name, e.thread, charts.versions_text(e.reads),
            charts.versions_text(e.writes))) + "</tr>" for e in events[-10:])
        self.html = (f"<div class='mxlab-engine'><b>engine</b>: {len(events)} recent events"
                     f"<table style='font-size:11px'><tr><th>seq</th><th>op</th><th>thread</th>"
                     f"<th>reads (var@version)</th><th>writes</th></tr>{rows}</table>"
                     + charts.figure_html(charts.version_chart(events))
                     + charts.figure_html(charts.gantt_chart(events)) + "</div>")
        if self.widget is not None:
            self.widget.value = self.html
        return True

    def _repr_mimebundle_(self, include=None, exclude=None):
        import ipywidgets
        if self.widget is None:
            self.widget = ipywidgets.HTML(self.html)
        bundle = dict(self.widget._repr_mimebundle_(include=include, exclude=exclude) or {})
        bundle.update({"text/html": self.html, "text/plain": "<EngineView>"})
        return bundle


def engine_view(shell=None):
    """Open (or return) the live engine view and keep it refreshed after each cell."""
    if _STATE["engine_view"] is None:
        _STATE["engine_view"] = EngineView()
    view = _STATE["engine_view"]
    track(view)
    enable(shell)
    return view


def close_engine_view():
    """Stop refreshing the engine view (``%mx_engine off``)."""
    view = _STATE["engine_view"]
    if view is not None:
        _MODELS.discard(view)
    _STATE["engine_view"] = None
