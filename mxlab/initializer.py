"""``mx.init``: weight initializers (MXNet 1.x/2.x rules and names).

An :class:`Initializer` is called as ``init(desc, arr)``: when ``desc`` carries an ``__init__``
attribute (a parameter's own initializer) that initializer's ``_init_weight`` fills ``arr``;
otherwise the name decides (``*weight`` -> the initializer's rule, ``*bias``/``*beta``/
``*moving_mean`` -> 0, ``*gamma``/``*moving_var`` -> 1). Random draws use ``mx.random`` so
``mx.random.seed`` makes them reproducible.

Example
-------
>>> import mxlab as mx
>>> w = mx.nd.zeros((4, 6))
>>> mx.init.Xavier(magnitude=3)('fc_weight', w)
>>> bool(abs(w.asnumpy()).max() <= (3 / 5) ** 0.5)
True
>>> b = mx.nd.ones((4,))
>>> mx.init.Xavier()('fc_bias', b)
>>> b.asnumpy()
array([0., 0., 0., 0.], dtype=float32)
"""
import json

import numpy

from .base import MXNetValueError

__all__ = ["InitDesc", "Initializer", "register", "create", "Uniform", "Normal", "Xavier",
           "MSRAPrelu", "Constant", "Zero", "One", "Orthogonal", "Bilinear", "Load", "Mixed",
           "LSTMBias", "RNNFused", "FusedRNN"]

_REGISTRY = {}


class InitDesc(str):
    """A parameter name with attributes (``__init__``: the parameter's own initializer)."""

    def __new__(cls, name, attrs=None, global_init=None):
        desc = super().__new__(cls, name)
        desc.attrs = attrs or {}
        desc.global_init = global_init
        return desc


def register(klass):
    """Register an initializer class under its lower-case name (for ``create`` and JSON)."""
    _REGISTRY[klass.__name__.lower()] = klass
    return klass


def create(init=None, *args, **kwargs):
    """An initializer from an instance, a registered name (``'xavier'``, ``'zeros'``) with its
    arguments (``create('normal', 0.02)``), a dict, or JSON (MXNet's registry ``create``)."""
    if init is None:
        init = kwargs.pop("initializer", None)
    if isinstance(init, Initializer):
        if args or kwargs:
            raise MXNetValueError("initializer is already an instance. Additional arguments "
                                  "are invalid")
        return init
    if isinstance(init, dict):
        return create(**init)
    if not isinstance(init, str):
        raise MXNetValueError(f"Cannot create an initializer from {init!r}")
    if init.startswith("["):
        name, kwargs = json.loads(init)
        return _registered(name)(**kwargs)   # NOTE: kwargs may hold 'init' (FusedRNN's)
    if init.startswith("{"):
        return create(**json.loads(init))
    return _registered(init)(*args, **kwargs)


def _registered(name):
    klass = _REGISTRY.get(name.lower())
    if klass is None:
        raise MXNetValueError(f"Cannot find initializer {name!r}; registered: {sorted(_REGISTRY)}")
    return klass


def _fill(arr, values):
    """Write host ``values`` into ``arr`` in place."""
    from .ndarray.ndarray import array

    array(numpy.asarray(values), dtype=arr.dtype, device=arr.device, cls=type(arr)).copyto(arr)


def _uniform(low, high, shape):
    from .ndarray import random

    return random.uniform(low, high, shape=shape).asnumpy()


def _normal(loc, scale, shape):
    from .ndarray import random

    return random.normal(loc, scale, shape=shape).asnumpy()


# (name suffix, method) checked in order; the rule for names without an ``__init__`` attribute.
_NAME_RULES = (
    ("weight", "_init_weight"),
    ("bias", "_init_bias"),
    ("gamma", "_init_gamma"),
    ("beta", "_init_beta"),
    ("moving_mean", "_init_zero"),
    ("moving_var", "_init_one"),
    ("running_mean", "_init_zero"),
    ("running_var", "_init_one"),
    ("moving_inv_var", "_init_zero"),
    ("moving_avg", "_init_zero"),
    ("min", "_init_zero"),
    ("max", "_init_zero"),
)


def has_name_rule(name):
    """Whether ``name`` ends with a suffix that picks an initialisation by name."""
    return any(name.endswith(suffix) for suffix, _ in _NAME_RULES)


