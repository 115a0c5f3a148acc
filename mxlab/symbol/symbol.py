"""``mx.sym.Symbol``: a symbolic graph, as a list of output :class:`~mxlab.graph.node.Entry` of
shared nodes.

A symbol is only its output entries; the nodes (:class:`~mxlab.graph.node.Node`) and their inputs
form the graph. Composing ops (``mx.sym.FullyConnected(data=x, num_hidden=4)``) adds nodes;
``Group`` concatenates outputs; calling a symbol (``net(data=other)``) copies the graph and replaces
variables. Everything that walks the graph (``list_arguments``, ``infer_shape``, ``tojson``,
``eval``) does so in DFS post-order, like MXNet, so names and orders match MXNet's.

Example
-------
>>> import mxlab as mx
>>> x = mx.sym.var('x')
>>> y = mx.sym.exp(x * 2 + 1)
>>> y.list_arguments()
['x']
>>> y.infer_shape(x=(2, 3))[1]
[(2, 3)]
"""


import numpy

from ..atomic_file import write_text
from ..base import (
    MXNetIndexError,
    MXNetTypeError,
    MXNetValueError,
)
from ..graph import infer as _infer
from ..graph.graph import Graph as _Graph
from ..graph.node import Entry, Node, topo_sort
from .. import name as _name
from . import json as _json
from . import legacy
from .compose import apply_op, copy_graph, make_node, outputs_of, single_entry
from .inference import SymbolInference
from .operators import SymbolOperators

__all__ = ["Symbol", "var", "Variable", "Group", "load", "load_json", "fromjson", "HIDDEN_KEYS"]

#: Symbol classes per flavour ("np": ``mx.sym.np._Symbol``, registered by that module, which
#: subclasses :class:`Symbol`).
FLAVOURS = {}

# Attributes MXNet stores as ``__key__`` but also answers to as ``key`` (c_api_symbolic.cc
# kHiddenKeys).
HIDDEN_KEYS = legacy.HIDDEN_KEYS
_STORAGE_TYPES = {"default": 0, "row_sparse": 1, "csr": 2}


def _hidden(key):
    return f"__{key}__" if key in HIDDEN_KEYS else key


def _with_hidden_aliases(attrs):
    """MXNet lists ``__lr_mult__`` also as ``lr_mult`` (and likewise for every hidden key)."""
    out = dict(attrs)
    for key in HIDDEN_KEYS:
        if f"__{key}__" in attrs:
            out[key] = attrs[f"__{key}__"]
    return out


