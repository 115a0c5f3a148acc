"""Upgrades for symbol files written by older MXNet versions (MXNet's
``src/nnvm/legacy_json_util.cc``).

Applied to the string attributes and the wired nodes of a file whose ``mxnet_version`` is older than
1.9.1:

* hidden keys written bare (``lr_mult``) become ``__lr_mult__``; ``<input>_lr_mult`` on an op node
  moves to that input variable (``weight_lr_mult`` -> the weight's ``__lr_mult__``);
* before 0.9.0 auxiliary states were not saved: missing inputs become variables ``<node>_<input>``
  carrying the op's attributes;
* before 0.9.4 the variables feeding an op did not get the op's input-variable attributes
  (BatchNorm's moving statistics' ``__init__``).
"""

from ..graph.node import Entry, Node

__all__ = ["HIDDEN_KEYS", "INPUT_VAR_ATTRS", "fix_hidden_keys", "upgrade_nodes"]

HIDDEN_KEYS = (
    "ctx_group",
    "lr_mult",
    "wd_mult",
    "force_mirroring",
    "mirror_stage",
    "profiler_scope",
)
# Attributes MXNet gives to the variables of some ops' inputs (FSetInputVarAttrOnCompose).
INPUT_VAR_ATTRS = {
    "BatchNorm": {
        "moving_mean": {"__init__": '["zero", {}]'},
        "moving_var": {"__init__": '["one", {}]'},
    },
    "LeakyReLU": {"gamma": {"__init__": '["Constant", {"value": 0.25}]'}},   # prelu's slopes
}


def _version(major, minor, patch):
    return major * 10000 + minor * 100 + patch


def fix_hidden_keys(strings):
    """``(strings, moved)``: bare hidden keys made ``__key__``; ``moved`` maps input names to the
    hidden attributes (``<input>_<key>``) to hand to those inputs' variables."""
    fixed, moved = {}, {}
    for key, value in strings.items():
        hidden = next((h for h in HIDDEN_KEYS if key == h or key.endswith("_" + h)), None)
        if hidden is None:
            fixed[key] = value
        elif key == hidden:
            fixed[f"__{hidden}__"] = value
        else:
            moved.setdefault(key[: -len(hidden) - 1], {})[f"__{hidden}__"] = value
    return fixed, moved


def upgrade_nodes(nodes, moved, version, param_strings):
    """Add missing (auxiliary) inputs and input-variable attributes to wired ``nodes`` of an old
    file."""
    for node in nodes:
        if node.op is None:
            continue
        names = node.op.get_input_names(node.attrs)
        if version < _version(0, 9, 0):
            node.inputs += [
                Entry(Node(None, f"{node.name}_{names[i]}", extra=param_strings(node)))
                for i in range(len(node.inputs), node.op.get_num_inputs(node.attrs))
            ]
        for i, entry in enumerate(node.inputs):
            if entry.node.op is not None or i >= len(names):
                continue
            entry.node.extra.update(moved.get(id(node), {}).get(names[i], {}))
            if version < _version(0, 9, 4):
                entry.node.extra.update(INPUT_VAR_ATTRS.get(node.op.name, {}).get(names[i], {}))
