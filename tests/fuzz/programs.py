"""Random op DAGs for the differential fuzzer: a hypothesis strategy for :class:`Program`, and
:class:`ProgramBlock`, the HybridBlock that runs one.

A program is a list of steps over a pool of values (the inputs first, then each step's outputs).
Every step is an entry of :data:`CATALOG`: an ``mx.np`` / ``mx.npx`` call whose op is in the
registry (checked by the tests). Shapes are tracked for two shape sets at once (the first calls
and the "new shape" call), so a step is drawn only where it is valid for both. Inputs may be 0-d,
size-0 or broadcastable variants of one base shape; a block argument may repeat an array
(repeated inputs); any value may feed several later steps (reuse across branches); a program
returns one or more outputs, possibly the same value twice.
"""
import dataclasses

import numpy
from hypothesis import strategies as st

import mxlab as mx


@dataclasses.dataclass(frozen=True)
class Spec:
    """One catalog entry: ``build(np, npx, args, param)``, how many value arguments it takes, the
    registry ops it runs, and whether it is valid for given argument shapes (both shape sets)."""
    arity: int
    build: object
    ops: tuple
    valid: object = None            # valid(shapes, param) -> bool, shapes: per argument
    params: tuple = (None,)         # the parameter values a step draws from
    floats_only: bool = False       # not for int32 programs (float-valued maps, mean)


def _ndim_at_least(n):
    return lambda shapes, p: all(len(s) >= n for s in shapes)


def _broadcastable(shapes, p):
    try:
        numpy.broadcast_shapes(*shapes)
    except ValueError:
        return False
    return True


def _axis_ok(shapes, axis):
    return axis is None or -len(shapes[0]) <= axis < len(shapes[0])


def _same_shape_1d(shapes, p):
    return len(shapes[0]) >= 1 and shapes[0] == shapes[1]


def _nonempty(shapes, p):
    return all(int(numpy.prod(s)) > 0 for s in shapes) and _axis_ok(shapes, p)


def _unary(name, np_name=None, npx=False, floats_only=True):
    fn = np_name or name
    return Spec(1, lambda np, npx_, a, p: getattr(npx_ if npx else np, fn)(a[0]), (name,),
                floats_only=floats_only)


CATALOG = {
    # elementwise maps (bounded on [-1, 1] inputs, so chains stay finite)
    "tanh": _unary("tanh"), "sin": _unary("sin"), "cos": _unary("cos"),
    "sigmoid": _unary("sigmoid", npx=True), "relu": _unary("relu", npx=True),
    "negative": _unary("negative", floats_only=False), "abs": _unary("abs", floats_only=False),
    "square": _unary("square", floats_only=False),
    # broadcasting binary ops
    "add": Spec(2, lambda np, npx, a, p: a[0] + a[1], ("broadcast_add",), _broadcastable),
    "subtract": Spec(2, lambda np, npx, a, p: np.subtract(a[0], a[1]), ("broadcast_sub",),
                     _broadcastable),
    "multiply": Spec(2, lambda np, npx, a, p: a[0] * a[1], ("broadcast_mul",), _broadcastable),
    "maximum": Spec(2, lambda np, npx, a, p: np.maximum(a[0], a[1]), ("broadcast_maximum",),
                    _broadcastable),
    # scalar ops
    "mul_scalar": Spec(1, lambda np, npx, a, p: a[0] * p, ("_mul_scalar",), params=(2, -3)),
    "plus_scalar": Spec(1, lambda np, npx, a, p: a[0] + p, ("_plus_scalar",), params=(1, -2)),
    "rminus_scalar": Spec(1, lambda np, npx, a, p: p - a[0], ("_rminus_scalar",), params=(1,)),
    # reductions
    "sum": Spec(1, lambda np, npx, a, p: np.sum(a[0], axis=p[0], keepdims=p[1]), ("_np_sum",),
                lambda s, p: _axis_ok(s, p[0]),
                params=((None, False), (0, False), (0, True), (-1, True), (1, False))),
    "mean": Spec(1, lambda np, npx, a, p: np.mean(a[0], axis=p), ("_npi_mean",),
                 _nonempty, params=(None, 0, 1), floats_only=True),
    # shape ops
    "reshape": Spec(1, lambda np, npx, a, p: np.reshape(a[0], (-1,)), ("_np_reshape",)),
    "transpose": Spec(1, lambda np, npx, a, p: np.transpose(a[0]), ("transpose",)),
    "expand_dims": Spec(1, lambda np, npx, a, p: np.expand_dims(a[0], 0), ("expand_dims",)),
    "swapaxes": Spec(1, lambda np, npx, a, p: np.swapaxes(a[0], 0, -1), ("_npi_swapaxes",),
                     _ndim_at_least(1)),
    "concatenate": Spec(2, lambda np, npx, a, p: np.concatenate([a[0], a[1]], axis=0),
                        ("_npi_concatenate",), _same_shape_1d),
    # products
    "dot_self_t": Spec(1, lambda np, npx, a, p: np.dot(a[0], np.transpose(a[0])),
                       ("_np_dot", "transpose")),
    "dot": Spec(2, lambda np, npx, a, p: np.dot(a[0], a[1]), ("_np_dot",),
                lambda s, p: 1 <= len(s[0]) <= 2 and 1 <= len(s[1]) <= 2 and s[0][-1] == s[1][0]),
    # multiple outputs (both pieces are values)
    "split": Spec(1, lambda np, npx, a, p: tuple(np.split(a[0], [1], axis=0)), ("_npi_split",),
                  _ndim_at_least(1)),
}


