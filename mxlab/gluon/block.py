"""Gluon blocks: :class:`Block` (imperative), :class:`HybridBlock` (traceable) and
:class:`SymbolBlock` (a block around a loaded Symbol).

Hybridizing, in named stages as in MXNet:

1. ``_get_graph``: inputs are detached and bound to variables ``data`` (or ``data0, data1, ...``);
   ``forward`` runs under ``autograd.pause()`` with deferred compute on, so every op (and every
   ``Parameter.data()``, bound to its ``var()``) is recorded; ``dc.get_symbol`` gives the graph.
2. ``_build_cache``: the graph's inputs are matched to data and parameters
   (``data_indices``/``param_indices``) and a ``CachedOp`` is made with the hybridize flags.
3. ``_call_cached_op``: the CachedOp runs on the call's inputs and the current parameter arrays.

A block overriding ``hybrid_forward(self, F, x, *args, **params)`` is a Gluon 1 block: ``F`` is
``mx.nd`` for arrays (also while tracing) and ``mx.sym`` for symbols, parameters come as keywords.
Otherwise ``forward(self, x, ...)`` is Gluon 2 code (``mx.np`` ops, ``self.weight.data()``).

Example
-------
>>> import mxlab as mx
>>> net = mx.gluon.nn.HybridSequential()
>>> net.add(mx.gluon.nn.Dense(4, activation='relu'), mx.gluon.nn.Dense(2)); net.initialize()
>>> x = mx.nd.ones((3, 5))
>>> y0 = net(x); net.hybridize()
>>> bool(abs(net(x) - y0).max() < 1e-6)
True
>>> sorted(net.collect_params())
['0.bias', '0.weight', '1.bias', '1.weight']
"""
import collections
import contextlib
import importlib
import inspect
import re
import warnings

from .. import autograd
from .. import deferred_compute as dc
from ..base import (MXNetNotImplementedError, MXNetRuntimeError, MXNetTypeError,
                    MXNetValueError)
from ..ndarray.ndarray import NDArray, ndarray
from ..symbol.symbol import Symbol
from .block_io import BlockCheckpoints, export_traced
from .op_hooks import HookHandle, OpHooks
from .nesting import (_flatten, _regroup, all_arrays, check_array_inputs, check_np_outputs,
                      check_symbol_inputs, data_names, namespace, needs_inputs,
                      same_but_trailing_nones)
from .gluon1 import (BlockMeta, BlockScope, _block_scope, collect_gluon1,  # noqa: F401
                     create_prefix, gluon1_param, trace_name_scopes, uses_gluon1)
from .parameter import Parameter, shape_is_known
from .parameter_dict import ParameterDict

__all__ = ["Block", "HybridBlock", "SymbolBlock", "HookHandle"]

UNKNOWN_SHAPE_MSG = (
    "{name} has parameters with unknown shape. You need to either specify the shape in __init__ "
    "or implement {name}.infer_shape to set the parameter shapes based on the first input. "
    "Parameters with unknown shapes are {params}"
)


