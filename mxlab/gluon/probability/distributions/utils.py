"""Distribution utilities under MXNet's import path ``gluon.probability.distributions.utils``; mxlab
keeps the module one level up (``gluon/probability/utils.py``) so that transformation/ and
distributions/ import it without a package cycle."""
from ..utils import (  # noqa: F401
    prob2logit, logit2prob, cached_property, sample_n_shape_converter, constraint_check,
    digamma, gammaln, erfinv, erf)

__all__ = [
    "prob2logit", "logit2prob", "cached_property", "sample_n_shape_converter",
    "constraint_check", "digamma", "gammaln", "erfinv", "erf"]