def registry_ops():
    """Every registry op name the catalog runs."""
    return sorted({op for spec in CATALOG.values() for op in spec.ops})


@dataclasses.dataclass
class Step:
    name: str
    args: tuple
    param: object = None


@dataclasses.dataclass
class Program:
    """``shapes``/``new_shapes``: per distinct input array; ``feed``: per block argument, the
    array it gets (a repeat = repeated input); ``outputs``: value indices returned."""
    dtype: str
    shapes: list
    new_shapes: list
    feed: list
    steps: list
    outputs: list

    @property
    def floating(self):
        return self.dtype != "int32"

    def __repr__(self):
        lines = [f"Program(dtype={self.dtype}, shapes={self.shapes}, new={self.new_shapes}, "
                 f"feed={self.feed})"]
        lines += [f"  v{len(self.shapes) + i}.. = {s.name}{s.args} {s.param!r}"
                  for i, s in enumerate(self.steps)]
        return "\n".join(lines + [f"  outputs {self.outputs}"])


def run_program(program, args, np=mx.np, npx=mx.npx):
    """The program's outputs for block arguments ``args`` (a tuple when several)."""
    values = [None] * len(program.shapes)
    for position, array in zip(program.feed, args):
        if values[position] is None:
            values[position] = array
    for step in program.steps:
        result = CATALOG[step.name].build(np, npx, [values[i] for i in step.args], step.param)
        values += list(result) if isinstance(result, tuple) else [result]
    outs = [values[i] for i in program.outputs]
    return outs[0] if len(outs) == 1 else tuple(outs)


class ProgramBlock(mx.gluon.HybridBlock):
    """A HybridBlock whose forward is a :class:`Program`."""

    def __init__(self, program):
        super().__init__()
        self.program = program

    def forward(self, *args):
        return run_program(self.program, args)


# -- strategies ------------------------------------------------------------------------------------
def _input_shape(draw, base, new_base):
    """A variant of the base shape (both shape sets): as is, a broadcastable one (dims set to 1,
    leading dims dropped), or 0-d."""
    kind = draw(st.sampled_from(["base", "base", "broadcast", "scalar"]))
    if kind == "scalar":
        return (), ()
    if kind == "base":
        return tuple(base), tuple(new_base)
    keep = draw(st.integers(0, len(base)))
    ones = [draw(st.booleans()) for _ in range(keep)]
    tail = range(len(base) - keep, len(base))
    shape = tuple(1 if one else base[i] for one, i in zip(ones, tail))
    new_shape = tuple(1 if one else new_base[i] for one, i in zip(ones, tail))
    return shape, new_shape


