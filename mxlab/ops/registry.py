"""The op registry: one :class:`Op` definition serves every execution path.

An op carries its compute function (written against an array module ``xp``: numpy or cupy),
attribute specs, input/output counts and names, shape/dtype inference, a gradient rule written *with
ops* (so autograd and the graph gradient pass share it, and gradients can be differentiated again),
in-place options, mutable (aux) inputs, resources and what it saves for backward. The
``mx.np``/``mx.npx``/``mx.nd``/``mx.sym`` namespaces are filled from these entries by
:func:`populate_namespace`.

Example
-------
>>> from mxlab.ops import registry
>>> registry.get_op("broadcast_plus").name
'broadcast_add'
"""
import dataclasses
import inspect
import math
import typing

import numpy

from ..base import (MXNetAxisError, MXNetError, MXNetIndexError, MXNetKeyError,
                    MXNetNotImplementedError, MXNetTypeError, MXNetValueError)
from ..engine.op import raise_error
from .attrs import REQUIRED, Attr
from .context import PREDICT

__all__ = ["Op", "NodeView", "Attr", "REQUIRED", "register", "get_op", "has_op", "list_ops",
           "unregister", "OpReq", "F", "apply_op", "register_dispatch", "on_register",
           "run_kernel", "call_translated", "translate_error"]


class NodeView:
    """The node a gradient rule (``Op.gradient(node, out_grads)``) sees, on every path: ``op``,
    ``attrs``, ``name``, and ``inputs``/``outputs`` as arrays (autograd's tape nodes are
    NodeViews; ``None`` where the op does not save them) or graph entries (the gradient pass).

    Example
    -------
    >>> import numpy
    >>> node = NodeView(get_op("exp"), {}, [numpy.zeros(2)], [numpy.ones(2)])
    >>> node.op.name, node.outputs[0].tolist()
    ('exp', [1.0, 1.0])
    """
    __slots__ = ("op", "name", "attrs", "inputs", "outputs")

    def __init__(self, op, attrs, inputs, outputs, name=""):
        self.op, self.attrs, self.name = op, attrs, name
        self.inputs, self.outputs = inputs, outputs


class OpReq:
    """How an op writes an output buffer (MXNet's ``OpReqType``)."""
    NULL = "null"        # kNullOp: do not write
    WRITE = "write"      # kWriteTo: overwrite
    INPLACE = "inplace"  # kWriteInplace: the buffer aliases an input
    ADDTO = "add"        # kAddTo: accumulate into the buffer


def _as_list(result):
    return list(result) if isinstance(result, (tuple, list)) else [result]


