"""``mx.sym.contrib.foreach`` / ``while_loop`` / ``cond``: the user's Python functions are traced
once into subgraphs, and one ``_foreach`` / ``_while_loop`` / ``_cond`` node (see
:mod:`mxlab.ops.control_flow`) runs them.

The node's inputs are the loop's data and states (or loop variables), then the *free variables*:
every other variable the traced functions read (a body reading an outer symbol reads it through
that symbol's variables, so its gradient flows there too). Forward runs the subgraph once per step
with :func:`~mxlab.symbol.evaluate.evaluate_graph`; backward recomputes the steps and runs each
step's gradient graph (built once by the graph gradient pass) in reverse.

Example
-------
>>> import mxlab as mx
>>> outs, states = mx.sym.contrib.foreach(lambda x, s: (x + s[0], [x + s[0]]),
...                                       mx.sym.var('data'), [mx.sym.var('s0')])
>>> exe = mx.sym.Group([outs, states[0]])._bind(
...     mx.cpu(), {'data': mx.nd.array([[1.0], [2.0], [3.0]]), 's0': mx.nd.zeros(1)})
>>> [o.asnumpy().ravel().tolist() for o in exe.forward()]
[[1.0, 3.0, 6.0], [6.0]]
"""
import contextlib
import json

import numpy

from .. import imperative, name as _name
from ..base import MXNetAssertionError, MXNetError, MXNetTypeError, MXNetValueError
from ..device import cpu, gpu
from ..graph.gradient import build_gradient_graph
from ..graph.graph import Graph
from ..graph.infer import infer_shapes, infer_types
from ..graph.node import Entry, Node, topo_sort
from ..ndarray.ndarray import NDArray
from ..ops.control_flow import LOADERS
from ..ops.registry import get_op
from .compose import make_node
from .evaluate import evaluate_graph
from .json import graph_from_dict, graph_to_dict
from .symbol import Symbol

__all__ = ["foreach", "while_loop", "cond"]


# -- nested lists of symbols ---------------------------------------------------------------------
def _flatten(value, what):
    """Leaves of a nested list and its format (an int: a leaf; a list: nested formats)."""
    if value is None:
        return [], []
    if isinstance(value, Symbol):
        return [value], 0
    if not isinstance(value, (list, tuple)):
        raise MXNetTypeError(f"{what} must be a symbol or a nested list of symbols, got "
                             f"{type(value).__name__}")
    leaves, fmt = [], []
    for item in value:
        sub, sub_fmt = _flatten(item, what)
        leaves += sub
        fmt.append(sub_fmt if isinstance(sub_fmt, list) else len(sub))
    return leaves, fmt


def _regroup(leaves, fmt):
    if not isinstance(fmt, list):
        return leaves[0]
    result, pos = [], 0
    for sub in fmt:
        if isinstance(sub, list):
            count = _count(sub)
            result.append(_regroup(leaves[pos:pos + count], sub))
            pos += count
        else:
            result.append(leaves[pos])
            pos += 1
    return result


def _count(fmt):
    return sum(_count(f) if isinstance(f, list) else 1 for f in fmt)


def _entry(sym, what):
    if not isinstance(sym, Symbol) or len(sym._outputs) != 1:
        raise MXNetTypeError(f"{what}: expected a symbol with one output, got {sym!r}")
    return sym._outputs[0]


def _shapes_or_none(heads):
    """Shapes from the variables' hints, to help ops without a dtype rule; none on a conflict (a
    shape conflict is not a type error)."""
    try:
        return infer_shapes(heads)
    except MXNetError:
        return {}