def _out_shapes(spec, shapes, param):
    """Output shapes of a step for one shape set (by running it on NumPy dummies)."""
    dummies = [numpy.zeros(s, dtype="float32") for s in shapes]
    result = spec.build(numpy, _NumpyNpx, dummies, param)
    results = result if isinstance(result, tuple) else (result,)
    return [numpy.shape(r) for r in results]


class _NumpyNpx:
    """The ``npx`` maps on NumPy dummies (only their shapes matter)."""
    sigmoid = relu = staticmethod(lambda x: numpy.asarray(x))


def _candidates(shapes, new_shapes, floating):
    """Catalog entries with at least one valid argument choice."""
    names = []
    for name, spec in CATALOG.items():
        if spec.floats_only and not floating:
            continue
        # NOTE: ops joining two values weigh thrice: they make the DAGs (shared values,
        #   subgraphs with several inputs) the paths differ on
        names += [name] * (3 if spec.arity == 2 else 1)
    return names


@st.composite
def programs(draw, max_steps=10):
    """A random :class:`Program` (see the module docstring)."""
    dtype = draw(st.sampled_from(["float32", "float32", "float64", "int32"]))
    ndim = draw(st.integers(0, 3))
    base = [draw(st.integers(0, 3)) for _ in range(ndim)]
    new_base = [draw(st.integers(1, 4)) if b else 0 for b in base]
    n_arrays = draw(st.sampled_from([3, 2, 4, 1]))
    pairs = [_input_shape(draw, base, new_base) for _ in range(n_arrays)]
    shapes, new_shapes = [list(p) for p in zip(*pairs)]
    feed = list(range(n_arrays))
    if draw(st.booleans()):
        feed.append(draw(st.integers(0, n_arrays - 1)))   # repeated input
    pool, new_pool = list(shapes), list(new_shapes)
    steps, used = [], set()
    floating = dtype != "int32"
    for _ in range(draw(st.integers(3, max_steps))):
        step = _draw_step(draw, pool, new_pool, floating, n_arrays, used)
        if step is None:
            continue
        used.update(step[0].args)
        steps.append(step[0])
        pool += step[1]
        new_pool += step[2]
    if not steps:
        steps.append(Step("negative", (0,)))
        pool.append(shapes[0])
        new_pool.append(new_shapes[0])
    computed = list(range(n_arrays, len(pool)))
    # NOTE: every value no step reads is an output (up to 3), so no step is dead code
    sinks = [v for v in computed if v not in used][-3:]
    outputs = sinks + draw(st.lists(st.sampled_from(computed), max_size=1))
    return Program(dtype, shapes, new_shapes, feed, steps, outputs)


def _draw_step(draw, pool, new_pool, floating, n_inputs, used):
    """One step valid for both shape sets, with its output shapes; None when the draw fails."""
    name = draw(st.sampled_from(_candidates(pool, new_pool, floating)))
    spec = CATALOG[name]
    # NOTE: the latest value, any value, or an input no step read yet: chains grow deep and
    #   wide, and most inputs are used
    unused = sorted(set(range(n_inputs)) - used)
    choices = [st.just(len(pool) - 1), st.integers(0, len(pool) - 1)]
    choice = st.one_of(*choices, st.sampled_from(unused)) if unused else st.one_of(*choices)
    args = tuple(draw(choice) for _ in range(spec.arity))
    param = draw(st.sampled_from(spec.params))
    arg_shapes = [pool[i] for i in args]
    new_arg_shapes = [new_pool[i] for i in args]
    if spec.valid is not None and not (spec.valid(arg_shapes, param)
                                       and spec.valid(new_arg_shapes, param)):
        return None
    try:
        outs, new_outs = _out_shapes(spec, arg_shapes, param), \
            _out_shapes(spec, new_arg_shapes, param)
    except (ValueError, IndexError, numpy.exceptions.AxisError):
        return None
    if len(outs) != len(new_outs) or any(len(a) != len(b) for a, b in zip(outs, new_outs)):
        return None
    return Step(name, args, param), outs, new_outs