@dataclasses.dataclass(eq=False)
class Op:
    """Everything mxlab knows about one operator.

    compute(xp, inputs, attrs[, ctx]) -> array or tuple of arrays
        The kernel. ``inputs`` are xp arrays, ``attrs`` the parsed attribute dict. A kernel that
        names a ``ctx`` parameter gets the run's :class:`~mxlab.ops.context.OpContext` (training
        or inference, the random generator); ``takes_ctx`` records that.
    compute_into(xp, inputs, attrs, outs[, ctx]) -> None, optional
        Writes straight into preallocated ``outs`` (e.g. ufuncs with ``out=``); used by planned
        execution. One that names ``ctx`` gets the op context, as ``compute``.
    infer_shape(attrs, in_shapes[, out_shapes]) -> out_shapes | (in_shapes, out_shapes), optional
        A rule with an ``out_shapes`` parameter also gets the output shapes known so far, so it can
        infer inputs backwards (an elementwise op fills a partly known input from its output).
        Shapes are tuples (``None`` for a wholly unknown shape, ``None`` entries for unknown dims).
        Returning a pair also fills unknown input shapes (e.g. FullyConnected's weight). Without it,
        shapes come from running ``compute`` on zero-strided dummy arrays (exact, cheap for ops that
        do not copy).
    infer_type(attrs, in_dtypes) -> out_dtypes | (in_dtypes, out_dtypes), optional
    gradient(node, out_grads) -> list with one entry per input (None where no gradient)
        Written with ops from :data:`F`, so it runs on arrays (autograd, also recorded for higher
        order) and on symbols (the graph gradient pass). ``node`` has ``inputs``, ``outputs``,
        ``attrs``, ``op``.
    """
    name: str
    compute: typing.Callable
    attrs: tuple = ()
    aliases: tuple = ()
    num_inputs: object = 1          # int, or callable(attrs) -> int
    num_outputs: object = 1         # int, or callable(attrs) -> int
    input_names: object = ("data",)  # tuple, or callable(attrs) -> tuple
    output_names: object = ("output",)
    num_visible_outputs: object = None  # int or callable; None = all outputs visible
    infer_shape: typing.Callable = None
    infer_type: typing.Callable = None
    gradient: typing.Callable = None
    compute_into: typing.Callable = None
    inplace: tuple = ()             # (input_index, output_index) pairs that may share memory
    mutate_inputs: tuple = ()       # input indices the op writes (aux states: BN moving stats)
    resources: tuple = ()           # "temp", "rng"
    save_inputs: object = True      # inputs backward needs: True (all), False (none), indices
    save_outputs: object = True     # which outputs backward needs
    ignore_inputs: tuple = ()       # inputs whose value the op never reads (not planned as reads)
    grad_reads_values: bool = True  # False: the gradient reads what it saves for shapes and dtypes
    #                                 only (linear ops), so autograd's in-place check skips them
    elementwise: bool = False       # a pure elementwise map (fusion backends rely on this)
    numexpr: object = None          # numexpr template for fusion, e.g. "({0} + {1})", or
    #                                 callable(attrs) -> template or None (Activation)
    ufunc: str = None               # the NumPy/CuPy ufunc the op is, exactly (see ufunc_scalar)
    ufunc_scalar: str = None        # None: ufunc(*inputs); "rhs": ufunc(x, scalar); "lhs":
    #                                 ufunc(scalar, x), with the ``scalar`` attribute
    never_mirror: bool = False      # MXNET_BACKWARD_DO_MIRROR never recomputes it (expensive)
    is_random: bool = False
    dynamic_shape: bool = False     # output shape depends on input values (flatnonzero, masks)
    probe_partial: bool = True      # infer partly known shapes by probing unknown dims
    zero_dims_unknown: bool = False  # legacy shape mode: a 0 in ``shape`` is unknown (MXNet 1.x)
    np_name: str = None             # public name in mx.np, if any
    npx_name: str = None            # public name in mx.npx, if any
    nd_names: tuple = None          # public names in mx.nd / mx.sym (default: name + aliases)
    ignored_attrs: tuple = ()       # MXNet attributes accepted and ignored (workspace, ...)
    doc: str = ""
    hidden: bool = False            # internal op (_backward_ and the like), not in mx.np

    def __post_init__(self):
        self._attr_specs = {a.name: a for a in self.attrs}
        self._defaults = {a.name: a.default for a in self.attrs if a.default is not REQUIRED}
        self._required = tuple(a.name for a in self.attrs if a.default is REQUIRED)
        self._shape_rule_reads_outputs = self.infer_shape is not None and \
            "out_shapes" in inspect.signature(self.infer_shape).parameters
        self.takes_ctx = _names_parameter(self.compute, "ctx")
        self.into_takes_ctx = self.compute_into is not None and \
            _names_parameter(self.compute_into, "ctx")
        # NOTE: one output, no written inputs, no shared resource: the imperative dispatcher may
        #   run the op inline (see mxlab.imperative's fast lane).
        self.runs_inline = type(self.num_outputs) is int and self.num_outputs == 1 \
            and not self.mutate_inputs and not self.resources

    def __repr__(self):
        return f"<Op {self.name}>"

    # -- facts the passes read ---------------------------------------------------------------------
    @property
    def mirrorable(self):
        """Whether recomputing the op gives the same value (not random, mutating nothing): the
        gradient pass may mirror it (recompute it in backward)."""
        return not (self.is_random or self.mutate_inputs)

    @property
    def fusable(self):
        """Whether a fusion backend may compile the op into a kernel: a deterministic elementwise
        map with a numexpr template (see :meth:`numexpr_template` for one node's)."""
        return self.elementwise and self.numexpr is not None and self.mirrorable

    def numexpr_template(self, attrs):
        """The numexpr template for a node with ``attrs`` (None when there is none)."""
        return self.numexpr(attrs) if callable(self.numexpr) else self.numexpr

    # -- attributes --------------------------------------------------------------------------------
    def parse_attrs(self, kwargs):
        """Validate and type ``kwargs`` (Python values or JSON strings) into a full attribute dict.

        Unknown names (on an op that has attributes: one without any ignores them, as MXNet's ops
        without a parameter struct), missing required attributes and bad values raise errors naming
        the op and attribute.
        """
        attrs = dict(self._defaults)
        specs = self._attr_specs
        for key, value in kwargs.items():
            spec = specs.get(key)
            if spec is None:
                if key in self.ignored_attrs or not specs:
                    continue   # NOTE: MXNet's ops without a parameter struct ignore keywords
                raise MXNetValueError(f"{self.name}: unknown attribute '{key}'; "
                                      f"known attributes: {sorted(specs) or 'none'}")
            attrs[key] = spec.parse(value, self.name)
        for key in self._required:
            if key not in attrs:
                raise MXNetValueError(f"{self.name}: required attribute '{key}' is missing")
        return attrs

    def attrs_to_strings(self, attrs):
        """MXNet JSON form: every attribute as a string (defaults included only when set
        explicitly)."""
        return {k: Attr.to_str(v) for k, v in attrs.items()}

    # -- arity -------------------------------------------------------------------------------------
    def get_num_inputs(self, attrs):
        n = self.num_inputs
        return n(attrs) if callable(n) else n

    def get_num_outputs(self, attrs):
        n = self.num_outputs
        return n(attrs) if callable(n) else n

    def get_num_visible_outputs(self, attrs):
        n = self.num_visible_outputs
        if n is None:
            return self.get_num_outputs(attrs)
        return n(attrs) if callable(n) else n

    def get_input_names(self, attrs):
        names = self.input_names
        names = names(attrs) if callable(names) else names
        count = self.get_num_inputs(attrs)
        if count is not None and len(names) != count:
            names = tuple(f"arg{i}" for i in range(count)) if len(names) != 1 else \
                tuple(f"{names[0]}{i}" for i in range(count))
        return tuple(names)

    def get_output_names(self, attrs):
        names = self.output_names
        names = names(attrs) if callable(names) else names
        count = self.get_num_outputs(attrs)
        if len(names) != count:
            names = tuple(f"output{i}" for i in range(count)) if count > 1 else ("output",)
        return tuple(names)

    # -- execution ---------------------------------------------------------------------------------
    def run_compute(self, xp, inputs, attrs, ctx=None):
        """``compute``, handed ``ctx`` (default :data:`~mxlab.ops.context.PREDICT`) when it takes
        one."""
        if self.takes_ctx:
            return self.compute(xp, inputs, attrs, ctx or PREDICT)
        return self.compute(xp, inputs, attrs)

    def forward(self, xp, inputs, attrs, outs=None, reqs=None, ctx=None):
        """Run the kernel. Without ``outs`` return fresh arrays; with ``outs`` honour each request.

        Requests (:class:`OpReq`): write/inplace overwrite the buffer, add accumulates, null skips.
        ``ctx``: the :class:`~mxlab.ops.context.OpContext` for kernels that take one.
        """
        if outs is None:
            # NOTE: NumPy returns scalars (numpy.float64) for many 0-d results; outputs are always
            # arrays.
            return [xp.asarray(r) if isinstance(r, numpy.generic) else r
                    for r in _as_list(self.run_compute(xp, inputs, attrs, ctx))]
        reqs = reqs or [OpReq.WRITE] * len(outs)
        if self.compute_into is not None and all(r in (OpReq.WRITE, OpReq.INPLACE) for r in reqs):
            if self.into_takes_ctx:
                self.compute_into(xp, inputs, attrs, outs, ctx or PREDICT)
            else:
                self.compute_into(xp, inputs, attrs, outs)
            return outs
        results = _as_list(self.run_compute(xp, inputs, attrs, ctx))
        for buf, res, req in zip(outs, results, reqs):
            if req == OpReq.NULL or buf is res:
                continue
            if req == OpReq.ADDTO:
                buf += res
            else:
                xp.copyto(buf, res, casting="unsafe")
        return outs

    def infer_shapes(self, attrs, in_shapes, out_shapes=None):
        """Output shapes from input (and, for rules that read them, output) shapes; returns
        ``(in_shapes, out_shapes)``.

        When the rule leaves an output unknown because some input dims are (MXNet's ``(0, 3, 4)``
        with an unknown batch), the dims are probed: the rule runs twice with the unknown dims
        set to two different sizes, and every dim that comes out the same both times is known.
        """
        ins, outs = self._rule_shapes(attrs, in_shapes, out_shapes)
        if self.probe_partial and any(s is None or None in s for s in outs) and \
                _partly_known(in_shapes):
            probed = _probe_shapes(self, attrs, in_shapes)
            if probed is not None:
                ins = [_merge_probe(a, b) for a, b in zip(ins, probed[0])]
                outs = [_merge_probe(a, b) for a, b in zip(outs, probed[1])]
        return ins, outs

    def _rule_shapes(self, attrs, in_shapes, out_shapes):
        if self.infer_shape is not None:
            if self._shape_rule_reads_outputs:
                result = self.infer_shape(attrs, list(in_shapes), out_shapes=out_shapes)
            else:
                result = self.infer_shape(attrs, list(in_shapes))
            if isinstance(result, tuple) and len(result) == 2 and isinstance(result[0], list):
                return result
            return list(in_shapes), list(result)
        return list(in_shapes), _meta_shapes(self, attrs, in_shapes, None)[0]

    def infer_types(self, attrs, in_dtypes, in_shapes=None):
        """Output dtypes from input dtypes; returns ``(in_dtypes, out_dtypes)`` (names like
        'float32')."""
        if self.infer_type is not None:
            result = self.infer_type(attrs, list(in_dtypes))
            if isinstance(result, tuple) and len(result) == 2 and isinstance(result[0], list):
                return result
            return list(in_dtypes), list(result)
        if in_dtypes and all(d is not None for d in in_dtypes):
            if in_shapes is not None and _meta_affordable(self, attrs, in_shapes):
                return list(in_dtypes), _meta_shapes(self, attrs, in_shapes, in_dtypes)[1]
            if self.elementwise or self.get_num_outputs(attrs) == 1:
                # NOTE: large inputs or outputs without a dtype rule: assume the first input's
                #   dtype rather than running a real kernel (a matmul, a broadcast) to learn it.
                return list(in_dtypes), [in_dtypes[0]] * self.get_num_outputs(attrs)
        return list(in_dtypes), [None] * self.get_num_outputs(attrs)


