"""``BaseModule``: the training and inference loops every 1.x module shares (``mx.mod``).

A module goes through bind (shapes -> executors) -> init_params -> init_optimizer; the loops here
(:meth:`BaseModule.fit`, :meth:`~BaseModule.score`, :meth:`~BaseModule.predict`) are written
only against the abstract steps (``forward``, ``backward``, ``update``, ``update_metric``, ...),
so ``Module``, ``BucketingModule``, ``SequentialModule`` and Python modules all reuse them.

Calling a step before the one it needs raises :class:`ModuleStateError`, which is also an
``AssertionError`` since MXNet asserts there and scripts may catch that.
"""
import logging
import time
import warnings

import numpy

from .. import ndarray
from ..base import MXNetNotImplementedError, MXNetRuntimeError, MXNetValueError, _as_list
from ..device import cpu
from ..gluon import metric_v1 as metric
from ..initializer import Uniform
from ..io import DataBatch, DataIter
from ..model import BatchEndParam
from .executor_group import as_data_desc

__all__ = ["BaseModule", "ModuleStateError"]


class ModuleStateError(MXNetRuntimeError, AssertionError):
    """A module step called before the step it depends on (e.g. forward before bind)."""


def _require(ok, step, needs):
    if not ok:
        raise ModuleStateError(f"{step}: call {needs} first")


def _check_input_names(symbol, names, typename, throw):
    """Every name in ``names`` must be an argument of ``symbol`` (else list the candidates)."""
    args = symbol.list_arguments()
    for name in names:
        if name in args:
            continue
        candidates = [a for a in args if not a.endswith(("_weight", "_bias", "_gamma", "_beta"))]
        msg = (f"You created Module with Module(..., {typename}_names={list(names)}) but input "
               f"with name '{name}' is not found in symbol.list_arguments(). Did you mean one "
               f"of:\n\t" + "\n\t".join(candidates))
        if throw:
            raise MXNetValueError(msg)
        warnings.warn(msg, stacklevel=3)


def _check_names_match(data_names, data_shapes, name, throw):
    actual = [x[0] for x in data_shapes]
    if sorted(data_names) != sorted(actual):
        msg = (f"Data provided by {name}_shapes don't match names specified by {name}_names "
               f"({actual} vs. {list(data_names)})")
        if throw:
            raise MXNetValueError(msg)
        warnings.warn(msg, stacklevel=3)


def _parse_data_desc(data_names, label_names, data_shapes, label_shapes):
    """DataDescs for the bound shapes; data names must match exactly, label names only warn
    (an inference bind may leave the label out)."""
    data_shapes = [as_data_desc(x) for x in data_shapes]
    _check_names_match(data_names, data_shapes, "data", True)
    if label_shapes is not None:
        label_shapes = [as_data_desc(x, "label_shapes") for x in label_shapes]
        _check_names_match(label_names, label_shapes, "label", False)
    else:
        _check_names_match(label_names, [], "label", False)
    return data_shapes, label_shapes


def _call_all(callbacks, *args):
    for callback in _as_list(callbacks):
        callback(*args)


