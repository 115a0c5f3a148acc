"""Activation layers: Activation(act_type), LeakyReLU, PReLU, ELU, SELU, GELU, Swish.

Example
-------
>>> import mxlab as mx
>>> mx.gluon.nn.LeakyReLU(0.1)(mx.nd.array([-1.0, 2.0])).asnumpy()
array([-0.1,  2. ], dtype=float32)
"""
from ... import initializer
from ...base import MXNetValueError
from ...ops.registry import F as _F
from ..block import HybridBlock
from ..parameter import Parameter

__all__ = ["Activation", "LeakyReLU", "PReLU", "ELU", "SELU", "GELU", "Swish", "SiLU"]


class Activation(HybridBlock):
    """``relu``, ``sigmoid``, ``tanh``, ``softrelu`` or ``softsign`` elementwise."""

    def __init__(self, activation):
        self._act_type = activation   # NOTE: before Block.__init__, which names the block by it
        super().__init__()

    def _alias(self):
        return self._act_type if isinstance(self._act_type, str) else "activation"

    def hybrid_forward(self, F, x):
        return _F.Activation(x, act_type=self._act_type, name="fwd")

    def __repr__(self):
        return f"Activation({self._act_type})"


class _LeakyFamily(HybridBlock):
    """Members of the ``LeakyReLU`` op family with a fixed ``act_type`` and ``slope``."""

    act_type = None
    _node_name = "fwd"   # NOTE: MXNet 1.x's node name (ELU's is counted instead)

    def __init__(self, slope=0.25):
        super().__init__()
        self._slope = slope

    def hybrid_forward(self, F, x):
        return _F.LeakyReLU(x, act_type=self.act_type, slope=self._slope, name=self._node_name)


class LeakyReLU(_LeakyFamily):
    """``x`` if ``x > 0`` else ``alpha * x``."""

    act_type = "leaky"

    def __init__(self, alpha):
        super().__init__(alpha)


class ELU(_LeakyFamily):
    """``x`` if ``x > 0`` else ``alpha * (exp(x) - 1)``."""

    act_type = "elu"
    _node_name = None

    def __init__(self, alpha=1.0):
        super().__init__(alpha)


class SELU(_LeakyFamily):
    """Scaled ELU with the self-normalising constants."""

    act_type = "selu"


class GELU(_LeakyFamily):
    """Gaussian error linear unit, exact (``approximation='erf'``) or MXNet 2.0's tanh form."""

    def __init__(self, approximation="erf"):
        if approximation not in ("erf", "tanh"):
            raise MXNetValueError("Unsupported approximation! Supported values are 'erf' and "
                                  f"'tanh', but got '{approximation}'")
        super().__init__()
        self.act_type = f"gelu_{approximation}"


class PReLU(HybridBlock):
    """Leaky ReLU with a learned slope ``alpha`` (one per channel when ``in_channels > 1``)."""

    def __init__(self, alpha_initializer=initializer.Constant(0.25), in_channels=1):
        super().__init__()
        self.alpha = Parameter("alpha", shape=(in_channels,), init=alpha_initializer)

    def hybrid_forward(self, F, x, alpha):
        return _F.LeakyReLU(x, alpha, act_type="prelu", name="fwd")


class Swish(HybridBlock):
    """``x * sigmoid(beta * x)``."""

    def __init__(self, beta=1.0):
        super().__init__()
        self._beta = beta

    def hybrid_forward(self, F, x):
        return x * _F.sigmoid(x * self._beta)


class SiLU(HybridBlock):
    """``x * sigmoid(x)`` (Swish with beta 1)."""

    def hybrid_forward(self, F, x):
        return x * _F.sigmoid(x)
