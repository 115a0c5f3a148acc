"""``_SVRGOptimizer``: the optimizer an :class:`SVRGModule` trains with.

The kvstore (or updater) holds two kinds of keys: the parameters themselves, updated by the
wrapped ``default_optimizer``, and ``<name>_full`` keys holding the full-data gradient, which are
simply overwritten (``_AssignmentOptimizer``). The parameter's name (``idx2name``) tells them
apart.
"""
from ... import optimizer as opt
from ...base import MXNetKeyError

__all__ = ["_AssignmentOptimizer", "_SVRGOptimizer"]

# The keyword arguments the base Optimizer takes; the rest go to the wrapped optimizer only.
_BASE_PARAMS = ("rescale_grad", "param_idx2name", "wd", "clip_gradient", "learning_rate",
                "lr_scheduler", "sym", "begin_num_update", "multi_precision", "param_dict")


def _items(indices, weights, grads, states):
    """One parameter or lists of them (the updater passes lists) as a list of 4-tuples."""
    if isinstance(indices, (list, tuple)):
        return list(zip(indices, weights, grads, states))
    return [(indices, weights, grads, states)]


@opt.register
class _AssignmentOptimizer(opt.Optimizer):
    """Writes the pushed value into the stored one (the full gradient is stored, not learned)."""

    def update(self, index, weight, grad, state):
        for _, w, g, _ in _items(index, weight, grad, state):
            w[:] = g


@opt.register
class _SVRGOptimizer(opt.Optimizer):
    """``default_optimizer`` (a name or an instance) for parameters, assignment for the
    ``*_full`` keys."""

    def __init__(self, default_optimizer, **kwargs):
        super().__init__(**{k: v for k, v in kwargs.items() if k in _BASE_PARAMS})
        self.default_opt = (opt.create(default_optimizer, **kwargs)
                            if isinstance(default_optimizer, str) else default_optimizer)
        self.aux_opt = opt.create(_AssignmentOptimizer.__name__)

    def _pick(self, index):
        return self.aux_opt if "full" in self._check_index(index) else self.default_opt

    def update(self, index, weight, grad, state):
        for i, w, g, s in _items(index, weight, grad, state):
            self._pick(i).update(i, w, g, s)

    def create_state(self, index, weight):
        return self._pick(index).create_state(index, weight)

    def _check_index(self, index):
        """The parameter name of ``index`` (a kvstore key may already be the name)."""
        if index in self.idx2name.values():
            return index
        if index not in self.idx2name:
            raise MXNetKeyError(f"_SVRGOptimizer: index {index!r} has no name in "
                                f"param_idx2name")
        return self.idx2name[index]
