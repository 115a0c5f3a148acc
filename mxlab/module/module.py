"""``Module``: a Symbol trained with the 1.x executor API (``mx.mod.Module``).

The module keeps the master copy of the parameters on the CPU (``_arg_params``/``_aux_params``)
and one copy per device inside its :class:`~.executor_group.DataParallelExecutorGroup`. After an
``update`` the device copies are ahead ("dirty"); ``get_params`` averages them back first. The
optimizer runs either on the kvstore (several devices, ``MXNET_UPDATE_ON_KVSTORE`` on) or on each
device through an updater whose index of parameter ``i`` on device ``k`` is
``i * num_devices + k`` (MXNet's numbering, which saved optimizer states are keyed by).

Example
-------
>>> import mxlab as mx
>>> net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2, name='fc')
>>> mod = mx.mod.Module(net, label_names=None)
>>> mod.bind(data_shapes=[('data', (3, 4))])
>>> mod.init_params(mx.init.One())
>>> mod.predict(mx.nd.ones((3, 4))).asnumpy()
array([[4., 4.],
       [4., 4.],
       [4., 4.]], dtype=float32)
"""
import logging
import warnings

from .. import ndarray as nd
from .. import optimizer as opt
from ..atomic_file import write_bytes
from ..base import MXNetRuntimeError, MXNetTypeError, MXNetValueError
from ..device import Device, cpu
from ..initializer import InitDesc, Uniform
from ..io import DataDesc
from ..model import (
    _create_kvstore,
    _initialize_kvstore,
    _update_params,
    _update_params_on_kvstore,
    load_checkpoint,
)
from .base_module import BaseModule, _check_input_names, _parse_data_desc, _require
from .executor_group import DataParallelExecutorGroup

__all__ = ["Module"]


