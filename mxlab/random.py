"""``mx.random``: seeding every device's generator, and MXNet's legacy sampling functions.

Example
-------
>>> import mxlab as mx
>>> mx.random.seed(42)
>>> mx.random.uniform(0, 1, shape=(2,)).shape
(2,)
"""

from .ndarray.random import (exponential, exponential_like, gamma, gamma_like,  # noqa: F401
                             generalized_negative_binomial, generalized_negative_binomial_like,
                             multinomial, negative_binomial, negative_binomial_like, normal,
                             normal_like, poisson, poisson_like, randint, randn, shuffle,
                             uniform, uniform_like)
from .ops.random import seed  # noqa: F401

# NOTE: MXNet's mx.random is `from .ndarray.random import *` plus seed
__all__ = ["seed", "uniform", "normal", "randn", "poisson", "exponential", "gamma", "multinomial",
           "negative_binomial", "generalized_negative_binomial", "shuffle", "randint",
           "exponential_like", "gamma_like", "generalized_negative_binomial_like",
           "negative_binomial_like", "normal_like", "poisson_like", "uniform_like"]
