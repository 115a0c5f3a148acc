"""Engine charts: idle gaps cut from the time axis, legend off the data, v<var>@<version> text."""
from mxlab.engine.log import EngineEvent
from mxlab.viz import charts


def _event(seq, start, end, thread="main", writes=((1, 1),)):
    return EngineEvent(seq, f"op{seq}", ((2, 0),), writes, thread, start, end)


def _two_cells():
    """Two bursts of 10 us ops, 5 s apart (two notebook cells)."""
    first = [_event(i, i * 1e-5, i * 1e-5 + 1e-5, writes=((1, i + 1),)) for i in range(3)]
    second = [_event(3 + i, 5.0 + i * 1e-5, 5.0 + i * 1e-5 + 1e-5, writes=((1, i + 4),))
              for i in range(3)]
    return first + second


def test_compact_times_cuts_idle_gaps_and_keeps_widths_and_order():
    events = _two_cells()
    times, cuts = charts.compact_times(events)
    assert len(cuts) == 1
    assert max(end for _, end in times.values()) < 1.0          # ms, not 5000 ms
    for e in events:
        start, end = times[e.seq]
        assert abs((end - start) - e.duration * 1e3) < 1e-9
    starts = [times[e.seq][0] for e in events]
    assert starts == sorted(starts) and starts[0] == 0.0
    assert times[2][1] <= cuts[0] <= times[3][0]


def test_gantt_bars_are_visible_after_the_cut():
    fig = charts.gantt_chart(_two_cells())
    ax = fig.axes[0]
    low, high = ax.get_xlim()
    widths = [path.get_extents().width for c in ax.collections for path in c.get_paths()]
    assert len(widths) == 6 and high - low < 1.0
    assert min(widths) / (high - low) > 0.005                 # each bar a visible width
    assert "idle gaps cut" in ax.get_xlabel()


def test_version_legend_sits_outside_the_axes():
    fig = charts.version_chart(_two_cells() + [_event(9, 5.1, 5.2, writes=((7, 1),))])
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    renderer = FigureCanvasAgg(fig).get_renderer()
    ax = fig.axes[0]
    legend = ax.get_legend().get_window_extent(renderer)
    assert legend.x0 >= ax.get_window_extent(renderer).x1
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["v1", "v7"]


def test_versions_text():
    assert charts.versions_text(((1, 1), (3, 0))) == "v1@1 v3@0"
    assert charts.versions_text(()) == "-"
