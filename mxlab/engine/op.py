"""What both engines share: the pushed-op record, running one op, and errors raised by ops.

An op that raises is turned into an :class:`~mxlab.base.MXNetError` subclass of the same kind (a
``ValueError`` becomes ``MXNetValueError``) whose message names the op. The threaded engine stores
it (an :class:`ErrorRef`) on the vars the op writes; later ops that read or write such a var skip
and share the same ref, and the first sync point that raises it clears it for all of them (MXNet's
``ThrowException``), so the engine stays usable.
"""
import itertools

import numpy

from ..base import (MXNetAttributeError, MXNetAxisError, MXNetError, MXNetIndexError, MXNetKeyError,
                    MXNetNotImplementedError, MXNetRuntimeError, MXNetTypeError, MXNetValueError)

__all__ = ["EngineOp", "ErrorRef", "op_error", "raise_error", "split_vars", "run_op"]

# NOTE: order matters: AxisError is both a ValueError and an IndexError, so it is matched first.
_ERROR_TYPES = ((numpy.exceptions.AxisError, MXNetAxisError), (KeyError, MXNetKeyError),
                (IndexError, MXNetIndexError), (TypeError, MXNetTypeError),
                (ValueError, MXNetValueError), (NotImplementedError, MXNetNotImplementedError),
                (AttributeError, MXNetAttributeError), (RuntimeError, MXNetRuntimeError))
_push_seq = itertools.count(1)
next_push_seq = _push_seq.__next__


def op_error(exc, name):
    """``exc`` (raised by engine op ``name``) as an MXNetError of the same kind whose message names
    the op.

    An MXNetError that already names the op is returned as it is; otherwise a new one is made,
    chained to ``exc`` (``__cause__``) so the original traceback stays visible.
    """
    if isinstance(exc, MXNetError):
        if name in str(exc):
            return exc
        mx_type = type(exc)
    else:
        mx_type = next((mx for py, mx in _ERROR_TYPES if isinstance(exc, py)), MXNetError)
    error = mx_type(f"engine op {name!r} failed: {type(exc).__name__}: {exc}")
    error.__cause__ = exc
    return error


def raise_error(error, cause=None):
    """Raise ``error`` (chained to ``cause`` unless it is ``cause`` itself) so that no frame in its
    traceback keeps it in a local.

    ``raise err`` where ``err`` is a local puts a cycle error -> traceback -> frame -> error in
    place, and ``raise exc from exc`` makes the error its own cause: either way every array the
    frames hold lives on until gc runs, the leak MXNet's conftest reports after a test that
    checked an error.
    """
    try:
        if cause is None or error is cause:
            raise error
        raise error from cause
    finally:
        error = cause = None


class ErrorRef:
    """One failed op's error, shared by every var it (or an heir op) should have written."""

    __slots__ = ("error", "message", "op")

    def __init__(self, error, op):
        self.error = error
        self.message = f"{type(error).__name__}: {error}"
        self.op = op

    def __bool__(self):
        return self.error is not None

    def take(self):
        """The error, cleared for every var sharing this ref (None when already raised)."""
        error, self.error = self.error, None
        return error

    def __repr__(self):
        state = "pending" if self else "raised"
        return f"<ErrorRef {self.op!r} {state}: {self.message}>"


class EngineOp:
    """One pushed function and its deduplicated vars (``reads`` has no var of ``writes``).

    ``pushed`` is the push time (None when the log is off), ``push_seq`` the op's place in the push
    order.
    """

    __slots__ = ("fn", "name", "reads", "writes", "pushed", "push_seq")

    def __init__(self, fn, name, reads, writes, pushed):
        self.fn = fn
        self.name = name
        self.reads = reads
        self.writes = writes
        self.pushed = pushed
        self.push_seq = next(_push_seq)

    def __repr__(self):
        return f"<EngineOp #{self.push_seq} {self.name}>"


def split_vars(read_vars, write_vars):
    """Deduplicate vars, keeping order; a var both read and written is only written (as MXNet)."""
    writes = tuple(write_vars) if len(write_vars) < 2 else tuple(dict.fromkeys(write_vars))
    if not read_vars:
        return (), writes
    if len(read_vars) == 1 and type(read_vars) in (list, tuple):   # NOTE: no dict to build
        var = read_vars[0]
        return ((), writes) if var in writes else ((var,), writes)
    reads = dict.fromkeys(read_vars)
    for var in writes:
        reads.pop(var, None)
    return tuple(reads), writes


def inherited_error(op):
    """The pending error of a var ``op`` reads or writes (MXNet's ``OnStart``), or None."""
    for var in op.reads + op.writes:
        if var.exception:
            return var.exception
    return None


def run_op(op, log, inherited=None, bulk=None):
    """Run ``op.fn()`` (unless ``inherited`` holds an earlier error), bump versions, log the event.

    Returns the :class:`ErrorRef` the op failed with or inherited, or None. Versions count completed
    writes, so a failed or skipped op leaves them unchanged.
    """
    active = log.active
    start = log.now() if active else 0.0
    reads = tuple((v.id, v.version) for v in op.reads) if active else ()
    error = inherited
    if error is None:
        try:
            op.fn()
        except Exception as exc:  # noqa: BLE001 - stored and re-raised at the next sync point
            error = ErrorRef(op_error(exc, op.name), op.name)
    if error is None:
        for var in op.writes:
            var.version += 1
    if active:
        text = None if error is None else _error_text(error, inherited)
        writes = tuple((v.id, v.version) for v in op.writes)
        log.record(op.name, reads, writes, start, log.now(), text, op.pushed, op.push_seq, bulk)
    return error


def _error_text(error, inherited):
    if inherited is None:
        return error.message
    return f"skipped: input carries the error of {error.op!r} ({error.message})"
