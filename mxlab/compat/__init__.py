"""The opt-in ``mxnet`` alias: run MXNet code unchanged on mxlab.

``install()`` puts a finder first on ``sys.meta_path`` that answers every import of ``mxnet`` or
``mxnet.X`` with the mxlab module of the same path (``mxnet.gluon.nn`` *is* ``mxlab.gluon.nn``), or,
where MXNet's module layout differs from mxlab's, with the module named in :data:`ALIASES`. Nothing
named ``mxnet`` is importable until a user opts in, so a real MXNet install is never shadowed:

* ``python -m mxlab.compat script.py [args]`` (or ``-m module``) runs a script with the alias on;
* ``import mxlab.compat; mxlab.compat.install()`` in a notebook's first cell;
* ``pytest -p mxlab.compat.pytest_plugin`` (or ``PYTEST_PLUGINS=mxlab.compat.pytest_plugin``) for
  test suites written against MXNet.

A module that mxlab does not provide fails to import with the usual ``ModuleNotFoundError`` naming
the ``mxnet`` path, so missing parts show up as such.
"""
import importlib
import importlib.abc
import importlib.util
import sys

__all__ = ["ALIASES", "MXNET_VERSION", "install", "is_installed", "resolve", "uninstall"]

ALIAS_ROOT = "mxnet"
TARGET_ROOT = "mxlab"

# MXNet module path -> mxlab module path, where the layouts differ (everything else maps 1:1).
ALIASES = {
    "mxnet._deferred_compute": "mxlab.deferred_compute",
    "mxnet.ndarray.numpy": "mxlab.numpy",
    "mxnet.ndarray.numpy_extension": "mxlab.numpy_extension",
    "mxnet.ndarray.numpy.random": "mxlab.numpy.random",
    "mxnet.ndarray._internal": "mxlab.compat.internal.ndarray_internal",
    "mxnet.ndarray.numpy._internal": "mxlab.compat.internal.numpy_internal",
    "mxnet.ndarray.numpy_extension._internal": "mxlab.compat.internal.numpy_internal",
    "mxnet.symbol._internal": "mxlab.compat.internal.symbol_internal",
    "mxnet.symbol.numpy._internal": "mxlab.compat.internal.symbol_numpy_internal",
    "mxnet.ndarray.op": "mxlab.ndarray",
    "mxnet.symbol.op": "mxlab.symbol",
    "mxnet.symbol.numpy._symbol": "mxlab.symbol.numpy",
    "mxnet.numpy.multiarray": "mxlab.numpy",
    "mxnet.visualization": "mxlab.viz",
    "mxnet.metric": "mxlab.gluon.metric_v1",       # MXNet 1.x's mx.metric module
    "mxnet.amp": "mxlab.compat.internal.amp",
    "mxnet.amp.amp": "mxlab.compat.internal.amp",
    "mxnet.contrib.amp": "mxlab.compat.internal.amp",
    "mxnet.contrib.amp.amp": "mxlab.compat.internal.amp",
    "mxnet.operator": "mxlab.compat.internal.operator",
    "mxnet.numpy_op_signature": "mxlab.compat.internal.numpy_op_signature",
    "mxnet.numpy_dispatch_protocol": "mxlab.compat.internal.numpy_dispatch_protocol",
}

_ALIAS_PARENTS = {name.rpartition(".")[0] for name in ALIASES}

# Private modules MXNet code reaches as attributes (``mx.nd._internal.NDArrayBase`` in MXNet's own
# conftest) without importing them first: attached to their mxlab parent on install().
_ATTACHED = ("mxnet.ndarray._internal", "mxnet.symbol._internal", "mxnet._deferred_compute",
             "mxnet.visualization", "mxnet.ndarray.numpy", "mxnet.ndarray.numpy_extension",
             "mxnet.operator", "mxnet.ndarray.numpy._internal")
# Short names MXNet gives those modules as attributes (``mx.nd.np.add``).
_SHORT = {"mxnet.ndarray.numpy": "np", "mxnet.ndarray.numpy_extension": "npx"}


def resolve(fullname):
    """The mxlab module path that the MXNet module path ``fullname`` maps to."""
    if fullname in ALIASES:
        return ALIASES[fullname]
    parent, _, leaf = fullname.rpartition(".")
    if parent:
        return resolve(parent) + "." + leaf
    return TARGET_ROOT if fullname == ALIAS_ROOT else fullname


class _AliasLoader(importlib.abc.Loader):
    """Hands the import system the already imported mxlab module instead of a new one."""

    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        return None   # NOTE: a throwaway module; exec_module swaps in the real one

    def exec_module(self, module):
        # NOTE: the import system returns whatever sys.modules holds after exec_module, so the
        # alias and the mxlab module are one object (isinstance checks and state are shared).
        target = importlib.import_module(self.target)
        if module.__name__ in _ALIAS_PARENTS and not hasattr(target, "__path__"):
            target.__path__ = []   # NOTE: a plain mxlab module that MXNet has as a package
        sys.modules[module.__name__] = target


class MXNetAliasFinder(importlib.abc.MetaPathFinder):
    """Finds ``mxnet`` and ``mxnet.*`` as the mxlab module :func:`resolve` names."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != ALIAS_ROOT and not fullname.startswith(ALIAS_ROOT + "."):
            return None
        target_name = resolve(fullname)
        if importlib.util.find_spec(target_name) is None:
            return None
        return importlib.util.spec_from_loader(fullname, _AliasLoader(target_name),
                                               is_package=True)


_finder = MXNetAliasFinder()


def is_installed():
    """Whether ``import mxnet`` currently resolves to mxlab."""
    return _finder in sys.meta_path


# NOTE: the MXNet release whose API the alias stands for: MXNet code checks ``mx.__version__``
#   against its supported range (GluonCV: >= 1.4, < 2.0), and ``mxnet`` is the mxlab module itself.
MXNET_VERSION = "1.9.1"


def install():
    """Make ``import mxnet`` (and every ``mxnet.X``) resolve to mxlab in this process.

    While installed, ``__version__`` reads :data:`MXNET_VERSION` (the MXNet API it emulates);
    mxlab's own stays in ``mxlab.__mxlab_version__``."""
    import mxlab
    if not is_installed():
        sys.meta_path.insert(0, _finder)
        mxlab.__version__ = MXNET_VERSION
    from . import backend_names
    backend_names.attach()
    for name in _ATTACHED:
        parent, _, leaf = name.rpartition(".")
        parent_module = importlib.import_module(resolve(parent))
        for attr in (leaf, _SHORT.get(name)):
            if attr and not hasattr(parent_module, attr):
                setattr(parent_module, attr, importlib.import_module(resolve(name)))
    return importlib.import_module(ALIAS_ROOT)


def uninstall():
    """Undo :func:`install`: drop the finder and every ``mxnet`` entry of ``sys.modules``."""
    import mxlab
    if is_installed():
        sys.meta_path.remove(_finder)
        mxlab.__version__ = mxlab.__mxlab_version__
    for name in [n for n in sys.modules if n == ALIAS_ROOT or n.startswith(ALIAS_ROOT + ".")]:
        del sys.modules[name]
