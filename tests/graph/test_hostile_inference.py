"""Opening a model never allocates what its file declares: inference (shapes, dtypes), memory
planning, the explorer and plotting of graphs whose sizes blow up from a (1, 1) input to
(20000, 20000) (1.6 GB a value) stay within a small, fixed amount of memory; binding reserves the
declared arrays lazily (as MXNet, pages are touched by forward), so resident memory stays small."""
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
FILES = ROOT / "tests" / "hostile_files"
LIMIT_MB = 200

SCRIPT = r"""
import resource, sys, tracemalloc
import mxlab as mx
import mxlab.notebook
from mxlab.executor.planning import infer_graph, plan_graph

def rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

for path in sys.argv[1:]:
    sym = mx.sym.load(path)
    base = rss_mb()
    tracemalloc.start()
    shapes = sym.infer_shape(data=(1, 1))[1]
    sym.infer_type(data="float32")
    mx.notebook.explore(sym, shapes={"data": (1, 1)}).model.set_view("memory")
    plan_graph(infer_graph(sym.graph, {"data": (1, 1)}, {"data": "float32"}), "forward")
    mx.viz.plot_network(sym, shape={"data": (1, 1)})
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    if "np_expand" not in path:   # NOTE: its outputs total tens of GB of address space
        mx.sym.load(path).simple_bind(mx.cpu(), data=(1, 1))
    print(path.rsplit("/", 1)[-1], max(s[0] for s in shapes), round(peak, 1),
          round(rss_mb() - base, 1))
"""


def _run(paths):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-c", SCRIPT, *map(str, paths)], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return [line.split() for line in done.stdout.splitlines()]


def test_inference_planning_explorer_and_plot_stay_small_on_blowup_files():
    paths = sorted(FILES.glob("blowup_*-symbol.json"))
    assert len(paths) >= 5
    rows = _run(paths)
    assert [r[0] for r in rows] == [p.name for p in paths]
    for name, largest_dim, traced_mb, rss_mb in rows:
        assert int(largest_dim) >= 20000, name          # the file does declare huge values
        assert float(traced_mb) < LIMIT_MB, (name, traced_mb)
        assert float(rss_mb) < LIMIT_MB, (name, rss_mb)
