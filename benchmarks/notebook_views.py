"""Explorer view times on model-zoo training graphs (issue 18: a ResNet opens collapsed fast).

For each network: one recorded forward + backward (static alloc), then the time to open the
explorer (model, block scopes, first drawing, collapsed to its default depth) and to draw each
view (DOT, layout in the Graphviz worker, panel and legend), collapsed and fully expanded, with
the layout fallback taken when Graphviz could not draw it.

Run: ``python benchmarks/notebook_views.py [resnet34_v1 ...]``.
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import mxlab as mx
from mxlab.gluon.model_zoo import vision
from mxlab.notebook.layout import layout


def trained(name):
    net = vision.get_model(name)
    net.initialize()
    net.hybridize(static_alloc=True)
    with mx.autograd.record():
        loss = net(mx.np.ones((1, 3, 32, 32))).sum()
    loss.backward()
    mx.engine.wait_all()
    return net


def timed(action):
    start = time.perf_counter()
    result = action()
    return time.perf_counter() - start, result


def main(names):
    mx.viz.layout.POOL.warm()
    for name in names:
        net = trained(name)
        seconds, explorer = timed(lambda net=net: mx.notebook.explore(net))
        model = explorer.model
        print(f"{name}: {model.graph.indexed.num_nodes} nodes; explore (collapsed to depth "
              f"{model.depth}, {len(model.collapsed)} boxes) {seconds:.2f} s")
        for depth in (model.depth, 0):
            model.set_depth(depth)
            for view in mx.notebook.VIEWS:
                layout.cache_clear()
                seconds, _ = timed(lambda view=view, model=model: (
                    model.set_view(view), model.svg(), model.panel_html(), model.legend_html()))
                note = model.layout_note() or "graphviz"
                print(f"  depth {depth} {view:10s} {seconds:6.2f} s  ({note})")


if __name__ == "__main__":
    main(sys.argv[1:] or ["resnet18_v1", "resnet34_v1"])