# NOTE: inference never allocates more than a few such blocks, whatever sizes a graph (a model
#   file) declares: a kernel runs on dummies only when its inputs and outputs are this small.
META_LIMIT = 4096          # elements
_PROBE_SIZES = (7, 11)     # stand-ins for unknown dims when probing partly known shapes
_SMALL_PROBE = 2           # a third stand-in, counted when the op accepts it (see _probe_shapes)


def _partly_known(shapes):
    """Some shape has a known rank with an unknown dim (others may be wholly unknown: a weight
    the rule derives, MXNet's ``(64, 0, 7, 7)`` from data ``(1, 0, 0, 0)``)."""
    return any(s is not None and None in s for s in shapes)


def _probe_rule(op, attrs, in_shapes, size):
    filled = [None if s is None else tuple(size if d is None else d for d in s)
              for s in in_shapes]
    return op._rule_shapes(attrs, filled, None)


def _probe_shapes(op, attrs, in_shapes):
    """``(ins, outs)`` whose dims agree between the probes (None where they differ), or None
    when a probe is rejected (the unknown dims are constrained: nothing is certain).

    NOTE: the small probe catches outputs that only look constant because the stand-ins are
    large (``slice(end=5)`` of an unknown dim, MXNet's test_slice_partial_infer); an op that
    rejects it (a kernel larger than 2) is judged by the two large probes alone.
    """
    results = []
    for size in _PROBE_SIZES:
        try:
            results.append(_probe_rule(op, attrs, in_shapes, size))
        except (MXNetError, ValueError, TypeError, IndexError):  # NOTE: a broken constraint
            # (4 != 7) tells nothing.
            return None
    try:
        results.append(_probe_rule(op, attrs, in_shapes, _SMALL_PROBE))
    except (MXNetError, ValueError, TypeError, IndexError):
        pass
    ins, outs = results[0]
    for other_ins, other_outs in results[1:]:
        ins = [_agree(a, b) for a, b in zip(ins, other_ins)]
        outs = [_agree(a, b) for a, b in zip(outs, other_outs)]
    return ins, outs


