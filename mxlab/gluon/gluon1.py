"""Gluon 1 (MXNet 1.x) block naming and parameter sharing, next to the Gluon 2 structure.

MXNet 1.x names every block with a *prefix* (``dense0_``; inside ``with net.name_scope():``
children get the parent's prefix, ``mlp0_dense0_``) and keeps the parameters it creates with
``self.params.get('weight', shape=...)`` in a prefixed :class:`ParameterDict` (``dense0_weight``).
``Block(params=other.params)`` shares: the new block's dict takes the other's prefix and finds the
other's parameters there.

mxlab blocks keep Gluon 2's structure (``collect_params`` keys are attribute paths such as
``0.weight``) and add the Gluon 1 side on top:

* every block has ``prefix`` and ``name`` computed as MXNet 1.x computes them;
* ``block.params`` is the prefixed dict; ``params.get`` creates (or finds) prefixed parameters;
* a block given ``params=`` takes each parameter it registers from that dict when the dict has it
  under the same local name (so built-in layers share without knowing about it);
* a dict built by ``collect_params`` also finds a parameter by its 1.x full name.

Rule where the generations conflict: keys of ``collect_params()`` are Gluon 2 structural names;
Gluon 1 full names are accepted for lookup (``params['dense0_weight']``) and ``Parameter.name`` of
a parameter created by ``params.get`` is its full 1.x name.
"""
import abc
import collections
import contextlib
import contextvars
import functools
import inspect
import itertools
import re
import threading
import weakref

__all__ = ["BlockMeta", "BlockScope", "collect_gluon1", "create_prefix", "gluon1_param",
           "layer_child", "trace_name_scopes", "uses_gluon1"]

_naming_counter = contextvars.ContextVar("naming_counter", default=None)
_scope_prefix = contextvars.ContextVar("scope_prefix", default="")

_GLUON1_ARGS = ("prefix", "params")


@functools.cache
def _init_accepts(init):
    """Which of ``prefix``/``params`` a class's ``__init__`` takes (by name or ``**kwargs``)."""
    try:
        sig = inspect.signature(init)
    except (TypeError, ValueError):
        return frozenset()
    if any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        return frozenset(_GLUON1_ARGS)
    return frozenset(a for a in _GLUON1_ARGS if a in sig.parameters)


class BlockMeta(abc.ABCMeta):
    """Lets every block class take MXNet 1.x's ``prefix=`` and ``params=`` keywords, also built-in
    layers whose ``__init__`` does not list them: those are held for ``Block.__init__``.

    NOTE: an ``ABCMeta``, so a class may derive from a block and an ``abc.ABC`` (GluonNLP's
    ``TransformerInference(HybridBlock, BaseStepDecoder)``); MXNet's blocks have no metaclass."""

    def __call__(cls, *args, **kwargs):
        held = {}
        accepted = _init_accepts(cls.__init__)
        for name in _GLUON1_ARGS:
            if name in kwargs and name not in accepted:
                held[name] = kwargs.pop(name)
        obj = cls.__new__(cls)
        obj.__dict__["_gluon1_held"] = held
        obj.__init__(*args, **kwargs)
        return obj


class BlockScope:
    """``with block.name_scope():``: children created inside are named under ``block``, and so
    are symbols (an ``mx.name.Prefix``), as in MXNet 1.x; a block given ``prefix=''`` opens no
    scope (its children are counted in the enclosing one). One scope per block, so its counters
    carry over between ``with`` statements."""

    _current = threading.local()

    def __init__(self, block):
        self._block_ref = weakref.ref(block)   # NOTE: a block keeps its scope; no cycle back
        self._counter = {}
        self._entered = []   # NOTE: (enclosing scope, name manager) per open `with`, nestable

    @property
    def _block(self):
        return self._block_ref()

    @classmethod
    def current(cls):
        return getattr(cls._current, "value", None)

    def __enter__(self):
        if self._block._empty_prefix:
            return self
        from .. import name as _name

        names = _name.Prefix(self._block.prefix)
        self._entered.append((BlockScope.current(), names))
        BlockScope._current.value = self
        names.__enter__()
        return self

    def __exit__(self, ptype, value, trace):
        if self._block._empty_prefix:
            return
        enclosing, names = self._entered.pop()
        names.__exit__(ptype, value, trace)
        BlockScope._current.value = enclosing

    def next_prefix(self, hint):
        count = self._counter.get(hint, 0)
        self._counter[hint] = count + 1
        return f"{hint}{count}_"


_block_counters = collections.defaultdict(itertools.count)


def _block_name(hint):
    """``dense0``, ``dense1``, ...: block names, counted apart from graph node names so creating
    blocks does not renumber the symbols a program builds."""
    return f"{hint}{next(_block_counters[hint])}"


