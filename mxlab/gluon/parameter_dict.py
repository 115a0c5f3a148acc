"""``ParameterDict``: what ``collect_params`` returns, and a Gluon 1 block's prefixed ``params``
(``get`` creates parameters by full name, ``shared`` finds those of the block given as
``params=``); its ``save``/``load`` use MXNet's .params format."""
import numpy

from ..base import MXNetValueError
from . import parameter as _parameter
from .parameter import Constant, Parameter

__all__ = ["ParameterDict"]


class ParameterDict(dict):
    """``{name: Parameter}``: what ``Block.collect_params`` returns (Gluon 2 structural names)
    and, with a ``prefix``, a Gluon 1 block's ``params`` (full names such as ``dense0_weight``;
    ``get`` creates parameters, ``shared`` is the dict of the block given as ``params=``).

    Lookups also accept a parameter's Gluon 1 full name, and in a prefixed dict its local name.
    """

    def __init__(self, prefix_or_items=(), shared=None):
        is_prefix = isinstance(prefix_or_items, str)
        super().__init__(() if is_prefix else prefix_or_items)
        self._prefix = prefix_or_items if is_prefix else ""
        self._shared = shared
        self._created = False   # NOTE: Gluon 1 code called get(): see Block.collect_params

    @property
    def prefix(self):
        """The prefix of the names this dict creates (Gluon 1)."""
        return self._prefix

    def _lookup(self, key):
        for candidate in (key, self._prefix + key):
            if dict.__contains__(self, candidate):
                return dict.__getitem__(self, candidate)
        found = [p for p in self.values() if p.__dict__.get("_gluon1_name", p.name) == key]
        if found:
            return found[0]
        return self._shared._lookup(key) if self._shared is not None else None

    def __getitem__(self, key):
        found = self._lookup(key)
        if found is None:
            raise KeyError(key)
        return found

    def get(self, name, *default, **kwargs):
        """Gluon 1 (a prefixed dict, no default): the parameter ``prefix + name``, created with
        ``kwargs`` (``shape``, ``init``, ...) if neither this dict nor ``shared`` has it.
        An unprefixed dict does so too when given attributes (``ParameterDict().get('x',
        shape=(2,))``); otherwise it is ``dict.get``, also finding Gluon 1 full names."""
        if (not self._prefix and not kwargs) or default:   # NOTE: attributes: Gluon 1's get
            found = self._lookup(name)
            return found if found is not None else (default[0] if default else None)
        full = self._prefix + name
        param = self._lookup(full)
        self._created = True
        if param is None:
            param = Parameter(full, **kwargs)
            dict.__setitem__(self, full, param)
        else:
            _merge_attributes(param, kwargs)
        return param

    def get_constant(self, name, value=None):
        """Gluon 1: the :class:`Constant` ``prefix + name`` (created from ``value``)."""
        full = self._prefix + name
        param = self._lookup(full)
        self._created = True
        if param is None:
            if value is None:
                raise MXNetValueError(f"No constant named '{full}'. Please specify value if you "
                                      "want to create a new constant.")
            param = Constant(value, name=full)
            dict.__setitem__(self, full, param)
        return param

    def update(self, other=(), **kwargs):
        """Add ``other``'s entries; a name already bound to a different Parameter is an error."""
        items = list(other.items() if hasattr(other, "items") else other) + list(kwargs.items())
        for key, param in items:
            if dict.__contains__(self, key) and dict.__getitem__(self, key) is not param:
                raise MXNetValueError(f"Cannot update self with other because they have "
                                      f"different Parameters with the same name '{key}'")
            dict.__setitem__(self, key, param)

    def save(self, filename, strip_prefix=""):
        """Save every parameter under its name less ``strip_prefix`` (MXNet's .params format)."""
        from ..ndarray import serialization
        arrays = {}
        for key, param in self.items():
            if not key.startswith(strip_prefix):
                raise MXNetValueError(f"Prefix '{strip_prefix}' is to be striped before saving, "
                                      f"but Parameter's name '{key}' does not start with it")
            arrays[key[len(strip_prefix):]] = param._reduce()
        serialization.save(filename, arrays)

    def load(self, filename, ctx=None, allow_missing=False, ignore_extra=False, restore_prefix="",
             cast_dtype=False, dtype_source="current", device=None):
        """Load a file saved by :meth:`save` (names get ``restore_prefix`` back)."""
        from ..ndarray import serialization
        loaded = {restore_prefix + k.split(":", 1)[-1]: v
                  for k, v in serialization.load(filename).items()}
        if not allow_missing:
            for key in self:
                if key not in loaded:
                    raise MXNetValueError(f"Parameter '{key}' is missing in file '{filename}'. "
                                          "Set allow_missing=True to ignore missing parameters.")
        for key, value in loaded.items():
            if not dict.__contains__(self, key):
                if ignore_extra:
                    continue
                raise MXNetValueError(f"Parameter '{key}' loaded from file '{filename}' is not "
                                      "present in this ParameterDict. Set ignore_extra=True.")
            dict.__getitem__(self, key)._load_init(value, device if device is not None else ctx,
                                                   cast_dtype=cast_dtype,
                                                   dtype_source=dtype_source)

    def __repr__(self):
        """Gluon 1 (a prefix): MXNet 1.x's block listing; Gluon 2: the dict's (MXNet 2.0 returns a
        plain dict, so ``str(net.collect_params())`` names each parameter on one line)."""
        if not self._prefix:
            return dict.__repr__(self)
        body = "\n".join(f"  {type(p).__name__} {key} (shape={p.shape}, dtype={p.dtype})"
                          for key, p in self.items())
        return f"{self._prefix} (\n{body}\n)"

    def initialize(self, init=None, ctx=None, verbose=False, force_reinit=False, device=None):
        from .. import initializer

        init = init if init is not None else initializer.Uniform()
        for param in self.values():
            param.initialize(None, device if device is not None else ctx, init,
                             force_reinit=force_reinit)

    def zero_grad(self):
        for param in self.values():
            param.zero_grad()

    def setattr(self, name, value):
        for param in self.values():
            setattr(param, name, value)

    def list_ctx(self):
        """MXNet 1.x: every device some parameter lives on."""
        return list({d: None for p in self.values() for d in p.list_ctx()})

    def reset_ctx(self, ctx=None, device=None):
        for param in self.values():
            param.reset_ctx(ctx, device)

    reset_device = reset_ctx


