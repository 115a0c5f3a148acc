"""Matplotlib charts of the core's plain objects: memory lifetimes, engine Gantt, var versions.

Each function returns a ``matplotlib.figure.Figure`` built without pyplot (no global state, no
display side effect); :func:`figure_html` embeds one as a PNG ``<img>`` for widgets and static
output. Text from the model (node names, thread names, titles) is drawn as typed: never mathtext
nor TeX (:data:`~mxlab.markup.PLAIN_TEXT`).

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

from ..markup import PLAIN_TEXT, chart_text, html_text

__all__ = [
    "compact_times",
    "engine_charts",
    "engine_events_for",
    "figure_html",
    "gantt_chart",
    "lifetime_chart",
    "svg_img",
    "version_chart",
    "versions_text",
]

_COLORS = ("#8dd3c7", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69", "#fccde5",
           "#bc80bd", "#ccebc5", "#ffed6f")


def _figure(width=7.0, height=3.0):
    """A figure with fixed margins (``tight_layout`` would cost one more full draw)."""
    from matplotlib.figure import Figure
    fig = Figure(figsize=(width, height), dpi=90)
    fig.subplots_adjust(left=0.12, right=0.86, bottom=min(0.45, 0.6 / height),
                        top=1 - min(0.3, 0.35 / height))
    return fig


def lifetime_chart(plan, title="entry lifetimes by storage block", max_labels=40):
    """One bar per pooled entry: storage id (y) over its live node interval (x).

    Bars of one block are drawn in one call and labelled only when there are at most
    ``max_labels`` entries, and the figure height is capped, so a 500-node plan stays fast and
    fits a screen.
    """
    from matplotlib.ticker import MaxNLocator
    pooled = [e for e in plan.entries if e.storage_id >= 0]
    fig = _figure(7.0, min(6.0, max(2.0, 0.3 * len(plan.blocks) + 1.2)))
    ax = fig.add_subplot()
    spans = {}
    for e in pooled:
        start, stop = e.live
        spans.setdefault(e.storage_id, []).append((start - 0.4, stop - start + 0.8))
    for sid, bars in spans.items():
        ax.broken_barh(bars, (sid - 0.3, 0.6), facecolors=_COLORS[sid % len(_COLORS)],
                       edgecolor="#333333", linewidth=0.5)
    if len(pooled) <= max_labels:
        for e in pooled:
            ax.text(e.live[0] - 0.3, e.storage_id, chart_text(e.node), va="center", fontsize=7,
                    clip_on=True, **PLAIN_TEXT)
    ax.autoscale_view()
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True, nbins=min(len(plan.blocks), 12) or 1))
    ax.set_xlabel("node index")
    ax.set_ylabel("storage id")
    ax.set_title(chart_text(f"{title}: planned {plan.planned_bytes} B vs naive "
                            f"{plan.naive_bytes} B"), fontsize=9, **PLAIN_TEXT)
    return fig


def versions_text(pairs):
    """``((var, version), ...)`` as ``v1@2 v3@0`` (var 1 at version 2, ...), the notation every
    view uses."""
    return " ".join(f"v{var}@{version}" for var, version in pairs) or "-"


def compact_times(events):
    """``({seq: (start, end)} in ms, [cut positions])`` with idle gaps cut out.

    Events of different cells are seconds apart while each lasts microseconds; on a true time
    axis they collapse into lines. A gap longer than a few event durations is shortened to one
    (a dashed line marks each cut), so the bars keep their widths and order.
    """
    ordered = sorted(events, key=lambda e: e.start)
    durations = sorted(e.end - e.start for e in ordered) or [0.0]
    step = max(durations[len(durations) // 2], 1e-6)
    limit = 5 * step
    out, cuts, shift, reach = {}, [], 0.0, None
    for e in ordered:
        if reach is not None and e.start - reach > limit:
            cuts.append((reach - shift + step / 2) * 1e3)
            shift += e.start - reach - step
        out[e.seq] = ((e.start - shift) * 1e3, (e.end - shift) * 1e3)
        reach = e.end if reach is None else max(reach, e.end)
    t0 = min((s for s, _ in out.values()), default=0.0)
    return {k: (s - t0, t - t0) for k, (s, t) in out.items()}, [c - t0 for c in cuts]


def _mark_cuts(ax, cuts):
    for x in cuts:
        ax.axvline(x, color="#999999", linestyle="--", linewidth=0.7)


def gantt_chart(events, title="engine ops per thread"):
    """Engine events as bars per thread (x: busy time in ms, idle gaps cut at dashed lines)."""
    fig = _figure(7.0, 2.6)
    ax = fig.add_subplot()
    if not events:
        ax.text(0.5, 0.5, "no engine events", ha="center", va="center", transform=ax.transAxes)
        return fig
    times, cuts = compact_times(events)
    threads = sorted({e.thread for e in events})
    bars = {}
    for e in events:
        start, end = times[e.seq]
        color = "#d62728" if e.error else _COLORS[hash(e.name.split(":")[0]) % len(_COLORS)]
        bars.setdefault((threads.index(e.thread), color), []).append(
            (start, max(end - start, 1e-4)))
    for (row, color), spans in bars.items():
        ax.broken_barh(spans, (row - 0.3, 0.6), facecolors=color, edgecolor="#333333",
                       linewidth=0.4)
    ax.autoscale_view()
    _mark_cuts(ax, cuts)
    ax.set_yticks(range(len(threads)), [chart_text(t) for t in threads], fontsize=8,
                  **PLAIN_TEXT)
    ax.set_xlabel("ms of engine time (idle gaps cut at dashed lines)")
    ax.set_title(chart_text(f"{title} ({len(events)} events)"), fontsize=9, **PLAIN_TEXT)
    return fig


def version_chart(events, title="variable versions over time"):
    """Version of each var written by ``events`` against completion time (a step per write);
    the legend sits right of the axes, off the data."""
    fig = _figure(7.0, 2.6)
    ax = fig.add_subplot()
    series = {}
    times, cuts = compact_times(events)
    for e in events:
        for var, version in e.writes:
            series.setdefault(var, []).append((times[e.seq][1], version))
    for k, (var, points) in enumerate(sorted(series.items())[:12]):
        xs, ys = zip(*points)
        ax.step(xs, ys, where="post", marker="o", markersize=3, label=f"v{var}",
                color=_COLORS[k % len(_COLORS)])
    _mark_cuts(ax, cuts)
    if series:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), title="var",
                  title_fontsize=7)
    ax.set_xlabel("ms of engine time (idle gaps cut)")
    ax.set_ylabel("version")
    ax.set_title(chart_text(title), fontsize=9, **PLAIN_TEXT)
    return fig


def engine_charts(events):
    """``(version chart, Gantt chart)`` of ``events`` (the Engine view's pair)."""
    return version_chart(events), gantt_chart(events)


def figure_html(fig):
    """``<img>`` with the figure as base64 PNG (works in widgets, nbconvert and GitHub)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    alt = html_text(fig.axes[0].get_title() if fig.axes else "chart")
    return f"<img alt='{alt}' src='data:image/png;base64,{data}' style='max-width:100%'/>"


def svg_img(svg, style="max-width:100%", alt="graph drawing"):
    """``<img>`` with ``svg`` as a base64 data URI: what untrusted notebooks (JupyterLab's HTML
    sanitizer drops inline ``<svg>`` markup but keeps images), nbconvert and GitHub all show."""
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    return (f"<img class='mxlab-static' alt='{html_text(alt)}' "
            f"src='data:image/svg+xml;base64,{data}' style='{html_text(style)}'/>")


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