def _agree(a, b):
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b))


def _merge_probe(ruled, probed):
    """The rule's shape, with dims it left unknown taken from the probe."""
    if ruled is None:
        return probed
    if probed is None or len(probed) != len(ruled):
        return ruled
    return tuple(p if r is None else r for r, p in zip(ruled, probed))


def _names_parameter(fn, name):
    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):   # NOTE: builtins without a signature take no context
        return False


# -- running kernels with errors that name the op --------------------------------------------------
def translate_error(op, exc, inputs):
    """An MXNetError naming ``op`` and the input shapes for an array-library error (None when
    ``exc`` is not one of the translated kinds)."""
    detail = ", ".join(f"{tuple(x.shape)} {x.dtype}" for x in inputs if hasattr(x, "shape"))
    message = f"{op.name}: {exc} (inputs: {detail or 'none'})"
    if isinstance(exc, numpy.exceptions.AxisError):
        return MXNetAxisError(message)
    for py_type, mx_type in ((IndexError, MXNetIndexError), (TypeError, MXNetTypeError),
                             (ValueError, MXNetValueError),
                             (NotImplementedError, MXNetNotImplementedError)):
        if isinstance(exc, py_type):
            return mx_type(message)
    return None


def call_translated(op, arrays, fn, *args):
    """``fn(*args)`` with array-library errors turned into MXNetErrors naming ``op`` and the shapes
    of ``arrays`` (used by graph executors and deferred compute; the imperative kernel inlines
    it)."""
    try:
        return fn(*args)
    except MXNetError:
        raise
    except Exception as exc:
        # NOTE: not bound to a local, which would keep the error in a cycle with this frame
        raise_error(translate_error(op, exc, arrays) or exc, exc)