# -- running subgraphs ----------------------------------------------------------------------------
class _Subgraph:
    """One traced function: its output entries, its variables, and cached gradient graphs."""

    def __init__(self, entries):
        self.heads = list(entries)
        self.inputs = Symbol(self.heads).list_inputs() if self.heads else []
        self._gradients = {}

    def run(self, args):
        """The outputs (NDArrays) given ``args`` (variable name -> NDArray)."""
        return evaluate_graph(self.heads, args) if self.heads else []

    def vjp(self, args, head_grads, wrt):
        """Gradients of the outputs (weighted by ``head_grads``) with respect to ``wrt`` names
        (zeros for a name the subgraph does not read)."""
        from ..ndarray import zeros_like
        key = tuple(n for n in wrt if n in self.inputs)
        if key not in self._gradients:
            heads = [Entry(Node(None, f"_cf_head_grad{i}")) for i in range(len(self.heads))]
            graph = build_gradient_graph(Graph(self.heads), xs=list(key), head_grads=heads,
                                         mirror=())
            first = graph.attrs["num_forward_outputs"]
            self._gradients[key] = (graph.outputs[first:], [h.node.name for h in heads])
        outputs, names = self._gradients[key]
        grads = dict(zip(key, evaluate_graph(outputs, {**args, **dict(zip(names, head_grads))})))
        return [grads[n] if n in grads else zeros_like(args[n]) for n in wrt]

    def infer(self, method, known, out_prefix, facts=None):
        """``infer_shape``/``infer_type`` of the outputs given the known input facts, in internal
        form (shapes with ``None`` for unknown dims; not the user form, whose reading depends on
        the caller's np-shape scope: this also runs on engine workers). ``facts``: a dict to
        fill with what the inference learnt about each input variable, by name."""
        if not self.heads:
            return []
        known = {k: v for k, v in known.items() if v is not None and k in self.inputs}
        try:
            if method == "infer_shape":
                values = infer_shapes(self.heads, known)
            else:
                known = {k: numpy.dtype(v).name for k, v in known.items()}
                values = infer_types(self.heads, known, shapes=_shapes_or_none(self.heads))
        except MXNetError:   # not inferable yet: the executor asks again later
            return [None] * len(self.heads)
        if facts is not None:
            facts.update((node.name, out_prefix(v)) for (node, _), v in values.items()
                         if node.op is None and v is not None)
        result = [values.get((e.node, e.index)) for e in self.heads]
        return [None if r is None else out_prefix(r) for r in result]


@contextlib.contextmanager
def _mode(training):
    """Subgraph steps run unrecorded (the node itself is what autograd records)."""
    state = imperative.STATE
    saved = state.recording, state.training
    state.recording, state.training = False, training
    try:
        yield
    finally:
        state.recording, state.training = saved


def _device_of(xp, array):
    return cpu() if xp is numpy else gpu(array.device.id)


def _wrap(xp, arrays):
    return [NDArray._wrap(a, _device_of(xp, a)) for a in arrays]


def _raw(arrays):
    return [a._get_data() for a in arrays]


def _tail(shape):
    return None if shape is None else tuple(shape[1:])


class _Program:
    """What the ops of :mod:`mxlab.ops.control_flow` call; subclasses run one construct."""
    input_names_list = ()
    output_names_list = ()
    no_gradient = frozenset()

    @property
    def num_inputs(self):
        return len(self.input_names_list)

    @property
    def num_outputs(self):
        return len(self.output_names_list)

    def input_names(self):
        return self.input_names_list

    def output_names(self):
        return self.output_names_list

    def forward(self, inputs, xp, training):
        with _mode(training):
            return _raw(self.run(xp, _wrap(xp, inputs)))

    def backward(self, inputs, out_grads, xp, training):
        with _mode(training):
            grads = self.vjp(xp, _wrap(xp, inputs), _wrap(xp, out_grads))
            return [None if g is None else g._get_data() for g in grads]

    def __str__(self):
        """The JSON description symbol files store (read back by :func:`_load`)."""
        return json.dumps({"kind": self.kind, "graphs": [graph_to_dict(g.heads)
                                                         for g in self.graphs()],
                           **self.params()}, sort_keys=True)

    def __repr__(self):     # NOTE: shown in graph dumps instead of the whole description
        return f"<{type(self).__name__} {len(self.input_names_list)} inputs>"


def _load(cls):
    def load(description):
        graphs = [_Subgraph(graph_from_dict(g, Symbol)) for g in description.pop("graphs")]
        return cls(*graphs, **description)
    LOADERS[cls.kind] = load
    return cls


def _stack(xp, rows):
    from ..ndarray import stack
    return stack(*rows, axis=0)


def _accumulate(total, grads):
    return list(grads) if total is None else [a + b for a, b in zip(total, grads)]


