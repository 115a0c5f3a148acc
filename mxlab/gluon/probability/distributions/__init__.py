# Ported from Apache MXNet python/mxnet/gluon/probability/distributions/__init__.py
# (Apache License 2.0, Copyright The Apache Software Foundation).
"""Distribution classes."""
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .weibull import Weibull
from .pareto import Pareto
from .uniform import Uniform
from .normal import Normal
from .laplace import Laplace
from .cauchy import Cauchy
from .half_cauchy import HalfCauchy
from .poisson import Poisson
from .geometric import Geometric
from .negative_binomial import NegativeBinomial
from .gamma import Gamma
from .dirichlet import Dirichlet
from .beta import Beta
from .chi2 import Chi2
from .fishersnedecor import FisherSnedecor
from .studentT import StudentT
from .half_normal import HalfNormal
from .independent import Independent
from .bernoulli import Bernoulli
from .binomial import Binomial
from .relaxed_bernoulli import RelaxedBernoulli
from .gumbel import Gumbel
from .categorical import Categorical
from .one_hot_categorical import OneHotCategorical
from .relaxed_one_hot_categorical import RelaxedOneHotCategorical
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .transformed_distribution import TransformedDistribution
from .divergence import register_kl, kl_divergence, empirical_kl
from ..utils import (
    prob2logit, logit2prob, cached_property, sample_n_shape_converter, constraint_check, digamma,
    gammaln, erfinv, erf)
from .. import constraint

__all__ = [
    "Distribution", "ExponentialFamily", "Exponential", "Weibull", "Pareto", "Uniform", "Normal",
    "Laplace", "Cauchy", "HalfCauchy", "Poisson", "Geometric", "NegativeBinomial", "Gamma",
    "Dirichlet", "Beta", "Chi2", "FisherSnedecor", "StudentT", "HalfNormal", "Independent",
    "Bernoulli", "Binomial", "RelaxedBernoulli", "Gumbel", "Categorical", "OneHotCategorical",
    "RelaxedOneHotCategorical", "Multinomial", "MultivariateNormal", "TransformedDistribution",
    "register_kl", "kl_divergence", "empirical_kl", "prob2logit", "logit2prob", "cached_property",
    "sample_n_shape_converter", "constraint_check", "digamma", "gammaln", "erfinv", "erf",
    "constraint"]