def run_kernel(op, xp, datas, attrs, outs=None, reqs=None, ctx=None):
    """``op.forward`` with errors translated (shared by the imperative path, executors and
    interpreters)."""
    return call_translated(op, datas, op.forward, xp, datas, attrs, outs, reqs, ctx)


def _known(shape):
    return shape is not None and all(d is not None and d >= 0 for d in shape)


def _elements(shapes):
    return sum(math.prod(s) for s in shapes)


def _meta_affordable(op, attrs, in_shapes):
    """Whether running the kernel on dummies (to learn dtypes) stays under :data:`META_LIMIT`
    elements in and out; the outputs' size comes from the shape rule, since the kernel would
    materialise them (``broadcast_to`` a (1, 1) input to (20000, 20000))."""
    if not all(_known(s) for s in in_shapes) or _elements(in_shapes) > META_LIMIT:
        return False
    if op.infer_shape is None:
        return True     # NOTE: _meta_shapes bounds the inputs; no rule tells the outputs
    try:
        outs = op._rule_shapes(attrs, in_shapes, None)[1]
    except (MXNetError, ValueError, TypeError, IndexError):
        return False
    return all(_known(s) for s in outs) and _elements(outs) <= META_LIMIT


def _meta_shapes(op, attrs, in_shapes, in_dtypes):
    """Shapes and dtypes by running ``compute`` on zero-strided dummies (no real memory for the
    inputs), for ops without a rule; inputs over :data:`META_LIMIT` elements are refused, since
    the kernel's outputs and temporaries would be real (an op that can output more than it reads
    needs a shape rule)."""
    n_out = op.get_num_outputs(attrs)
    if not all(_known(s) for s in in_shapes):
        return [None] * n_out, [None] * n_out
    if _elements(in_shapes) > META_LIMIT:
        raise MXNetValueError(
            f"{op.name}: has no shape rule and its inputs {[tuple(s) for s in in_shapes]} are "
            f"over {META_LIMIT} elements; inference does not run kernels that large")
    dtypes = in_dtypes or ["float32"] * len(in_shapes)
    dummies = [numpy.broadcast_to(numpy.zeros((), dtype=d or "float32"), s)
               for s, d in zip(in_shapes, dtypes)]
    outs = _as_list(op.run_compute(numpy, dummies, attrs))
    return [tuple(o.shape) for o in outs], [numpy.dtype(o.dtype).name for o in outs]