# -- Block -----------------------------------------------------------------------------------------
class Block(BlockCheckpoints, OpHooks, metaclass=BlockMeta):
    """Base class of all layers and models; children and parameters register by attribute.

    Example
    -------
    >>> import mxlab as mx
    >>> class Net(mx.gluon.Block):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.fc = mx.gluon.nn.Dense(2, in_units=3)
    ...     def forward(self, x):
    ...         return self.fc(x) * 2
    >>> net = Net()
    >>> list(net.collect_params())
    ['fc.weight', 'fc.bias']
    """

    def __init__(self, prefix=None, params=None):
        held = self.__dict__.pop("_gluon1_held", {})
        prefix = prefix if prefix is not None else held.get("prefix")
        params = params if params is not None else held.get("params")
        # NOTE: prefix=/params= exist only in Gluon 1: such a block's tree is 1.x code
        self._gluon1 = prefix is not None or params is not None
        self._empty_prefix = prefix == ""
        self._scope = BlockScope(self)
        prefix, self._params = create_prefix(prefix, params, self._alias())
        self._prefix, self._name = prefix, prefix[:-1] if prefix.endswith("_") else prefix
        self._children = collections.OrderedDict()
        self._reg_params = collections.OrderedDict()
        self._forward_hooks = collections.OrderedDict()
        self._forward_pre_hooks = collections.OrderedDict()

    def __setattr__(self, name, value):
        existing = self.__dict__.get(name)
        if isinstance(existing, (Parameter, Block)) and not isinstance(value, type(existing)):
            raise MXNetTypeError(
                f"Changing attribute type for {name} from {type(existing)} to {type(value)} "
                f"is not allowed."
            )
        if isinstance(value, Block):
            self.register_child(value, name)
        elif isinstance(value, Parameter):
            value = gluon1_param(self, name, value)
            self.__dict__["_reg_params"][name] = value
        super().__setattr__(name, value)

    def __repr__(self):
        lines = [f"  ({key}): " + repr(block).replace("\n", "\n  ")
                 for key, block in self._children.items()]
        body = "\n" + "\n".join(lines) + "\n" if lines else ""
        return f"{type(self).__name__}({body})"

    def register_child(self, block, name=None):
        """Register ``block`` as a child (its parameters become ``<name>.<param>``)."""
        if name is None:
            name = str(len(self._children))
        self._children[name] = block
        self._clear_cached_op()    # NOTE: a graph traced before the child came is stale

    def _alias(self):
        """Gluon 1: the hint a block's default prefix is counted from (``dense`` -> ``dense0_``)."""
        return type(self).__name__.lower()

    @property
    def params(self):
        """This block's own parameters (not its children's), as Gluon 1's prefixed dict."""
        return self._params

    @property
    def prefix(self):
        """Gluon 1: the prefix of this block's names (``dense0_``)."""
        return self._prefix

    @property
    def name(self):
        """Gluon 1: the block's name (``dense0``)."""
        return self._name

    def name_scope(self):
        """Gluon 1: ``with self.name_scope():`` prefixes the children created inside."""
        self._gluon1 = True
        return self._scope

    def _collect_params_with_prefix(self, prefix="", legacy=False):
        """Structured names (``0.weight``); ``legacy``: as MXNet 1.x's checkpoints name them
        where that differs (a SymbolBlock's parameters, see there)."""
        prefix = prefix + "." if prefix else ""
        found = ParameterDict((prefix + key, p) for key, p in self._reg_params.items())
        registered = {id(p) for p in self._reg_params.values()}
        for full, param in self._params.items():   # NOTE: Gluon 1 params.get(), not attributes
            if id(param) not in registered:
                found[prefix + full[len(self._params.prefix):]] = param
        for name, child in self._children.items():
            found.update(child._collect_params_with_prefix(prefix + name, legacy))
        return found

    def collect_params(self, select=None):
        """``{structured name: Parameter}`` of this block and its children; ``select`` is a
        regex (``'.*weight|.*bias'``) matched at the start of each name. A tree written as Gluon 1
        code (``gluon1.uses_gluon1``) gets MXNet 1.x's prefixed dict of full names instead."""
        self._check_container_with_block()
        if uses_gluon1(self):
            return collect_gluon1(self, select)
        params = self._collect_params_with_prefix()
        if not select:
            return params
        pattern = re.compile(select)
        return ParameterDict((k, p) for k, p in params.items() if pattern.match(k))

    def initialize(self, init=None, ctx=None, verbose=False, force_reinit=False, device=None):
        """Initialise every parameter (a parameter's own ``init`` wins over ``init``)."""
        self.collect_params().initialize(init, device if device is not None else ctx, verbose,
                                         force_reinit)

    def hybridize(self, active=True, **kwargs):
        """Hybridize every HybridBlock child (a plain Block itself runs imperatively)."""
        for child in self._children.values():
            child.hybridize(active, **kwargs)

    def cast(self, dtype):
        """Cast every parameter to ``dtype``."""
        for child in self._children.values():
            child.cast(dtype)
        for param in self._reg_params.values():
            param.cast(dtype)

    def zero_grad(self):
        """Set every parameter gradient to 0."""
        self.collect_params().zero_grad()

    def reset_ctx(self, ctx):
        self.collect_params().reset_ctx(ctx)

    reset_device = reset_ctx

    def apply(self, fn):
        """Call ``fn(block)`` on every child (depth first) and then on this block."""
        for child in self._children.values():
            child.apply(fn)
        fn(self)
        return self

    def share_parameters(self, shared):
        """Use the parameters of ``shared`` (``{structured name: Parameter}``) where names match."""
        if shared is None:
            return self
        if not isinstance(shared, dict):
            raise MXNetValueError(f"'shared' should be in type of Dict. Get type {type(shared)}!")
        if isinstance(shared, ParameterDict) and shared.prefix:   # NOTE: a Gluon 1 `.params`
            shared = {k.removeprefix(shared.prefix): p for k, p in shared.items()}
        remaining = set(shared)
        self._share_parameters(shared, remaining, "")
        for name in sorted(remaining):
            warnings.warn(f"Parameter name {name} is not in the current model!", stacklevel=2)
        return self

    def _share_parameters(self, shared, remaining, prefix):
        prefix = prefix + "." if prefix else ""
        for name in list(self._reg_params):
            if dict.get(shared, prefix + name) is not None:   # NOTE: never Gluon 1's get
                setattr(self, name, shared[prefix + name])
                remaining.discard(prefix + name)
        for name, child in self._children.items():
            child._share_parameters(shared, remaining, prefix + name)
        self._clear_cached_op()

    def _clear_cached_op(self):
        """Forget traced graphs (HybridBlock overrides)."""

    def register_forward_pre_hook(self, hook):
        """``hook(block, inputs)`` before each forward; returns a :class:`HookHandle`."""
        return HookHandle(self._forward_pre_hooks, hook)

    def register_forward_hook(self, hook):
        """``hook(block, inputs, outputs)`` after each forward; returns a :class:`HookHandle`."""
        return HookHandle(self._forward_hooks, hook)

    def __call__(self, *args):
        if not args and needs_inputs(self, Block.forward):
            return self     # NOTE: MXNet 2.0's weakref idiom, see nesting.needs_inputs
        for hook in list(self._forward_pre_hooks.values()):
            hook(self, args)
        with dc.block_scope(self):
            out = self.forward(*args)
        for hook in list(self._forward_hooks.values()):
            hook(self, args, out)
        check_np_outputs(out)
        return out

    def forward(self, *args):
        raise MXNetNotImplementedError(f"{type(self).__name__} must implement forward")


