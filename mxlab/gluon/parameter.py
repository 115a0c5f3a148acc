"""Gluon parameters: a named array (one copy per device) with its gradient and symbolic variable.

A :class:`Parameter` may be created before its shape is known (unknown dims are ``0`` or ``-1``):
``initialize`` then *defers* the allocation until the owning block has seen its first input and set
the shape (``HybridBlock.infer_shape``). ``data()`` also binds the array to the parameter's
:meth:`Parameter.var`, so a deferred-compute trace of a block records parameters as graph inputs.

Example
-------
>>> import mxlab as mx
>>> p = mx.gluon.Parameter('weight', shape=(2, 3), init=mx.init.One())
>>> p.initialize()
>>> float(p.data().asnumpy().sum()), p.grad().shape
(6.0, (2, 3))
"""
import itertools
import uuid
import weakref

import numpy

from .. import autograd
from .. import deferred_compute as dc
from ..base import MXNetRuntimeError, MXNetTypeError, MXNetValueError
from ..device import Device, cpu, current_device
from ..util import is_np_array, is_np_shape, np_shape

__all__ = ["Parameter", "Constant", "DeferredInitializationError"]

_var_count = itertools.count()
_var_owners = weakref.WeakValueDictionary()   # variable name -> the Parameter holding it
GRAD_REQS = ("write", "add", "null")


class DeferredInitializationError(MXNetRuntimeError):
    """A parameter's data was asked for before its deferred initialisation could run."""


def shape_is_known(shape):
    """Whether every dim of ``shape`` is known (unknown dims are 0 or -1)."""
    return shape is not None and all(d > 0 for d in shape)


class InvalidParameterError(MXNetValueError, AssertionError):
    """A parameter setting MXNet asserts (``AssertionError``): a shape incompatible with the
    known one, an unknown storage type. It is a ``ValueError`` too."""


_STYPES = ("default", "row_sparse", "csr")


def _merge_shape(old, new, name):
    """``new`` filled in with ``old``'s known dims; incompatible known dims are an error."""
    if old is None or len(old) != len(new):
        return new
    if any(o > 0 and n > 0 and o != n for o, n in zip(old, new)):
        raise InvalidParameterError(
            f"Expected shape {new} is incompatible with given shape {old} for Parameter {name}."
        )
    return tuple(n if n > 0 else o for o, n in zip(old, new))


def _array_module():
    from .. import ndarray as nd, numpy as np

    return np if is_np_array() else nd


def _devices(ctx):
    if ctx is None:
        return [current_device()]
    return [Device(c) for c in ctx] if isinstance(ctx, (list, tuple)) else [Device(ctx)]