# -- the registry ----------------------------------------------------------------------------------
_OPS = {}      # canonical name -> Op
_NAMES = {}    # every name and alias -> Op


def register(op):
    """Add an op (and its aliases); a name already taken raises an error naming the clash."""
    names = (op.name,) + tuple(op.aliases)
    for name in names:
        if name in _NAMES:
            raise MXNetValueError(f"cannot register op '{op.name}': the name '{name}' is already "
                                  "taken by "
                                  f"'{_NAMES[name].name}'")
    _OPS[op.name] = op
    for name in names:
        _NAMES[name] = op
    for hook in _REGISTER_HOOKS:
        hook(op)
    return op


def unregister(name):
    """Remove an op and its aliases (used when unloading extensions)."""
    op = _OPS.pop(name)
    for alias in (op.name,) + tuple(op.aliases):
        _NAMES.pop(alias, None)
    for hook in _UNREGISTER_HOOKS:
        hook(op)
    return op


def get_op(name):
    """The op registered under ``name`` (canonical name or alias)."""
    op = _NAMES.get(name)
    if op is None:
        raise MXNetKeyError(f"operator '{name}' is not registered")
    return op


def has_op(name):
    return name in _NAMES


def list_ops():
    """Canonical names of all registered ops, sorted."""
    return sorted(_OPS)


_REGISTER_HOOKS = []
_UNREGISTER_HOOKS = []


def on_register(hook, on_unregister=None):
    """Call ``hook(op)`` for every op registered from now on (namespaces stay current with
    extensions)."""
    _REGISTER_HOOKS.append(hook)
    if on_unregister is not None:
        _UNREGISTER_HOOKS.append(on_unregister)


# -- type dispatch: one call works on arrays and on symbols ----------------------------------------
_DISPATCH = {}


def register_dispatch(cls, fn):
    """``apply_op`` sends ops whose first array-like input is a ``cls`` to ``fn(op, inputs,
    attrs)``."""
    _DISPATCH[cls] = fn


def apply_op(op, inputs, attrs, name=None):
    """Apply ``op`` to ``inputs`` (arrays or symbols) with already-parsed ``attrs``; returns a list
    of outputs. ``name``: the node's name when the inputs are symbols (Gluon 1 layers name their
    op ``fwd``), ignored for arrays."""
    for x in inputs:
        fn = _DISPATCH.get(type(x))
        if fn is None:
            for cls, candidate in _DISPATCH.items():
                if isinstance(x, cls):
                    fn = candidate
                    break
        if fn is not None:
            return fn(op, inputs, attrs) if name is None else fn(op, inputs, attrs, name=name)
    raise MXNetValueError(f"{op.name}: cannot apply to inputs of types "
                          f"{[type(x).__name__ for x in inputs]}")


class _OpCaller:
    """``F.<op>(*inputs, **attrs)`` applies a registered op to arrays or symbols alike (used by
    gradients).

    Returns a single output, or a list when the op has several visible outputs.
    """

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        op = get_op(name)

        def call(*inputs, name=None, **kwargs):
            attrs = op.parse_attrs(kwargs)
            outs = apply_op(op, list(inputs), attrs, name)
            return outs[0] if len(outs) == 1 else outs
        call.__name__ = name
        return call


F = _OpCaller()
