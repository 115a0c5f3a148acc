"""``%%hybridize``, ``%mx_live``/``%mx_engine`` via InteractiveShell, and the live hook."""
import pytest
from IPython.core.interactiveshell import InteractiveShell

import mxlab as mx
from mxlab.notebook import live
from mxlab.notebook.explorer import ExplorerModel
from mxlab.notebook.magics import (
    HybridizeCellError,
    HybridizeUsageError,
    hybridize_cell,
)
from mxlab.notebook.sources import Source


@pytest.fixture(scope="module")
def shell():
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "mxlab")
    shell.user_ns["mx"] = mx
    yield shell
    live.disable()


def test_hybridize_binds_callable_outputs_and_replans(shell):
    shell.run_cell("a = mx.np.ones((2, 3)); b = mx.np.ones((2, 3)) * 2")
    cell = "c = mx.np.tanh(a) * b\nd = c + 1\n"
    result = shell.run_cell_magic("hybridize", "--static-alloc --name f --no-display", cell)
    assert result is None
    ns = shell.user_ns
    expected = (mx.np.tanh(ns["a"]) * ns["b"] + 1).asnumpy()
    assert (ns["d"].asnumpy() == expected).all()
    assert "c" not in ns or ns["c"] is not ns["d"]
    assert (ns["f"](ns["a"], ns["b"]).asnumpy() == expected).all()
    shell.run_cell("a = mx.np.ones((4, 3)); b = mx.np.ones((4, 3))")
    shell.run_cell_magic("hybridize", "--static-alloc --name f --no-display", cell)
    triggers = [e.trigger for e in ns["f"].cached_op.replan_log]
    assert triggers == ["initial", "shape"]
    assert ns["d"].shape == (4, 3)


def test_hybridize_inputs_option_orders_the_callable(shell):
    shell.run_cell("p = mx.np.ones((3,)); q = mx.np.ones((3,)) * 3")
    shell.run_cell_magic("hybridize", "--name g --inputs q,p --no-display", "r = p - q\n")
    ns = shell.user_ns
    assert ns["g"](mx.np.ones((3,)) * 5, mx.np.ones((3,))).asnumpy().tolist() == [-4.0] * 3
    assert "(q, p) -> (r)" in ns["g"].__doc__


def test_hybridize_error_points_at_cell_line(shell):
    shell.run_cell("a = mx.np.ones((2, 3))")
    with pytest.raises(HybridizeCellError, match="cell line 2: `e = c @ mx.np.ones"):
        hybridize_cell("", "c = mx.np.tanh(a)\ne = c @ mx.np.ones((7, 7))\n", shell.user_ns)
    result = shell.run_cell("%%hybridize\nc = mx.np.tanh(a)\ne = c @ mx.np.ones((7, 7))\n")
    assert isinstance(result.error_in_exec, HybridizeCellError)
    assert result.error_in_exec._render_traceback_()[0].count("\n") == 0


def test_hybridize_bad_arguments(shell):
    with pytest.raises(ValueError, match="usage: %%hybridize .*--no-display"):
        hybridize_cell("--frobnicate", "y = x", shell.user_ns)
    with pytest.raises(HybridizeUsageError, match="expected one argument"):
        hybridize_cell("--name", "y = x", shell.user_ns)