class Initializer:
    """Base class: subclasses implement ``_init_weight(name, arr)``."""

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        self._verbose = False

    def set_verbosity(self, verbose=False, print_func=None):
        self._verbose = verbose
        return self

    def dumps(self):
        """``'["name", {kwargs}]'`` (how a symbol variable stores its initializer)."""
        return json.dumps([type(self).__name__.lower(), self._kwargs])

    def __repr__(self):
        return f"{type(self).__name__}({self._kwargs})"

    def __eq__(self, other):
        """Same class and arguments (MXNet 2.0: shared parameters compare initializers)."""
        if not isinstance(other, Initializer):
            return NotImplemented
        return type(self) is type(other) and self._kwargs == other._kwargs

    __hash__ = object.__hash__

    def __call__(self, desc, arr):
        if not isinstance(desc, InitDesc):
            desc = InitDesc(str(desc))
        init = desc.attrs.get("__init__")
        if init:
            create(init)._init_weight(desc, arr)
            return
        for suffix, method in _NAME_RULES:
            if desc.endswith(suffix):
                getattr(self, method)(desc, arr)
                return
        self._init_default(desc, arr)

    def _init_zero(self, _, arr):
        _fill(arr, numpy.zeros(arr.shape))

    def _init_one(self, _, arr):
        _fill(arr, numpy.ones(arr.shape))

    _init_bias = _init_beta = _init_zero
    _init_gamma = _init_one

    def _init_weight(self, name, arr):
        raise NotImplementedError(f"{type(self).__name__} must override _init_weight")

    def _init_default(self, name, arr):
        raise MXNetValueError(
            f"Unknown initialization pattern for {name}. Default initialization is now limited "
            f'to "weight", "bias", "gamma" (1.0), and "beta" (0.0). Please use '
            f"mx.sym.Variable(init=mx.init.*) to set initialization pattern"
        )


@register
class Zero(Initializer):
    """Fills with 0."""

    def _init_weight(self, name, arr):
        self._init_zero(name, arr)


@register
class One(Initializer):
    """Fills with 1."""

    def _init_weight(self, name, arr):
        self._init_one(name, arr)


_REGISTRY["zeros"] = Zero
_REGISTRY["ones"] = One


@register
class Constant(Initializer):
    """Fills with ``value`` (a scalar or an array broadcastable to the parameter)."""

    def __init__(self, value):
        super().__init__(value=value if numpy.isscalar(value) else numpy.asarray(value).tolist())
        self.value = value

    def _init_weight(self, _, arr):
        value = self.value.asnumpy() if hasattr(self.value, "asnumpy") else self.value
        _fill(arr, numpy.broadcast_to(numpy.asarray(value), arr.shape))


@register
class LSTMBias(Initializer):
    """An LSTM cell's biases: 0 except the forget gate's (the second of the 4 gates), which gets
    ``forget_bias`` (1.0 as Jozefowicz et al. 2015 recommend)."""

    def __init__(self, forget_bias=1.0):
        super().__init__(forget_bias=forget_bias)
        self.forget_bias = forget_bias

    def _init_weight(self, _, arr):
        hidden = arr.shape[0] // 4
        values = numpy.zeros(arr.shape, dtype=arr.dtype)
        values[hidden:2 * hidden] = self.forget_bias
        _fill(arr, values)


@register
class RNNFused(Initializer):
    """MXNet 2.0's initializer of a fused RNN layer's flat ``rnn_param``: each gate group's
    slice (in the ``RNN`` op's packing order) gets its own initializer, weights by default the
    one given to ``initialize`` (``set_initializer``), biases zeros."""

    def __init__(self, mode, num_layers, state_size, bidirectional=False, projection_size=None,
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer=None, h2h_bias_initializer=None,
                 h2r_weight_initializer=None):
        inits = {"i2h_weight_initializer": i2h_weight_initializer,
                 "h2h_weight_initializer": h2h_weight_initializer,
                 "i2h_bias_initializer": i2h_bias_initializer,
                 "h2h_bias_initializer": h2h_bias_initializer,
                 "h2r_weight_initializer": h2r_weight_initializer}
        super().__init__(mode=mode, num_layers=num_layers, state_size=state_size,
                         bidirectional=bidirectional, projection_size=projection_size,
                         **{k: v if v is None or isinstance(v, str) else v.dumps()
                            for k, v in inits.items()})
        self._attrs = {"mode": mode, "num_layers": num_layers, "state_size": state_size,
                       "bidirectional": bidirectional, "projection_size": projection_size}
        self._inits = {k.replace("_initializer", ""): v for k, v in inits.items()}
        self._default = None

    def set_initializer(self, init):
        """The initializer for gate groups given none (weights; biases stay zeros)."""
        self._default = init

    def _init_weight(self, name, arr):
        from .ops.rnn import GATES, param_layout
        attrs = self._attrs
        dirs, hidden = 2 if attrs["bidirectional"] else 1, attrs["state_size"]
        proj = attrs["projection_size"] or hidden
        layer_size = dirs * GATES[attrs["mode"]] * hidden
        rest = (attrs["num_layers"] - 1) * (dirs * proj + proj + 2) * layer_size
        if attrs["projection_size"]:
            rest += attrs["num_layers"] * dirs * proj * hidden
        width = (arr.shape[0] - rest) // layer_size - 2 - proj
        groups = ("i2h_weight", "h2h_weight") + (("h2r_weight",) if attrs["projection_size"]
                                                  else ()) + ("i2h_bias", "h2h_bias")
        values = numpy.zeros(arr.shape, dtype=numpy.float64)
        for k, span in enumerate(param_layout(attrs, width)):
            for group, (begin, end, shape) in zip(groups, span):
                init = self._inits[group] or (
                    "zeros" if group.endswith("bias") else self._default or Uniform())
                piece = _module_zeros(arr, shape)
                create(init)(InitDesc(f"{'lr'[k % dirs]}{k // dirs}_{group}",
                                      {"__init__": init}), piece)
                values[begin:end] = piece.asnumpy().reshape(-1)
        _fill(arr, values)


