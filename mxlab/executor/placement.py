"""Model-parallel placement for ``bind``/``simple_bind``: ``group2ctx`` maps the ``ctx_group``
attribute of variables (``mx.AttrScope(ctx_group='dev1')``) to devices."""
from ..base import MXNetNotImplementedError

__all__ = ["check_group2ctx", "group_devices"]


def check_group2ctx(group2ctx, ctx):
    """Groups may sit on other CPU devices (one host memory, so the executor reads them as
    they are); other devices than ``ctx`` on accelerators are not supported."""
    if group2ctx and any(c != ctx and (c.device_type != "cpu" or ctx.device_type != "cpu")
                         for c in group2ctx.values()):
        raise MXNetNotImplementedError("bind: group2ctx placing groups on other devices than ctx "
                                       "is not supported (one device per executor)")


def group_devices(symbol, group2ctx, ctx):
    """``{variable: device}`` for the variables whose ``ctx_group`` attribute group2ctx maps
    (MXNet's model-parallel placement of arguments and their gradients)."""
    if not group2ctx:
        return {}
    placed = {}
    for name, attrs in symbol.attr_dict().items():
        group = attrs.get("__ctx_group__")
        if group in group2ctx:
            placed[name] = group2ctx[group]
    return placed