# -- HybridBlock -----------------------------------------------------------------------------------
def _own_infer_shape_takes(cls, count):
    """Whether ``cls`` defines its own ``infer_shape`` callable with the ``count`` call inputs
    (RNN cells' ``infer_shape(i, x, is_bidirect)`` is another method under the same name)."""
    if cls.infer_shape is HybridBlock.infer_shape:
        return False
    try:
        inspect.signature(cls.infer_shape).bind(None, *range(count))
    except TypeError:
        return False
    return True


def _make_cached_op(symbol, flags):
    """The CachedOp running a traced graph (``mxlab.executor``)."""
    try:
        from ..executor import CachedOp
    except ImportError as err:
        raise MXNetNotImplementedError("A hybridized HybridBlock runs through "
                                       "mxlab.executor.CachedOp, which is not available") from err
    return CachedOp(symbol, flags)


def _warn_unused(data_index, params, input_names):
    """MXNet's warnings for inputs and parameters the traced graph never reads."""
    used = set(input_names)
    unused_data = [f"{i}-th" for name, i in data_index.items() if name not in used]
    if unused_data:
        warnings.warn(f"The {', '.join(unused_data)} input to HybridBlock is not used by any "
                      f"computation. Is this intended?", stacklevel=4)
    unused_params = [p.name for name, p in params.items() if name not in used]
    if unused_params:
        warnings.warn(f"Parameter {', '.join(unused_params)} is not used by any computation. "
                      f"Is this intended?", stacklevel=4)