@_load
class _Foreach(_Program):
    """``foreach``: inputs data..., states..., free...; outputs stacked outs..., states..."""
    kind = "foreach"

    def __init__(self, body, data_names, state_names, num_outputs):
        self.body = body
        self.data_names, self.state_names = list(data_names), list(state_names)
        self.free_names = [n for n in body.inputs if n not in data_names + state_names]
        self.num_step_outputs = num_outputs
        self.input_names_list = tuple(self.data_names + self.state_names + self.free_names)
        self.output_names_list = tuple([f"output{i}" for i in range(num_outputs)]
                                       + [f"state{i}" for i in range(len(state_names))])

    def graphs(self):
        return [self.body]

    def params(self):
        return {"data_names": self.data_names, "state_names": self.state_names,
                "num_outputs": self.num_step_outputs}

    def _split(self, inputs):
        nd, ns = len(self.data_names), len(self.state_names)
        return inputs[:nd], inputs[nd:nd + ns], inputs[nd + ns:]

    def _args(self, data, states, free, t):
        return {**dict(zip(self.data_names, [d[t] for d in data])),
                **dict(zip(self.state_names, states)), **dict(zip(self.free_names, free))}

    def _steps(self, inputs):
        """Per step: the arguments and the step's outputs."""
        data, states, free = self._split(inputs)
        for t in range(data[0].shape[0]):
            args = self._args(data, states, free, t)
            values = self.body.run(args)
            yield args, values
            states = values[self.num_step_outputs:]

    def run(self, xp, inputs):
        rows, values = [], None
        for _, values in self._steps(inputs):
            rows.append(values[:self.num_step_outputs])
        if values is None:
            raise MXNetValueError("foreach: the data has zero length along axis 0")
        stacked = [_stack(xp, [r[k] for r in rows]) for k in range(self.num_step_outputs)]
        return stacked + values[self.num_step_outputs:]

    def vjp(self, xp, inputs, out_grads):
        n_out = self.num_step_outputs
        steps = [args for args, _ in self._steps(inputs)]
        state_grads, free_grads, data_rows = out_grads[n_out:], None, []
        wrt = self.data_names + self.state_names + self.free_names
        nd, ns = len(self.data_names), len(self.state_names)
        for t in reversed(range(len(steps))):
            grads = self.body.vjp(steps[t], [g[t] for g in out_grads[:n_out]] + state_grads, wrt)
            data_rows.append(grads[:nd])
            state_grads = grads[nd:nd + ns]
            free_grads = _accumulate(free_grads, grads[nd + ns:])
        data_rows.reverse()
        data_grads = [_stack(xp, [r[k] for r in data_rows]).reshape(inputs[k].shape)
                      for k in range(nd)]
        return data_grads + list(state_grads) + list(free_grads or [])

    def infer_shape(self, in_shapes):
        data, states, free = self._split(in_shapes)
        known = {**{n: _tail(s) for n, s in zip(self.data_names, data)},
                 **dict(zip(self.state_names, states)), **dict(zip(self.free_names, free))}
        length = data[0][0] if data[0] else None
        facts = {}
        outs = self.body.infer("infer_shape", known, tuple, facts)
        # NOTE: as MXNet, the inputs' shapes the body inferred (an LSTM's `c` state, the
        #   weights) are handed back to the outer graph
        ins = [s if s is not None or n not in facts else
               (facts[n] if i >= len(data) else None if length is None else (length,) + facts[n])
               for i, (n, s) in enumerate(zip(self.input_names_list, in_shapes))]
        return ins, [None if s is None else (length,) + s
                     for s in outs[:self.num_step_outputs]] + outs[self.num_step_outputs:]

    def infer_type(self, in_dtypes):
        known = dict(zip(self.input_names_list, in_dtypes))
        return self.body.infer("infer_type", known, numpy.dtype)


