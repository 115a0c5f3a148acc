# Ported from Apache MXNet python/mxnet/gluon/probability/distributions/__init__.py
# (Apache License 2.0, Copyright The Apache Software Foundation).
# pylint: disable=wildcard-import
"""Distribution classes."""

from .distribution import *

from .exp_family import *

from .exponential import *

from .weibull import *

from .pareto import *

from .uniform import *

from .normal import *

from .laplace import *

from .cauchy import *

from .half_cauchy import *

from .poisson import *

from .geometric import *

from .negative_binomial import *

from .gamma import *

from .dirichlet import *

from .beta import *

from .chi2 import *

from .fishersnedecor import *

from .studentT import *

from .half_normal import *

from .independent import *

from .bernoulli import *

from .binomial import *

from .relaxed_bernoulli import *

from .gumbel import *

from .categorical import *

from .one_hot_categorical import *

from .relaxed_one_hot_categorical import *

from .multinomial import *

from .multivariate_normal import *

from .transformed_distribution import *

from .divergence import *

from .utils import *