class Symbol(SymbolOperators, SymbolInference):
    """A symbolic graph with one or more outputs (``mx.sym.Symbol``).

    Parameters
    ----------
    outputs : list of Entry or Symbol
        The output entries (a Symbol given here is shallow-copied).
    """

    __slots__ = ("_outputs", "_graph")
    __array_priority__ = 1000.0
    _namespace_name = "mxlab.symbol"

    def __init__(self, outputs):
        if isinstance(outputs, Symbol):
            outputs = outputs._outputs
        self._outputs = [e if isinstance(e, Entry) else Entry(e) for e in outputs]
        self._graph = None

    @classmethod
    def from_graph(cls, graph):
        """A symbol of ``graph``'s outputs that keeps ``graph`` (its attributes and pass log) as
        :attr:`graph`: how a pass result (``partition_graph``) becomes a symbol."""
        sym = cls(graph.outputs)
        sym._graph = graph
        return sym

    @property
    def graph(self):
        """The :class:`~mxlab.graph.Graph` of this symbol's outputs: node ids, entries and the
        attributes and pass log of the passes that made it (``partition_graph``). CachedOp and
        executors start their pass pipelines from it; passes return new graphs, so read it only.

        Example
        -------
        >>> import mxlab as mx
        >>> print(mx.sym.tanh(mx.sym.var('x'), name='t').graph)
        #0 x = var
        #1 t = tanh(x[0])
        outputs: t[0]
        """
        graph = self._graph
        if graph is None or len(graph.outputs) != len(self._outputs) or any(
                a.node is not b.node or a.index != b.index
                for a, b in zip(graph.outputs, self._outputs)):
            graph = self._graph = _Graph(list(self._outputs))
        return graph

    # -- conversions -------------------------------------------------------------------------------
    def as_np_ndarray(self):
        """The same graph as an ``mx.sym.np._Symbol`` (NumPy-flavoured operators)."""
        return FLAVOURS["np"](self._outputs)

    def as_nd_ndarray(self):
        """The same graph as a legacy ``mx.sym.Symbol``."""
        return Symbol(self._outputs)

    # -- printing ----------------------------------------------------------------------------------
    def __repr__(self):
        name = self.name
        if name is None:
            names = ", ".join(e.node.name for e in self._outputs)
            return f"<{type(self).__name__} group [{names}]>"
        return f"<{type(self).__name__} {name}>"

    def debug_str(self):
        """MXNet's text dump of the graph: outputs, then every variable and op with inputs and
        attributes."""
        lines = ["Symbol Outputs:"]
        lines += [f"\toutput[{i}]={e.node.name}({e.index})" for i, e in enumerate(self._outputs)]
        for node in topo_sort(self._outputs):
            lines += _debug_node(node)
        return "\n".join(lines) + "\n"

    # -- outputs -----------------------------------------------------------------------------------
    def __len__(self):
        return len(self._outputs)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __getitem__(self, index):
        """Output selection: ``sym[i]``, ``sym['name_output']`` or a slice (a Group)."""
        count = len(self._outputs)
        if isinstance(index, slice):
            return Group([self[i] for i in range(*index.indices(count))])
        if isinstance(index, str):
            matches = [i for i, name in enumerate(self.list_outputs()) if name == index]
            if len(matches) > 1:
                raise MXNetValueError(f'There are multiple outputs with name "{index}"')
            if not matches:
                raise MXNetValueError(f'Cannot find output that matches name "{index}"')
            index = matches[0]
        if not isinstance(index, (int, numpy.integer)):
            raise MXNetTypeError("Symbol only support integer index to fetch i-th output")
        if not -count <= index < count:
            raise MXNetIndexError(
                f"output index {index} is out of range for a symbol with {count} outputs"
            )
        return type(self)([self._outputs[index]])

    def _single_node(self):
        node = self._outputs[0].node
        return node if all(e.node is node for e in self._outputs) else None

    @property
    def name(self):
        """The name of the node producing every output; ``None`` for a group of several nodes."""
        node = self._single_node()
        return None if node is None else node.name

    # -- attributes --------------------------------------------------------------------------------
    def attr(self, key):
        """An attribute (op parameter or symbol attribute) as a string; ``None`` when absent or
        grouped."""
        node = self._single_node()
        if node is None:
            return None
        if key == "name":
            return node.name
        return _json.node_attr_strings(node).get(_hidden(key))

    def list_attr(self, recursive=False):
        """The attributes of the (first) output node, as strings."""
        if recursive:
            raise DeprecationWarning(
                "Symbol.list_attr with recursive=True has been deprecated. "
                "Please use attr_dict instead."
            )
        return _with_hidden_aliases(_json.node_attr_strings(self._outputs[0].node))

    def attr_dict(self):
        """``{node name: {key: value}}`` for every node with attributes, in DFS order."""
        result = {}
        for node in topo_sort(self._outputs):
            attrs = _json.node_attr_strings(node)
            if attrs:
                result[node.name] = _with_hidden_aliases(attrs)
        return result

    def _set_attr(self, **kwargs):
        """Set attributes (string values) on the output node; op parameters are re-parsed."""
        node = self._single_node()
        if node is None:
            raise MXNetValueError("Symbol.SetAttrs only works for non-grouped symbol")
        for key, value in kwargs.items():
            if not isinstance(value, str):
                raise MXNetValueError("Set Attr only accepts string values")
            _set_node_attr(node, key, value)

    # -- graph structure ---------------------------------------------------------------------------
    def _aux_nodes(self):
        """Variables written by an op (MXNet's mutable inputs, e.g. BatchNorm's moving
        statistics)."""
        aux = set()
        for node in topo_sort(self._outputs):
            for i in (node.op.mutate_inputs if node.op is not None else ()):
                if i < len(node.inputs) and node.inputs[i].node.op is None:
                    aux.add(id(node.inputs[i].node))
        return aux

    def _variables(self, want_aux):
        aux = self._aux_nodes()
        return [n for n in topo_sort(self._outputs) if n.op is None and (id(n) in aux) == want_aux]

    def list_arguments(self):
        """Names of the variables that are not auxiliary states, in DFS order."""
        return [n.name for n in self._variables(False)]

    def list_auxiliary_states(self):
        """Names of the auxiliary-state variables (inputs an op mutates), in DFS order."""
        return [n.name for n in self._variables(True)]

    def list_inputs(self):
        """Names of every variable (arguments and auxiliary states), in DFS order."""
        return [n.name for n in topo_sort(self._outputs) if n.op is None]

    def list_outputs(self):
        """``<node>_<output>`` for each output (the variable's name for a variable)."""
        return [e.node.output_names()[e.index] for e in self._outputs]

    def get_internals(self):
        """A group of every visible output of every node, in DFS order."""
        entries = []
        for node in topo_sort(self._outputs):
            count = 1 if node.op is None else node.op.get_num_visible_outputs(node.attrs)
            entries += [Entry(node, i) for i in range(count)]
        return type(self)(entries)

    def get_children(self):
        """A group of the inputs of the output nodes; ``None`` for a variable."""
        entries, seen = [], set()
        for e in self._outputs:
            if id(e.node) not in seen:
                seen.add(id(e.node))
                entries += [Entry(i.node, i.index) for i in e.node.inputs]
        return type(self)(entries) if entries else None

    # -- copying and composition -------------------------------------------------------------------
    def __copy__(self):
        return self.__deepcopy__(None)

    def __deepcopy__(self, memo):
        return type(self)(copy_graph(self._outputs))

    def __getstate__(self):
        return {"handle": self.tojson()}

    def __setstate__(self, state):
        self._outputs = _json.from_json(state["handle"], type(self))
        self._graph = None

    def __call__(self, *args, **kwargs):
        """A copy composed with other symbols: ``net(data=other)`` replaces the variable
        ``data``."""
        result = self.__copy__()
        result._compose(*args, **kwargs)
        return result

    def _compose(self, *args, **kwargs):
        """Replace variables of this symbol (in place) by the keyword symbols; ``name=`` renames the
        head."""
        name = kwargs.pop("name", None)
        if args and kwargs:
            raise MXNetTypeError(
                "compose only accept input Symbols either as positional or keyword "
                "arguments, not both"
            )
        if any(not isinstance(v, Symbol) for v in list(args) + list(kwargs.values())):
            raise MXNetTypeError("Compose expect `Symbol` as arguments")
        if args:
            raise MXNetValueError("Symbol.Compose: general composition only support kwargs for now")
        variables = {n.name: n for n in topo_sort(self._outputs) if n.op is None}
        for key in kwargs:
            if key not in variables:
                candidates = "".join(f"\t[{i}]{n}\n" for i, n in enumerate(self.list_inputs()))
                raise MXNetValueError(
                    f"Symbol.Compose: Keyword argument name {key} not found.\n"
                    f"Candidate arguments:\n{candidates}"
                )
        replace = {id(variables[k]): single_entry(v, "compose", k) for k, v in kwargs.items()}
        for node in topo_sort(self._outputs):
            node.inputs = [replace.get(id(e.node), e) for e in node.inputs]
        self._outputs = [replace.get(id(e.node), e) for e in self._outputs]
        if name:
            node = self._single_node()
            if node is not None:
                node.name = name

    def _gen_atomic_symbol(self):
        """MXNet's atomic symbol of the head op: the same op, name and attributes on new input
        variables ``<name>_<input>`` (what a subgraph property rebuilds a node from)."""
        node = self._outputs[0].node
        if node.op is None:
            raise MXNetValueError(f"_gen_atomic_symbol: '{node.name}' is a variable, not an op")
        return outputs_of(make_node(node.op, dict(node.attrs), [], name=node.name,
                                    extra=dict(node.extra)), type(self))

    # -- serialisation -----------------------------------------------------------------------------
    def tojson(self, remove_amp_cast=True):
        """The graph in MXNet's JSON format (see :mod:`mxlab.symbol.json`)."""
        return _json.to_json(self._outputs)

    def save(self, fname, remove_amp_cast=True):
        """Write :meth:`tojson` to ``fname``."""
        if not isinstance(fname, str):
            raise MXNetTypeError("fname need to be string")
        write_text(fname, self.tojson())   # NOTE: atomic: a failed save keeps the last good file

    # -- execution ---------------------------------------------------------------------------------
    def eval(self, ctx=None, **kwargs):
        """Evaluate with NDArray arguments by name; returns the list of outputs.

        A plain interpreter over the graph (one imperative call per node) until the GraphExecutor
        exists.

        Example
        -------
        >>> import mxlab as mx
        >>> c = mx.sym.var('a') + mx.sym.var('b')
        >>> c.eval(a=mx.nd.ones((2,)), b=mx.nd.ones((2,)))[0].asnumpy()
        array([2., 2.], dtype=float32)
        """
        from .evaluate import evaluate_graph

        return evaluate_graph(self._outputs, kwargs, ctx, self._array_class())

    @staticmethod
    def _array_class():
        from ..ndarray.ndarray import NDArray

        return NDArray

    def optimize_for(self, backend, args=None, aux=None, ctx=None, **kwargs):
        """This graph partitioned by subgraph ``backend`` (see :mod:`mxlab.subgraph`); ``args`` /
        ``aux`` arrays (by name or in order) give the backend inferred shapes and dtypes; ``ctx``
        is accepted for MXNet compatibility (partitioning does not depend on it)."""
        from ..subgraph import partition_for_backend

        return partition_for_backend(self, backend, args, aux, **kwargs)

    def bind(self, ctx, args, args_grad=None, grad_req="write", aux_states=None, group2ctx=None,
             shared_exec=None):
        """Bind to arrays: a :class:`~mxlab.executor.GraphExecutor` (see
        :func:`mxlab.executor.graph_executor.bind`)."""
        from ..executor.graph_executor import bind

        return bind(self, ctx, args, args_grad, grad_req, aux_states, group2ctx, shared_exec)

    def simple_bind(self, ctx, grad_req="write", type_dict=None, stype_dict=None, group2ctx=None,
                    shared_arg_names=None, shared_exec=None, shared_buffer=None, **kwargs):
        """Allocate arrays from shapes and bind (see
        :func:`mxlab.executor.graph_executor.simple_bind`)."""
        from ..executor.graph_executor import simple_bind

        return simple_bind(self, ctx, grad_req, type_dict, stype_dict, group2ctx,
                           shared_arg_names, shared_exec, shared_buffer, **kwargs)

    def _bind(self, ctx, args, args_grad=None, grad_req="write", aux_states=None,
              static_alloc=False):
        """MXNet 2.0's name for :meth:`bind` (the executor always plans memory once, so
        ``static_alloc`` changes nothing)."""
        return self.bind(ctx, args, args_grad, grad_req, aux_states)

    def _simple_bind(self, ctx, grad_req="write", type_dict=None, stype_dict=None, **kwargs):
        """MXNet 2.0's name for :meth:`simple_bind`."""
        return self.simple_bind(ctx, grad_req, type_dict, stype_dict, **kwargs)

    def __getattr__(self, name):
        """Fluent methods: ``sym.reshape(...)`` is the namespace function ``reshape(sym, ...)``."""
        if name.startswith("_"):
            raise AttributeError(name)
        import importlib

        fn = getattr(importlib.import_module(self._namespace_name), name, None)
        if fn is None or not callable(fn) or isinstance(fn, type):
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        return lambda *args, **kwargs: fn(self, *args, **kwargs)

    def astype(self, dtype, **kwargs):
        return apply_op("Cast", [self], {"dtype": dtype}, type(self))


