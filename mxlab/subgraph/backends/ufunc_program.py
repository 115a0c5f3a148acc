"""A fused elementwise kernel as an in-place NumPy ufunc program (the ``fuse`` backend's second
way to run a kernel, next to numexpr).

The stage texts of a fused subgraph (numexpr syntax, which is Python's) are compiled once into a
list of ufunc calls that each write into a scratch register with ``out=``; a register is reused as
soon as its value is consumed, so a 64-op chain needs one or two registers instead of 64
temporaries. Inputs of one shape are processed in cache-sized chunks, so the registers stay in the
CPU cache between the calls. NumPy's own ufuncs do the arithmetic (its vectorised ``tanh``/``exp``
beat numexpr's scalar ones where numexpr lacks Intel VML), and the results match op-by-op NumPy
bit for bit.
"""
import ast
import dataclasses

import numpy

__all__ = ["UfuncProgram", "compile_program", "CHUNK"]

#: Elements per chunk: 16K float32/float64 values keep a few registers within L2.
CHUNK = 1 << 14

_BINARY = {ast.Add: numpy.add, ast.Sub: numpy.subtract, ast.Mult: numpy.multiply,
           ast.Div: numpy.true_divide, ast.Pow: numpy.power, ast.Mod: numpy.mod,
           ast.BitAnd: numpy.bitwise_and, ast.BitOr: numpy.bitwise_or,
           ast.BitXor: numpy.bitwise_xor}
_COMPARE = {ast.Lt: numpy.less, ast.LtE: numpy.less_equal, ast.Gt: numpy.greater,
            ast.GtE: numpy.greater_equal, ast.Eq: numpy.equal, ast.NotEq: numpy.not_equal}
_UNARY = {ast.USub: numpy.negative, ast.Invert: numpy.invert}


class Unsupported(Exception):
    """The stage text uses something that has no NumPy ufunc (the numexpr kernel still runs)."""


def _where(cond, a, b, out):
    numpy.copyto(out, b)
    numpy.copyto(out, a, where=cond)
    return out


def _function(name):
    if name == "where":
        return _where
    fn = getattr(numpy, name, None)
    if not isinstance(fn, numpy.ufunc):
        raise Unsupported(name)
    return fn


@dataclasses.dataclass
class _Step:
    """``registers[target] = fn(*args, out=registers[target])``; an arg is ``("r", i)``
    (register), ``("v", name)`` (an input, scalar or earlier stage) or ``("c", value)``."""
    fn: object
    args: tuple
    target: int


