"""``mx.gluon.Trainer``: applies an optimizer to a set of parameters.

``step(batch_size)`` = ``allreduce_grads()`` (sum the gradients of each parameter over its
devices) + ``update(batch_size)`` (the optimizer rule with ``rescale_grad = scale / batch_size``).
There is no separate key-value store: ``kvstore`` is accepted for MXNet compatibility.

Example
-------
>>> import mxlab as mx
>>> net = mx.gluon.nn.Dense(1, in_units=2)
>>> net.initialize(mx.init.One())
>>> trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
>>> with mx.autograd.record():
...     loss = net(mx.nd.array([[1.0, 1.0]])).sum()
>>> loss.backward()
>>> trainer.step(1)
>>> net.weight.data().asnumpy()
array([[0.9, 0.9]], dtype=float32)
"""
import json

import numpy

from .. import optimizer as opt
from ..base import MXNetRuntimeError, MXNetValueError
from .parameter import Parameter

__all__ = ["Trainer"]

_SCALARS_KEY = "__trainer_scalars__"


def _unique_params(params):
    if isinstance(params, dict):
        params = list(params.values())
    if not isinstance(params, (list, tuple)):
        raise MXNetValueError(
            f"First argument must be a list or dict of Parameters, got {type(params)}."
        )
    if not params:
        raise MXNetValueError("Trainer: params is empty; expected a list or dict of at least one "
                              "Parameter (e.g. net.collect_params())")
    unique = []
    for param in params:
        if not isinstance(param, Parameter):
            raise MXNetValueError(f"First argument must be a list or dict of Parameters, got "
                                  f"list of {type(param)}.")
        if all(param is not p for p in unique):
            unique.append(param)
    return unique


class Trainer:
    """Updates ``params`` with ``optimizer`` (a name plus ``optimizer_params``, or an instance)."""

    def __init__(self, params, optimizer, optimizer_params=None, kvstore="device",
                 compression_params=None, update_on_kvstore=None):
        self._params = _unique_params(params)
        param_dict = dict(enumerate(self._params))
        if isinstance(optimizer, opt.Optimizer):
            if optimizer_params:
                raise MXNetValueError("optimizer_params must be None if optimizer is an "
                                      "instance of Optimizer instead of str")
            self._optimizer = optimizer
            self._optimizer.param_dict = param_dict
        else:
            self._optimizer = opt.create(optimizer, param_dict=param_dict,
                                         **(optimizer_params or {}))
        self._scale = self._optimizer.rescale_grad
        self._kvstore = kvstore
        self._states = {}  # (param index, device) -> optimizer state

    @property
    def optimizer(self):
        return self._optimizer

    @property
    def learning_rate(self):
        return self._optimizer.learning_rate

    def set_learning_rate(self, lr):
        self._optimizer.set_learning_rate(lr)

    def step(self, batch_size, ignore_stale_grad=False):
        """One update from the current gradients, normalised by ``batch_size``."""
        self._optimizer.rescale_grad = self._scale / batch_size
        self.allreduce_grads()
        self._update(ignore_stale_grad)

    def allreduce_grads(self):
        """Sum each parameter's gradients over its devices (in place on every device)."""
        for param in self._params:
            if param.grad_req == "null" or param._grad is None or len(param._grad) < 2:
                continue
            grads = param.list_grad()
            total = grads[0].copy()
            for grad in grads[1:]:
                total = total + grad.as_in_context(total.device)
            for grad in grads:
                total.as_in_context(grad.device).copyto(grad)

    def update(self, batch_size, ignore_stale_grad=False):
        """The optimizer step alone (after ``allreduce_grads``)."""
        self._optimizer.rescale_grad = self._scale / batch_size
        self._update(ignore_stale_grad)

    def _update(self, ignore_stale_grad):
        for index, param in enumerate(self._params):
            if param.grad_req == "null":
                continue
            param._check_initialized()
            for device, weight in param._data.items():
                if not weight._fresh_grad:
                    if ignore_stale_grad:
                        continue
                    raise MXNetRuntimeError(
                        f"Gradient of Parameter `{param.name}` on context {device} has not been "
                        f"updated by backward since last `step`. This could mean a bug in your "
                        f"model that made it only use a subset of the Parameters (Blocks) for "
                        f"this iteration. If you are intentionally only using a subset, call "
                        f"step with ignore_stale_grad=True to suppress this warning and skip "
                        f"updating of Parameters with stale gradient"
                    )
                key = (index, device)
                if key not in self._states:
                    self._states[key] = self._optimizer.create_state(index, weight)
                self._optimizer.update(index, weight, param._grad[device], self._states[key])
                weight._fresh_grad = False

    # -- optimizer state checkpoints ---------------------------------------------------------------
    def save_states(self, fname):
        """Write the optimizer states (arrays) and counters (JSON text) to one .params file."""
        from ..ndarray import serialization
        from ..ndarray.ndarray import array

        arrays = {}
        for (index, device), state in self._states.items():
            for slot, value in enumerate(_state_list(state)):
                arrays[f"{index}:{slot}"] = value
        scalars = {"num_update": self._optimizer.num_update,
                   "index_update_count": {str(k): v for k, v in
                                          self._optimizer._index_update_count.items()},
                   "lr": self._optimizer.lr, "wd": self._optimizer.wd,
                   "state_slots": {str(i): _slot_kind(s) for (i, _), s in self._states.items()}}
        text = numpy.frombuffer(json.dumps(scalars).encode("utf-8"), dtype=numpy.uint8)
        arrays[_SCALARS_KEY] = array(text, dtype="uint8")
        serialization.save(fname, arrays)

    def load_states(self, fname):
        """Restore what :meth:`save_states` wrote."""
        from ..ndarray import serialization

        loaded = serialization.load(fname)
        scalars = json.loads(bytes(loaded.pop(_SCALARS_KEY).asnumpy().tolist()).decode("utf-8"))
        self._optimizer.num_update = scalars["num_update"]
        self._optimizer._index_update_count = {int(k): v for k, v in
                                               scalars["index_update_count"].items()}
        self._optimizer.lr, self._optimizer.wd = scalars["lr"], scalars["wd"]
        self._states = {}
        for index_text, kind in scalars["state_slots"].items():
            index = int(index_text)
            for device in self._params[index].list_ctx():
                values = [loaded[f"{index}:{slot}"].as_in_context(device)
                          for slot in range(kind[1])]
                self._states[(index, device)] = _state_from(kind[0], values)


def _state_list(state):
    if state is None:
        return []
    return list(state) if isinstance(state, (tuple, list)) else [state]


def _slot_kind(state):
    """``(kind, count)``: how to rebuild a state from its arrays."""
    if state is None:
        return ("none", 0)
    if isinstance(state, (tuple, list)):
        return ("tuple", len(state))
    return ("array", 1)


def _state_from(kind, values):
    return {"none": None, "tuple": tuple(values), "array": values[0] if values else None}[kind]