@_load
class _WhileLoop(_Program):
    """``while_loop``: inputs loop vars..., free...; outputs padded outs..., loop vars..."""
    kind = "while_loop"

    def __init__(self, cond_graph, func_graph, var_names, num_outputs, max_iterations):
        self.cond, self.func = cond_graph, func_graph
        self.var_names = list(var_names)
        self.free_names = list(dict.fromkeys(
            n for n in cond_graph.inputs + func_graph.inputs if n not in var_names))
        self.num_step_outputs, self.max_iterations = num_outputs, max_iterations
        self.input_names_list = tuple(self.var_names + self.free_names)
        self.output_names_list = tuple([f"output{i}" for i in range(num_outputs)]
                                       + [f"var{i}" for i in range(len(var_names))])

    def graphs(self):
        return [self.cond, self.func]

    def params(self):
        return {"var_names": self.var_names, "num_outputs": self.num_step_outputs,
                "max_iterations": self.max_iterations}

    def _steps(self, inputs):
        """Per executed step: the func's arguments and its outputs."""
        loop_vars, free = inputs[:len(self.var_names)], dict(zip(self.free_names,
                                                                 inputs[len(self.var_names):]))
        for _ in range(self.max_iterations):
            args = {**free, **dict(zip(self.var_names, loop_vars))}
            if not bool(self.cond.run(args)[0].asnumpy().ravel()[0]):
                return
            values = self.func.run(args)
            yield args, values
            loop_vars = values[self.num_step_outputs:]

    def run(self, xp, inputs):
        rows, final = [], inputs[:len(self.var_names)]
        for _, values in self._steps(inputs):
            rows.append(values[:self.num_step_outputs])
            final = values[self.num_step_outputs:]
        outputs = []
        if self.num_step_outputs:
            shapes = self.infer_shape([x.shape for x in inputs])
            dtypes = self.infer_type([x.dtype for x in inputs])
            for k in range(self.num_step_outputs):
                padded = xp.zeros(shapes[k], dtype=dtypes[k])
                for t, row in enumerate(rows):
                    padded[t] = row[k]._get_data()
                outputs.append(NDArray._wrap(padded, inputs[0]._device))
        return outputs + list(final)

    def vjp(self, xp, inputs, out_grads):
        n_out, nv = self.num_step_outputs, len(self.var_names)
        steps = [args for args, _ in self._steps(inputs)]
        var_grads, free_grads = out_grads[n_out:], {}
        wrt = self.var_names + [n for n in self.free_names if n in self.func.inputs]
        for t in reversed(range(len(steps))):
            grads = self.func.vjp(steps[t], [g[t] for g in out_grads[:n_out]] + var_grads, wrt)
            var_grads = grads[:nv]
            for name, g in zip(wrt[nv:], grads[nv:]):
                free_grads[name] = free_grads[name] + g if name in free_grads else g
        return list(var_grads) + [free_grads.get(n) for n in self.free_names]

    def infer_shape(self, in_shapes):
        known = dict(zip(self.input_names_list, in_shapes))
        outs = self.func.infer("infer_shape", known, tuple)
        return [None if s is None else (self.max_iterations,) + s
                for s in outs[:self.num_step_outputs]] + list(in_shapes[:len(self.var_names)])

    def infer_type(self, in_dtypes):
        known = dict(zip(self.input_names_list, in_dtypes))
        outs = self.func.infer("infer_type", known, numpy.dtype)
        return outs[:self.num_step_outputs] + list(in_dtypes[:len(self.var_names)])


@_load
class _Cond(_Program):
    """``cond``: inputs = every variable of the predicate and both branches."""
    kind = "cond"

    def __init__(self, pred, then_graph, else_graph):
        self.pred, self.branches = pred, (else_graph, then_graph)
        self.input_names_list = tuple(dict.fromkeys(
            pred.inputs + then_graph.inputs + else_graph.inputs))
        self.output_names_list = tuple(f"output{i}" for i in range(len(then_graph.heads)))

    def graphs(self):
        return [self.pred, self.branches[1], self.branches[0]]

    def params(self):
        return {}

    def _branch(self, args):
        return self.branches[bool(self.pred.run(args)[0].asnumpy().ravel()[0])]

    def run(self, xp, inputs):
        args = dict(zip(self.input_names_list, inputs))
        return self._branch(args).run(args)

    def vjp(self, xp, inputs, out_grads):
        args = dict(zip(self.input_names_list, inputs))
        branch = self._branch(args)
        grads = dict(zip(branch.inputs, branch.vjp(args, out_grads, branch.inputs)))
        return [grads.get(n) for n in self.input_names_list]

    def infer_shape(self, in_shapes):
        return self.branches[1].infer("infer_shape", dict(zip(self.input_names_list, in_shapes)),
                                      tuple)

    def infer_type(self, in_dtypes):
        return self.branches[1].infer("infer_type", dict(zip(self.input_names_list, in_dtypes)),
                                      numpy.dtype)


# -- frontends ------------------------------------------------------------------------------------
def _variables(prefix, count, cls):
    return [cls([Entry(Node(None, f"{prefix}{i}"))]) for i in range(count)]


def _node_symbols(program, given, subgraphs, cls, op_name, name):
    """The control-flow node: ``given`` symbols first, then the free variables by name."""
    var_nodes = {n.name: n for g in subgraphs for n in topo_sort(g.heads) if n.op is None}
    free = [cls([Entry(var_nodes[n])]) for n in program.input_names_list[len(given):]]
    op = get_op(op_name)
    node = make_node(op, op.parse_attrs({"program": program}), list(given) + free, name=name)
    return [cls([Entry(node, i)]) for i in range(node.num_outputs)]


