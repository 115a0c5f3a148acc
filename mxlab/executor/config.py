"""CachedOp flags (MXNet's ``CachedOpConfig``) plus the planner knobs, parsed once.

Example
-------
>>> config = CachedOpConfig.parse([("static_alloc", "true"), ("forward_bulk_size", "4")])
>>> config.static_alloc, config.forward_bulk_size
(True, 4)
"""
import dataclasses

from ..base import MXNetValueError, env_int

__all__ = ["CachedOpConfig"]

_TRUE = ("true", "1")


@dataclasses.dataclass
class CachedOpConfig:
    """CachedOp flags (MXNet's ``CachedOpConfig``) plus the planner knobs.

    Attributes
    ----------
    static_alloc : bool
        Each state keeps its planned buffers (and bound kernels) across calls.
    static_shape : bool
        Repeat calls with the same input arrays' shapes skip all look-ups (needs static_alloc).
    inline_limit : int
        Recorded graphs with at most this many op nodes run op by op on the tape (never with
        static_alloc).
    forward_bulk_size, backward_bulk_size : int
        Max nodes per engine segment (MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN, default 15).
    data_indices, param_indices : tuple of int
        Positions of data and parameter inputs (default: all data).
    recompute, recompute_budget :
        Sublinear recompute planner on/off and its segment budget (bytes; default searched).
    match_range, sum_cap : int
        NNVM_EXEC_MATCH_RANGE and MXNET_EXEC_INPLACE_GRAD_SUM_CAP overrides.
    """
    static_alloc: bool = False
    static_shape: bool = False
    inline_limit: int = 2
    forward_bulk_size: int = None
    backward_bulk_size: int = None
    data_indices: tuple = None
    param_indices: tuple = None
    recompute: bool = False
    recompute_budget: float = None
    match_range: int = None
    sum_cap: int = None

    @classmethod
    def parse(cls, flags):
        """From a dict or ``(key, value)`` pairs; values may be strings as MXNet passes them."""
        items = dict(flags.items() if isinstance(flags, dict) else flags)
        fields = {f.name: f for f in dataclasses.fields(cls)}
        config = cls()
        for key, value in items.items():
            if key not in fields:
                raise MXNetValueError(f"CachedOp: unknown flag '{key}'; known flags: "
                                      f"{sorted(fields)}")
            setattr(config, key, _parse_flag(key, value, fields[key].default))
        default_bulk = env_int("MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN", 15)
        config.forward_bulk_size = config.forward_bulk_size or default_bulk
        config.backward_bulk_size = config.backward_bulk_size or default_bulk
        if config.static_shape and not config.static_alloc:
            raise MXNetValueError("CachedOp: static_shape=True requires static_alloc=True")
        return config


def _parse_flag(key, value, default):
    if isinstance(default, bool):
        return value.lower() in _TRUE if isinstance(value, str) else bool(value)
    if key.endswith("_indices"):
        if isinstance(value, str):
            value = [int(v) for v in value.strip("[]() ").split(",") if v.strip()]
        return tuple(int(v) for v in value)
    if value is None:
        return None
    return float(value) if key == "recompute_budget" else int(value)
