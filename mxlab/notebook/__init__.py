"""The notebook layer: graph explorer widget, ``%%hybridize`` magic, live per-cell views.

It only reads the core's plain objects (graphs, memory plans, segments, partitions, the engine
event log) and draws them.

Example
-------
>>> import mxlab as mx
>>> ex = mx.notebook.explore(mx.sym.tanh(mx.sym.var('x'), name='t'))
>>> ex.model.select('t')['op']
'tanh'
"""
from .explorer import ExplorerModel, VIEWS, explore  # noqa: F401
from .widget import Explorer  # noqa: F401
from .sources import Source  # noqa: F401
from . import live, render  # noqa: F401
from .magics import hybridize_cell, load_ipython_extension  # noqa: F401

__all__ = ["explore", "Explorer", "ExplorerModel", "Source", "VIEWS", "live", "render",
           "hybridize_cell", "load_ipython_extension"]
