"""How namespaces (``mx.nd``, ``mx.np``, ``mx.npx``, ``mx.sym``) get their functions.

:func:`populate_namespace` fills a namespace with one generated function per registered op
public in it; :func:`register_frontend` publishes a hand-written Python function instead (scalar
dispatch, NumPy signatures). Hand-written frontends live in the namespace packages
(``mxlab/ndarray/``, ``mxlab/numpy/``, ``mxlab/numpy_extension/``), never in ``mxlab/ops/``: ops
are kernels and rules, they know nothing of arrays or dispatch.

Example
-------
>>> import mxlab as mx
>>> call_op("broadcast_add", [mx.nd.ones((2,)), mx.nd.ones((2,))]).asnumpy()
array([2., 2.], dtype=float32)
"""
from ..imperative import invoke
from ..ops.registry import get_op, list_ops, on_register
from .frontend import make_array_frontend
from .ndarray import NDArray, ndarray

__all__ = ["register_frontend", "populate_namespace", "populate_prefixed", "call_op", "invoke_op",
           "publish"]

_FRONTENDS = {}   # flavour -> {public name: python function}
_NAMESPACES = {}  # flavour -> populated namespaces (frontends registered later are added too)


def register_frontend(*flavours, name=None):
    """Decorator: publish a hand-written Python function in namespaces (e.g. ``add`` handling
    scalars).

    The function itself is written once in the op family's module; ``name`` defaults to its
    ``__name__``.
    """
    def decorate(fn):
        for flavour in flavours:
            _FRONTENDS.setdefault(flavour, {})[name or fn.__name__] = fn
            for namespace in _NAMESPACES.get(flavour, ()):
                namespace[name or fn.__name__] = fn
        return fn
    return decorate


def populate_prefixed(namespace, prefix, make_frontend):
    """Fill a sub-namespace (``mx.nd.contrib``, ``mx.sym.image``, ...) with every registered op
    named ``<prefix><name>``, as ``<name>``."""
    for op in map(get_op, list_ops()):
        for name in (op.name, *op.aliases):   # NOTE: CTCLoss is also _contrib_CTCLoss
            if name.startswith(prefix):
                public = name[len(prefix):]
                namespace[public] = make_frontend(op, public)


def populate_namespace(namespace, flavour, make_frontend):
    """Fill ``namespace`` (a module dict) with a function per op public in ``flavour`` (np, npx, nd,
    sym).

    ``make_frontend(op, public_name)`` builds the generated function; hand-written functions
    registered with :func:`register_frontend` take precedence. Registration hooks keep the namespace
    current for ops registered later (extensions).
    """
    custom = _FRONTENDS.setdefault(flavour, {})
    _NAMESPACES.setdefault(flavour, []).append(namespace)

    def add(op):
        for public in _public_names(op, flavour):
            if public not in custom:
                namespace[public] = make_frontend(op, public)

    def remove(op):
        for public in _public_names(op, flavour):
            namespace.pop(public, None)

    for op in [get_op(name) for name in list_ops()]:
        add(op)
    namespace.update(custom)
    on_register(add, remove)


def _public_names(op, flavour):
    if flavour == "np":
        return (op.np_name,) if op.np_name else ()
    if flavour == "npx":
        return (op.npx_name,) if op.npx_name else ()
    return op.nd_names if op.nd_names is not None else (op.name,) + tuple(op.aliases)


# -- helpers for hand-written frontends ------------------------------------------------------------
def call_op(op_name, inputs, **attrs):
    """Invoke a registered op on arrays; returns one output or the list of visible outputs."""
    op = get_op(op_name)
    parsed = op.parse_attrs(attrs)
    outs = invoke(op, list(inputs), parsed)
    visible = op.get_num_visible_outputs(parsed)
    return outs[0] if visible == 1 else outs[:visible]


def invoke_op(op_name, inputs, out=None, **attrs):
    """The first output of op ``op_name`` on ``inputs``, written into ``out`` when given."""
    op = get_op(op_name)
    return invoke(op, list(inputs), op.parse_attrs(attrs), out=None if out is None else [out])[0]


def publish(op_name, flavour, public):
    """Also publish ``op_name`` as ``public`` in ``flavour`` (method forms need the name in both
    namespaces)."""
    fn = make_array_frontend(ndarray if flavour == "np" else NDArray)(get_op(op_name), public)
    register_frontend(flavour, name=public)(fn)
