# Ported from Apache MXNet python/mxnet/gluon/probability/transformation/__init__.py
# (Apache License 2.0, Copyright The Apache Software Foundation).
"""Transformation classes."""
from .transformation import (
    Transformation, TransformBlock, ComposeTransform, ExpTransform, AffineTransform,
    PowerTransform, AbsTransform, SigmoidTransform, SoftmaxTransform)
from .domain_map import domain_map, biject_to, transform_to

__all__ = [
    "Transformation", "TransformBlock", "ComposeTransform", "ExpTransform", "AffineTransform",
    "PowerTransform", "AbsTransform", "SigmoidTransform", "SoftmaxTransform", "domain_map",
    "biject_to", "transform_to"]