class Parameter:
    """A block parameter (``mx.gluon.Parameter``).

    Parameters
    ----------
    name : str
        The local name (``weight``, ``bias``); a block's ``collect_params`` gives structured names.
    grad_req : {'write', 'add', 'null'}
    shape : int or tuple of int, optional
        Unknown dims may be 0 or -1; they are set from the first input (deferred init).
    dtype : numpy dtype or str
    lr_mult, wd_mult : float
        Multipliers on the optimizer's learning rate and weight decay for this parameter.
    init : Initializer or str, optional
        Overrides the initializer given to ``initialize``.
    allow_deferred_init : bool
    differentiable : bool
        False forces ``grad_req='null'``.
    """

    def __init__(self, name="weight", grad_req="write", shape=None, dtype=numpy.float32,
                 lr_mult=1.0, wd_mult=1.0, init=None, allow_deferred_init=False,
                 differentiable=True, stype="default", grad_stype="default"):
        self.name = name
        self._shape = (shape,) if isinstance(shape, int) else (None if shape is None
                                                               else tuple(shape))
        self.dtype = numpy.dtype(dtype).name if dtype != "bfloat16" else dtype
        self.lr_mult, self.wd_mult = lr_mult, wd_mult
        self.init = init
        self.allow_deferred_init = allow_deferred_init
        self._differentiable = differentiable
        for what, value in (("stype", stype), ("grad_stype", grad_stype)):
            if value not in _STYPES:
                raise InvalidParameterError(f"Invalid {what} {value!r} for Parameter {name}: "
                                            f"expected one of {list(_STYPES)}")
        self._stype, self._grad_stype = stype, grad_stype
        self._grad_req = grad_req if differentiable else "null"
        if self._grad_req not in GRAD_REQS:
            raise MXNetValueError(f"Parameter {name}: grad_req must be one of {GRAD_REQS}, "
                                  f"got {grad_req!r}")
        self._data = None      # {Device: array}
        self._trainer_ref = None   # a weakref to the Trainer updating it (see _trainer)
        self._grad = None      # {Device: array}
        self._deferred_init = ()  # (init, devices, default_init, data) while waiting for a shape
        self._var = None
        self._var_name = None
        self._uuid = str(uuid.uuid4())   # MXNet 2.0: tells shared parameters apart (GluonNLP)

    def __repr__(self):
        return f"Parameter {self.name} (shape={self.shape}, dtype={self.dtype})"

    # -- attributes --------------------------------------------------------------------------------
    @property
    def shape(self):
        """The shape; an unknown dim is 0, or -1 under NumPy semantics (``npx.set_np``), as in
        MXNet (D2L's lazy-init section prints ``(256, -1)``)."""
        if self._shape is None or not is_np_shape():
            return self._shape
        return tuple(-1 if d == 0 else d for d in self._shape)

    @shape.setter
    def shape(self, new_shape):
        new_shape = (new_shape,) if isinstance(new_shape, int) else tuple(new_shape)
        self._shape = _merge_shape(self._shape, new_shape, self.name)

    @property
    def grad_req(self):
        return self._grad_req

    @grad_req.setter
    def grad_req(self, req):
        if req not in GRAD_REQS:
            raise MXNetValueError(f"grad_req must be one of {GRAD_REQS}, but got {req!r}")
        req = req if self._differentiable else "null"
        if req == self._grad_req:
            return
        self._grad_req = req
        if req == "null":
            self._grad = None
            if self._data is not None:
                self._data = _PerDevice((d, a.detach()) for d, a in self._data.items())
        elif self._data is not None:
            self._init_grad()

    # -- initialisation ----------------------------------------------------------------------------
    def initialize(self, init=None, ctx=None, default_init=None, force_reinit=False, device=None):
        """Allocate and fill the data (deferred when the shape is not known yet)."""
        from .. import initializer

        if self._data is not None and not force_reinit:
            return
        self._data = self._grad = None
        devices = _devices(device if device is not None else ctx)
        default_init = default_init if default_init is not None else initializer.Uniform()
        if init is None:
            init = self.init
        if not shape_is_known(self.shape):
            if not self.allow_deferred_init:
                raise MXNetValueError(
                    f"Cannot initialize Parameter '{self.name}' because it has invalid shape: "
                    f"{self.shape}. Please specify in_units, in_channels, etc for `Block`s."
                )
            self._deferred_init = (init, devices, default_init, None)
            return
        self._deferred_init = (init, devices, default_init, None)
        self._finish_deferred_init()

    def _finish_deferred_init(self):
        """Run a deferred initialisation now that the shape is known (with deferred compute off)."""
        if not self._deferred_init:
            return
        init, devices, default_init, data = self._deferred_init
        if not shape_is_known(self.shape):
            raise DeferredInitializationError(
                f"Cannot initialize Parameter '{self.name}' because it has invalid shape: "
                f"{self.shape}."
            )
        self._deferred_init = ()
        with dc.context(False), autograd.pause():
            if data is None:
                data = self._fresh_data(init, default_init)
            self._init_impl(data, devices)

    def _fresh_data(self, init, default_init):
        from .. import initializer

        with np_shape(True):   # NOTE: the shape is complete here: () is a scalar, not unknown
            data = _array_module().zeros(self.shape, dtype=self.dtype, device=cpu())
        default_init = initializer.create(default_init)
        if isinstance(self.init, initializer.RNNFused):
            # NOTE: as MXNet 2.0: the fused RNN's groups without an initializer take this one.
            self.init.set_initializer(init if init is not self.init else default_init)
            init = default_init = self.init
        if init is None and initializer.has_name_rule(self.name):
            # NOTE: no own initializer: names decide (bias -> 0, gamma -> 1, weight -> default).
            default_init(initializer.InitDesc(self.name), data)
        else:
            desc = initializer.InitDesc(self.name, {"__init__": init or default_init})
            default_init(desc, data)
        return data

    def _init_impl(self, data, devices):
        if self._stype != "default" and getattr(data, "_flavour", "nd") == "nd":
            data = data.tostype(self._stype)   # NOTE: mx.np arrays stay dense
        self._data = _PerDevice((d, data.copyto(d) if d != data.device else data.copy())
                                for d in devices)
        self._init_grad()

    def _init_grad(self):
        if self._grad_req == "null":
            self._grad = None
            return
        module = _array_module()
        # NOTE: a sparse grad_stype (Embedding(sparse_grad=True)) gets sparse buffers in the
        #   legacy nd mode; mx.np arrays are dense
        stype = {} if self._grad_stype == "default" or module.__name__.endswith("numpy") else \
            {"stype": self._grad_stype}
        with np_shape(True):
            self._grad = {d: module.zeros(a.shape, dtype=a.dtype, device=d, **stype)
                          for d, a in self._data.items()}
        for device, arr in self._data.items():
            autograd.mark_variables([arr], [self._grad[device]], self._grad_req)

    def _set_trainer(self, trainer):
        """Associate the Trainer updating this parameter (None: none); a sparse parameter takes
        one Trainer only, as in MXNet."""
        current = self._trainer
        if self._stype != "default" and current is not None and trainer is not None \
                and current is not trainer:
            raise MXNetRuntimeError(f"Failed to set the trainer for Parameter '{self.name}' "
                                    f"because it was already set. More than one trainers for a "
                                    f"{self._stype} Parameter is not supported.")
        self._trainer_ref = weakref.ref(trainer) if trainer is not None else None

    @property
    def _trainer(self):
        """The Trainer updating this parameter, or None. MXNet 1.x code compares it with the
        Trainer (``p._trainer is trainer``); MXNet 2.0 code calls the weak reference it keeps
        (``p._trainer()``), which calling a Trainer answers with itself."""
        return self._trainer_ref() if self._trainer_ref is not None else None

    def _load_init(self, data, ctx=None, cast_dtype=False, dtype_source="current"):
        """Set this parameter from a loaded array (shape checked, dtype checked or cast)."""
        if self.shape is not None and len(self.shape) == len(data.shape):
            if any(s > 0 and s != d for s, d in zip(self.shape, data.shape)):
                raise MXNetValueError(
                    f"Failed loading Parameter '{self.name}' from saved params: shape "
                    f"incompatible expected {self.shape} vs saved {tuple(data.shape)}"
                )
        self._shape = tuple(data.shape)
        saved_dtype = numpy.dtype(data.dtype).name
        if saved_dtype != numpy.dtype(self.dtype).name:
            if not cast_dtype:
                raise MXNetValueError(
                    f"Failed loading Parameter '{self.name}' from saved params: dtype "
                    f"incompatible expected {self.dtype} vs saved {saved_dtype}. Set "
                    f"cast_dtype=True to cast the dtype of saved params."
                )
            if dtype_source == "saved":   # NOTE: the array's dtype (a NumPy type), as MXNet
                self.dtype = data.dtype
                if self._data is not None:   # NOTE: the arrays take the saved dtype too (1.9.1)
                    self._init_impl(_as_module_array(data), list(self._data))
                    return
            else:
                data = data.astype(self.dtype)
        data = _as_module_array(data)
        trainer = self._trainer
        if trainer is not None and trainer._kv_initialized and trainer._update_on_kvstore \
                and self not in trainer._params_to_init:
            trainer._reset_kvstore()   # NOTE: the store holds the old weights (MXNet's rule)
        if self._data is not None:
            self.set_data(data)
            return
        devices = self._deferred_init[1] if self._deferred_init else _devices(ctx)
        self._deferred_init = ()
        self._init_impl(data, devices)

    # -- access ------------------------------------------------------------------------------------
    def _check_initialized(self):
        if self._data is not None:
            return
        if self._deferred_init:
            raise DeferredInitializationError(
                f"Parameter '{self.name}' has not been initialized yet because initialization "
                f"was deferred. Actual initialization happens during the first forward pass. "
                f"Please pass one batch of data through the network before accessing Parameters."
            )
        raise MXNetRuntimeError(
            f"Parameter '{self.name}' has not been initialized. Note that you should initialize "
            f"parameters and create Trainer with Block.collect_params() instead of Block.params "
            f"because the later does not include Parameters of nested child Blocks"
        )

    def _pick(self, arrays, ctx):
        if ctx is None:   # NOTE: the array on the current device, else the first (the hot path)
            found = arrays.get(current_device())
            return found if found is not None else next(iter(arrays.values()))
        found = arrays.get(ctx if type(ctx) is Device else Device(ctx))
        if found is None:
            raise MXNetRuntimeError(f"Parameter '{self.name}' was not initialized on context "
                                    f"{ctx}. It was only initialized on {list(arrays)}.")
        return found

    def _check_dense(self, method):
        if self._stype != "default":
            raise MXNetRuntimeError(
                f"Cannot return a copy of Parameter '{self.name}' via {method}() because its "
                f"storage type is {self._stype}. Please use row_sparse_data() instead.")

    def data(self, ctx=None, device=None):
        """The array on ``ctx``, bound to :meth:`var` so deferred-compute traces see an input."""
        self._check_dense("data")
        self._check_initialized()
        arr = self._pick(self._data, device if device is not None else ctx)
        if arr._dc is None or arr._dc.node is not self.var()._outputs[0].node:
            arr._dc = None
            dc.set_variable(arr, self.var())
        return arr

    def _array_on(self, device):
        """:meth:`data` for a CachedOp call (never traced, as deferred compute is off there): the
        dense array on ``device`` without binding its deferred-compute variable, which only a
        trace reads (``data()`` binds it then)."""
        arrays = self._data
        found = None if arrays is None or self._stype != "default" else arrays.get(device)
        return found if found is not None else self.data(device)

    def list_data(self):
        self._check_dense("list_data")
        return self._list_data()

    def _list_data(self):
        """Every device's array, whatever the storage type (the Trainer's access)."""
        self._check_initialized()
        return list(self._data.values())

    def row_sparse_data(self, row_id):
        """MXNet 1.x: the rows ``row_id`` of a row_sparse parameter, on ``row_id``'s device."""
        return self._row_sparse(row_id, row_id.device)[0]

    def list_row_sparse_data(self, row_id):
        """MXNet 1.x: the rows ``row_id`` of a row_sparse parameter, on every device."""
        return self._row_sparse(row_id, None)

    def _row_sparse(self, row_id, device):
        """The rows ``row_id`` as row_sparse arrays. MXNet pulls them from the Trainer's store;
        here every device keeps all rows (the Trainer updates them in place), so they are
        retained from the device's own array, which a Trainer must still exist for, as in MXNet.

        NOTE: the result is a new array: gradients reach the parameter through ``grad()``'s
        buffers only when the forward pass uses the parameter's own array."""
        from ..ndarray.ndarray import NDArray
        from ..ndarray.sparse_ops import retain

        if self._stype != "row_sparse":
            raise MXNetRuntimeError(
                f"Cannot return a copy of Parameter {self.name} via row_sparse_data() because "
                f"its storage type is {self._stype}. Please use data() instead.")
        if not isinstance(row_id, NDArray):
            raise MXNetTypeError(f"row_id must have NDArray type, but {type(row_id)} is given")
        if self._trainer is None:
            raise MXNetRuntimeError(f"Cannot get row_sparse data for Parameter '{self.name}' "
                                    "when no Trainer is created with it.")
        self._check_initialized()
        arrays = self._data.values() if device is None else [self._pick(self._data, device)]
        return [retain(arr, row_id.as_in_context(arr.device)) for arr in arrays]

    def grad(self, ctx=None, device=None):
        """The gradient buffer on ``ctx``."""
        self._check_initialized()
        if self._grad is None:
            raise MXNetRuntimeError(
                f"Cannot get gradient array for Parameter '{self.name}' because grad_req='null'"
            )
        return self._pick(self._grad, device if device is not None else ctx)

    def list_grad(self):
        self._check_initialized()
        if self._grad is None:
            raise MXNetRuntimeError(
                f"Cannot get gradient array for Parameter '{self.name}' because grad_req='null'"
            )
        return list(self._grad.values())

    def list_ctx(self):
        if self._data is None:
            if self._deferred_init:
                return list(self._deferred_init[1])
            raise MXNetRuntimeError(f"Parameter '{self.name}' has not been initialized")
        return list(self._data)

    list_device = list_ctx

    def set_data(self, data):
        """Overwrite the value on every device (the shape must stay compatible)."""
        self.shape = tuple(data.shape)
        if self._data is None:
            if not self._deferred_init:
                raise MXNetRuntimeError(f"Parameter '{self.name}' has not been initialized")
            init, devices, default_init, _ = self._deferred_init
            self._deferred_init = (init, devices, default_init, _as_module_array(data))
            return
        for arr in self._data.values():
            with dc.context(False), autograd.pause():
                source = data if data.dtype == arr.dtype else data.astype(arr.dtype)
                source.as_in_context(arr.device).copyto(arr)

    def zero_grad(self):
        """Set every gradient buffer to 0."""
        for grad in (self._grad or {}).values():
            grad[:] = 0

    def reset_ctx(self, ctx=None, device=None):
        """Move the data (and gradients) to the devices ``ctx`` (MXNet 2.0: ``device``)."""
        devices = _devices(device if ctx is None else ctx)
        if self._data is not None:
            data = self._reduce()
            self._init_impl(data, devices)
        elif self._deferred_init:
            init, _, default_init, data = self._deferred_init
            self._deferred_init = (init, devices, default_init, data)
        else:
            raise MXNetValueError(f"Cannot reset context for Parameter '{self.name}' because it "
                                  f"has not been initialized.")

    reset_device = reset_ctx

    def _reduce(self):
        """The value on the CPU (the mean over devices), as saved by ``save_parameters``."""
        arrays = [a.as_in_context(cpu()) for a in self._list_data()]
        total = arrays[0].copy()
        for arr in arrays[1:]:
            total = total + arr
        return total / len(arrays) if len(arrays) > 1 else total

    def var(self):
        """The symbolic variable standing for this parameter in traced graphs.

        Its name is MXNet 1.x's, the parameter's full name (``dense0_weight``) when no other live
        parameter's variable has it, else made unique (``<name>_<k>``); ``HybridBlock.export``
        renames it to the structured name.
        """
        if self._var is None:
            from .. import symbol

            if self._var_name is None:
                name = self.__dict__.get("_gluon1_name", self.name)
                if _var_owners.get(name) not in (None, self):
                    name = f"{self.name}_{next(_var_count)}"
                _var_owners[name] = self
                self._var_name = name
            init = self.init if isinstance(self.init, str) or hasattr(self.init, "dumps") \
                else None   # NOTE: as MXNet, `__init__` tells Module.init_params the initializer
            self._var = symbol.var(self._var_name, shape=self._shape, dtype=self.dtype,
                                   lr_mult=self.lr_mult, wd_mult=self.wd_mult, init=init,
                                   stype=None if self._stype == "default" else self._stype)
        return self._var

    def cast(self, dtype):
        """Cast data and gradients to ``dtype``."""
        self.dtype = numpy.dtype(dtype).name
        self._var = None
        if self._data is None:
            return
        with autograd.pause(), dc.context(False):
            self._data = _PerDevice((d, a.astype(dtype)) for d, a in self._data.items())
        self._init_grad()


