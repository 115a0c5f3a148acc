"""The opt-in ``mxnet`` alias (mxlab.compat): module paths, identity, opting in and out."""
import os
import subprocess
import sys
import textwrap

import pytest

import mxlab
from mxlab import compat

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Module paths MXNet 1.9.1 / master code and MXNet's own unittests import.
MODULE_PATHS = [
    "mxnet", "mxnet.base", "mxnet.util", "mxnet.test_utils", "mxnet.attribute", "mxnet.name",
    "mxnet.context", "mxnet.device", "mxnet._deferred_compute", "mxnet.autograd", "mxnet.engine",
    "mxnet.ndarray", "mxnet.ndarray.ndarray", "mxnet.ndarray._internal", "mxnet.ndarray.numpy",
    "mxnet.ndarray.numpy._internal", "mxnet.ndarray.numpy_extension", "mxnet.numpy",
    "mxnet.numpy_extension", "mxnet.symbol", "mxnet.symbol._internal", "mxnet.symbol.numpy",
    "mxnet.symbol.numpy._internal", "mxnet.gluon", "mxnet.gluon.nn", "mxnet.gluon.data",
    "mxnet.gluon.data.dataset", "mxnet.gluon.loss", "mxnet.gluon.parameter", "mxnet.gluon.block",
    "mxnet.gluon.utils", "mxnet.gluon.model_zoo.vision", "mxnet.initializer", "mxnet.optimizer",
    "mxnet.lr_scheduler", "mxnet.random", "mxnet.profiler", "mxnet.library", "mxnet.executor",
    "mxnet.visualization", "mxnet.numpy.multiarray", "mxnet.ndarray.op", "mxnet.symbol.op",
]


def _python(code, *args):
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run([sys.executable, *args, "-c", textwrap.dedent(code)] if code else
                          [sys.executable, *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=120, check=False)


@pytest.mark.parametrize("path", MODULE_PATHS)
def test_module_path_resolves_to_the_mxlab_module(alias, path):
    import importlib
    module = importlib.import_module(path)
    assert module is importlib.import_module(compat.resolve(path))
    assert module.__name__.startswith("mxlab")


def test_resolve_maps_paths_and_layout_differences():
    assert compat.resolve("mxnet") == "mxlab"
    assert compat.resolve("mxnet.gluon.nn") == "mxlab.gluon.nn"
    assert compat.resolve("mxnet._deferred_compute") == "mxlab.deferred_compute"
    assert compat.resolve("mxnet.ndarray.numpy.random") == "mxlab.numpy.random"


def test_from_imports_and_star_import_work(alias):
    namespace = {}
    exec("from mxnet.test_utils import *\nimport mxnet as mx\n"  # noqa: S102  (module-level star)
         "from mxnet import gluon, np, npx, autograd\nimport mxnet.gluon.nn\n",
         namespace)
    assert namespace["mx"] is mxlab and namespace["np"] is mxlab.np
    assert namespace["assert_almost_equal"] is mxlab.test_utils.assert_almost_equal
    assert namespace["mxnet"].gluon.nn is mxlab.gluon.nn


def test_private_op_namespaces_call_registered_ops(alias):
    import mxnet.ndarray.numpy._internal as _npi
    out = _npi.add(mxlab.np.ones((2,)), mxlab.np.ones((2,)))
    assert isinstance(out, mxlab.np.ndarray) and out.asnumpy().tolist() == [2.0, 2.0]
    assert mxlab.nd._internal.NDArrayBase is mxlab.nd.NDArray
    mask = mxlab.nd.np._internal.boolean_mask(mxlab.np.arange(4), mxlab.np.array([0, 1, 1, 0]))
    assert mask.asnumpy().tolist() == [1, 2]   # NOTE: reached as an attribute, not imported
    assert mxlab.sym._internal.SymbolBase is mxlab.sym.Symbol
    with pytest.raises(AttributeError, match="no_such_op"):
        getattr(_npi, "no_such_op")  # noqa: B009


def test_a_module_mxlab_lacks_is_a_module_not_found_error(alias):
    with pytest.raises(ModuleNotFoundError, match="mxnet.no_such_module"):
        import mxnet.no_such_module  # noqa: F401


def test_nothing_named_mxnet_without_opting_in():
    result = _python("""
        import mxlab
        try:
            import mxnet
        except ModuleNotFoundError:
            print("absent")
    """)
    assert result.stdout.strip() == "absent", result.stderr


def test_uninstall_removes_the_alias():
    compat.install()
    import mxnet
    compat.uninstall()
    assert "mxnet" not in sys.modules and not compat.is_installed()
    with pytest.raises(ModuleNotFoundError):
        import mxnet  # noqa: F401


def test_python_m_mxlab_compat_runs_a_script_with_args(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import sys, mxnet as mx\nprint(mx.__name__, sys.argv[1:], __name__)\n")
    result = _python(None, "-m", "mxlab.compat", str(script), "--epochs", "2")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "mxlab ['--epochs', '2'] __main__"


def test_python_m_mxlab_compat_runs_a_module():
    result = _python(None, "-m", "mxlab.compat", "-m", "json.tool", "--help")
    assert result.returncode == 0 and "usage" in result.stdout


def test_python_m_mxlab_compat_without_a_script_prints_usage():
    result = _python(None, "-m", "mxlab.compat")
    assert result.returncode == 2 and "usage" in result.stderr


def test_pytest_plugin_installs_the_alias_before_tests_import(tmp_path):
    (tmp_path / "test_mx.py").write_text(
        "import mxnet as mx\n\ndef test_it():\n    assert mx.__name__ == 'mxlab'\n")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "mxlab.compat.pytest_plugin",
         "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=ROOT), cwd=tmp_path,
        timeout=120, check=False)
    assert "1 passed" in result.stdout, result.stdout + result.stderr


def test_the_alias_reports_the_mxnet_release_it_emulates_and_restores_mxlabs():
    import mxlab
    import mxlab.compat as compat
    was_installed = compat.is_installed()
    compat.install()
    try:
        import mxnet
        assert mxnet.__version__ == compat.MXNET_VERSION == "1.9.1"
        assert mxlab.__mxlab_version__ != mxnet.__version__
    finally:
        if not was_installed:
            compat.uninstall()
    if not was_installed:
        assert mxlab.__version__ == mxlab.__mxlab_version__
