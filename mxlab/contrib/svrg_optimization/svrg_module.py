"""``SVRGModule``: a Module trained with stochastic variance reduced gradients.

Every ``update_freq`` epochs the module takes a snapshot of the weights into an auxiliary module
and averages the gradient over the whole data set at that snapshot (``update_full_grads``).
Each step then uses ``g(w) - g(w_snapshot) + full_grad`` in place of the batch gradient
``g(w)``: the auxiliary module runs the same batches at the snapshot weights, so both batch
gradients see the same samples and their noise cancels.
"""
import logging

from ... import ndarray as nd
from ... import optimizer as opt
from ...base import MXNetTypeError, MXNetValueError
from ...device import cpu
from ...model import _create_kvstore
from ...module import Module
from ...module.module import no_decay_but_weights
from .svrg_optimizer import _SVRGOptimizer

__all__ = ["SVRGModule"]


class SVRGModule(Module):
    """A :class:`~mxlab.module.Module` with SVRG updates; ``update_freq`` (a positive int) is
    how many epochs pass between full-gradient snapshots."""

    def __init__(self, symbol, data_names=("data",), label_names=("softmax_label",),
                 logger=logging, context=cpu(), work_load_list=None, fixed_param_names=None,
                 state_names=None, group2ctxs=None, compression_params=None, update_freq=None):
        super().__init__(symbol, data_names=data_names, label_names=label_names, logger=logger,
                         context=context, work_load_list=work_load_list,
                         fixed_param_names=fixed_param_names, state_names=state_names,
                         group2ctxs=group2ctxs, compression_params=compression_params)
        if not isinstance(update_freq, int) or isinstance(update_freq, bool):
            raise MXNetTypeError("update_freq in SVRGModule must be an integer to represent the "
                                 "frequency for calculating full gradients")
        if update_freq <= 0:
            raise MXNetValueError("update_freq in SVRGModule must be a positive integer to "
                                  "represent the frequency for calculating full gradients")
        self.update_freq = update_freq
        self._mod_aux = Module(symbol, data_names, label_names, logger, context, work_load_list,
                               fixed_param_names, state_names, group2ctxs, compression_params)
        self._param_dict = None
        self._ctx_len = len(self._context)

    def _reset_bind(self):
        super()._reset_bind()
        self._mod_aux._reset_bind()

    def reshape(self, data_shapes, label_shapes=None):
        super().reshape(data_shapes, label_shapes=label_shapes)
        self._mod_aux.reshape(data_shapes, label_shapes=label_shapes)

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        """Bind this module and (for training) the snapshot module with the same shapes."""
        super().bind(data_shapes, label_shapes, for_training, inputs_need_grad, force_rebind,
                     shared_module, grad_req)
        if for_training:
            self._mod_aux.bind(data_shapes, label_shapes, for_training, inputs_need_grad,
                               force_rebind, shared_module, grad_req)

    # -- optimizer -------------------------------------------------------------------------------
    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        """An :class:`_SVRGOptimizer` wrapping ``optimizer``; the kvstore gets ``<name>_full``
        keys for the full gradients."""
        self._param_dict = [{key: nd.zeros(value.shape, ctx=self._context[i])
                             for key, value in self.get_params()[0].items()}
                            for i in range(self._ctx_len)]
        svrg = self._create_optimizer(_SVRGOptimizer.__name__, optimizer, kvstore,
                                      optimizer_params)
        super().init_optimizer(kvstore=kvstore, optimizer=svrg,
                               optimizer_params=optimizer_params, force_init=force_init)
        if self._kvstore:
            for idx, param_on_devs in enumerate(self._exec_group.param_arrays):
                name = self._exec_group.param_names[idx]
                self._kvstore.init(name + "_full", nd.zeros(self._arg_params[name].shape))
                if self._update_on_kvstore:
                    # NOTE: as MXNet 1.9.1 (the device weights take the zero full-gradient key)
                    self._kvstore.pull(name + "_full", param_on_devs, priority=-idx)

    def _create_optimizer(self, optimizer, default_opt, kvstore, optimizer_params):
        """The SVRG optimizer with Module's rescale_grad and index naming, plus one index per
        ``<name>_full`` key."""
        batch_size = self._exec_group.batch_size
        store, update_on_kvstore = _create_kvstore(kvstore, self._ctx_len, self._arg_params)
        if store and "dist" in store.type and "_sync" in store.type:
            batch_size *= store.num_workers
        idx2name = self._idx2name(update_on_kvstore)
        for key in self._param_dict[0]:
            idx2name[max(idx2name) + 1] = key + "_full"
        params = dict(optimizer_params)
        params.setdefault("rescale_grad", 1.0 / batch_size)
        params["default_optimizer"] = default_opt
        params["param_idx2name"] = idx2name
        svrg = opt.create(optimizer, **params)
        no_decay_but_weights(svrg.default_opt)
        return svrg

    # -- computation -----------------------------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        super().forward(data_batch, is_train)
        if is_train:
            self._mod_aux.forward(data_batch, is_train)

    def backward(self, out_grads=None):
        super().backward(out_grads)
        if self._mod_aux.binded:
            self._mod_aux.backward(out_grads)

    def update(self):
        """Replace the batch gradients by SVRG's, then step."""
        self._update_svrg_gradients()
        super().update()

    def update_full_grads(self, train_data):
        """Snapshot the weights and average their gradient over all of ``train_data``."""
        param_names = self._exec_group.param_names
        arg, aux = self.get_params()
        self._mod_aux.set_params(arg_params=arg, aux_params=aux)
        train_data.reset()
        nbatch, padding = 0, 0
        for batch in train_data:
            self._mod_aux.forward(batch, is_train=True)
            self._mod_aux.backward()
            nbatch += 1
            for ctx in range(self._ctx_len):
                for index, name in enumerate(param_names):
                    grads = self._mod_aux._exec_group.grad_arrays[index][ctx]
                    self._param_dict[ctx][name] = nd.broadcast_add(self._param_dict[ctx][name],
                                                                   grads, axis=0)
            padding = batch.pad or 0
        true_num_batch = nbatch - padding / train_data.batch_size
        for name in param_names:
            grad_list = []
            for i in range(self._ctx_len):
                self._param_dict[i][name] /= true_num_batch
                grad_list.append(self._param_dict[i][name])
            if self._kvstore:
                self._accumulate_kvstore(name, grad_list)

    def _accumulate_kvstore(self, key, value):
        """Sum the devices' (and workers') full gradients through the ``<key>_full`` key."""
        self._kvstore.push(key + "_full", value)
        self._kvstore._barrier()
        self._kvstore.pull(key + "_full", value)
        self._allocate_gradients(key, value)

    def _allocate_gradients(self, key, value):
        for i in range(self._ctx_len):
            self._param_dict[i][key] = value[i] / self._ctx_len

    @staticmethod
    def _svrg_grads_update_rule(g_curr_batch_curr_weight, g_curr_batch_special_weight,
                                g_special_weight_all_batch):
        """``g(w) - g(w_snapshot) + full_grad``, in place in the first array (or list's)."""
        if isinstance(g_curr_batch_curr_weight, nd.NDArray):
            g_curr_batch_curr_weight -= g_curr_batch_special_weight
            g_curr_batch_curr_weight += g_special_weight_all_batch
            return g_curr_batch_curr_weight
        for index, grad in enumerate(g_curr_batch_curr_weight):
            grad -= g_curr_batch_special_weight[index]
            grad += g_special_weight_all_batch[index]
        return g_curr_batch_curr_weight

    def _update_svrg_gradients(self):
        group, aux_group = self._exec_group, self._mod_aux._exec_group
        for ctx in range(self._ctx_len):
            for index, name in enumerate(group.param_names):
                group.grad_arrays[index][ctx] = self._svrg_grads_update_rule(
                    group.grad_arrays[index][ctx], aux_group.grad_arrays[index][ctx],
                    self._param_dict[ctx][name])

    def _fit_epoch(self, train_data, epoch, eval_metric, batch_end_callback, monitor,
                   sparse_row_id_fn):
        """A full-gradient snapshot every ``update_freq`` epochs, then a normal epoch."""
        if epoch % self.update_freq == 0:
            self.update_full_grads(train_data)
        train_data.reset()
        super()._fit_epoch(train_data, epoch, eval_metric, batch_end_callback, monitor,
                           sparse_row_id_fn)

    def prepare(self, data_batch, sparse_row_id_fn=None):
        super().prepare(data_batch, sparse_row_id_fn=sparse_row_id_fn)
        self._mod_aux.prepare(data_batch, sparse_row_id_fn=sparse_row_id_fn)
