"""A block's ``summary`` table and its parameter checkpoints (``save_parameters``,
``load_parameters``, ``load_dict``), as a mixin of :class:`~mxlab.gluon.Block`: structured names
(``0.weight``) in MXNet's .params format, ``arg:``/``aux:`` prefixes, and MXNet 1.x prefixed names
matched in order.

Example
-------
>>> import os, tempfile
>>> import mxlab as mx
>>> net = mx.gluon.nn.Dense(2, in_units=3)
>>> net.initialize()
>>> path = os.path.join(tempfile.mkdtemp(), "dense.params")
>>> net.save_parameters(path)
>>> twin = mx.gluon.nn.Dense(2, in_units=3)
>>> twin.load_parameters(path)
>>> bool((twin.weight.data() == net.weight.data()).asnumpy().all())
True
"""
import collections
import json
import warnings

from ..atomic_file import write_text
from ..base import MXNetAssertionError, MXNetValueError
from ..ndarray.ndarray import NDArray
from .nesting import _flatten

__all__ = ["BlockCheckpoints"]


class BlockCheckpoints:
    """Parameter checkpoints and the summary of a block (a mixin of
    :class:`~mxlab.gluon.Block`)."""

    def _check_container_with_block(self):
        """Warn (as MXNet) about lists, tuples or dicts of blocks held as attributes: their
        parameters are not collected."""
        children = [id(c) for c in self._children.values()]

        def unregistered(data):
            if isinstance(data, (list, tuple)):
                return any(unregistered(d) for d in data)
            if isinstance(data, dict):
                return any(unregistered(d) for d in data.values())
            return hasattr(data, "collect_params") and id(data) not in children
        for key, value in self.__dict__.items():
            if isinstance(value, (list, tuple, dict)) and not key.startswith("_") and \
                    unregistered(value):
                warnings.warn(f'"{type(self).__name__}.{key}" is an unregistered container with '
                              "Blocks. Note that Blocks inside the list, tuple or dict will not "
                              "be registered automatically. Make sure to register them using "
                              "register_child() or switching to nn.Sequential/"
                              "nn.HybridSequential instead. ", stacklevel=3)

    def setattr(self, name, value):
        """Set attribute ``name`` (``grad_req``, ``lr_mult``, ...) of every parameter."""
        for param in self.collect_params().values():
            setattr(param, name, value)

    def save_parameters(self, filename, deduplicate=False):
        """Save the parameters under structured names (``0.weight``) in MXNet's .params format."""
        from ..ndarray import serialization
        from .gluon1 import uses_gluon1

        # NOTE: Gluon 1 code saves a SymbolBlock's parameters under 1.x's names (the names less
        #   their common prefix), so a twin model with other block counters loads the file
        params = self._collect_params_with_prefix(legacy=uses_gluon1(self))
        if deduplicate:
            first = {}
            for name, param in params.items():
                first.setdefault(id(param), name)
            params = {name: p for name, p in params.items() if first[id(p)] == name}
        serialization.save(filename, {name: p._reduce() for name, p in params.items()})

    def load_parameters(self, filename, ctx=None, allow_missing=False, ignore_extra=False,
                        cast_dtype=False, dtype_source="current", device=None):
        """Load parameters saved by ``save_parameters`` (here or in MXNet), or exported ones.

        Names may carry ``arg:``/``aux:`` prefixes; MXNet 1.x prefixed names (``dense0_weight``)
        are matched in order when that pairing is unambiguous.
        """
        from ..ndarray import serialization
        from .gluon1 import uses_gluon1

        loaded = serialization.load(filename)
        if loaded and not any("." in name for name in loaded) and uses_gluon1(self):
            # NOTE: MXNet 1.x: a file of full names (save_params, collect_params().save)
            self.collect_params().load(filename, device if device is not None else ctx,
                                       allow_missing, ignore_extra, self.prefix, cast_dtype,
                                       dtype_source)
            return
        self._load_named(loaded, f"file '{filename}'", allow_missing,
                         ignore_extra, cast_dtype, dtype_source, device if device is not None
                         else ctx)

    def save_params(self, filename):
        """MXNet 1.x (deprecated there): the parameters under their full names less this block's
        prefix, as ``collect_params().save(filename, strip_prefix=prefix)``."""
        warnings.warn("save_params is deprecated. Please use save_parameters. Note that if you "
                      "want load from SymbolBlock later, please use export instead.",
                      DeprecationWarning, stacklevel=2)
        from .gluon1 import collect_gluon1
        collect_gluon1(self).save(filename, strip_prefix=self.prefix)

    def load_params(self, filename, ctx=None, allow_missing=False, ignore_extra=False):
        """MXNet 1.x (deprecated there): :meth:`load_parameters`."""
        warnings.warn("load_params is deprecated. Please use load_parameters.",
                      DeprecationWarning, stacklevel=2)
        self.load_parameters(filename, ctx, allow_missing, ignore_extra)

    def load_dict(self, param_dict, device=None, allow_missing=False, ignore_extra=False,
                  cast_dtype=False, dtype_source="current", ctx=None):
        """Load parameters from ``{name: array}`` (MXNet 2.0), names as in ``save_parameters``."""
        from ..util import default_array

        loaded = {k: v if isinstance(v, NDArray) else default_array(v, dtype=v.dtype)
                  for k, v in param_dict.items()}
        self._load_named(loaded, "the dict", allow_missing, ignore_extra, cast_dtype,
                         dtype_source, device if device is not None else ctx)

    def _load_named(self, loaded, source, allow_missing, ignore_extra, cast_dtype, dtype_source,
                    device):
        loaded = {_strip_role(k): v for k, v in loaded.items()}
        # NOTE: MXNet 1.x files name a SymbolBlock's parameters their own way: both are accepted
        params = {**self._collect_params_with_prefix(legacy=True),
                  **self._collect_params_with_prefix()}
        if loaded and params and not set(loaded) & set(params):
            loaded = _match_legacy_names(loaded, params, source)
        if not allow_missing:
            by_param = collections.defaultdict(list)
            for name, param in params.items():
                by_param[id(param)].append(name)
            for name, param in params.items():
                if not any(alias in loaded for alias in by_param[id(param)]):
                    raise MXNetValueError(
                        f"Parameter '{name}' is missing in {source}, which contains "
                        f"parameters: {_brief(loaded)}. Set allow_missing=True to ignore missing "
                        f"parameters."
                    )
        for name, value in loaded.items():
            if name not in params:
                if ignore_extra:
                    continue
                raise MXNetValueError(
                    f"Parameter '{name}' loaded from {source} is not present in Dict, "
                    f"which contains parameters {_brief(params)}. Set ignore_extra=True to ignore."
                )
            params[name]._load_init(value, device, cast_dtype=cast_dtype,
                                    dtype_source=dtype_source)

    def save(self, prefix):
        """MXNet 1.x's ``Block.save``: the block tree (each block's name, whether it is
        hybridized, its traced graph) in ``prefix-model.json`` and the parameters in
        ``prefix-model.params``; :meth:`load` restores them into a tree built by the same code."""
        model = {}

        def visit(block, index, structure):
            entry = {"orig_name": block.name, "hybridized": False}
            structure[type(block).__name__.lower() + str(index[0])] = entry
            graph = getattr(block, "_cached_graph", ())
            if graph and getattr(block, "_active", False):
                entry.update(hybridized=True, in_format=block._in_format,
                             out_format=block._out_format, symbol=graph[1].tojson(),
                             inputs=[sym.tojson() for sym in graph[0]])
            entry["children"] = children = {}
            for key, child in block._children.items():
                index[0] += 1
                children[child.name] = key
                visit(child, index, entry)

        visit(self, [0], model)
        write_text(prefix + "-model.json", json.dumps(model))
        self.save_parameters(prefix + "-model.params")

    def load(self, prefix):
        """Restore what :meth:`save` wrote: children take their saved names and keys (so the
        parameters' structured names match), saved hybridized blocks hybridize again (traced on
        their next call), then the parameters load."""
        with open(prefix + "-model.json") as source:
            model = json.load(source)

        def visit(block, index, structure):
            key = type(block).__name__.lower() + str(index[0])
            if key not in structure:
                raise MXNetValueError(f"Block {key} is not in the saved model {prefix}-model.json:"
                                      f" the tree must be built by the code that saved it")
            entry = structure[key]
            block._name = entry["orig_name"]
            if entry.get("hybridized") and hasattr(block, "_active"):
                block._active = True
                block._clear_cached_op()
            for child in block._children.values():
                index[0] += 1
                visit(child, index, entry)
            names = entry["children"]
            block._children = collections.OrderedDict(
                (names.get(child.name, k), child) for k, child in block._children.items())

        visit(self, [0], model)
        self.load_parameters(prefix + "-model.params")

    # -- summary -----------------------------------------------------------------------------------
    def summary(self, *inputs):
        """Print each layer's output shape and parameter count for one forward of ``inputs``."""
        rows, handles, seen = [], [], set()
        self.apply(_not_hybridized)

        def record(block, _, outputs):
            shapes = [tuple(o.shape) for o in _flatten(outputs, "output")[0] if o is not None]
            count = 0
            for param in block._reg_params.values():
                if id(param) not in seen:
                    seen.add(id(param))
                    count += _size(param.shape)
            rows.append((f"{type(block).__name__}-{len(rows) + 1}", shapes, count))

        self.apply(lambda block: handles.append(block.register_forward_hook(record)))
        try:
            self(*inputs)
        finally:
            for handle in handles:
                handle.detach()
        print(_summary_table(rows, inputs, self.collect_params()))


