"""Matplotlib charts of the core's plain objects: memory lifetimes, engine Gantt, var versions.

Each function returns a ``matplotlib.figure.Figure`` built without pyplot (no global state, no
display side effect); :func:`figure_html` embeds one as a PNG ``<img>`` for widgets and static
output.

Example
-------
>>> import mxlab as mx
>>> from mxlab.graph import Graph
>>> from mxlab.executor.planning import infer_graph, plan_graph
>>> g = Graph(mx.sym.tanh(mx.sym.exp(mx.sym.var('x')))._outputs)
>>> plan = plan_graph(infer_graph(g, {'x': (4,)}, {'x': 'float32'}), 'forward').memory_plan
>>> fig = lifetime_chart(plan)
>>> fig.axes[0].get_xlabel()
'node index'
"""
import base64
import io

__all__ = ["lifetime_chart", "gantt_chart", "version_chart", "figure_html", "engine_events_for"]

_COLORS = ("#8dd3c7", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69", "#fccde5",
           "#bc80bd", "#ccebc5", "#ffed6f")


def _figure(width=7.0, height=3.0):
    from matplotlib.figure import Figure
    return Figure(figsize=(width, height), dpi=90)


def lifetime_chart(plan, title="entry lifetimes by storage block"):
    """One bar per pooled entry: storage id (y) over its live node interval (x)."""
    fig = _figure(7.0, max(2.0, 0.35 * len(plan.blocks) + 1.2))
    ax = fig.add_subplot()
    for e in plan.entries:
        if e.storage_id < 0:
            continue
        start, stop = e.live
        ax.barh(e.storage_id, stop - start + 0.8, left=start - 0.4, height=0.6,
                color=_COLORS[e.storage_id % len(_COLORS)], edgecolor="#333333", linewidth=0.5)
        ax.text(start - 0.3, e.storage_id, e.node, va="center", fontsize=7, clip_on=True)
    from matplotlib.ticker import MaxNLocator
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("node index")
    ax.set_ylabel("storage id")
    ax.set_yticks(range(len(plan.blocks)))
    ax.set_title(f"{title}: planned {plan.planned_bytes} B vs naive {plan.naive_bytes} B",
                 fontsize=9)
    fig.tight_layout()
    return fig


def gantt_chart(events, title="engine ops per thread"):
    """Engine events as bars per thread (x: milliseconds since the first event)."""
    fig = _figure(7.0, 2.6)
    ax = fig.add_subplot()
    if not events:
        ax.text(0.5, 0.5, "no engine events", ha="center", va="center", transform=ax.transAxes)
        return fig
    t0 = min(e.start for e in events)
    threads = sorted({e.thread for e in events})
    for e in events:
        row = threads.index(e.thread)
        color = "#d62728" if e.error else _COLORS[hash(e.name.split(":")[0]) % len(_COLORS)]
        ax.barh(row, max((e.end - e.start) * 1e3, 1e-3), left=(e.start - t0) * 1e3, height=0.6,
                color=color, edgecolor="#333333", linewidth=0.4)
    ax.set_yticks(range(len(threads)), threads, fontsize=8)
    ax.set_xlabel("ms since first event")
    ax.set_title(f"{title} ({len(events)} events)", fontsize=9)
    fig.tight_layout()
    return fig


def version_chart(events, title="variable versions over time"):
    """Version of each var written by ``events`` against completion time (a step per write)."""
    fig = _figure(7.0, 2.6)
    ax = fig.add_subplot()
    series = {}
    t0 = min((e.start for e in events), default=0.0)
    for e in events:
        for var, version in e.writes:
            series.setdefault(var, []).append(((e.end - t0) * 1e3, version))
    for k, (var, points) in enumerate(sorted(series.items())[:12]):
        xs, ys = zip(*points)
        ax.step(xs, ys, where="post", marker="o", markersize=3, label=f"var {var}",
                color=_COLORS[k % len(_COLORS)])
    if series:
        ax.legend(fontsize=7, ncol=4, loc="upper left")
    ax.set_xlabel("ms since first event")
    ax.set_ylabel("version")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    return fig


def figure_html(fig):
    """``<img>`` with the figure as base64 PNG (works in widgets, nbconvert and GitHub)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f"<img src='data:image/png;base64,{data}' style='max-width:100%'/>"


def engine_events_for(events, names):
    """Events whose name is one of ``names`` or a segment running one of them."""
    names = set(names)

    def matches(event):
        if event.name in names:
            return True
        head, _, members = event.name.partition(":")
        return head.startswith("segment") and any(m.rstrip(".") in names
                                                   for m in members.split(","))
    return [e for e in events if matches(e)]