def _debug_node(node):
    if node.op is None:
        return [f"Variable:{node.name}"]
    lines = ["--------------------", f"Op:{node.op.name}, Name={node.name}", "Inputs:"]
    for i, e in enumerate(node.inputs):
        version = f" version={e.version}" if e.node.op is None else ""
        lines.append(f"\targ[{i}]={e.node.name}({e.index}){version}")
    attrs = _json.node_attr_strings(node)
    if attrs:
        lines += ["Attrs:"] + [f"\t{k}={v}" for k, v in attrs.items()]
    if node.control_deps:
        lines += ["Control deps:"] + [
            f"\tcdep[{i}]={n.name}" for i, n in enumerate(node.control_deps)
        ]
    return lines


def _set_node_attr(node, key, value):
    """Like nnvm's SetAttrs: op nodes take their parameters and ``__dunder__`` attributes only."""
    key = _hidden(key)
    op = node.op
    if key == "name":
        node.name = value
    elif op is None or key.startswith("__") and key.endswith("__") or key in op.ignored_attrs:
        node.extra[key] = value
    else:
        node.attrs.update(op.parse_attrs({**_json.param_strings(node), key: value}))
        _json.mark_explicit(node, tuple(_json.param_strings(node)) + (key,))


def dispatch(op, inputs, attrs, name=None):
    """``registry.apply_op`` for symbols: every output, as one single-output symbol each (like
    arrays). The node is named by the current ``mx.name`` manager (a Gluon 1 block's prefix)."""
    cls = type(next(x for x in inputs if isinstance(x, Symbol)))
    node = make_node(op, attrs, list(inputs),
                     name=_name.current().get(name, op.name.lower().lstrip("_")))
    return [cls([Entry(node, i)]) for i in range(node.num_outputs)]


