"""``mx.random``: seeding every device's generator, and MXNet's legacy sampling functions.

Example
-------
>>> import mxlab as mx
>>> mx.random.seed(42)
>>> mx.random.uniform(0, 1, shape=(2,)).shape
(2,)
"""

from .ndarray.random import normal, randint, shuffle, uniform  # noqa: F401
from .ops.random import seed  # noqa: F401

__all__ = ["seed", "uniform", "normal", "randint", "shuffle"]
