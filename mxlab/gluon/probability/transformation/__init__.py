# Ported from Apache MXNet python/mxnet/gluon/probability/transformation/__init__.py
# (Apache License 2.0, Copyright The Apache Software Foundation).
# pylint: disable=wildcard-import
"""Transformation classes."""

from .transformation import *
from .domain_map import *