def foreach(body, data, init_states, name="foreach"):
    """Run ``body(data_slice, states) -> (outputs, new_states)`` over axis 0 of ``data``; returns
    the stacked outputs and the final states (MXNet's ``mx.sym.contrib.foreach``)."""
    name = _name.current().get(None, name)
    data_leaves, data_fmt = _flatten(data, "foreach data")
    state_leaves, state_fmt = _flatten(init_states, "foreach init_states")
    cls = type(data_leaves[0])
    data_vars = _variables(f"{name}_data", len(data_leaves), cls)
    state_vars = _variables(f"{name}_state", len(state_leaves), cls)
    outs, new_states = body(_regroup(data_vars, data_fmt), _regroup(state_vars, state_fmt))
    out_leaves, out_fmt = _flatten(outs, "foreach output")
    new_leaves, _ = _flatten(new_states, "foreach states")
    if len(new_leaves) != len(state_leaves):
        raise MXNetValueError(f"foreach: body returned {len(new_leaves)} states for "
                              f"{len(state_leaves)} init_states")
    graph = _Subgraph([_entry(s, "foreach body output") for s in out_leaves + new_leaves])
    for kind, variables in (("data", data_vars), ("state", state_vars)):
        if any(v.name not in graph.inputs for v in variables):
            raise MXNetAssertionError(f"foreach: the {kind} arrays have to be used in the loop "
                                      "body")
    program = _Foreach(graph, [v.name for v in data_vars], [v.name for v in state_vars],
                       len(out_leaves))
    results = _node_symbols(program, data_leaves + state_leaves, [graph], cls, "_foreach", name)
    n_out = len(out_leaves)
    return _regroup(results[:n_out], out_fmt) if n_out else [], \
        _regroup(results[n_out:], state_fmt)


def while_loop(cond, func, loop_vars, max_iterations=None, name="while_loop"):
    """``while cond(*vars): outputs, vars = func(*vars)``, at most ``max_iterations`` steps;
    returns the outputs stacked and zero-padded to ``max_iterations`` rows and the final loop
    variables (MXNet's ``mx.sym.contrib.while_loop``)."""
    if max_iterations is None:
        raise MXNetValueError("while_loop: max_iterations should be specified")
    max_iterations = int(max_iterations)
    name = _name.current().get(None, name)
    var_leaves, var_fmt = _flatten(loop_vars, "while_loop loop_vars")
    cls = type(var_leaves[0])
    variables = _variables(f"{name}_loop_var", len(var_leaves), cls)
    regrouped = _regroup(variables, var_fmt)
    regrouped = regrouped if isinstance(regrouped, list) else [regrouped]
    cond_graph = _Subgraph([_entry(cond(*regrouped), "while_loop cond")])
    result = func(*regrouped)
    if not isinstance(result, (list, tuple)) or len(result) != 2:
        raise MXNetValueError("while_loop: func should return a pair (outputs, new_loop_vars)")
    out_leaves, out_fmt = _flatten(result[0], "while_loop output")
    new_leaves, _ = _flatten(result[1], "while_loop loop_vars")
    if len(new_leaves) != len(var_leaves):
        raise MXNetValueError(f"while_loop: func returned {len(new_leaves)} loop_vars for "
                              f"{len(var_leaves)}")
    func_graph = _Subgraph([_entry(s, "while_loop output") for s in out_leaves + new_leaves])
    program = _WhileLoop(cond_graph, func_graph, [v.name for v in variables], len(out_leaves),
                         max_iterations)
    results = _node_symbols(program, var_leaves, [cond_graph, func_graph], cls, "_while_loop",
                            name)
    n_out = len(out_leaves)
    return _regroup(results[:n_out], out_fmt) if n_out else [], \
        _regroup(results[n_out:], var_fmt)


def cond(pred, then_func, else_func, name="cond"):
    """``then_func()`` if the scalar symbol ``pred`` is non-zero, else ``else_func()`` (MXNet's
    ``mx.sym.contrib.cond``); both branches return the same number of symbols."""
    name = _name.current().get(None, name)
    pred_graph = _Subgraph([_entry(pred, "cond pred")])
    then_leaves, then_fmt = _flatten(then_func(), "cond then_func output")
    else_leaves, _ = _flatten(else_func(), "cond else_func output")
    if len(then_leaves) != len(else_leaves):
        raise MXNetValueError(f"cond: then_func returned {len(then_leaves)} outputs, else_func "
                              f"{len(else_leaves)}")
    then_graph = _Subgraph([_entry(s, "cond output") for s in then_leaves])
    else_graph = _Subgraph([_entry(s, "cond output") for s in else_leaves])
    program = _Cond(pred_graph, then_graph, else_graph)
    results = _node_symbols(program, [], [pred_graph, then_graph, else_graph], type(pred),
                            "_cond", name)
    return _regroup(results, then_fmt)
