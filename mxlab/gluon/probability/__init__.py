# Ported from Apache MXNet python/mxnet/gluon/probability/__init__.py
# (Apache License 2.0, Copyright The Apache Software Foundation).
# pylint: disable=wildcard-import
"""Probability module"""

from .block import *

from .distributions import *

from .transformation import *
