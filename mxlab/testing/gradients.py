"""Gradient checks of ``mx.test_utils`` (re-exported there): central differences
(:func:`check_numeric_gradient`, :func:`numeric_grad`) for a Symbol (through ``bind``) or a plain
Python function of arrays (through ``mx.autograd``), :func:`check_symbolic_forward`,
:func:`check_symbolic_backward` and :func:`simple_forward`.

Example
-------
>>> import mxlab as mx
>>> from mxlab.test_utils import check_numeric_gradient
>>> check_numeric_gradient(mx.sym.tanh(mx.sym.var("x")), [mx.nd.array([0.1, 0.5])])
"""
import inspect

import numpy as np

from .. import autograd
from ..base import MXNetTypeError, MXNetValueError
from ..ndarray.ndarray import NDArray, ndarray
from ..ndarray.ndarray import array as _new_array
from ..test_utils import (_FLOATS, _NUMERIC_EPS, _as_numpy, assert_almost_equal,
                          default_context, default_dtype, get_tolerance)
from ..util import is_np_array

__all__ = ["numeric_grad", "check_numeric_gradient", "check_symbolic_forward",
           "check_symbolic_backward", "simple_forward"]


# -- gradient checking ---------------------------------------------------------------------------
def _as_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


class _FunctionTarget:
    """A Python function of mxlab arrays, run imperatively and differentiated by ``mx.autograd``."""

    def __init__(self, fn, location, ctx, dtype):
        self.fn = fn
        self.keyword = isinstance(location, dict)
        if not self.keyword:
            location = dict(zip(_positional_names(fn, len(location)), location))
        self.cls = _array_class(location.values())
        self.ctx = ctx
        self.location = {k: _to_host(v, dtype) for k, v in location.items()}

    def _call(self, arrays):
        return _as_list(self.fn(**arrays) if self.keyword else self.fn(*arrays.values()))

    def _arrays(self, values):
        return {k: _new_array(v, device=self.ctx, cls=self.cls) for k, v in values.items()}

    def forward(self, values, is_train):
        arrays = self._arrays(values)
        with autograd.train_mode() if is_train else autograd.predict_mode():
            return [_as_numpy(out) for out in self._call(arrays)]

    def gradient(self, values, head_grads, grad_req, initial, is_train):
        arrays = self._arrays(values)
        marked = [k for k in arrays if grad_req[k] != "null"]
        grads = {k: _new_array(initial[k], device=self.ctx, cls=self.cls) for k in marked}
        autograd.mark_variables([arrays[k] for k in marked], [grads[k] for k in marked],
                                grad_reqs=[grad_req[k] for k in marked])
        with autograd.record(train_mode=is_train):
            outputs = self._call(arrays)
        heads = [_new_array(h, device=self.ctx, cls=self.cls) for h in head_grads]
        autograd.backward(outputs, head_grads=heads)
        return {k: (grads[k].asnumpy() if k in grads else initial[k]) for k in values}


class _SymbolTarget:
    """A Symbol: forward by ``Symbol.eval``, gradients by an executor (``Symbol.bind``)."""

    def __init__(self, sym, location, aux_states, ctx, dtype):
        self.sym, self.ctx, self.dtype = sym, ctx, dtype
        names = sym.list_arguments()
        if isinstance(location, dict):
            if set(location) != set(names):
                raise MXNetValueError("Symbol arguments and keys of the given location do not "
                                      f"match: symbol args {sorted(names)}, location keys "
                                      f"{sorted(location)}")
        else:
            location = dict(zip(names, location))
        self.location = {k: _to_host(location[k], dtype) for k in names}
        self.aux = _parse_aux_states(sym, aux_states, dtype)

    def bind(self, values, args_grad=None, grad_req="null"):
        args = {k: _new_array(v, device=self.ctx, cls=NDArray) for k, v in values.items()}
        aux = {k: _new_array(v, device=self.ctx, cls=NDArray) for k, v in self.aux.items()} or None
        return self.sym.bind(self.ctx, args=args, args_grad=args_grad, grad_req=grad_req,
                             aux_states=aux)

    def evaluate(self, values, is_train):
        """The output arrays; fresh aux arrays each call (a training forward updates them)."""
        arrays = {k: _new_array(v, device=self.ctx, cls=NDArray)
                  for k, v in {**values, **self.aux}.items()}
        with autograd.train_mode() if is_train else autograd.predict_mode():
            return _as_list(self.sym.eval(ctx=self.ctx, **arrays))

    def forward(self, values, is_train):
        return [out.asnumpy() for out in self.evaluate(values, is_train)]

    def gradient(self, values, head_grads, grad_req, initial, is_train):
        grads = {k: _new_array(initial[k], device=self.ctx, cls=NDArray) for k in values}
        exe = self.bind(values, args_grad=grads, grad_req=grad_req)
        exe.forward(is_train=is_train)
        exe.backward([_new_array(h, device=self.ctx, cls=NDArray) for h in head_grads])
        return {k: g.asnumpy() for k, g in grads.items()}


