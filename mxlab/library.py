"""Extensions: load out-of-tree ops, subgraph backends and graph passes (``mx.library``).

An extension is a Python module with a ``register()`` function that registers what it brings
with the ordinary APIs (``mxlab.ops.registry.register``, ``register_subgraph_property``,
``register_pass``). :func:`load` takes a ``.py`` file, a package directory, a project directory
whose ``pyproject.toml`` declares an entry point in the group ``mxlab.extensions``, a module name
or a module; :func:`discover` loads every installed entry point of that group.

Loading runs the extension's code, by design: load only files you trust. A ``.py`` file or
package directory is imported under a private module name
(``mxlab._libraries.<stem>_<hash of its path>``), so loading never replaces a module already in
``sys.modules`` (a ``json.py`` extension does not become ``json``); the extension's name, for
:func:`unload` and :func:`loaded`, is still the file's stem. Inside such a package, import its
own modules relatively (``from . import helpers``).

Loading is transactional: the op, backend and pass registries are compared before and after
(import and ``register()``); on any failure (import error, a name clash, no ``register``, a
backend without ``create_subgraph_selector``) what the extension registered is removed and an
:class:`~mxlab.base.MXNetError` names the extension and the cause. :func:`unload` removes what an
extension registered, so it can be loaded again.

Example
-------
>>> import mxlab as mx, pathlib, tempfile
>>> path = pathlib.Path(tempfile.mkdtemp()) / "demo_ext.py"
>>> _ = path.write_text('''
... from mxlab.ops import registry
... def register():
...     registry.register(registry.Op(name="demo_twice", compute=lambda xp, ins, a: ins[0] * 2))
... ''')
>>> ext = mx.library.load(str(path))
>>> ext.ops, mx.nd.demo_twice(mx.nd.ones((2,))).asnumpy()
(['demo_twice'], array([2., 2.], dtype=float32))
>>> mx.library.unload('demo_ext')
"""
import dataclasses
import hashlib
import importlib
import importlib.metadata
import importlib.util
import os
import re
import sys
import tomllib
import types

from .base import MXNetError, MXNetKeyError, MXNetValueError
from .graph import passes as _passes
from .ops import registry as _ops
from .subgraph import registry as _backends

__all__ = ["Extension", "load", "discover", "unload", "loaded", "ENTRY_POINT_GROUP",
           "compiled_with_gcc_cxx11_abi"]

ENTRY_POINT_GROUP = "mxlab.extensions"
_LOADED = {}


@dataclasses.dataclass
class Extension:
    """A loaded extension and what it registered."""
    name: str
    module: types.ModuleType
    ops: list
    backends: list
    passes: list
    source: str


# -- the registries an extension may change ------------------------------------------------------
_REGISTRIES = (
    ("ops", _ops.list_ops, _ops.unregister),
    ("backends", _backends.list_backends, _backends.unregister_subgraph_property),
    ("passes", _passes.list_passes, _passes.unregister_pass),
)


def _snapshot():
    return {kind: set(listing()) for kind, listing, _ in _REGISTRIES}


def _added(before):
    return {kind: sorted(set(listing()) - before[kind]) for kind, listing, _ in _REGISTRIES}


def _remove(added):
    for kind, _, remove in _REGISTRIES:
        for name in added.get(kind, ()):
            remove(name)


# -- finding the module --------------------------------------------------------------------------
# NOTE: a file is imported under a private name, never its bare one: a ``json.py`` loaded as
#   ``json`` would replace the standard module for the whole process.
_HOME = "mxlab._libraries"


def _private_name(stem, location):
    """``mxlab._libraries.<stem>_<hash of the absolute path>``: one name per file."""
    digest = hashlib.sha256(os.path.abspath(location).encode()).hexdigest()[:12]
    return f"{_HOME}.{re.sub(r'[^0-9A-Za-z_]', '_', stem)}_{digest}"


def _home():
    """The (module-less) package holding the modules loaded from files."""
    if _HOME not in sys.modules:
        home = types.ModuleType(_HOME, "Modules mx.library.load imported from files.")
        home.__path__ = []
        sys.modules[_HOME] = home


def _refuse_loaded(name):
    if name in _LOADED:
        raise MXNetValueError(f"extension '{name}' is already loaded; unload it first")