class _PerDevice(dict):
    """``{Device: array}`` that MXNet 1.x code may also index by position (``p._data[0]``, its
    list of per-device arrays)."""

    def __getitem__(self, key):
        if isinstance(key, int):
            return list(self.values())[key]
        return dict.__getitem__(self, key)


def _as_module_array(data):
    """``data`` as the array flavour of the current mode (np in np mode, else nd)."""
    return data.as_np_ndarray() if is_np_array() else data.as_nd_ndarray()


class Constant(Parameter):
    """A parameter that is never updated (``grad_req='null'``), initialised to ``value``.

    Example
    -------
    >>> import mxlab as mx
    >>> c = mx.gluon.Constant([1.0, 2.0])
    >>> c.initialize()
    >>> c.data().asnumpy()
    array([1., 2.], dtype=float32)
    """

    def __init__(self, value, name="const"):
        from .. import initializer

        value = numpy.asarray(value.asnumpy() if hasattr(value, "asnumpy") else value)
        if value.dtype == numpy.float64:
            value = value.astype(numpy.float32)
        self.value = value
        super().__init__(name=name, grad_req="null", shape=value.shape, dtype=value.dtype,
                         init=initializer.Constant(value),
                         differentiable=False)

    @Parameter.grad_req.setter
    def grad_req(self, req):
        if req != "null":
            raise MXNetValueError("Constant parameter cannot have a gradient (grad_req='null')")