class Module(BaseModule):
    """A module over one Symbol, bound on ``context`` (a device or a list: data parallel).

    ``data_names``/``label_names``/``state_names`` are the symbol's inputs fed per batch; every
    other argument is a parameter (``fixed_param_names`` are not learned).
    """

    def __init__(self, symbol, data_names=("data",), label_names=("softmax_label",),
                 logger=logging, context=cpu(), work_load_list=None, fixed_param_names=None,
                 state_names=None, group2ctxs=None, compression_params=None):
        super().__init__(logger=logger)
        self._context = [context] if isinstance(context, Device) else list(context)
        work_load_list = work_load_list or [1] * len(self._context)
        if len(work_load_list) != len(self._context):
            raise MXNetValueError(f"work_load_list has {len(work_load_list)} entries for "
                                  f"{len(self._context)} contexts")
        self._work_load_list, self._group2ctxs = work_load_list, group2ctxs
        self._symbol = symbol
        data_names = list(data_names) if data_names is not None else []
        label_names = list(label_names) if label_names is not None else []
        state_names = list(state_names) if state_names is not None else []
        fixed_param_names = list(fixed_param_names) if fixed_param_names is not None else []
        _check_input_names(symbol, data_names, "data", True)
        _check_input_names(symbol, label_names, "label", False)
        _check_input_names(symbol, state_names, "state", True)
        _check_input_names(symbol, fixed_param_names, "fixed_param", True)
        inputs = data_names + label_names + state_names
        self._param_names = [x for x in symbol.list_arguments() if x not in inputs]
        self._fixed_param_names = fixed_param_names
        self._aux_names = symbol.list_auxiliary_states()
        self._data_names, self._label_names = data_names, label_names
        self._state_names = state_names
        self._output_names = symbol.list_outputs()
        self._arg_params = self._aux_params = None
        self._params_dirty = False
        self._compression_params = compression_params
        self._optimizer = self._kvstore = self._update_on_kvstore = self._updater = None
        self._preload_opt_states = None
        self._grad_req = None
        self._exec_group = None
        self._data_shapes = self._label_shapes = None

    # -- checkpoints -----------------------------------------------------------------------------
    @staticmethod
    def load(prefix, epoch, load_optimizer_states=False, **kwargs):
        """A module from checkpoint ``prefix``/``epoch`` (bind it next); the optimizer states
        (``prefix-%04d.states``) are loaded by ``init_optimizer`` when asked."""
        sym, args, auxs = load_checkpoint(prefix, epoch)
        mod = Module(symbol=sym, **kwargs)
        mod._arg_params, mod._aux_params = args, auxs
        mod.params_initialized = True
        if load_optimizer_states:
            mod._preload_opt_states = "%s-%04d.states" % (prefix, epoch)
        return mod

    def save_checkpoint(self, prefix, epoch, save_optimizer_states=False, remove_amp_cast=True):
        """Write ``prefix-symbol.json``, ``prefix-%04d.params`` (and ``.states``)."""
        self._symbol.save("%s-symbol.json" % prefix, remove_amp_cast=remove_amp_cast)
        param_name = "%s-%04d.params" % (prefix, epoch)
        self.save_params(param_name)
        logging.info('Saved checkpoint to "%s"', param_name)
        if save_optimizer_states:
            state_name = "%s-%04d.states" % (prefix, epoch)
            self.save_optimizer_states(state_name)
            logging.info('Saved optimizer state to "%s"', state_name)

    # -- names and shapes ------------------------------------------------------------------------
    @property
    def data_names(self):
        return self._data_names

    @property
    def label_names(self):
        return self._label_names

    @property
    def output_names(self):
        return self._output_names

    @property
    def data_shapes(self):
        """The bound data DataDescs."""
        _require(self.binded, "data_shapes", "bind()")
        return self._data_shapes

    @property
    def label_shapes(self):
        _require(self.binded, "label_shapes", "bind()")
        return self._label_shapes

    @property
    def output_shapes(self):
        _require(self.binded, "output_shapes", "bind()")
        return self._exec_group.get_output_shapes()

    # -- parameters ------------------------------------------------------------------------------
    def get_params(self):
        """``(arg_params, aux_params)`` on the CPU, averaged from the devices when stale."""
        _require(self.params_initialized, "get_params", "init_params()")
        if self._params_dirty:
            self._sync_params_from_devices()
        return self._arg_params, self._aux_params

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        """Fill the parameters from ``arg_params``/``aux_params`` (copied), else from
        ``initializer`` (names missing from given dicts need ``allow_missing``)."""
        if self.params_initialized and not force_init:
            warnings.warn("Parameters already initialized and force_init=False. init_params "
                          "call ignored.", stacklevel=2)
            return
        _require(self.binded, "init_params", "bind()")
        attrs = self._symbol.attr_dict()
        for params, given in ((self._arg_params, arg_params), (self._aux_params, aux_params)):
            for name, arr in sorted(params.items()):
                self._init_one(InitDesc(name, attrs.get(name, None)), arr, given, initializer,
                               allow_missing)
        self.params_initialized = True
        self._params_dirty = False
        self._exec_group.set_params(self._arg_params, self._aux_params, allow_extra=allow_extra)

    @staticmethod
    def _init_one(desc, arr, given, initializer, allow_missing):
        if given is None:
            initializer(desc, arr)
        elif desc in given:
            if given[desc] is not arr:
                given[desc].copyto(arr)
        elif not allow_missing:
            raise MXNetRuntimeError(f"{desc} is not presented")
        elif initializer is not None:
            initializer(desc, arr)

    def _assign_given(self, arg_params, aux_params, force_init, allow_extra):
        """``set_params(allow_missing=True)``: the missing ones keep their device value."""
        self._exec_group.set_params(arg_params, aux_params, allow_extra=allow_extra)
        self._params_dirty = True
        self.params_initialized = True

    def _sync_params_from_devices(self):
        self._exec_group.get_params(self._arg_params, self._aux_params)
        if self._kvstore and self._update_on_kvstore:
            for name, value in sorted(self._arg_params.items()):
                if value.stype == "row_sparse":
                    row_ids = nd.arange(0, value.shape[0], dtype="int64")
                    self._kvstore.row_sparse_pull(name, value, row_ids=row_ids)
        self._params_dirty = False

    # -- binding ---------------------------------------------------------------------------------
    def _reset_bind(self):
        self.binded = False
        self._exec_group = None
        self._data_shapes = self._label_shapes = None

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        """Allocate the executors for these input shapes (``(name, shape)`` pairs or
        DataDescs); ``shared_module`` shares its parameters and memory (bucketing)."""
        if force_rebind:
            self._reset_bind()
        if self.binded:
            self.logger.warning("Already bound, ignoring bind()")
            return
        if not for_training and inputs_need_grad:
            raise MXNetValueError("bind: inputs_need_grad=True needs for_training=True")
        self._data_shapes, self._label_shapes = _parse_data_desc(
            self.data_names, self.label_names, data_shapes, label_shapes)
        shared_group = self._shared_group(shared_module)
        self._exec_group = DataParallelExecutorGroup(
            self._symbol, self._context, self._work_load_list, self._data_shapes,
            self._label_shapes, self._param_names, for_training, inputs_need_grad, shared_group,
            logger=self.logger, fixed_param_names=self._fixed_param_names, grad_req=grad_req,
            group2ctxs=self._group2ctxs, state_names=self._state_names)
        self.for_training, self.inputs_need_grad = for_training, inputs_need_grad
        self._grad_req = grad_req
        self._total_exec_bytes = self._exec_group._total_exec_bytes
        if shared_module is not None:
            self.params_initialized = True
            self._arg_params = shared_module._arg_params
            self._aux_params = shared_module._aux_params
        elif self.params_initialized:
            self._exec_group.set_params(self._arg_params, self._aux_params)
        else:
            attrs = self._symbol.attr_dict()
            self._arg_params = {name: nd.zeros(x[0].shape, dtype=x[0].dtype,
                                               stype=_declared_stype(attrs, name, x[0]))
                                for name, x in zip(self._param_names,
                                                   self._exec_group.param_arrays)}
            self._aux_params = {name: nd.zeros(x[0].shape, dtype=x[0].dtype)
                                for name, x in zip(self._aux_names, self._exec_group.aux_arrays)}
        if shared_module is not None and shared_module.optimizer_initialized:
            self.borrow_optimizer(shared_module)
        self.binded = True

    def _shared_group(self, shared_module):
        if shared_module is None:
            return None
        if not isinstance(shared_module, Module):
            raise MXNetTypeError(f"shared_module must be a Module, got "
                                 f"{type(shared_module).__name__}")
        _require(shared_module.binded and shared_module.params_initialized, "bind(shared_module)",
                 "bind() and init_params() on the shared module")
        if len(shared_module._exec_group.execs) < len(self._context):
            raise MXNetValueError("shared_module has fewer devices than this module")
        return shared_module._exec_group

    def reshape(self, data_shapes, label_shapes=None):
        """Re-shape the bound executors for new input shapes (memory shared)."""
        _require(self.binded, "reshape", "bind()")
        self._data_shapes, self._label_shapes = _parse_data_desc(
            self.data_names, self.label_names, data_shapes, label_shapes)
        self._exec_group.reshape(self._data_shapes, self._label_shapes)

    # -- optimizer -------------------------------------------------------------------------------
    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        """Create the kvstore and optimizer (a name with ``optimizer_params``, or an instance);
        gradients are rescaled by 1/batch size unless told otherwise."""
        _require(self.binded and self.params_initialized, "init_optimizer",
                 "bind() and init_params()")
        if self.optimizer_initialized and not force_init:
            self.logger.warning("optimizer already initialized, ignoring...")
            return
        if self._params_dirty:
            self._sync_params_from_devices()
        kvstore, update_on_kvstore = _create_kvstore(kvstore, len(self._context),
                                                     self._arg_params)
        batch_size = self._exec_group.batch_size
        if kvstore and "dist" in kvstore.type and "_sync" in kvstore.type:
            batch_size *= kvstore.num_workers
        optimizer = self._make_optimizer(optimizer, optimizer_params, 1.0 / batch_size,
                                         self._idx2name(update_on_kvstore))
        self._optimizer, self._kvstore = optimizer, kvstore
        self._update_on_kvstore, self._updater = update_on_kvstore, None
        if kvstore:
            if self._compression_params:
                kvstore.set_gradient_compression(self._compression_params)
            if update_on_kvstore:
                kvstore.set_optimizer(self._optimizer)
                _single_items(getattr(kvstore, "_updater", None))
            _initialize_kvstore(kvstore, self._exec_group.param_arrays, self._arg_params,
                                self._param_names, update_on_kvstore)
        if not update_on_kvstore:
            self._updater = _single_items(opt.get_updater(optimizer))
        self.optimizer_initialized = True
        if self._preload_opt_states is not None:
            self.load_optimizer_states(self._preload_opt_states)
            self._preload_opt_states = None

    def _idx2name(self, update_on_kvstore):
        names = self._exec_group.param_names
        if update_on_kvstore:
            return dict(enumerate(names))
        num = len(self._context)
        return {i * num + k: n for k in range(num) for i, n in enumerate(names)}

    def _make_optimizer(self, optimizer, optimizer_params, rescale_grad, idx2name):
        if isinstance(optimizer, str):
            params = dict(optimizer_params)
            params.setdefault("rescale_grad", rescale_grad)
            return no_decay_but_weights(
                opt.create(optimizer, sym=self.symbol, param_idx2name=idx2name, **params))
        if not isinstance(optimizer, opt.Optimizer):
            raise MXNetTypeError(f"optimizer must be a name or an mx.optimizer.Optimizer, got "
                                 f"{type(optimizer).__name__}")
        if optimizer.rescale_grad != rescale_grad:
            warnings.warn(f"Optimizer created manually outside Module but rescale_grad is not "
                          f"normalized to 1.0/batch_size/num_workers ({optimizer.rescale_grad} "
                          f"vs. {rescale_grad}). Is this intended?", stacklevel=3)
        if not optimizer.idx2name:
            optimizer.idx2name = dict(idx2name)
        return optimizer

    def borrow_optimizer(self, shared_module):
        """Use ``shared_module``'s optimizer, kvstore and updater (bucketing)."""
        _require(shared_module.optimizer_initialized, "borrow_optimizer",
                 "init_optimizer() on the shared module")
        self._optimizer = shared_module._optimizer
        self._kvstore = shared_module._kvstore
        self._update_on_kvstore = shared_module._update_on_kvstore
        self._updater = shared_module._updater
        self.optimizer_initialized = True

    def save_optimizer_states(self, fname):
        """Write the optimizer states (from the kvstore or the updater) to ``fname``."""
        _require(self.optimizer_initialized, "save_optimizer_states", "init_optimizer()")
        if self._update_on_kvstore:
            self._kvstore.save_optimizer_states(fname)
        else:
            write_bytes(fname, self._updater.get_states())

    def load_optimizer_states(self, fname):
        """Read states :meth:`save_optimizer_states` wrote."""
        _require(self.optimizer_initialized, "load_optimizer_states", "init_optimizer()")
        if self._update_on_kvstore:
            self._kvstore.load_optimizer_states(fname)
        else:
            with open(fname, "rb") as fin:
                self._updater.set_states(fin.read(), str(fname))

    # -- computation -----------------------------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        """Forward on ``data_batch`` (a DataBatch, anything with ``.data``, or a list of
        batches); a batch of another shape re-shapes the executors first."""
        self._require_ready("forward")
        new_shapes = _batch_shapes(data_batch)
        if tuple(d.shape for d in self._data_shapes) != new_shapes:
            self.reshape(*self._shapes_for(data_batch, new_shapes))
        self._exec_group.forward(data_batch, is_train)

    def _shapes_for(self, data_batch, new_shapes):
        provided = getattr(data_batch, "provide_data", None)
        data = provided or [DataDesc(d.name, shape, d.dtype, d.layout)
                            for d, shape in zip(self._data_shapes, new_shapes)]
        label = getattr(data_batch, "provide_label", None)
        if not label and getattr(data_batch, "label", None) and self._label_shapes:
            label = [DataDesc(d.name, arr.shape, d.dtype, d.layout)
                     for d, arr in zip(self._label_shapes, data_batch.label)]
        return data, label or None

    def backward(self, out_grads=None):
        """Backward with head gradients ``out_grads`` (needed unless the outputs are losses)."""
        self._require_ready("backward")
        self._exec_group.backward(out_grads=out_grads)

    def update(self):
        """One optimizer step with the gradients of the last backward."""
        _require(self.binded and self.params_initialized and self.optimizer_initialized,
                 "update", "bind(), init_params() and init_optimizer()")
        self._params_dirty = True
        group = self._exec_group
        if self._update_on_kvstore:
            _update_params_on_kvstore(group.param_arrays, group.grad_arrays, self._kvstore,
                                      group.param_names)
        else:
            _update_params(group.param_arrays, group.grad_arrays, updater=self._updater,
                           num_device=len(self._context), kvstore=self._kvstore,
                           param_names=group.param_names)

    def get_outputs(self, merge_multi_context=True):
        """The outputs of the last forward."""
        self._require_ready("get_outputs")
        return self._exec_group.get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        """Gradients of the data inputs (bind with ``inputs_need_grad=True``)."""
        self._require_ready("get_input_grads")
        _require(self.inputs_need_grad, "get_input_grads", "bind(inputs_need_grad=True)")
        return self._exec_group.get_input_grads(merge_multi_context=merge_multi_context)

    def get_states(self, merge_multi_context=True):
        self._require_ready("get_states")
        return self._exec_group.get_states(merge_multi_context=merge_multi_context)

    def set_states(self, states=None, value=None):
        self._require_ready("set_states")
        self._exec_group.set_states(states, value)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Accumulate ``eval_metric`` over the last outputs and ``labels``."""
        self._exec_group.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        """Install monitor ``mon`` on every executor."""
        _require(self.binded, "install_monitor", "bind()")
        self._exec_group.install_monitor(mon)

    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Pull the rows of row-sparse parameters ``sparse_row_id_fn(data_batch)`` names."""
        _require(self.binded, "prepare", "bind()")
        if sparse_row_id_fn is None:
            return
        if not self._kvstore or not self._update_on_kvstore:
            warnings.warn(UserWarning("Parameters are not updated in the KVStore. No need to "
                                      "call sparse_row_id_fn."), stacklevel=2)
            return
        row_ids = sparse_row_id_fn(data_batch)
        if not isinstance(row_ids, dict):
            raise MXNetTypeError("Expected dict output from sparse_row_id_fn")
        for name, row_id in row_ids.items():
            index = self._exec_group.param_names.index(name)
            value = self._exec_group.param_arrays[index]
            if value[0].stype != "row_sparse":
                warnings.warn(UserWarning(f"{name}.stype is not 'row_sparse'. No need to "
                                          f"perform row_sparse_pull."), stacklevel=2)
            else:
                self._kvstore.row_sparse_pull(name, value, row_ids=row_id, priority=-index)


def no_decay_but_weights(optimizer):
    """MXNet 1.x's rule for an optimizer made from parameter names: only ``*_weight`` and
    ``*_gamma`` parameters are weight-decayed (biases and BatchNorm's beta are not), unless the
    symbol sets their ``__wd_mult__``. MXNet 2 dropped the rule, so it is applied here, for the
    1.x API, rather than in ``mx.optimizer``."""
    for name in optimizer.idx2name.values():
        if not name.endswith(("_weight", "_gamma")) and name not in optimizer.wd_mult:
            optimizer.wd_mult[name] = 0.0
    return optimizer


def _single_items(updater):
    """Updaters of the 1.x API call ``update`` one parameter at a time, with single items."""
    if updater is not None:
        updater.single_items = True
    return updater


_STYPES = {"0": "default", "1": "row_sparse", "2": "csr"}


def _declared_stype(attrs, name, array):
    """The storage type a variable declares (``var(stype='row_sparse')``), else ``array``'s:
    the module's master copy keeps it even though the executor computes densely."""
    return _STYPES.get(attrs.get(name, {}).get("__storage_type__"), array.stype)


def _batch_shapes(data_batch):
    """The data shapes of a batch, or of a list of equal batches stacked along axis 0."""
    if not isinstance(data_batch, list):
        return tuple(tuple(d.shape) for d in data_batch.data)
    if not data_batch:
        raise MXNetValueError("Encountered empty data batch")
    shapes = []
    for i in range(len(data_batch[0].data)):
        shape = tuple(data_batch[0].data[i].shape)
        if any(tuple(db.data[i].shape) != shape for db in data_batch):
            raise MXNetValueError("All data batches in a list need to have the same shape")
        shapes.append((len(data_batch) * shape[0],) + shape[1:])
    return tuple(shapes)
