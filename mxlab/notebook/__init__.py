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
from . import live, render
from .explorer import VIEWS, ExplorerModel, explore
from .magics import hybridize_cell, load_ipython_extension
from .replay import Replay, replay
from .sources import Source
from .widget import Explorer

__all__ = ["VIEWS", "Explorer", "ExplorerModel", "Replay", "Source", "explore", "hybridize_cell",
           "live", "load_ipython_extension", "render", "replay"]