def _not_hybridized(block):
    if getattr(block, "_active", False):
        raise MXNetAssertionError(f'"{type(block).__name__}" must not be hybridized to print '
                                  "summary.")


def _brief(names, limit=5):
    names = list(names)
    shown = ", ".join(repr(n) for n in names[:limit])
    return shown + (", ..." if len(names) > limit else "")


def _strip_role(name):
    return name[4:] if name.startswith(("arg:", "aux:")) else name


def _match_legacy_names(loaded, params, filename):
    """MXNet 1.x names (``dense0_weight``) paired in order with structured names, when each
    pair agrees on the parameter's own name; anything else is left unmatched."""
    names = list(params)
    if len(loaded) != len(names):
        return loaded
    pairs = list(zip(loaded, names))
    if all(old.endswith(new.rsplit(".", 1)[-1]) for old, new in pairs):
        return {new: loaded[old] for old, new in pairs}
    return loaded


def _size(shape):
    total = 1
    for dim in shape:
        total *= max(dim, 0)   # NOTE: an unknown dim (0, or -1 under NumPy semantics) counts 0
    return total


def _summary_table(rows, inputs, params):
    line = "-" * 80
    out = [line, f"{'Layer (type)':>30}{'Output Shape':>30}{'Param #':>18}", "=" * 80]
    in_shapes = [tuple(x.shape) for x in _flatten(list(inputs), "input")[0] if x is not None]
    out.append(f"{'Input':>30}{str(in_shapes[0] if len(in_shapes) == 1 else in_shapes):>30}"
               f"{0:>18}")
    for name, shapes, count in rows:
        shown = shapes[0] if len(shapes) == 1 else shapes
        out.append(f"{name:>30}{str(shown):>30}{count:>18}")
    unique = {id(p): p for p in params.values()}.values()
    trainable = sum(_size(p.shape) for p in unique if p.grad_req != "null")
    total = sum(_size(p.shape) for p in unique)
    out += ["=" * 80, "Parameters in forward computation graph, duplicate included",
            f"   Total params: {total}", f"   Trainable params: {trainable}",
            f"   Non-trainable params: {total - trainable}", line]
    return "\n".join(out)


def export_traced(block, out, path, epoch, remove_amp_cast):
    """:meth:`HybridBlock.export` of ``block`` traced as the symbol ``out``: the graph with the
    parameters' structured names, and their values as ``arg:``/``aux:`` arrays."""
    from ..graph.node import topo_sort
    from ..ndarray import serialization
    from ..symbol.compose import copy_graph

    params = {}
    for name, param in block.collect_params().items():
        params.setdefault(id(param), (name, param))
    rename = {param.var().name: name for name, param in params.values()}
    entries = copy_graph(out._outputs)
    for node in topo_sort(entries):
        if node.op is None and node.name in rename:
            node.name = rename[node.name]
    sym = type(out)(entries)
    sym_file = f"{path}-symbol.json"
    sym.save(sym_file, remove_amp_cast=remove_amp_cast)
    arg_names, aux_names = set(sym.list_arguments()), set(sym.list_auxiliary_states())
    arrays = {}
    for name, param in params.values():
        if name in arg_names:
            arrays[f"arg:{name}"] = param._reduce()
        elif name in aux_names:
            arrays[f"aux:{name}"] = param._reduce()
    params_file = f"{path}-{epoch:04d}.params"
    serialization.save(params_file, arrays)
    return sym_file, params_file