# -- module-level API ------------------------------------------------------------------------------
def var(
    name,
    attr=None,
    shape=None,
    lr_mult=None,
    wd_mult=None,
    dtype=None,
    init=None,
    stype=None,
    **kwargs,
):
    """A symbolic variable (a graph input) with optional attributes stored as MXNet strings.

    Example
    -------
    >>> import mxlab as mx
    >>> v = mx.sym.var('data', shape=(2, 3), dtype='float16', lr_mult=2.0)
    >>> v.attr('__shape__'), v.attr('__dtype__'), v.attr('lr_mult')
    ('(2, 3)', '2', '2.0')
    """
    if not isinstance(name, str):
        raise MXNetTypeError("Expect a string for variable `name`")
    from .. import attribute

    attr = attribute.current().get(attr)   # NOTE: mx.AttrScope attributes, then the given ones
    extra = {_hidden(k): str(v) for k, v in attr.items()}
    given = {"__shape__": shape, "__lr_mult__": lr_mult, "__wd_mult__": wd_mult}
    extra.update({k: str(v) for k, v in given.items() if v is not None})
    if dtype is not None:
        extra["__dtype__"] = str(_infer.DTYPE_TO_CODE[_dtype_name(dtype)])
    if init is not None:
        extra["__init__"] = init if isinstance(init, str) else init.dumps()
    if stype is not None:
        extra["__storage_type__"] = str(_STORAGE_TYPES[stype])
    for key, value in kwargs.items():
        if not (key.startswith("__") and key.endswith("__")):
            raise MXNetValueError(
                f"Attribute name={key} is not supported. Additional attributes must start and "
                f"end with double underscores, e.g, __yourattr__"
            )
        extra[key] = str(value)
    return Symbol([Entry(Node(None, name, extra=extra))])