def _merge_attributes(param, given):
    """Gluon 1 ``params.get`` of an existing parameter: given attributes must agree; unknown
    shape dimensions (0 or -1) are filled in."""
    for key, value in given.items():
        existing = getattr(param, key, None)
        if value is None or existing is None:
            if value is not None:
                setattr(param, key, value)
            continue
        if key == "shape":
            value = (value,) if isinstance(value, int) else tuple(value)
            if len(value) == len(existing) and all(a in (0, -1, b) or b in (0, -1)
                                                   for a, b in zip(existing, value)):
                param.shape = tuple(b if a in (0, -1) else a for a, b in zip(existing, value))
                continue
        elif key == "dtype" and numpy.dtype(value) == numpy.dtype(existing):
            continue
        if value != existing:
            raise MXNetValueError(f"Cannot retrieve Parameter '{param.name}' because desired "
                                  f"attribute does not match with stored for attribute '{key}': "
                                  f"desired '{value}' vs stored '{existing}'.")


# NOTE: MXNet 1.x defines ParameterDict in gluon/parameter.py, and D2L's MXNet tab reads it there
#   (isinstance(params, gluon.parameter.ParameterDict)); set from here, as parameter.py importing
#   this module back would make a cycle
_parameter.ParameterDict = ParameterDict
