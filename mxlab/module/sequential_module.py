"""``SequentialModule``: modules chained output-to-input (``mx.mod.SequentialModule``).

Each module's outputs are the next one's data; backward runs in reverse, handing each module's
input gradients to the one before (so every module but the first binds with
``inputs_need_grad``). ``add(module, take_labels=True)`` feeds the labels to that module;
``auto_wiring=True`` renames the incoming data to the module's own data names.
"""
import copy
import logging

from ..base import MXNetValueError
from ..initializer import Uniform
from .base_module import BaseModule, _require

__all__ = ["SequentialModule"]


class SequentialModule(BaseModule):
    """A chain of modules trained together."""

    META_TAKE_LABELS = "take_labels"
    META_AUTO_WIRING = "auto_wiring"

    def __init__(self, logger=logging):
        super().__init__(logger=logger)
        self._modules, self._metas = [], []
        self._label_shapes = self._data_shapes = None
        self._meta_keys = {self.META_TAKE_LABELS, self.META_AUTO_WIRING}

    def add(self, module, **kwargs):
        """Append ``module`` (metas: ``take_labels``, ``auto_wiring``); returns self."""
        for key in kwargs:
            if key not in self._meta_keys:
                raise MXNetValueError(f'Unknown meta "{key}", a typo?')
        self._modules.append(module)
        self._metas.append(kwargs)
        self.binded = self.params_initialized = self.optimizer_initialized = False
        return self

    @property
    def data_names(self):
        return self._modules[0].data_names if self._modules else []

    @property
    def output_names(self):
        return self._modules[-1].output_names if self._modules else []

    @property
    def data_shapes(self):
        _require(self.binded, "data_shapes", "bind()")
        return self._modules[0].data_shapes

    @property
    def label_shapes(self):
        _require(self.binded, "label_shapes", "bind()")
        return self._label_shapes

    @property
    def output_shapes(self):
        _require(self.binded, "output_shapes", "bind()")
        return self._modules[-1].output_shapes

    def get_params(self):
        """All modules' parameters in one pair of dicts."""
        self._require_ready("get_params")
        arg_params, aux_params = {}, {}
        for module in self._modules:
            arg, aux = module.get_params()
            arg_params.update(arg)
            aux_params.update(aux)
        return arg_params, aux_params

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        """Initialise every module; parameter names must be unique across modules."""
        if self.params_initialized and not force_init:
            return
        _require(self.binded, "init_params", "bind()")
        for module in self._modules:
            module.init_params(initializer=initializer, arg_params=arg_params,
                               aux_params=aux_params, allow_missing=allow_missing,
                               force_init=force_init, allow_extra=allow_extra)
        seen_arg, seen_aux = {}, {}
        for i, module in enumerate(self._modules):
            arg, aux = module.get_params()
            self._check_unique(seen_arg, arg, i)
            self._check_unique(seen_aux, aux, i)
        self.params_initialized = True

    def _check_unique(self, known, names, i):
        for name in names:
            if name in known:
                j = known[name]
                raise MXNetValueError(
                    f'Duplicated parameter names: name "{name}" in layer {i} '
                    f"({type(self._modules[i])}) is already used in layer {j} "
                    f"({type(self._modules[j])}).")
            known[name] = i

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        """Bind each module on the previous module's output shapes."""
        if self.binded and not force_rebind:
            self.logger.warning("Already bound, ignoring bind()")
            return
        if inputs_need_grad and not for_training:
            raise MXNetValueError("bind: inputs_need_grad=True needs for_training=True")
        if shared_module is not None:
            raise MXNetValueError("Shared module is not supported")
        if not self._modules:
            raise MXNetValueError("Attempting to bind an empty SequentialModule")
        self.binded = True
        self._label_shapes = label_shapes
        my_data_shapes, anybody_needs_label = data_shapes, False
        for i, (module, meta) in enumerate(zip(self._modules, self._metas)):
            my_label_shapes = None
            if meta.get(self.META_TAKE_LABELS):
                my_label_shapes, anybody_needs_label = label_shapes, True
            if meta.get(self.META_AUTO_WIRING, False):
                if len(module.data_names) != len(my_data_shapes):
                    raise MXNetValueError(f"auto_wiring: layer {i} takes {module.data_names}, "
                                          f"the previous layer gives {len(my_data_shapes)}")
                my_data_shapes = [(new, shape) for new, (_, shape) in
                                  zip(module.data_names, my_data_shapes)]
            module.bind(data_shapes=my_data_shapes, label_shapes=my_label_shapes,
                        for_training=for_training,
                        inputs_need_grad=bool(inputs_need_grad or (for_training and i > 0)),
                        force_rebind=force_rebind, shared_module=None, grad_req=grad_req)
            my_data_shapes = module.output_shapes
        if not anybody_needs_label:
            self._label_shapes = None

    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        self._require_ready("init_optimizer")
        if self.optimizer_initialized and not force_init:
            self.logger.warning("optimizer already initialized, ignoring.")
            return
        for module in self._modules:
            module.init_optimizer(kvstore=kvstore, optimizer=optimizer,
                                  optimizer_params=optimizer_params, force_init=force_init)
        self.optimizer_initialized = True

    def forward(self, data_batch, is_train=None):
        """Forward through the chain, each module's outputs the next one's data."""
        self._require_ready("forward")
        data_batch = copy.copy(data_batch)
        for i, module in enumerate(self._modules):
            module.forward(data_batch, is_train=is_train)
            if i + 1 == len(self._modules):
                break
            data_batch.data = module.get_outputs()
            if hasattr(data_batch, "provide_data"):
                names = [x[0] for x in module.output_shapes]
                data_batch.provide_data = [(n, x.shape) for n, x in zip(names, data_batch.data)]

    def backward(self, out_grads=None):
        """Backward in reverse, each module's input gradients the previous one's head."""
        self._require_ready("backward")
        for i in reversed(range(len(self._modules))):
            self._modules[i].backward(out_grads=out_grads)
            if i == 0:
                break
            out_grads = self._modules[i].get_input_grads()

    def update(self):
        _require(self.binded and self.params_initialized and self.optimizer_initialized,
                 "update", "bind(), init_params() and init_optimizer()")
        for module in self._modules:
            module.update()

    def get_outputs(self, merge_multi_context=True):
        self._require_ready("get_outputs")
        return self._modules[-1].get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        self._require_ready("get_input_grads")
        _require(self.inputs_need_grad, "get_input_grads", "bind(inputs_need_grad=True)")
        return self._modules[0].get_input_grads(merge_multi_context=merge_multi_context)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update with the outputs of the modules that take labels."""
        self._require_ready("update_metric")
        for meta, module in zip(self._metas, self._modules):
            if meta.get(self.META_TAKE_LABELS):
                module.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        _require(self.binded, "install_monitor", "bind()")
        for module in self._modules:
            module.install_monitor(mon)