def test_bad_flag_shows_one_line_without_traceback(shell, capsys):
    result = shell.run_cell("%%hybridize --frobnicate\ny = mx.np.ones((2,))\n")
    assert isinstance(result.error_in_exec, HybridizeUsageError)
    captured = capsys.readouterr()
    lines = [line for line in (captured.out + captured.err).splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert "unrecognized arguments: --frobnicate" in lines[0] and "--no-display" in lines[0]
    assert "Traceback" not in captured.out + captured.err


def test_hybridize_bench_prints_both_timings(shell, capsys):
    shell.run_cell("a = mx.np.ones((2, 3))")
    hybridize_cell("--bench --no-display --name h", "y = mx.np.exp(a)\n", shell.user_ns)
    out = capsys.readouterr().out
    assert "imperative:" in out and "hybridized:" in out


def test_hybridize_displays_explorer(shell):
    shown = []
    shell.run_cell("a = mx.np.ones((2, 3))")
    explorer = hybridize_cell("--name k", "y = mx.np.exp(a) * 2\n", shell.user_ns, shown.append)
    assert shown == [explorer]
    assert explorer.model.source.cached_op is shell.user_ns["k"].cached_op


def test_live_hook_refreshes_after_cell_and_can_be_turned_off(shell):
    x = mx.sym.var("x")
    op = mx.executor.CachedOp(mx.sym.tanh(x), {})
    shell.user_ns["op"] = op
    shell.run_cell("op(mx.nd.ones((2,)))")
    model = ExplorerModel(Source(op))
    live.track(model)
    changes = []
    model.listeners.append(changes.append)
    shell.run_line_magic("mx_live", "on")
    shell.run_cell("_ = op(mx.nd.ones((6,)))")      # re-plan: the hook refreshes the model
    assert len(changes) == 1 and len(model.source.replan_log) == 2
    shell.run_line_magic("mx_live", "off")
    shell.run_cell("_ = op(mx.nd.ones((7,)))")
    assert len(changes) == 1
    shell.run_line_magic("mx_live", "on")


def test_live_hook_never_raises_into_cell(shell):
    class Broken:
        def __init__(self):
            self.log = []

        def refresh(self):
            raise RuntimeError("boom")

    broken = Broken()
    live.track(broken)
    result = shell.run_cell("1 + 1")
    assert result.success
    assert broken.log and "boom" in broken.log[-1]
    live._MODELS.discard(broken)


def test_live_hook_via_fake_shell_event():
    class FakeEvents:
        def __init__(self):
            self.callbacks = {}

        def register(self, name, fn):
            self.callbacks.setdefault(name, []).append(fn)

        def unregister(self, name, fn):
            self.callbacks[name].remove(fn)

    class FakeShell:
        events = FakeEvents()

    saved = live._STATE["shell"]
    live._STATE["shell"] = None
    try:
        fake = FakeShell()
        live.enable(fake)
        assert fake.events.callbacks["post_run_cell"] == [live.refresh_all]
        live.disable()
        assert fake.events.callbacks["post_run_cell"] == []
    finally:
        live._STATE["shell"] = None
        if saved is not None:
            live.enable(saved)


def test_engine_magic_shows_and_refreshes(shell):
    shell.run_line_magic("mx_engine", "on")
    view = live._STATE["engine_view"]
    assert view is not None and "engine" in view.html
    before = view.html
    shell.run_cell("_ = mx.nd.ones((3,)) + 1")
    assert view.html != before
    shell.run_line_magic("mx_engine", "off")
    assert live._STATE["engine_view"] is None
    with pytest.raises(mx.MXNetError, match="expected 'on' or 'off'"):
        shell.run_line_magic("mx_engine", "maybe")


def test_live_refresh_redraws_engine_view_on_new_events(shell):
    op = mx.executor.CachedOp(mx.sym.exp(mx.sym.var("x")), {})
    shell.user_ns["op2"] = op
    shell.run_cell("_ = op2(mx.nd.ones((2,)))")
    model = ExplorerModel(Source(op))
    live.track(model)
    changes = []
    model.listeners.append(changes.append)
    shell.run_cell("1 + 1")
    assert changes == []                            # graph view: engine events do not matter
    model.set_view("engine")
    changes.clear()
    shell.run_cell("_ = op2(mx.nd.ones((2,)))")    # same shape: no re-plan, new engine events
    assert len(changes) == 1 and model.kind == "forward"
    assert len(model.source.replan_log) == 1


def test_hybridize_backend_partitions_and_explorer_draws_original(shell):
    shell.run_cell("a = mx.np.ones((2, 3)); b = mx.np.ones((2, 3))")
    explorer = hybridize_cell("--backend fuse --name fz",
                              "c = mx.np.exp(mx.np.tanh(a) * b) + 1\n", shell.user_ns)
    ns = shell.user_ns
    expected = mx.np.exp(mx.np.tanh(ns["a"]) * ns["b"]) + 1
    assert abs(ns["c"].asnumpy() - expected.asnumpy()).max() < 1e-6
    op_names = [n.op.name for n in ns["fz"].cached_op.forward_graph.indexed.nodes if n.op]
    assert op_names == ["_fused_op"]
    model = explorer.model
    model.select("_fused_op0")
    model.set_view("partitions")
    assert model.selected is None                   # the original graph has no fused node
    dot = model.dot()
    assert 'subgraph "cluster_g0"' in dot and dot.count("subgraph 0\\n") == 0
    assert dot.count("\\nsubgraph 0") == 4          # tanh, mul, exp, plus inside the cluster
    tanh = next(n.name for n in model.graph.indexed.nodes if n.op and n.op.name == "tanh")
    assert model.select(tanh)["subgraph"] == 0