class _ExecutorTarget:
    """An already bound executor (MXNet's ``numeric_grad(executor, ...)``); forward only."""

    def __init__(self, executor, location, dtype):
        self.exe = executor
        self.location = {k: _to_host(v, dtype) for k, v in location.items()}

    def forward(self, values, is_train):
        for k, v in values.items():
            target = self.exe.arg_dict[k]
            _new_array(v, device=target.context, cls=NDArray).copyto(target)
        self.exe.forward(is_train=is_train)
        return [out.asnumpy() for out in self.exe.outputs]


def _positional_names(fn, count):
    """Argument names of ``fn`` for messages (``arg0``, ``arg1``... where they cannot be read)."""
    try:
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    names = [p.name for p in params[:count]]
    return names + [f"arg{i}" for i in range(len(names), count)]


def _array_class(values):
    """The array class a function receives: that of the given arrays, else by ``is_np_array()``."""
    classes = {type(v) for v in values if isinstance(v, NDArray)}
    if len(classes) == 1:
        return classes.pop()
    return ndarray if is_np_array() else NDArray


def _to_host(value, dtype):
    host = _as_numpy(value)
    if dtype == "asnumpy":
        return np.array(host)
    return np.array(host, dtype=dtype)


def _parse_aux_states(sym, aux_states, dtype):
    if aux_states is None:
        return {}
    names = sym.list_auxiliary_states()
    if isinstance(aux_states, dict):
        if set(aux_states) != set(names):
            raise MXNetValueError(f"Symbol aux_states names and given aux_states do not match: "
                                  f"symbol aux names {sorted(names)}, given {sorted(aux_states)}")
        return {k: _to_host(aux_states[k], dtype) for k in names}
    return {k: _to_host(v, dtype) for k, v in zip(names, aux_states)}


def _is_symbol(obj):
    return hasattr(obj, "list_arguments") and hasattr(obj, "bind")


def _make_target(sym_or_fn, location, aux_states, ctx, dtype):
    if _is_symbol(sym_or_fn):
        return _SymbolTarget(sym_or_fn, location, aux_states, ctx, dtype)
    if hasattr(sym_or_fn, "arg_dict") and hasattr(sym_or_fn, "forward"):
        return _ExecutorTarget(sym_or_fn, location, dtype)
    if callable(sym_or_fn):
        if aux_states is not None:
            raise MXNetValueError("aux_states only apply to a Symbol; a function keeps its own "
                                  "state")
        return _FunctionTarget(sym_or_fn, location, ctx, dtype)
    raise MXNetTypeError("expected a Symbol, an executor or a function of arrays, got "
                         f"{type(sym_or_fn).__name__}")


def _central_differences(objective, location, eps, names):
    """d objective / d location[name] per element: (f(x + eps/2) - f(x - eps/2)) / eps."""
    grads = {}
    for name in names:
        value = location[name]
        if value.dtype.kind != "f":
            continue
        grad = np.zeros(value.shape, dtype=np.float64)
        flat = value.reshape(-1)  # NOTE: a view: the perturbation is seen through `location`
        for i in range(flat.size):
            original = flat[i]
            flat[i] = original + eps / 2
            f_plus = objective(location)
            flat[i] = original - eps / 2
            f_minus = objective(location)
            flat[i] = original
            grad.reshape(-1)[i] = (f_plus - f_minus) / eps
        grads[name] = grad.astype(value.dtype)
    return grads


