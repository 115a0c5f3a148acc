"""MXNet 1.x's modifier cells: ``ModifierCell`` wraps a base cell, which may then only be used
through the wrapper; ``ZoneoutCell`` and ``ResidualCell`` are the two MXNet ships.
"""
from .. import symbol
from ..base import MXNetValueError
from .base_cell import BaseRNNCell, normalize_sequence
from .stack_cells import BidirectionalCell, FusedRNNCell, SequentialRNNCell

__all__ = ["ModifierCell", "ZoneoutCell", "ResidualCell"]


class ModifierCell(BaseRNNCell):
    """Base class of cells that modify ``base_cell`` (its weights and states are the base's)."""

    def __init__(self, base_cell):
        super().__init__()
        base_cell._modified = True
        self.base_cell = base_cell

    @property
    def params(self):
        self._own_params = False
        return self.base_cell.params

    @property
    def state_info(self):
        return self.base_cell.state_info

    def begin_state(self, init_sym=symbol.zeros, **kwargs):
        self._check_unmodified()
        self.base_cell._modified = False
        try:
            return self.base_cell.begin_state(init_sym, **kwargs)
        finally:
            self.base_cell._modified = True

    def unpack_weights(self, args):
        return self.base_cell.unpack_weights(args)

    def pack_weights(self, args):
        return self.base_cell.pack_weights(args)

    def __call__(self, inputs, states):
        raise NotImplementedError(f"{type(self).__name__} must implement __call__")


def _refuse_zoneout(base_cell):
    if isinstance(base_cell, FusedRNNCell):
        raise MXNetValueError("FusedRNNCell doesn't support zoneout. Please unfuse first.")
    if isinstance(base_cell, BidirectionalCell) or (
            isinstance(base_cell, SequentialRNNCell)
            and any(isinstance(c, BidirectionalCell) for c in base_cell._cells)):
        raise MXNetValueError("BidirectionalCell doesn't support zoneout since it doesn't "
                              "support step. Please add ZoneoutCell to the cells underneath "
                              "instead.")


class ZoneoutCell(ModifierCell):
    """Zoneout (Krueger et al. 2016): in training, each unit of the output (``zoneout_outputs``)
    and of the states (``zoneout_states``) keeps its previous value with that probability."""

    def __init__(self, base_cell, zoneout_outputs=0., zoneout_states=0.):
        _refuse_zoneout(base_cell)
        super().__init__(base_cell)
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states
        self.prev_output = None

    def reset(self):
        super().reset()
        self.prev_output = None

    def __call__(self, inputs, states):
        next_output, next_states = self.base_cell(inputs, states)

        def mask(p, like):
            return symbol.Dropout(symbol.ones_like(like), p=p)

        prev_output = self.prev_output if self.prev_output is not None else symbol.zeros((0, 0))
        output = next_output
        if self.zoneout_outputs != 0.:
            output = symbol.where(mask(self.zoneout_outputs, next_output), next_output,
                                  prev_output)
        if self.zoneout_states != 0.:
            next_states = [symbol.where(mask(self.zoneout_states, new), new, old)
                           for new, old in zip(next_states, states)]
        self.prev_output = output
        return output, next_states


class ResidualCell(ModifierCell):
    """Adds the input to the base cell's output (Wu et al. 2016); node
    ``<output name>_plus_residual``."""

    def __call__(self, inputs, states):
        output, states = self.base_cell(inputs, states)
        output = symbol.elemwise_add(output, inputs, name="%s_plus_residual" % output.name)
        return output, states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        self.base_cell._modified = False
        try:
            outputs, states = self.base_cell.unroll(length, inputs=inputs,
                                                    begin_state=begin_state, layout=layout,
                                                    merge_outputs=merge_outputs)
        finally:
            self.base_cell._modified = True
        if merge_outputs is None:
            merge_outputs = isinstance(outputs, symbol.Symbol)
        inputs, _ = normalize_sequence(length, inputs, layout, merge_outputs)
        if merge_outputs:
            return symbol.elemwise_add(outputs, inputs,
                                       name="%s_plus_residual" % outputs.name), states
        return [symbol.elemwise_add(o, i, name="%s_plus_residual" % o.name)
                for o, i in zip(outputs, inputs)], states
