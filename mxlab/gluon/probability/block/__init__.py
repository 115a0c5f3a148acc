# Ported from Apache MXNet python/mxnet/gluon/probability/block/__init__.py
# (Apache License 2.0, Copyright The Apache Software Foundation).
# pylint: disable=wildcard-import
"""Stochastic block."""

from .stochastic_block import *
