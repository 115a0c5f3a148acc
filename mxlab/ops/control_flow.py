"""MXNet's subgraph control-flow ops ``_foreach``, ``_while_loop`` and ``_cond``.

Each node carries a ``program`` attribute: the loop or branch, built by the symbol frontend
(:mod:`mxlab.symbol.control_flow`) from the user's Python functions traced into subgraphs. The op
itself only fixes the protocol every execution path relies on:

``program.num_inputs`` / ``program.num_outputs`` / ``program.input_names()`` /
``program.output_names()``
    The node's signature (data, states or loop variables, then the free variables the body reads).
``program.forward(inputs, device, training) -> outputs``
    Runs the loop on the node's input arrays (xp arrays in, xp arrays out).
``program.backward(inputs, out_grads, device, training) -> in_grads``
    The vector-Jacobian product, recomputing the forward steps it needs (one ``None`` per input
    without a gradient).
``program.infer_shape(in_shapes)`` / ``program.infer_type(in_dtypes)``
    Output shapes and dtypes from the subgraphs' own inference.
``str(program)``
    A JSON description that :data:`LOADERS` turns back into the program (symbol JSON files).

The gradient rule is one hidden ``_backward_control_flow`` node calling ``program.backward``, so
autograd and the graph gradient pass share it; nested loops nest programs.
"""
import dataclasses
import json

from ..base import MXNetNotImplementedError, MXNetValueError
from .attrs import Attr
from .registry import F, Op, register

__all__ = ["LOADERS"]

# NOTE: program kind -> callable(description dict) -> program; the symbol layer fills it, so a
#   graph read from JSON (where ``str(program)`` wrote the description) gets its program back.
LOADERS = {}


@dataclasses.dataclass(frozen=True)
class _ProgramAttr(Attr):
    """The ``program`` attribute: an object, or its JSON description (symbol files)."""

    def parse(self, value, op_name):
        if not isinstance(value, str):
            return value
        try:
            description = json.loads(value)
            return LOADERS[description.pop("kind")](description)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise MXNetValueError(f"{op_name}: attribute 'program' is not a control-flow "
                                  f"program description ({exc!r})") from None


_PROGRAM = (_ProgramAttr("program", "any",
                         doc="the loop/branch object built by the symbol frontend"),)


def _program(attrs):
    return attrs["program"]


def _forward(xp, inputs, attrs, ctx):
    return tuple(_program(attrs).forward(list(inputs), xp, ctx.is_train))


def _gradient(node, out_grads):
    program = _program(node.attrs)
    grads = F._backward_control_flow(*node.inputs, *out_grads, program=program)
    grads = list(grads) if type(grads) in (list, tuple) else [grads]   # NOTE: an Entry is a tuple
    return [None if i in program.no_gradient else g for i, g in enumerate(grads)]


def _infer_shape(attrs, in_shapes):
    return _program(attrs).infer_shape(list(in_shapes))


def _infer_type(attrs, in_dtypes):
    return _program(attrs).infer_type(list(in_dtypes))


def _register(name, doc):
    register(Op(name=name, compute=_forward, attrs=_PROGRAM,
                num_inputs=lambda a: _program(a).num_inputs,
                num_outputs=lambda a: _program(a).num_outputs,
                input_names=lambda a: tuple(_program(a).input_names()),
                output_names=lambda a: tuple(_program(a).output_names()),
                infer_shape=_infer_shape, infer_type=_infer_type, gradient=_gradient,
                save_inputs=True, save_outputs=False, never_mirror=True, hidden=True,
                doc=doc))


_register("_foreach", "A for loop over axis 0 of the data inputs (``mx.sym.contrib.foreach``).")
_register("_while_loop", "A while loop of at most ``max_iterations`` steps "
          "(``mx.sym.contrib.while_loop``).")
_register("_cond", "If-then-else on a scalar predicate (``mx.sym.contrib.cond``).")


def _backward(xp, inputs, attrs, ctx):
    program = _program(attrs)
    n = program.num_inputs
    grads = program.backward(list(inputs[:n]), list(inputs[n:]), xp, ctx.is_train)
    return tuple(xp.zeros_like(x) if g is None else g for x, g in zip(inputs[:n], grads))


def _backward_gradient(node, out_grads):
    raise MXNetNotImplementedError("control flow: second-order gradients of foreach/while_loop/"
                                   "cond are not built")


register(Op(name="_backward_control_flow", compute=_backward, attrs=_PROGRAM,
            num_inputs=lambda a: _program(a).num_inputs + _program(a).num_outputs,
            num_outputs=lambda a: _program(a).num_inputs,
            input_names=lambda a: tuple(_program(a).input_names()) + tuple(
                f"{n}_grad" for n in _program(a).output_names()),
            output_names=lambda a: tuple(f"{n}_grad" for n in _program(a).input_names()),
            infer_shape=lambda attrs, in_shapes: list(in_shapes[:_program(attrs).num_inputs]),
            infer_type=lambda attrs, in_dtypes: list(in_dtypes[:_program(attrs).num_inputs]),
            gradient=_backward_gradient, never_mirror=True, hidden=True,
            doc="The input gradients of a control-flow node (recomputes its forward steps)."))
