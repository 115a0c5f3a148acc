"""mx.util: the NumPy-semantics switches (process-wide setters, per-thread scopes, decorators)."""
import doctest
import subprocess
import sys
import threading

import pytest

import mxlab as mx
from mxlab import util
from mxlab.base import MXNetError, MXNetTypeError


def _flags():
    return util.is_np_shape(), util.is_np_array(), util.is_np_default_dtype()


@pytest.fixture(autouse=True)
def _start_from_mxnet_defaults():
    """Each test starts with every switch off (conftest restores the previous state afterwards)."""
    util.reset_np()


def test_flags_are_off_in_a_fresh_process():
    code = ("import mxlab as mx; "
            "print(mx.is_np_shape(), mx.is_np_array(), mx.util.is_np_default_dtype())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False", "False"]


def test_set_np_and_reset_np_switch_every_flag():
    mx.npx.set_np()
    assert _flags() == (True, True, False)
    mx.npx.set_np(dtype=True)
    assert _flags() == (True, True, True)
    mx.npx.reset_np()
    assert _flags() == (False, False, False)


def test_set_np_refuses_array_without_shape():
    with pytest.raises(ValueError, match="shape semantics is required") as info:
        util.set_np(shape=False, array=True)
    assert isinstance(info.value, MXNetError)
    assert _flags() == (False, False, False)


def test_set_np_shape_returns_previous_state():
    assert mx.set_np_shape(True) is False
    assert mx.set_np_shape(False) is True
    assert util.set_np_default_dtype(True) is False
    assert util.is_np_default_dtype()


def test_scopes_nest_and_restore():
    with mx.np_shape(True):
        assert mx.is_np_shape()
        with mx.np_shape(False):
            assert not mx.is_np_shape()
        assert mx.is_np_shape()
    assert not mx.is_np_shape()


def test_scope_overrides_the_global_value_and_restores_after_an_error():
    util.set_np()
    with pytest.raises(RuntimeError):
        with util.np_array(False):
            assert not util.is_np_array()
            raise RuntimeError("boom")
    assert util.is_np_array()


def test_scopes_are_per_thread_but_set_np_is_process_wide():
    seen = {}

    def worker(key):
        seen[key] = _flags()

    with util.np_shape(True):
        thread = threading.Thread(target=worker, args=("scoped",))
        thread.start()
        thread.join()
    util.set_np()
    thread = threading.Thread(target=worker, args=("global",))
    thread.start()
    thread.join()
    assert seen == {"scoped": (False, False, False), "global": (True, True, False)}


def test_use_np_wraps_a_function():
    @mx.use_np
    def inside(value):
        return _flags(), value

    assert inside(3) == ((True, True, False), 3)
    assert inside.__name__ == "inside"
    assert _flags() == (False, False, False)


class _Plain:
    def method(self):
        return _flags()

    @staticmethod
    def static():
        return _flags()

    @classmethod
    def klass(cls):
        return cls, _flags()

    @property
    def prop(self):
        return _flags()


def test_use_np_wraps_every_method_of_a_class():
    cls = mx.use_np(type("Decorated", (_Plain,), {}))
    obj = cls()
    on = (True, True, False)
    assert obj.method() == on
    assert cls.static() == on
    with pytest.raises(TypeError):   # NOTE: MXNet's use_np makes a staticmethod a method
        obj.static()
    assert cls.klass() == (cls, on)
    assert obj.prop == on
    assert _Plain().method() == (False, False, False)


@pytest.mark.parametrize("decorator, flags", [
    (util.use_np_shape, (True, False, False)),
    (util.use_np_array, (False, True, False)),
    (util.use_np_default_dtype, (False, False, True)),
])
def test_single_flag_decorators(decorator, flags):
    assert decorator(_flags)() == flags


def test_use_np_rejects_non_callables():
    with pytest.raises(MXNetTypeError, match="use_np can only decorate"):
        mx.use_np(3)


def test_npx_exports_the_switches():
    for name in ("set_np", "reset_np", "is_np_array", "is_np_shape", "use_np"):
        assert getattr(mx.npx, name) is getattr(util, name)


def test_getenv_and_setenv_round_trip(monkeypatch):
    monkeypatch.delenv("MXLAB_TEST_UTIL_VAR", raising=False)
    assert util.getenv("MXLAB_TEST_UTIL_VAR") is None
    util.setenv("MXLAB_TEST_UTIL_VAR", 5)
    assert util.getenv("MXLAB_TEST_UTIL_VAR") == "5"
    util.setenv("MXLAB_TEST_UTIL_VAR", None)
    assert util.getenv("MXLAB_TEST_UTIL_VAR") is None


def test_set_module_renames_the_module():
    @util.set_module("mxlab.numpy")
    def f():
        pass

    assert f.__module__ == "mxlab.numpy"


def test_docstring_examples_run():
    result = doctest.testmod(util, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 5 and result.failed == 0