class _Compiler:
    """Turns expression trees into steps over numbered registers, tracing one-element samples
    alongside so that every register has one dtype and is reused only for values of it."""

    def __init__(self, samples):
        self.samples = dict(samples)
        self.steps = []
        self.dtypes = []
        self.free = []
        self.sample_regs = []

    def register(self, dtype):
        for i in self.free:
            if self.dtypes[i] == dtype:
                self.free.remove(i)
                return i
        self.dtypes.append(dtype)
        self.sample_regs.append(None)
        return len(self.dtypes) - 1

    def sample(self, arg):
        kind, value = arg
        if kind == "r":
            return self.sample_regs[value]
        return self.samples[value] if kind == "v" else value

    def emit(self, fn, operands):
        args = [self.visit(o) for o in operands]
        with numpy.errstate(all="ignore"):
            samples = [self.sample(a) for a in args]
            value = numpy.where(*samples) if fn is _where else fn(*samples)
        # NOTE: a ufunc may write over its own operand; where() copies in two steps, so its
        #   target must not be one of its operands' registers.
        if fn is _where:
            target = self.register(value.dtype)
        for arg in args:
            if arg[0] == "r":
                self.free.append(arg[1])
        if fn is not _where:
            target = self.register(value.dtype)
        self.sample_regs[target] = value
        self.steps.append(_Step(fn, tuple(args), target))
        return ("r", target)

    def visit(self, node):
        if isinstance(node, ast.Name):
            return ("v", node.id)
        if isinstance(node, ast.Constant):
            return ("c", node.value)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            return self.emit(_BINARY[type(node.op)], (node.left, node.right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            return self.emit(_UNARY[type(node.op)], (node.operand,))
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and \
                type(node.ops[0]) in _COMPARE:
            return self.emit(_COMPARE[type(node.ops[0])], (node.left, node.comparators[0]))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
            return self.emit(_function(node.func.id), node.args)
        raise Unsupported(ast.dump(node)[:60])

    def stage(self, target, expr):
        """Compile one stage; its result register stays reserved for later stages."""
        start = len(self.steps)
        result = self.visit(ast.parse(expr, mode="eval").body)
        self.samples[target] = numpy.asarray(self.sample(result))
        return _Stage(target, self.steps[start:], result)


@dataclasses.dataclass
class _Stage:
    name: str
    steps: list
    result: tuple


class UfuncProgram:
    """The compiled stages: ``run(values)`` returns the outputs' arrays.

    ``outputs`` names the stages whose results are returned; ``register_dtypes`` and
    ``out_dtypes`` were found by a trace on one-element samples.
    """

    def __init__(self, stages, outputs, register_dtypes, out_dtypes):
        self.stages = stages
        self.outputs = outputs
        self.register_dtypes = register_dtypes
        self.out_dtypes = out_dtypes

    def run(self, inputs, scalars):
        """The outputs for ``inputs`` (``v<i>`` in order) and 0-d ``scalars`` (``s<k>``)."""
        shape = numpy.broadcast_shapes(*[x.shape for x in inputs])
        values = {f"s{k}": s for k, s in enumerate(scalars)}
        outs = [numpy.empty(shape, dtype) for dtype in self.out_dtypes]
        if all(x.shape == shape and x.flags.c_contiguous for x in inputs) and len(shape):
            flat = [x.reshape(-1) for x in inputs]
            flat_outs = [o.reshape(-1) for o in outs]
            size = flat_outs[0].size if flat_outs else 0
            regs = self._registers(min(size, CHUNK))
            for start in range(0, size, CHUNK):
                stop = min(start + CHUNK, size)
                chunk = {f"v{i}": x[start:stop] for i, x in enumerate(flat)}
                chunk.update(values)
                self._run_chunk(chunk, [r[:stop - start] for r in regs],
                                [o[start:stop] for o in flat_outs])
            return outs
        values.update({f"v{i}": x for i, x in enumerate(inputs)})
        self._run_chunk(values, self._registers(shape), outs)
        return outs

    def _registers(self, shape):
        return [numpy.empty(shape, dtype) for dtype in self.register_dtypes]

    def _run_chunk(self, values, regs, outs):
        results = dict(values)
        for stage in self.stages:
            if not stage.steps:
                results[stage.name] = _arg(stage.result, results, regs)
                continue
            for step in stage.steps:
                step.fn(*[_arg(a, results, regs) for a in step.args], out=regs[step.target])
            results[stage.name] = regs[stage.result[1]]
        for out, name in zip(outs, self.outputs):
            numpy.copyto(out, results[name], casting="unsafe")


def _arg(arg, results, regs):
    kind, value = arg
    if kind == "r":
        return regs[value]
    return results[value] if kind == "v" else value


def compile_program(stages, outputs, samples):
    """A :class:`UfuncProgram` for ``stages`` (objects with ``target`` and ``expr``), or None
    when a stage has no ufunc form. ``samples``: a one-element array per input name (``v<i>``)
    and a 0-d array per scalar name (``s<k>``), to find every register's dtype."""
    compiler = _Compiler(samples)
    try:
        compiled = [compiler.stage(stage.target, stage.expr) for stage in stages]
    except (Unsupported, SyntaxError, TypeError, ValueError):
        return None
    out_dtypes = [compiler.samples[name].dtype for name in outputs]
    return UfuncProgram(compiled, list(outputs), compiler.dtypes, out_dtypes)