def create_prefix(prefix, params, hint):
    """``(prefix, ParameterDict)`` of a new block, as MXNet 1.x's ``_BlockScope.create``."""
    from .. import name as _name
    from .parameter_dict import ParameterDict
    scope = BlockScope.current()
    if scope is None:
        if prefix is None:
            manager = _name.current()
            prefix = (_block_name(hint) if manager is _name._default
                      else manager.get(None, hint)) + "_"
        shared = None if params is None else params
        return prefix, ParameterDict(prefix if shared is None else shared.prefix, shared)
    if prefix is None:
        prefix = scope.next_prefix(hint)
    parent = scope._block.params
    if params is None:
        params = ParameterDict(parent.prefix + prefix, parent._shared)
    else:
        params = ParameterDict(params.prefix, params)
    return scope._block.prefix + prefix, params


def gluon1_param(block, name, param):
    """The parameter ``block`` registers as attribute ``name``: with ``params=`` given, the shared
    dict's parameter of that local name; it is also entered in the prefixed dict. In a block
    written as Gluon 1 code it takes its full name (``dense0_weight``)."""
    params = block.__dict__.get("_params")
    if params is None:
        return param
    full = params.prefix + name
    shared = params._shared._lookup(full) if params._shared is not None else None
    if shared is not None:
        param = shared
    if not any(p is param for p in params.values()):
        dict.__setitem__(params, full, param)
        param.__dict__.setdefault("_gluon1_name", full)
    if block.__dict__.get("_gluon1"):
        param.name = param.__dict__.get("_gluon1_name", param.name)
    return param


def uses_gluon1(block):
    """Whether ``block`` or a descendant was written as Gluon 1 code: given ``prefix=`` or
    ``params=``, entered its ``name_scope`` or called ``self.params.get`` (MXNet 2.0 has none)."""
    return block._gluon1 or block._params._created or \
        any(uses_gluon1(child) for child in block._children.values())


def trace_name_scopes(block):
    """``id(block) -> name scope`` of ``block``'s descendants: a trace of 1.x code enters each
    around the block's forward (``deferred_compute.trace_blocks``), as MXNet 1.x built the graph
    inside every block's ``name_scope``, so the traced nodes get 1.x names (``dense0_fwd``)."""
    scopes, stack = {}, list(block._children.values())
    while stack:
        child = stack.pop()
        scopes.setdefault(id(child), child._scope)
        stack.extend(child._children.values())
    return scopes


def layer_child(parent, cls, *args, prefix, **kwargs):
    """A built-in layer's own child, named under ``parent`` as MXNet 1.x names it (a Dense's
    ``relu`` activation is ``dense0_relu_``), without marking the tree as Gluon 1 code."""
    with parent._scope:
        child = cls(*args, prefix=prefix, **kwargs)
    child._gluon1 = False
    return child


def collect_gluon1(block, select=None):
    """MXNet 1.x's ``collect_params``: ``{full name: Parameter}`` of ``block`` and its children
    in a dict with the block's prefix; ``select`` is a regex matched at the start of full names."""
    from .parameter_dict import ParameterDict
    pattern = re.compile(select) if select else None
    found = ParameterDict(block.params.prefix)

    def visit(current):
        for name, param in current.params.items():
            if pattern is None or pattern.match(name):
                found.update([(name, param)])
                param.name = name   # NOTE: Gluon 1 code reads full names (Trainer, repr)
        held = {id(p) for p in current.params.values()}
        for param in current._reg_params.values():   # NOTE: a SymbolBlock's, by their names
            name = param.__dict__.get("_gluon1_name", param.name)   # NOTE: a zoo model's too
            if id(param) not in held and (pattern is None or pattern.match(name)):
                found.update([(name, param)])
        for child in current._children.values():
            visit(child)
    visit(block)
    return found


@contextlib.contextmanager
def _block_scope(block):
    """MXNet 2.0's name scope of a block's call: symbols named inside get the block's class name
    (numbered among its siblings) as a prefix, ``dense0_fullyconnected0``. Per context (thread)."""
    from .. import name as _name
    name = type(block).__name__.lower()
    counter = _naming_counter.get()
    if counter is not None:
        count = counter.get(name, 0)
        counter[name] = count + 1
        name = f"{name}{count}"
    counter_token = _naming_counter.set({})
    prefix_token = _scope_prefix.set(_scope_prefix.get() + name + "_")
    try:
        with _name.Prefix(_scope_prefix.get()):
            yield
    finally:
        _naming_counter.reset(counter_token)
        _scope_prefix.reset(prefix_token)
