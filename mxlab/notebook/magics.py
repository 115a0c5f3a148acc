"""IPython magics: ``%%hybridize``, ``%mx_live``, ``%mx_engine`` (``%load_ext mxlab``).

``%%hybridize`` traces the cell body (imperative mxlab code) with deferred compute, builds a
CachedOp, runs it, binds a callable and the outputs into the namespace and shows the explorer::

    %%hybridize --static-alloc --name f --inputs a,b
    c = mx.np.tanh(a) * b

binds ``f(a, b)`` (returns ``c``) and ``c``. Inputs default to the mx arrays the cell reads from
the namespace; outputs are the names the cell assigns and does not read again. Re-running the
cell (same ``--name``) keeps the CachedOp, so new shapes show as a re-plan. An error in the body
is reported with the cell line, not a framework traceback.
"""
import argparse
import ast
import shlex
import time

from ..base import MXNetError, MXNetValueError

__all__ = [
    "CELL_FILENAME",
    "HybridizeCellError",
    "HybridizeUsageError",
    "hybridize_cell",
    "load_ipython_extension",
]

CELL_FILENAME = "<hybridize cell>"
_OPS = {}


class HybridizeCellError(MXNetError):
    """An error raised by the cell body; IPython shows only this short message."""

    def _render_traceback_(self):
        return [f"\x1b[31m{type(self).__name__}\x1b[0m: {self}"]


class HybridizeUsageError(HybridizeCellError, MXNetValueError):
    """A bad ``%%hybridize`` option: shown as one line with the usage, no traceback."""


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of printing to stderr and exiting."""

    def error(self, message):
        usage = " ".join(self.format_usage().split())
        raise HybridizeUsageError(f"%%hybridize: {message}; {usage}")


def _parser():
    parser = _Parser(prog="%%hybridize", add_help=False)
    parser.add_argument("--static-alloc", action="store_true")
    parser.add_argument("--static-shape", action="store_true")
    parser.add_argument("--backend", metavar="NAME", default=None)
    parser.add_argument("--name", metavar="F", default="F")
    parser.add_argument("--inputs", metavar="a,b", default=None)
    parser.add_argument("--bench", action="store_true")
    parser.add_argument("--no-display", action="store_true")
    return parser


def _parse(line):
    try:
        words = shlex.split(line)
    except ValueError as exc:
        raise HybridizeUsageError(f"%%hybridize: cannot split '{line}': {exc}") from None
    return _parser().parse_args(words)


def _names_used(tree):
    """``(names read before being assigned, names assigned and not read afterwards)``."""
    reads, assigned, live_out = [], set(), []
    for node in _statement_names(tree):
        name, store = node
        if store:
            assigned.add(name)
            if name in live_out:
                live_out.remove(name)
            live_out.append(name)
        else:
            if name not in assigned and name not in reads:
                reads.append(name)
            if name in live_out:
                live_out.remove(name)
    return reads, live_out


def _statement_names(tree):
    """(name, is_store) in execution order: an assignment's value is read before its target."""
    for stmt in tree.body:
        loads = [n for n in ast.walk(stmt) if isinstance(n, ast.Name)
                 and isinstance(n.ctx, ast.Load)]
        stores = [n for n in ast.walk(stmt) if isinstance(n, ast.Name)
                  and isinstance(n.ctx, ast.Store)]
        yield from ((n.id, False) for n in sorted(loads, key=lambda n: (n.lineno, n.col_offset)))
        yield from ((n.id, True) for n in stores)


def _is_array(value):
    from ..ndarray.ndarray import NDArray
    return isinstance(value, NDArray)


def _short_error(exc, body):
    """HybridizeCellError naming the cell line that raised ``exc``."""
    import traceback
    lineno = next((f.lineno for f in reversed(traceback.extract_tb(exc.__traceback__))
                   if f.filename == CELL_FILENAME), None)
    where = ""
    if lineno is not None:
        where = f" at cell line {lineno}: `{body.splitlines()[lineno - 1].strip()}`"
    return HybridizeCellError(f"%%hybridize{where}: {type(exc).__name__}: {exc}")


def _trace(body, code, namespace, input_names):
    """Symbol traced from ``body`` with the named arrays as variables; returns (symbol,
    output names)."""
    from .. import autograd, symbol
    from .. import deferred_compute as dc
    from ..ndarray.ndarray import ndarray
    arrays = [namespace[n].detach() for n in input_names]
    variables = [symbol.var(n) for n in input_names]
    variables = [v.as_np_ndarray() if isinstance(a, ndarray) else v
                 for v, a in zip(variables, arrays)]
    dc.set_variable(arrays, variables)
    local = dict(namespace)
    local.update(zip(input_names, arrays))
    with autograd.pause(), dc.context():
        try:
            exec(code, local)  # noqa: S102  (the user's own cell)
        except Exception as exc:  # noqa: BLE001
            raise _short_error(exc, body) from None
    _, outputs = _names_used(ast.parse(body))
    outputs = [n for n in outputs if _is_array(local.get(n))]
    if not outputs:
        raise HybridizeCellError("%%hybridize: the cell assigns no mx array (its outputs); "
                                 "write e.g. `y = mx.np.tanh(x)`")
    sym_cls = type(variables[0]) if variables else None
    return dc.get_symbol([local[n] for n in outputs], sym_cls=sym_cls), outputs