def _import_file(path, stem, package_dir=None):
    """Run the file ``path`` as a new module under its private name (see :func:`_private_name`);
    nothing already in ``sys.modules`` is replaced."""
    _refuse_loaded(stem)
    name = _private_name(stem, package_dir or path)
    if name in sys.modules:
        raise MXNetValueError(f"'{package_dir or path}' is already imported as {name}")
    _home()
    locations = [package_dir] if package_dir else None
    spec = importlib.util.spec_from_file_location(name, path,
                                                  submodule_search_locations=locations)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _entry_point_module(project_dir):
    """The module named by the ``mxlab.extensions`` entry point of a project's pyproject.toml."""
    with open(os.path.join(project_dir, "pyproject.toml"), "rb") as f:
        project = tomllib.load(f).get("project", {})
    points = project.get("entry-points", {}).get(ENTRY_POINT_GROUP, {})
    if not points:
        raise MXNetValueError(f"{project_dir}/pyproject.toml declares no entry point in the "
                              f"group '{ENTRY_POINT_GROUP}'")
    name, target = next(iter(points.items()))
    return name, target.split(":")[0]


def _import(target):
    """``(name, module, source)`` for a path, a directory, a module name or a module."""
    if isinstance(target, types.ModuleType):
        return target.__name__.rsplit(".", 1)[-1], target, target.__name__
    target = os.fspath(target)
    if target.endswith(".py") and os.path.isfile(target):
        name = os.path.splitext(os.path.basename(target))[0]
        return name, _import_file(target, name), target
    if os.path.isfile(os.path.join(target, "__init__.py")):
        name = os.path.basename(os.path.normpath(target))
        return name, _import_file(os.path.join(target, "__init__.py"), name, target), target
    if os.path.isfile(os.path.join(target, "pyproject.toml")):
        name, module_name = _entry_point_module(target)
        if target not in sys.path:
            sys.path.insert(0, os.path.abspath(target))
        return name, importlib.import_module(module_name), target
    if os.path.sep in target or os.path.exists(target):
        raise MXNetValueError(f"cannot load extension '{target}': not a .py file, a package or "
                              f"a project directory with pyproject.toml")
    return target.rsplit(".", 1)[-1], importlib.import_module(target), target


def _check(name, module, added):
    """Refuse extensions without ``register`` or with incomplete subgraph properties."""
    if not callable(getattr(module, "register", None)):
        raise MXNetValueError(f"extension '{name}' has no register() function")
    for backend in added.get("backends", ()):
        factory = _backends._BACKENDS[backend]
        method = getattr(factory, "create_subgraph_selector", None)
        base = _backends.SubgraphProperty.create_subgraph_selector
        if method is None or method is base:
            raise MXNetValueError(f"extension '{name}': subgraph backend '{backend}' does not "
                                  f"define create_subgraph_selector()")


# -- public API ----------------------------------------------------------------------------------
def load(path_or_module):
    """Load an extension (see module doc); returns its :class:`Extension` record.

    Raises
    ------
    MXNetError
        Naming the extension and the cause; no registry is left changed.
    """
    before = _snapshot()
    modules_before = set(sys.modules)
    label = getattr(path_or_module, "__name__", path_or_module)
    try:
        name, module, source = _import(path_or_module)
        _refuse_loaded(name)
        if callable(getattr(module, "register", None)):
            module.register()
        added = _added(before)
        _check(name, module, added)
    except Exception as exc:
        _remove(_added(before))
        for mod in set(sys.modules) - modules_before:
            del sys.modules[mod]
        if isinstance(exc, MXNetError):
            raise type(exc)(f"cannot load extension '{label}': {exc}") from exc
        raise MXNetValueError(f"cannot load extension '{label}': {type(exc).__name__}: "
                              f"{exc}") from exc
    record = Extension(name, module, added["ops"], added["backends"], added["passes"], source)
    _LOADED[name] = record
    return record


def discover():
    """Load every installed entry point of the group ``mxlab.extensions`` not loaded yet; returns
    the new :class:`Extension` records."""
    records = []
    for point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        if point.name in _LOADED:
            continue
        module_name = point.value.split(":")[0]
        record = load(module_name)
        if record.name != point.name:
            _LOADED[point.name] = _LOADED.pop(record.name)
            record.name = point.name
        records.append(record)
    return records


def unload(name):
    """Remove everything extension ``name`` registered (and forget its modules)."""
    record = _LOADED.pop(name, None)
    if record is None:
        raise MXNetKeyError(f"extension '{name}' is not loaded; loaded: {sorted(_LOADED)}")
    _remove({"ops": record.ops, "backends": record.backends, "passes": record.passes})
    prefix = record.module.__name__
    for mod in [m for m in sys.modules if m == prefix or m.startswith(prefix + ".")]:
        del sys.modules[mod]


def loaded():
    """``{name: Extension}`` of the loaded extensions."""
    return dict(_LOADED)


def compiled_with_gcc_cxx11_abi():
    """MXNet: the C++ ABI its library was built with (1, 0); -1 here, as there is no C++ build."""
    return -1