def numeric_grad(executor, location, aux_states=None, eps=1e-4, use_forward_train=True,
                 dtype=default_dtype()):
    """Numerical gradient of ``sum(outputs[0])`` by central differences.

    Parameters
    ----------
    executor : Executor, Symbol, or callable
        What computes the outputs: a bound executor (MXNet's form), a Symbol, or a Python
        function of mxlab arrays (``location`` a list gives positional arguments, a dict keyword
        arguments).
    location : list or dict of numpy arrays
        The point at which to differentiate.
    eps : float
        Total step: inputs move by ``+-eps/2``.

    Returns
    -------
    dict
        Argument name -> NumPy gradient (integer-typed arguments are left out).

    Examples
    --------
    >>> import numpy
    >>> import mxlab as mx
    >>> g = numeric_grad(lambda x: x * x, [numpy.array([1.0, 2.0])], dtype=numpy.float64)
    >>> numpy.round(g["x"], 6)
    array([2., 4.])
    """
    target = _make_target(executor, location, aux_states, default_context(), dtype)

    def objective(values):
        return float(np.sum(target.forward(values, use_forward_train)[0], dtype=np.float64))
    return _central_differences(objective, target.location, eps, list(target.location))


def _grad_requests(grad_nodes, names):
    if grad_nodes is None:
        return {k: "write" for k in names}
    if isinstance(grad_nodes, dict):
        requests = {k: "null" for k in names}
        requests.update(grad_nodes)
        return requests
    unknown = set(grad_nodes) - set(names)
    if unknown:
        raise MXNetValueError(f"grad_nodes {sorted(unknown)} are not arguments; arguments: {names}")
    return {k: "write" if k in grad_nodes else "null" for k in names}


def _check_stypes(where, stypes):
    """Gradient storage types (MXNet's ``grad_stype_dict`` / ``grad_stypes``): graph gradients
    are dense in mxlab and a sparse gradient holds the same values, so checks compare values;
    only the names are validated."""
    for name, stype in (stypes or {}).items():
        if stype not in ("default", "row_sparse", "csr"):
            raise MXNetValueError(f"{where}: unknown storage type {stype!r} for {name!r}")


def check_numeric_gradient(sym, location, aux_states=None, numeric_eps=None, rtol=None, atol=None,
                           grad_nodes=None, use_forward_train=True, ctx=None, grad_stype_dict=None,
                           dtype=default_dtype()):
    """Check the backward pass of a Symbol or Python function against central differences.

    Both sides differentiate ``sum_i sum(outputs[i] * P_i)`` for random projections ``P_i`` in
    ``[0.1, 1.1)``, so every output element and every output take part.

    Parameters
    ----------
    sym : Symbol or callable
        A Symbol (bound with ``sym.bind``) or a function of mxlab arrays returning an array or a
        list of arrays (differentiated with ``mx.autograd``).
    location : list or dict of arrays
        The point: values for ``sym.list_arguments()`` (or the function's arguments, positional
        for a list, keywords for a dict).
    numeric_eps : float, optional
        Finite-difference step; default per dtype (:func:`default_numeric_eps`).
    rtol, atol : float, optional
        Tolerances; default per dtype.
    grad_nodes : list of names or dict name -> grad_req, optional
        Which arguments to check (default all); ``grad_req`` 'write', 'add' or 'null'.
    use_forward_train : bool
        Whether the finite-difference forwards run in training mode.
    dtype : numpy float dtype
        The dtype of the arrays both sides compute with.

    Examples
    --------
    >>> import numpy
    >>> import mxlab as mx
    >>> check_numeric_gradient(lambda a, b: a * b, [numpy.ones((2, 2)), numpy.ones((2, 2)) + 1])
    """
    _check_stypes("check_numeric_gradient", grad_stype_dict)
    dtype = np.dtype(dtype).type
    if dtype not in _FLOATS:
        raise MXNetTypeError(f"check_numeric_gradient: dtype must be float16/32/64, got {dtype}")
    target = _make_target(sym, location, aux_states, ctx or default_context(), dtype)
    values = target.location
    grad_req = _grad_requests(grad_nodes, list(values))
    outputs = target.forward(values, use_forward_train)
    projections = [np.asarray(np.random.rand(*out.shape) + 0.1).astype(dtype) for out in outputs]
    initial = {k: np.random.normal(0, 0.01, size=v.shape).astype(dtype) for k, v in values.items()}
    analytic = target.gradient(values, projections, grad_req, initial, is_train=True)

    def objective(point):
        outs = target.forward(point, use_forward_train)
        return float(sum(np.sum(o.astype(np.float64) * p) for o, p in zip(outs, projections)))

    eps = get_tolerance(outputs[0], numeric_eps, _NUMERIC_EPS)
    checked = [k for k, req in grad_req.items() if req != "null"]
    point = {k: v.copy() for k, v in values.items()}
    numeric = _central_differences(objective, point, eps, checked)
    for name, req in grad_req.items():
        names = (f"NUMERICAL_{name}", f"BACKWARD_{name}")
        if req == "null":
            assert_almost_equal(initial[name], analytic[name], rtol, atol, names)
        elif name in numeric:
            expected = numeric[name] + (initial[name] if req == "add" else 0)
            assert_almost_equal(expected, analytic[name], rtol, atol, names)


