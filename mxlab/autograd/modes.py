"""Autograd's modes: whether ops are recorded (``record``/``pause``) and whether they run in
training mode (``train_mode``/``predict_mode``), thread-local as MXNet's."""
from ..base import MXNetRuntimeError
from ..imperative import STATE

__all__ = ["set_recording", "set_training", "is_recording", "is_training", "record", "pause",
           "train_mode", "predict_mode", "DEFERRED_MSG"]

DEFERRED_MSG = "Autograd recording is not supported during deferred compute mode."


def set_recording(is_recording):  # pylint: disable=redefined-outer-name
    """Turn tape recording on or off for this thread; returns the previous state.

    Recording cannot start while deferred compute (hybridize tracing) is on.
    """
    if is_recording and STATE.deferred:
        raise MXNetRuntimeError(DEFERRED_MSG)
    previous, STATE.recording = STATE.recording, bool(is_recording)
    return previous


def set_training(train_mode):  # pylint: disable=redefined-outer-name
    """Set training (``True``) or predicting mode for this thread; returns the previous state.

    Ops such as Dropout and BatchNorm read it.
    """
    previous, STATE.training = STATE.training, bool(train_mode)
    return previous


def is_recording():
    """Whether ops are being recorded for gradient computation."""
    return STATE.recording


def is_training():
    """Whether ops run in training mode."""
    return STATE.training


class _RecordingStateScope:
    """Sets recording and/or training on entry (``None`` leaves a flag alone), restores on exit."""

    def __init__(self, is_record, train_mode):  # pylint: disable=redefined-outer-name
        self._enter_is_record = is_record
        self._enter_train_mode = train_mode
        self._prev_is_record = None
        self._prev_train_mode = None

    def __enter__(self):
        if self._enter_is_record is not None:
            self._prev_is_record = set_recording(self._enter_is_record)
        if self._enter_train_mode is not None:
            self._prev_train_mode = set_training(self._enter_train_mode)
        return self

    def __exit__(self, *exc):
        if self._enter_is_record is not None and self._prev_is_record != self._enter_is_record:
            set_recording(self._prev_is_record)
        if self._enter_train_mode is not None and self._prev_train_mode != self._enter_train_mode:
            set_training(self._prev_train_mode)


def record(train_mode=True):  # pylint: disable=redefined-outer-name
    """Scope that records ops for :func:`backward` (training mode unless ``train_mode=False``).

    Examples
    --------
    >>> import mxlab as mx
    >>> with mx.autograd.record():
    ...     print(mx.autograd.is_recording(), mx.autograd.is_training())
    True True
    """
    return _RecordingStateScope(True, train_mode)


def pause(train_mode=False):  # pylint: disable=redefined-outer-name
    """Scope that stops recording (predicting mode unless ``train_mode=True``), e.g. for metrics.

    Examples
    --------
    >>> import mxlab as mx
    >>> with mx.autograd.record():
    ...     with mx.autograd.pause():
    ...         print(mx.autograd.is_recording())
    False
    """
    return _RecordingStateScope(False, train_mode)


def train_mode():
    """Scope in training mode, recording left as it is."""
    return _RecordingStateScope(None, True)


def predict_mode():
    """Scope in predicting mode, recording left as it is."""
    return _RecordingStateScope(None, False)