def _cached_op(args, sym, body):
    """``(CachedOp, Partition or None, original symbol)``, kept per name and cell text."""
    from ..executor import CachedOp
    partition, original = None, sym
    if args.backend:
        from .. import subgraph
        sym, partition = subgraph.partition(sym, args.backend)
    key = (args.name, body, args.static_alloc, args.static_shape, args.backend)
    if key not in _OPS:
        flags = {"static_alloc": args.static_alloc or args.static_shape,
                 "static_shape": args.static_shape}
        _OPS[key] = (CachedOp(sym, flags), partition, original)
    return _OPS[key]


def _callable(op, input_names, outputs):
    """``F(*arrays)`` in ``input_names`` order, calling ``op`` in its own input order."""
    def call(*arrays):
        if len(arrays) != len(input_names):
            raise MXNetValueError(f"{input_names}: expected {len(input_names)} arrays, got "
                                  f"{len(arrays)}")
        given = dict(zip(input_names, arrays))
        out = op(*[given[n] for n in op.input_names])
        return out if len(outputs) > 1 else (out[0] if isinstance(out, list) else out)
    call.__name__ = "hybridized"
    call.__doc__ = f"Hybridized cell: ({', '.join(input_names)}) -> ({', '.join(outputs)})"
    call.cached_op = op
    return call


def _bench(body, code, namespace, fn, input_names, repeat=20):
    from .. import engine
    args = [namespace[n] for n in input_names]

    def timed(run):
        run()
        engine.wait_all()
        start = time.perf_counter()
        for _ in range(repeat):
            run()
        engine.wait_all()
        return (time.perf_counter() - start) / repeat

    imperative = timed(lambda: exec(code, dict(namespace)))  # noqa: S102
    hybrid = timed(lambda: fn(*args))
    print(f"imperative: {imperative * 1e6:.1f} us/call, hybridized: {hybrid * 1e6:.1f} us/call "
          f"({imperative / hybrid:.2f}x)")
    return imperative, hybrid


def hybridize_cell(line, body, namespace, display=None):
    """The ``%%hybridize`` implementation (callable without IPython); returns the Explorer (or
    None with ``--no-display``)."""
    args = _parse(line)
    code = compile(body, CELL_FILENAME, "exec")
    reads, _ = _names_used(ast.parse(body))
    if args.inputs:
        input_names = [n.strip() for n in args.inputs.split(",") if n.strip()]
        missing = [n for n in input_names if not _is_array(namespace.get(n))]
        if missing:
            raise MXNetValueError(f"%%hybridize: --inputs {missing} are not mx arrays in the "
                                  "namespace")
    else:
        input_names = [n for n in reads if _is_array(namespace.get(n))]
    sym, outputs = _trace(body, code, namespace, input_names)
    op, partition, original = _cached_op(args, sym, body)
    fn = _callable(op, input_names, outputs)
    try:
        result = fn(*[namespace[n] for n in input_names])
    except MXNetError as exc:
        raise HybridizeCellError(f"%%hybridize: running the traced graph failed: {exc}") from None
    values = result if len(outputs) > 1 else [result]
    namespace.update(zip(outputs, values))
    namespace[args.name] = fn
    if args.bench:
        _bench(body, code, namespace, fn, input_names)
    if args.no_display:
        return None
    from .explorer import explore
    explorer = explore(op, partition=partition, original=original if partition else None)
    if display is not None:
        display(explorer)
    return explorer


def _on_off(line, what):
    word = line.strip().lower() or "on"
    if word not in ("on", "off"):
        raise MXNetValueError(f"%{what}: expected 'on' or 'off', got '{line.strip()}'")
    return word == "on"


def load_ipython_extension(ipython):
    """Register the magics and turn live views and the engine event log on (``%load_ext
    mxlab``)."""
    from IPython.core.magic import register_cell_magic, register_line_magic
    from IPython.display import display

    from ..engine import event_log
    from . import live

    event_log.enable()

    @register_cell_magic("hybridize")
    def hybridize_magic(line, cell):
        """%%hybridize [--static-alloc] [--static-shape] [--backend NAME] [--name F]
        [--inputs a,b] [--bench] [--no-display]: trace the cell into a CachedOp and explore
        it."""
        hybridize_cell(line, cell, ipython.user_ns, display)

    @register_line_magic("mx_live")
    def mx_live(line):
        """%mx_live [on|off]: refresh open explorers after each cell."""
        if _on_off(line, "mx_live"):
            live.enable(ipython)
        else:
            live.disable()
        print(f"mxlab live views: {'on' if live.is_enabled() else 'off'}")

    @register_line_magic("mx_engine")
    def mx_engine(line):
        """%mx_engine [on|off]: show a live view of the engine event log."""
        if _on_off(line, "mx_engine"):
            display(live.engine_view(ipython))
        else:
            live.close_engine_view()
            print("mxlab engine view: off")

    live.enable(ipython)
