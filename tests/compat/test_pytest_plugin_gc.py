"""The compat pytest plugin freezes what is alive before each test, so MXNet's leak check (a full
``gc.collect()`` around every test) walks only the test's own objects, and still sees its leaks."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_CONFTEST = '''
import gc
import pytest

@pytest.fixture(autouse=True)
def leak_check(request):
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    yield
    gc.collect()
    gc.set_debug(0)
    request.node.user_properties.append(("garbage", len(gc.garbage)))
    leaked = [x for x in gc.garbage if type(x).__name__ == "Leaky"]
    del gc.garbage[:]
    assert not leaked, "leaked Leaky in a cycle"
'''

_TESTS = '''
import gc

class Leaky:
    pass

KEPT = [Leaky() for _ in range(1000)]

def test_alive_objects_are_frozen():
    assert gc.get_freeze_count() >= 1000

def test_a_new_cycle_is_still_found():
    a = Leaky()
    a.self = a

def test_clean():
    assert KEPT
'''


def test_plugin_freezes_survivors_and_the_leak_check_still_fails_a_cycle(tmp_path):
    (tmp_path / "conftest.py").write_text(_CONFTEST)
    (tmp_path / "test_leaks.py").write_text(_TESTS)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "mxlab.compat.pytest_plugin",
         "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=ROOT), cwd=tmp_path,
        timeout=120, check=False)
    out = result.stdout + result.stderr
    assert "3 passed, 1 error" in out, out   # the error is the cycle test's teardown
    assert "ERROR test_leaks.py::test_a_new_cycle_is_still_found" in out, out
