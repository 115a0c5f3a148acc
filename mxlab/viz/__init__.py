"""``mx.viz``: MXNet's network plots and summaries, plus matplotlib charts of the core's objects.

Example
-------
>>> import mxlab as mx
>>> net = mx.sym.Activation(mx.sym.var('data'), act_type='relu', name='relu1')
>>> mx.viz.plot_network(net).name
'plot'
"""
from . import charts
from .network import plot_network, print_summary

__all__ = ["charts", "plot_network", "print_summary"]