def _dtype_name(dtype):
    return "bfloat16" if dtype == "bfloat16" else numpy.dtype(dtype).name


Variable = var


def Group(symbols, create_fn=None):
    """One symbol whose outputs are the outputs of ``symbols`` in order."""
    if not symbols or any(not isinstance(s, Symbol) for s in symbols):
        raise MXNetTypeError("Expected a list of symbols as input")
    cls = create_fn or type(symbols[0])
    return cls([e for s in symbols for e in s._outputs])


def load_json(json_str, cls=Symbol, source="<JSON string>"):
    """A symbol from MXNet JSON text (``source`` names it in errors)."""
    if not isinstance(json_str, str):
        raise MXNetTypeError("fname required to be string")
    return cls(_json.from_json(json_str, cls, source))


fromjson = load_json


def load(fname, cls=Symbol):
    """A symbol from an MXNet JSON file (``Symbol.save``, ``HybridBlock.export``)."""
    if not isinstance(fname, str):
        raise MXNetTypeError("fname need to be string")
    with open(fname, "rb") as f:
        raw = f.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MXNetValueError(f"Cannot load symbol from {fname}: not UTF-8 text at byte "
                              f"{exc.start} (a symbol file is JSON; is this a .params or "
                              f"binary file?)") from None
    return load_json(text, cls, fname)