@register
class FusedRNN(Initializer):
    """MXNet 1.x's initializer of ``mx.rnn.FusedRNNCell``'s flat ``parameters``: every gate's
    weight matrix and bias (in the ``RNN`` op's packing order) is initialised on its own by
    ``init`` (the global initializer when None), as the unfused cells' would be; an LSTM's
    forget-gate biases (``i2h`` and ``h2h``) get ``forget_bias``."""

    def __init__(self, init, num_hidden, num_layers, mode, bidirectional=False, forget_bias=1.0):
        if isinstance(init, str):
            init = create(init)
        super().__init__(init=init.dumps() if init is not None else None, num_hidden=num_hidden,
                         num_layers=num_layers, mode=mode, bidirectional=bidirectional,
                         forget_bias=forget_bias)
        self._init, self._forget_bias = init, forget_bias
        self._attrs = {"mode": mode, "num_layers": num_layers, "state_size": num_hidden,
                       "bidirectional": bidirectional}

    def _init_weight(self, desc, arr):
        from .ops.rnn import GATES, param_layout
        attrs = self._attrs
        dirs, hidden, gates = 2 if attrs["bidirectional"] else 1, attrs["state_size"], \
            GATES[attrs["mode"]]
        rest = (attrs["num_layers"] - 1) * (dirs * hidden + hidden + 2) * dirs * gates * hidden
        width = (arr.shape[0] - rest) // (dirs * gates * hidden) - 2 - hidden
        fallback = getattr(desc, "global_init", None) or Uniform()
        init = self._init or fallback
        values = numpy.zeros(arr.shape, dtype=numpy.float64)
        groups = ("i2h_weight", "h2h_weight", "i2h_bias", "h2h_bias")
        for k, span in enumerate(param_layout(attrs, width)):
            for group, (begin, _, shape) in zip(groups, span):
                rows = shape[0] // gates
                for g in range(gates):
                    piece = _module_zeros(arr, (rows,) + shape[1:])
                    name = f"{'lr'[k % dirs]}{k // dirs}_{group.replace('_', '_g%d_' % g)}"
                    if attrs["mode"] == "lstm" and group.endswith("bias") and g == 1:
                        piece[:] = self._forget_bias
                    else:
                        init(InitDesc(name, global_init=fallback), piece)
                    size = piece.size
                    values[begin + g * size:begin + (g + 1) * size] = piece.asnumpy().reshape(-1)
        _fill(arr, values)


def _module_zeros(like, shape):
    from .ndarray import zeros
    return zeros(shape, dtype=like.dtype)


@register
class Uniform(Initializer):
    """Draws from U(-scale, scale)."""

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _init_weight(self, _, arr):
        _fill(arr, _uniform(-self.scale, self.scale, arr.shape))


@register
class Normal(Initializer):
    """Draws from N(0, sigma^2)."""

    def __init__(self, sigma=0.01):
        super().__init__(sigma=sigma)
        self.sigma = sigma

    def _init_weight(self, _, arr):
        _fill(arr, _normal(0.0, self.sigma, arr.shape))


