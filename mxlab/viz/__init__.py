"""``mx.viz``: MXNet's network plots and summaries, plus matplotlib charts of the core's objects.

Example
-------
>>> import mxlab as mx
>>> net = mx.sym.Activation(mx.sym.var('data'), act_type='relu', name='relu1')
>>> mx.viz.plot_network(net).name
'plot'
"""
from .network import plot_network, print_summary  # noqa: F401
from . import charts  # noqa: F401

__all__ = ["plot_network", "print_summary", "charts"]