class HybridBlock(Block):
    """A block that can be traced into a graph and run by a CachedOp (``hybridize()``).

    Example
    -------
    >>> import mxlab as mx
    >>> class Scale(mx.gluon.HybridBlock):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.w = mx.gluon.Parameter('w', shape=(3,), init=mx.init.One())
    ...     def forward(self, x):
    ...         return x * self.w.data()
    >>> net = Scale()
    >>> net.initialize()
    >>> net.hybridize()
    >>> net(mx.np.array([1.0, 2.0, 3.0])).asnumpy()
    array([1., 2., 3.], dtype=float32)
    """

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix, params)
        self._active = False
        self._called_infer_shape = False
        self._flags = {}
        self._backend, self._backend_opts = None, {}
        self._cached_graph = ()
        self._cached_op = None
        self._cached_op_args = []
        self._in_format = self._out_format = self._flat_in = None

    @classmethod
    def _is_gluon1(cls):
        return cls.hybrid_forward is not HybridBlock.hybrid_forward

    def hybridize(self, active=True, static_alloc=False, static_shape=False, inline_limit=2,
                  forward_bulk_size=None, backward_bulk_size=None, backend=None,
                  backend_opts=None, **kwargs):
        """Trace on the next call and run through a CachedOp with these flags (children too)."""
        self._active = active
        flags = {"static_alloc": static_alloc, "static_shape": static_shape,
                 "inline_limit": inline_limit, "forward_bulk_size": forward_bulk_size,
                 "backward_bulk_size": backward_bulk_size, **kwargs}
        self._flags = {k: v for k, v in flags.items() if v is not None}
        self._backend, self._backend_opts = backend, dict(backend_opts or {})
        self._clear_cached_op()
        if active and (self._forward_hooks or self._forward_pre_hooks):
            warnings.warn(
                f'"{type(self).__name__}" is being hybridized while still having forward '
                f"hook/pre-hook. If it is a child of HybridBlock, the hooks will not take effect.",
                stacklevel=2,
            )
        Block.hybridize(self, active, static_alloc=static_alloc, static_shape=static_shape,
                        inline_limit=inline_limit, forward_bulk_size=forward_bulk_size,
                        backward_bulk_size=backward_bulk_size, backend=backend,
                        backend_opts=backend_opts, **kwargs)

    def _clear_cached_op(self):
        self._cached_graph = ()
        self._cached_op = None
        self._cached_op_args = []

    def cast(self, dtype):
        self._clear_cached_op()
        super().cast(dtype)

    # -- calling -----------------------------------------------------------------------------------
    def __call__(self, *args):
        if not args and needs_inputs(self, Block.forward):
            return self
        if args and isinstance(args[0], Symbol):
            return self._call_symbolic(*args)
        check_array_inputs(args)
        self._ensure_params(*args)
        if not self._active or dc.is_deferred_compute():
            return super().__call__(*args)
        return self._call_cached_op(*args)

    def _ensure_params(self, *args):
        """On the first call: ``infer_shape`` for unknown shapes, then finish deferred init. A
        block with its own ``infer_shape`` (Gluon 2) runs it on its first call even when every
        shape is known, as MXNet 2.0 does: an input that does not fit the parameters is an
        assertion naming the parameter, not a kernel's error."""
        if not self._called_infer_shape:
            self._called_infer_shape = True
            if _own_infer_shape_takes(type(self), len(args)):
                self.infer_shape(*args)
        pending = [p for p in self._reg_params.values() if p._data is None]
        if not pending:
            return
        if any(not shape_is_known(p.shape) for p in pending):
            self.infer_shape(*args)
        for param in pending:
            param._finish_deferred_init()

    def forward(self, x, *args):
        """Gluon 1 blocks: ``hybrid_forward(F, x, *args, **params)``; Gluon 2 blocks override."""
        if not self._is_gluon1():
            raise MXNetNotImplementedError(f"{type(self).__name__} must implement forward")
        device = x.device if isinstance(x, NDArray) else None
        params = {name: p.data(device) for name, p in self._reg_params.items()}
        return self.hybrid_forward(namespace(x), x, *args, **params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        """Gluon 1 style forward (``F`` is ``mx.nd`` or ``mx.sym``)."""
        raise MXNetNotImplementedError(f"{type(self).__name__} must implement forward")

    def _call_symbolic(self, *args):
        """MXNet 1.x's call on Symbols: ``hybrid_forward(mx.sym, ...)`` with the parameters'
        variables, ops named under the block's name scope (a ``prefix=''`` block's ops count on
        in the enclosing one, as ResNet's ``stage3_activation1``); a block with its own
        ``forward`` (the containers, ``HybridSequential``) runs it on the symbols."""
        check_symbol_inputs(args)
        with self._scope:
            if not self._is_gluon1():
                return Block.__call__(self, *args)
            params = {name: p.var() for name, p in self._reg_params.items()}
            return self.hybrid_forward(namespace(args[0]), *args, **params)

    def infer_shape(self, *args):
        """Set unknown parameter shapes from the inputs.

        Gluon 1 blocks infer them from their symbolic graph; Gluon 2 blocks with unknown shapes
        must override this.
        """
        unknown = [p for p in self._reg_params.values() if not shape_is_known(p.shape)]
        if not unknown:
            return
        if self._is_gluon1():
            self._infer_shape_symbolically(*args)
            return
        raise MXNetRuntimeError(UNKNOWN_SHAPE_MSG.format(
            name=type(self).__name__, params=", ".join(f"{p.name} ({p.shape})" for p in unknown)
        ))

    def _infer_shape_symbolically(self, *args):
        from .. import symbol

        flat, fmt = _flatten(args, "input")
        real = [x for x in flat if x is not None]
        names = iter(data_names(len(real)))
        variables = [None if x is None else symbol.var(next(names)) for x in flat]
        out = self._call_symbolic(*_regroup(variables, fmt))
        group = symbol.Group(_flatten(out, "output")[0])
        shapes = {v.name: tuple(x.shape) for v, x in zip(variables, flat) if x is not None}
        arg_shapes, _, aux_shapes = group.infer_shape_partial(**shapes)
        found = dict(zip(group.list_arguments(), arg_shapes))
        found.update(zip(group.list_auxiliary_states(), aux_shapes))
        for param in self.collect_params().values():
            if param._var is not None and param._var_name in found:
                known = param.shape
                param.shape = found[param._var_name]
                if param.shape != known:
                    param._var = None  # NOTE: re-made (same name) with the full shape hint

    # -- hybridized path ---------------------------------------------------------------------------
    def _get_graph(self, *args):
        """Trace ``forward`` with deferred compute once; returns ``(input vars, output symbol)``."""
        if self._cached_graph:
            return self._cached_graph
        from .. import symbol

        flat, self._in_format = _flatten(args, "input")
        # NOTE: how many plain array inputs a call may pass without flattening (None: nested)
        self._flat_in = len(args) if self._in_format == [0] * len(args) else None
        inputs = [None if x is None else x.detach() if getattr(x, "stype", "default") == "default"
                  else x.tostype("default") for x in flat]   # NOTE: sparse inputs run densely
        real = [x for x in inputs if x is not None]
        if not real:
            raise MXNetValueError(
                f"All args are None and we do not support such a case. Received args={args}"
            )
        variables = [symbol.var(name) for name in data_names(len(real))]
        legacy = not isinstance(real[0], ndarray)
        if not legacy:
            variables = [v.as_np_ndarray() for v in variables]
        dc.set_variable(real, variables)
        # NOTE: MXNet 2.0 traces in predict mode; 1.x composed in the caller's mode, and `mx.nd`
        #   code branches on it (GluonCV's SSD returns its training outputs under train_mode)
        train = legacy and autograd.is_training()
        # NOTE: 1.x code (mx.nd) gets MXNet 1.x's node names: each block's name scope is entered
        names = trace_name_scopes(self) if legacy else None
        with autograd.pause(train), dc.context(), dc.trace_blocks(self._scopes(), names), \
                (self._scope if legacy else contextlib.nullcontext()):
            out = Block.__call__(self, *_regroup(inputs, self._in_format))
        flat_out, self._out_format = _flatten(out, "output")
        outputs = dc.get_symbol(flat_out, sym_cls=type(variables[0]))
        self._cached_graph = variables, outputs
        return self._cached_graph

    def _scopes(self):
        """``id(block) -> Node.scope`` for the blocks below this one: ``(path, class name)``
        pairs, paths as in ``collect_params`` keys."""
        scopes, stack = {}, [((), "", self)]
        while stack:
            scope, prefix, block = stack.pop()
            for name, child in block._children.items():
                path = prefix + name
                inner = scope + ((path, type(child).__name__),)
                scopes.setdefault(id(child), inner)
                stack.append((inner, path + ".", child))
        return scopes

    @property
    def cached_op(self):
        """The :class:`~mxlab.executor.CachedOp` running this block (built at the first call
        after :meth:`hybridize`; None before, or after :meth:`hybridize` ``(False)``)."""
        return self._cached_op

    @property
    def traced_symbol(self):
        """The Symbol tracing ``forward`` produced (before any partitioning), or None."""
        return self._cached_graph[1] if self._cached_graph else None

    def _build_cache(self, *args):
        data, out = self._get_graph(*args)
        if self._backend:
            # NOTE: partitioning may reorder the graph's inputs; the CachedOp takes the
            #   partitioned graph's order, so the argument map must be read from it
            out = self._partition(out)
        data_index = {v.name: i for i, v in enumerate(data)}
        params = {p.var().name: p for p in self.collect_params().values()}
        input_names = out.list_inputs()
        for name in input_names:
            if name not in data_index and name not in params:
                raise MXNetValueError(f"Unknown input to HybridBlock: {name}")
        _warn_unused(data_index, params, input_names)
        self._cached_op_args = [(True, data_index[n]) if n in data_index else (False, params[n])
                                for n in input_names]
        flags = [("data_indices", [i for i, (is_data, _) in enumerate(self._cached_op_args)
                                   if is_data]),
                 ("param_indices", [i for i, (is_data, _) in enumerate(self._cached_op_args)
                                    if not is_data])]
        flags += list(self._flags.items())
        self._cached_op = self._hooked(_make_cached_op(out, flags))

    def _partition(self, out):
        if not hasattr(out, "optimize_for"):
            raise MXNetNotImplementedError(
                "hybridize(backend=...) needs Symbol.optimize_for from mxlab.subgraph, which is "
                "not available"
            )
        return out.optimize_for(self._backend, **self._backend_opts)

    def _call_cached_op(self, *args):
        if self._cached_op is None:
            self._build_cache(*args)
        if self._flat_in == len(args) and all_arrays(args):
            real = args   # NOTE: the common call, one array per input: nothing to flatten
        else:
            real = self._flat_real(args)
        device = real[0].device
        inputs = [real[ref] if is_data else ref._array_on(device)
                  for is_data, ref in self._cached_op_args]
        out = self._run_cached(inputs)
        if isinstance(out, NDArray):
            if self._out_format == 0:
                return out
            out = [out]
        return _regroup(out, self._out_format)

    def _flat_real(self, args):
        """The arrays of nested ``args``, checked against the traced input structure."""
        flat, fmt = _flatten(args, "input")
        if fmt != self._in_format and not same_but_trailing_nones(fmt, self._in_format):
            raise MXNetValueError(
                f"The argument structure of HybridBlock does not match the cached version. "
                f"Stored format = {self._in_format}, input format = {fmt}")
        return [x for x in flat if x is not None]

    # -- export ------------------------------------------------------------------------------------
    def export(self, path, epoch=0, remove_amp_cast=True):
        """Write ``path-symbol.json`` and ``path-%04d.params`` (``arg:``/``aux:`` names) as MXNet.

        Returns the two file names.
        """
        if not self._cached_graph:
            raise MXNetRuntimeError(
                "Please first call block.hybridize() and then run forward with this block at "
                "least once before calling export."
            )
        return export_traced(self, self._cached_graph[1], path, epoch, remove_amp_cast)

    def optimize_for(self, x, *args, backend=None, backend_opts=None, clear=True,
                     static_alloc=False, static_shape=False, inline_limit=2,
                     forward_bulk_size=None, backward_bulk_size=None, **kwargs):
        """Partition the traced graph for ``backend`` (``mxlab.subgraph``) and hybridize with it."""
        try:
            importlib.import_module("mxlab.subgraph")
        except ImportError as err:
            raise MXNetNotImplementedError(
                "HybridBlock.optimize_for needs mxlab.subgraph (subgraph backends), which is not "
                "available"
            ) from err
        opts = dict(backend_opts or {}, **kwargs)
        self.hybridize(True, static_alloc=static_alloc, static_shape=static_shape,
                       inline_limit=inline_limit, forward_bulk_size=forward_bulk_size,
                       backward_bulk_size=backward_bulk_size, backend=backend,
                       backend_opts=opts)
        self._ensure_params(x, *args)
        self._build_cache(x, *args)


# NOTE: MXNet defines SymbolBlock in gluon/block.py; it lives next door here.
from .symbol_block import SymbolBlock  # noqa: E402,F401