# -- symbolic forward / backward -----------------------------------------------------------------
def _host_list(values, names):
    if isinstance(values, dict):
        return [values[k] for k in names]
    return list(values)


def check_symbolic_forward(sym, location, expected, rtol=None, atol=None, aux_states=None, ctx=None,
                           equal_nan=False, dtype=default_dtype()):
    """Run ``sym`` forward (inference mode) at ``location``; compare each output with ``expected``.

    ``expected`` is a list in ``sym.list_outputs()`` order or a dict keyed by output name. Returns
    the output arrays.

    Examples
    --------
    >>> import mxlab as mx
    >>> c = mx.sym.var('a') * mx.sym.var('b')
    >>> _ = check_symbolic_forward(c, [[1.0, 2.0], [3.0, 4.0]], [[3.0, 8.0]])
    """
    target = _SymbolTarget(sym, location, aux_states, ctx or default_context(), dtype)
    outputs = target.evaluate(target.location, is_train=False)
    names = sym.list_outputs()
    for name, want, got in zip(names, _host_list(expected, names), outputs):
        labels = (f"EXPECTED_{name}", f"FORWARD_{name}")
        assert_almost_equal(want, got, rtol, atol, labels, equal_nan=equal_nan)
    return outputs


def check_symbolic_backward(sym, location, out_grads, expected, rtol=None, atol=None,
                            aux_states=None, grad_req="write", ctx=None, grad_stypes=None,
                            equal_nan=False, dtype=default_dtype()):
    """Run ``sym`` forward and backward with head gradients ``out_grads``; compare gradients.

    ``expected`` is a list in ``sym.list_arguments()`` order or a dict keyed by argument name;
    ``grad_req`` a string, list or dict of 'write' / 'add' / 'null'. Gradient buffers start with
    random values, so 'add' and 'null' are checked too. Returns the gradient arrays by name.
    """
    _check_stypes("check_symbolic_backward", grad_stypes)
    target = _SymbolTarget(sym, location, aux_states, ctx or default_context(), dtype)
    names = list(target.location)
    expected = dict(zip(names, expected)) if isinstance(expected, (list, tuple)) else expected
    if isinstance(grad_req, str):
        grad_req = dict.fromkeys(names, grad_req)
    elif isinstance(grad_req, (list, tuple)):
        grad_req = dict(zip(names, grad_req))
    initial = {k: np.random.normal(size=v.shape).astype(v.dtype)
               for k, v in target.location.items()}
    grads = {k: _new_array(initial[k], device=target.ctx, cls=NDArray) for k in names}
    exe = target.bind(target.location, args_grad=grads, grad_req=grad_req)
    exe.forward(is_train=True)
    heads = None
    if out_grads is not None:
        heads = [_new_array(_to_host(g, dtype), device=target.ctx, cls=NDArray)
                 for g in _host_list(out_grads, sym.list_outputs())]
    exe.backward(heads)
    for name, want in expected.items():
        labels = (f"EXPECTED_{name}", f"BACKWARD_{name}")
        got = grads[name].asnumpy()
        req = grad_req[name]
        if req == "null":
            assert_almost_equal(initial[name], got, rtol, atol, labels, equal_nan=equal_nan)
        else:
            base = initial[name] if req == "add" else 0
            assert_almost_equal(_as_numpy(want) + base, got, rtol, atol, labels,
                                equal_nan=equal_nan)
    return grads


def simple_forward(sym, ctx=None, is_train=False, **inputs):
    """Run ``sym`` forward on NumPy ``inputs`` (by argument name); NumPy output(s) back."""
    target = _SymbolTarget(sym, inputs, None, ctx or default_context(), "asnumpy")
    outputs = target.forward(target.location, is_train)
    return outputs[0] if len(outputs) == 1 else outputs