@register
class Xavier(Initializer):
    """Glorot init: scale = sqrt(magnitude / factor), factor from fan in/out (``factor_type``).

    ``rnd_type='uniform'`` draws U(-scale, scale), ``'gaussian'`` draws N(0, scale^2).
    """

    def __init__(self, rnd_type="uniform", factor_type="avg", magnitude=3):
        super().__init__(rnd_type=rnd_type, factor_type=factor_type, magnitude=magnitude)
        self.rnd_type, self.factor_type, self.magnitude = rnd_type, factor_type, float(magnitude)

    def _init_weight(self, name, arr):
        shape = arr.shape
        if len(shape) < 2:
            raise MXNetValueError(
                f"Xavier initializer cannot be applied to vector {name}. It requires at least 2D."
            )
        hw_scale = float(numpy.prod(shape[2:])) if len(shape) > 2 else 1.0
        fan_in, fan_out = shape[1] * hw_scale, shape[0] * hw_scale
        factors = {"avg": (fan_in + fan_out) / 2.0, "in": fan_in, "out": fan_out}
        if self.factor_type not in factors:
            raise MXNetValueError(f"Incorrect factor type {self.factor_type!r}")
        scale = numpy.sqrt(self.magnitude / factors[self.factor_type])
        if self.rnd_type == "uniform":
            _fill(arr, _uniform(-scale, scale, shape))
        elif self.rnd_type == "gaussian":
            _fill(arr, _normal(0.0, scale, shape))
        else:
            raise MXNetValueError(f"Unknown random type {self.rnd_type!r}")


@register
class MSRAPrelu(Xavier):
    """He init for PReLU nets: Gaussian Xavier with magnitude 2 / (1 + slope^2)."""

    def __init__(self, factor_type="avg", slope=0.25):
        super().__init__("gaussian", factor_type, 2.0 / (1 + slope ** 2))
        self._kwargs = {"factor_type": factor_type, "slope": slope}


@register
class Orthogonal(Initializer):
    """A (scaled) orthogonal matrix from the SVD of a random (nout, nin) matrix."""

    def __init__(self, scale=1.414, rand_type="uniform"):
        super().__init__(scale=scale, rand_type=rand_type)
        self.scale, self.rand_type = scale, rand_type

    def _init_weight(self, _, arr):
        nout, nin = arr.shape[0], int(numpy.prod(arr.shape[1:]))
        if self.rand_type == "uniform":
            tmp = _uniform(-1.0, 1.0, (nout, nin))
        elif self.rand_type == "normal":
            tmp = _normal(0.0, 1.0, (nout, nin))
        else:
            raise MXNetValueError(f"Unknown random type {self.rand_type!r}")
        u, _, v = numpy.linalg.svd(tmp, full_matrices=False)
        res = u if u.shape == tmp.shape else v
        _fill(arr, self.scale * res.reshape(arr.shape))


@register
class Bilinear(Initializer):
    """Bilinear upsampling kernels for a (..., kh, kw) deconvolution weight (MXNet's formula:
    ``(1 - |x / f - c|) (1 - |y / f - c|)`` with ``f = ceil(kw / 2)``, from the last axis)."""

    def _init_weight(self, _, arr):
        shape = arr.shape
        f = numpy.ceil(shape[3] / 2.0)
        c = (2 * f - 1 - f % 2) / (2.0 * f)
        x = numpy.arange(shape[3]) / f - c
        y = numpy.arange(shape[2]) / f - c
        kernel = numpy.outer(1 - numpy.abs(y), 1 - numpy.abs(x)).astype("float32")
        _fill(arr, numpy.broadcast_to(kernel, shape))


class Load(Initializer):
    """Values by name from ``param`` (a dict of arrays); others from ``default_init``."""

    def __init__(self, param, default_init=None, verbose=False):
        super().__init__()
        self.param = {k[4:] if k.startswith(("arg:", "aux:")) else k: v for k, v in param.items()}
        self.default_init = default_init

    def __call__(self, name, arr):
        if name in self.param:
            _fill(arr, _host(self.param[name]))
        elif self.default_init is not None:
            self.default_init(name, arr)
        else:
            raise MXNetValueError(f"Cannot Initialize {name}. Not found in loaded param and no "
                                  f"default Initializer is provided.")

    _init_weight = __call__


class Mixed:
    """The first initializer whose regex matches the name."""

    def __init__(self, patterns, initializers):
        import re

        self.map = list(zip([re.compile(p) for p in patterns], initializers))

    def __call__(self, name, arr):
        for pattern, init in self.map:
            if pattern.match(name):
                init(name, arr)
                return
        raise MXNetValueError(f"Parameter name {name} did not match any pattern. Consider "
                              f'adding a ".*" pattern at the and with default Initializer.')


def _host(value):
    return value.asnumpy() if hasattr(value, "asnumpy") else numpy.asarray(value)
