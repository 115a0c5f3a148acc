"""Constraint classes under MXNet's import path
``gluon.probability.distributions.constraint``; mxlab keeps the module one level up
(``gluon/probability/constraint.py``) so that transformation/ and distributions/ import it
without a package cycle."""
from ..constraint import (  # noqa: F401
    Constraint, Real, Boolean, Interval, OpenInterval, HalfOpenInterval, UnitInterval,
    IntegerInterval, IntegerOpenInterval, IntegerHalfOpenInterval, GreaterThan, GreaterThanEq,
    IntegerGreaterThan, IntegerGreaterThanEq, LessThan, LessThanEq, IntegerLessThan,
    IntegerLessThanEq, Positive, NonNegative, PositiveInteger, NonNegativeInteger, Simplex,
    LowerTriangular, LowerCholesky, PositiveDefinite, Cat, Stack)

__all__ = [
    "Constraint", "Real", "Boolean", "Interval", "OpenInterval", "HalfOpenInterval",
    "UnitInterval", "IntegerInterval", "IntegerOpenInterval", "IntegerHalfOpenInterval",
    "GreaterThan", "GreaterThanEq", "IntegerGreaterThan", "IntegerGreaterThanEq", "LessThan",
    "LessThanEq", "IntegerLessThan", "IntegerLessThanEq", "Positive", "NonNegative",
    "PositiveInteger", "NonNegativeInteger", "Simplex", "LowerTriangular", "LowerCholesky",
    "PositiveDefinite", "Cat", "Stack"]
