# Ported from Apache MXNet python/mxnet/gluon/probability/block/__init__.py
# (Apache License 2.0, Copyright The Apache Software Foundation).
"""Stochastic block."""
from .stochastic_block import StochasticBlock, StochasticSequential

__all__ = ["StochasticBlock", "StochasticSequential"]
