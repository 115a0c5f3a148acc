"""Modules written in Python: ``PythonModule`` (no parameters; subclasses compute) and
``PythonLossModule`` (a loss whose gradient is a Python function), e.g. the last stage of a
``SequentialModule``."""
import logging

from .. import ndarray as nd
from ..base import MXNetNotImplementedError, MXNetTypeError, MXNetValueError
from ..initializer import Uniform
from .base_module import BaseModule, _require

__all__ = ["PythonLossModule", "PythonModule"]


class PythonModule(BaseModule):
    """A parameter-free module; subclasses give ``forward``/``backward``/``get_outputs`` and
    ``_compute_output_shapes``."""

    def __init__(self, data_names, label_names, output_names, logger=logging):
        super().__init__(logger=logger)
        self._data_names = list(data_names) if isinstance(data_names, tuple) else data_names
        self._label_names = list(label_names) if isinstance(label_names, tuple) else label_names
        self._output_names = output_names
        self._data_shapes = self._label_shapes = self._output_shapes = None

    @property
    def data_names(self):
        return self._data_names

    @property
    def output_names(self):
        return self._output_names

    @property
    def data_shapes(self):
        return self._data_shapes

    @property
    def label_shapes(self):
        return self._label_shapes

    @property
    def output_shapes(self):
        return self._output_shapes

    def get_params(self):
        """No parameters: two empty dicts."""
        return {}, {}

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        """Nothing to initialise."""

    def update(self):
        """Nothing to update."""

    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        """No optimizer needed."""

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update ``eval_metric`` with the outputs (when bound with labels)."""
        if self._label_shapes is None:
            return
        if pre_sliced:
            raise MXNetNotImplementedError("PythonModule does not support presliced labels")
        eval_metric.update(labels, self.get_outputs())

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        """Record the shapes (they must name this module's inputs, in order)."""
        if self.binded and not force_rebind:
            self.logger.warning("Already bound, ignoring bind()")
            return
        if grad_req != "write":
            raise MXNetValueError(f"Python module only support write gradient, got {grad_req!r}")
        if [x[0] for x in data_shapes] != list(self._data_names):
            raise MXNetValueError(f"data_shapes {data_shapes} do not name this module's data "
                                  f"{self._data_names}")
        if label_shapes is not None and \
                [x[0] for x in label_shapes] != list(self._label_names or []):
            raise MXNetValueError(f"label_shapes {label_shapes} do not name this module's "
                                  f"labels {self._label_names}")
        self.for_training, self.inputs_need_grad = for_training, inputs_need_grad
        self._data_shapes, self._label_shapes = data_shapes, label_shapes
        self._output_shapes = self._compute_output_shapes()
        self.binded = True

    def _compute_output_shapes(self):
        raise MXNetNotImplementedError(f"{type(self).__name__}._compute_output_shapes")


class PythonLossModule(PythonModule):
    """Passes its one data input through as ``<name>_output``; backward gives the input
    gradient ``grad_func(scores, labels)``."""

    def __init__(self, name="pyloss", data_names=("data",), label_names=("softmax_label",),
                 logger=logging, grad_func=None):
        super().__init__(data_names, label_names, [name + "_output"], logger=logger)
        if len(data_names) != 1 or len(label_names) != 1:
            raise MXNetValueError("PythonLossModule takes one data and one label input")
        if grad_func is not None and not callable(grad_func):
            raise MXNetTypeError("grad_func must be callable")
        self._name = name
        self._scores = self._labels = self._scores_grad = None
        self._grad_func = grad_func

    def _compute_output_shapes(self):
        return [(self._name + "_output", self._data_shapes[0][1])]

    def forward(self, data_batch, is_train=None):
        self._scores = data_batch.data[0]
        if is_train is None:
            is_train = self.for_training
        if is_train:
            self._labels = data_batch.label[0]

    def get_outputs(self, merge_multi_context=True):
        return [self._scores]

    def backward(self, out_grads=None):
        """The loss gradient (a loss takes no head gradient)."""
        if out_grads is not None:
            raise MXNetValueError("For a loss module, out_grads should be None")
        _require(self.for_training, "backward", "bind(for_training=True)")
        self._backward_impl()

    def _backward_impl(self):
        if self._grad_func is None:
            raise MXNetNotImplementedError("PythonLossModule: give grad_func or override "
                                           "_backward_impl")
        grad = self._grad_func(self._scores, self._labels)
        self._scores_grad = grad if isinstance(grad, nd.NDArray) else nd.array(grad)

    def get_input_grads(self, merge_multi_context=True):
        return [self._scores_grad]

    def install_monitor(self, mon):
        raise MXNetNotImplementedError("PythonLossModule.install_monitor")