class BaseModule:
    """The interface and the loops of a 1.x module (MXNet's ``mx.mod.BaseModule``)."""

    def __init__(self, logger=logging):
        self.logger = logger
        self.binded = False
        self.for_training = False
        self.inputs_need_grad = False
        self.params_initialized = False
        self.optimizer_initialized = False
        self._symbol = None
        self._total_exec_bytes = 0

    # -- the loops -------------------------------------------------------------------------------
    def forward_backward(self, data_batch):
        """A training forward then backward on ``data_batch``."""
        self.forward(data_batch, is_train=True)
        self.backward()

    def _require_ready(self, step):
        _require(self.binded and self.params_initialized, step, "bind() and init_params()")

    def score(self, eval_data, eval_metric, num_batch=None, batch_end_callback=None,
              score_end_callback=None, reset=True, epoch=0, sparse_row_id_fn=None):
        """Run inference over ``eval_data`` and return ``eval_metric``'s ``[(name, value)]``."""
        self._require_ready("score")
        if reset:
            eval_data.reset()
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)
        eval_metric.reset()
        actual_num_batch = 0
        for nbatch, eval_batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(eval_batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(eval_batch, is_train=False)
            self._update_metric_of(eval_metric, eval_batch)
            if batch_end_callback is not None:
                _call_all(batch_end_callback, BatchEndParam(epoch, nbatch, eval_metric, locals()))
            actual_num_batch += 1
        if score_end_callback:
            _call_all(score_end_callback,
                      BatchEndParam(epoch, actual_num_batch, eval_metric, locals()))
        return eval_metric.get_name_value()

    def _update_metric_of(self, eval_metric, batch):
        if isinstance(batch, list):
            self.update_metric(eval_metric, [b.label for b in batch], pre_sliced=True)
        else:
            self.update_metric(eval_metric, batch.label)

    def iter_predict(self, eval_data, num_batch=None, reset=True, sparse_row_id_fn=None):
        """Yield ``(outputs, nbatch, batch)`` per batch, the padding cut off the outputs."""
        self._require_ready("iter_predict")
        if reset:
            eval_data.reset()
        for nbatch, eval_batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(eval_batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(eval_batch, is_train=False)
            pad = eval_batch.pad or 0
            yield [out[0:out.shape[0] - pad] for out in self.get_outputs()], nbatch, eval_batch

    def predict(self, eval_data, num_batch=None, merge_batches=True, reset=True,
                always_output_list=False, sparse_row_id_fn=None):
        """Outputs over ``eval_data`` (a DataIter, or one NDArray/NumPy batch), concatenated
        over batches unless ``merge_batches=False``."""
        self._require_ready("predict")
        if isinstance(eval_data, (ndarray.NDArray, numpy.ndarray)):
            if isinstance(eval_data, numpy.ndarray):
                eval_data = ndarray.array(eval_data)
            self.forward(DataBatch([eval_data]))
            return self.get_outputs()[0]
        if not isinstance(eval_data, DataIter):
            raise MXNetValueError(f"eval_data must be of type NDArray or DataIter, got "
                                  f"{type(eval_data).__name__}")
        output_list = [[out.copy() for out in outputs] for outputs, _, _ in
                       self.iter_predict(eval_data, num_batch, reset, sparse_row_id_fn)]
        if not output_list or not merge_batches:
            return output_list
        num_outputs = len(output_list[0])
        if any(len(out) != num_outputs for out in output_list):
            raise MXNetValueError("Cannot merge batches, as num of outputs is not the same in "
                                  "mini-batches. Maybe bucketing is used?")
        merged = [ndarray.concatenate([out[i] for out in output_list])
                  for i in range(num_outputs)]
        if num_outputs == 1 and not always_output_list:
            return merged[0]
        return merged

    def fit(self, train_data, eval_data=None, eval_metric="acc", epoch_end_callback=None,
            batch_end_callback=None, kvstore="local", optimizer="sgd",
            optimizer_params=(("learning_rate", 0.01),), eval_end_callback=None,
            eval_batch_end_callback=None, initializer=Uniform(0.01), arg_params=None,
            aux_params=None, allow_missing=False, force_rebind=False, force_init=False,
            begin_epoch=0, num_epoch=None, validation_metric=None, monitor=None,
            sparse_row_id_fn=None):
        """Bind, initialise and train for epochs ``[begin_epoch, num_epoch)``; evaluate on
        ``eval_data`` after each epoch."""
        if num_epoch is None:
            raise MXNetValueError("fit: please specify number of epochs (num_epoch)")
        self.bind(data_shapes=train_data.provide_data, label_shapes=train_data.provide_label,
                  for_training=True, force_rebind=force_rebind)
        if monitor is not None:
            self.install_monitor(monitor)
        self.init_params(initializer=initializer, arg_params=arg_params, aux_params=aux_params,
                         allow_missing=allow_missing, force_init=force_init)
        self.init_optimizer(kvstore=kvstore, optimizer=optimizer,
                            optimizer_params=optimizer_params)
        if validation_metric is None:
            validation_metric = eval_metric
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)
        for epoch in range(begin_epoch, num_epoch):
            tic = time.time()
            eval_metric.reset()
            self._fit_epoch(train_data, epoch, eval_metric, batch_end_callback, monitor,
                            sparse_row_id_fn)
            self.logger.info("Epoch[%d] Time cost=%.3f", epoch, time.time() - tic)
            # NOTE: averaged over the devices and written back, so replicas stay equal
            arg_params, aux_params = self.get_params()
            self.set_params(arg_params, aux_params)
            if epoch_end_callback is not None:
                _call_all(epoch_end_callback, epoch, self.symbol, arg_params, aux_params)
            if eval_data is not None:
                res = self.score(eval_data, validation_metric,
                                 score_end_callback=eval_end_callback,
                                 batch_end_callback=eval_batch_end_callback, epoch=epoch)
                for name, val in res:
                    self.logger.info("Epoch[%d] Validation-%s=%f", epoch, name, val)
            train_data.reset()

    def _fit_epoch(self, train_data, epoch, eval_metric, batch_end_callback, monitor,
                   sparse_row_id_fn):
        """One pass over ``train_data``. The next batch is fetched (and ``prepare``d) before the
        callbacks run, and only one batch is referenced at a time, as MXNet's C++ iterators
        free a batch on ``next``."""
        nbatch = 0
        data_iter = iter(train_data)
        end_of_batch = False
        next_data_batch = next(data_iter)
        eval_name_vals = []
        while not end_of_batch:
            data_batch = next_data_batch
            if monitor is not None:
                monitor.tic()
            self.forward_backward(data_batch)
            self.update()
            self._update_metric_of(eval_metric, data_batch)
            try:
                next_data_batch = next(data_iter)
                self.prepare(next_data_batch, sparse_row_id_fn=sparse_row_id_fn)
            except StopIteration:
                end_of_batch = True
            if monitor is not None:
                monitor.toc_print()
            if end_of_batch:
                eval_name_vals = eval_metric.get_global_name_value()
            if batch_end_callback is not None:
                _call_all(batch_end_callback, BatchEndParam(epoch, nbatch, eval_metric, locals()))
            nbatch += 1
        for name, val in eval_name_vals:
            self.logger.info("Epoch[%d] Train-%s=%f", epoch, name, val)

    # -- symbol information ----------------------------------------------------------------------
    @property
    def data_names(self):
        """Names of the data inputs."""
        raise MXNetNotImplementedError(f"{type(self).__name__}.data_names")

    @property
    def output_names(self):
        raise MXNetNotImplementedError(f"{type(self).__name__}.output_names")

    @property
    def data_shapes(self):
        raise MXNetNotImplementedError(f"{type(self).__name__}.data_shapes")

    @property
    def label_shapes(self):
        raise MXNetNotImplementedError(f"{type(self).__name__}.label_shapes")

    @property
    def output_shapes(self):
        raise MXNetNotImplementedError(f"{type(self).__name__}.output_shapes")

    @property
    def symbol(self):
        """The symbol this module runs."""
        return self._symbol

    # -- parameters ------------------------------------------------------------------------------
    def get_params(self):
        """``(arg_params, aux_params)``: copies on the CPU."""
        raise MXNetNotImplementedError(f"{type(self).__name__}.get_params")

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        raise MXNetNotImplementedError(f"{type(self).__name__}.init_params")

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True,
                   allow_extra=False):
        """Assign parameter values (``init_params`` without an initializer); with
        ``allow_missing`` a module keeping device values assigns only the given ones
        (:meth:`_assign_given`)."""
        if not allow_missing:
            self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                             allow_missing=False, force_init=force_init, allow_extra=allow_extra)
            return
        if self.params_initialized and not force_init:
            warnings.warn("Parameters already initialized and force_init=False. set_params "
                          "call ignored.", stacklevel=2)
            return
        self._assign_given(arg_params, aux_params, force_init, allow_extra)

    def _assign_given(self, arg_params, aux_params, force_init, allow_extra):
        self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                         allow_missing=True, force_init=force_init, allow_extra=allow_extra)

    def save_params(self, fname):
        """Write the parameters as ``arg:<name>``/``aux:<name>`` (a 1.x ``.params`` file)."""
        arg_params, aux_params = self.get_params()
        save_dict = {"arg:%s" % k: v.as_in_context(cpu()) for k, v in arg_params.items()}
        save_dict.update({"aux:%s" % k: v.as_in_context(cpu()) for k, v in aux_params.items()})
        ndarray.save(fname, save_dict)

    def load_params(self, fname):
        """Read a file :meth:`save_params` wrote and assign it."""
        arg_params, aux_params = {}, {}
        for key, value in ndarray.load(fname).items():
            kind, _, name = key.partition(":")
            if kind == "arg":
                arg_params[name] = value
            elif kind == "aux":
                aux_params[name] = value
            else:
                raise MXNetValueError(f"Invalid param file {fname}: key '{key}' is neither "
                                      f"'arg:<name>' nor 'aux:<name>'")
        self.set_params(arg_params, aux_params)

    def get_states(self, merge_multi_context=True):
        """Recurrent states (none for a module without ``state_names``)."""
        self._require_ready("get_states")
        if merge_multi_context:
            raise MXNetValueError("merge_multi_context=True is not supported for get_states")
        return []

    def set_states(self, states=None, value=None):
        self._require_ready("set_states")
        if states or value:
            raise MXNetValueError("set_states: this module has no states")

    def install_monitor(self, mon):
        raise MXNetNotImplementedError(f"{type(self).__name__}.install_monitor")

    # -- computation -----------------------------------------------------------------------------
    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Get ready for ``data_batch`` (row-sparse pulls in modules that have them)."""
        if sparse_row_id_fn is not None:
            warnings.warn(UserWarning("sparse_row_id_fn is not invoked for BaseModule."),
                          stacklevel=2)

    def forward(self, data_batch, is_train=None):
        raise MXNetNotImplementedError(f"{type(self).__name__}.forward")

    def backward(self, out_grads=None):
        raise MXNetNotImplementedError(f"{type(self).__name__}.backward")

    def get_outputs(self, merge_multi_context=True):
        raise MXNetNotImplementedError(f"{type(self).__name__}.get_outputs")

    def get_input_grads(self, merge_multi_context=True):
        raise MXNetNotImplementedError(f"{type(self).__name__}.get_input_grads")

    def update(self):
        raise MXNetNotImplementedError(f"{type(self).__name__}.update")

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        raise MXNetNotImplementedError(f"{type(self).__name__}.update_metric")

    # -- setup -----------------------------------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        raise MXNetNotImplementedError(f"{type(self).__name__}.bind")

    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        raise MXNetNotImplementedError(f"{type(self).__name__}.init_optimizer")
