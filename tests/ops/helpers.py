"""Test helpers for op families: run an op's gradient rule directly, compare with central
differences.

The rule is called on a small node object (``inputs``/``outputs``/``attrs``/``op`` holding
arrays), so the check depends only on the op definition and the ops its rule uses, not on
``mx.autograd``.
"""
import json
import os
import subprocess

import numpy
import pytest

import mxlab as mx
from mxlab.gluon import HybridBlock
from mxlab.imperative import invoke
from mxlab.ops.registry import NodeView, get_op


def as64(x):
    """Float data as float64 (integer inputs such as lengths keep their dtype)."""
    x = numpy.asarray(x)
    return x if x.dtype.kind in "iub" else x.astype(numpy.float64)


def forward64(op, inputs, attrs):
    """The op's first output computed straight from NumPy float64 inputs."""
    result = op.run_compute(numpy, inputs, attrs)
    if isinstance(result, (list, tuple)):
        result = result[0]
    return numpy.asarray(result, dtype=numpy.float64)


def numeric_gradient(op, inputs, attrs, head, index, eps=1e-6):
    """d sum(op(inputs) * head) / d inputs[index] by central differences (float64)."""
    point = [x.copy() for x in inputs]
    target = point[index]
    grad = numpy.zeros_like(target)
    flat, out = target.reshape(-1), grad.reshape(-1)
    for i in range(flat.size):
        keep = flat[i]
        flat[i] = keep + eps
        plus = numpy.sum(forward64(op, point, attrs) * head)
        flat[i] = keep - eps
        minus = numpy.sum(forward64(op, point, attrs) * head)
        flat[i] = keep
        out[i] = (plus - minus) / (2 * eps)
    return grad


def analytic_gradient(op_name, inputs, attrs=None, head=None, cls=mx.np.ndarray):
    """``(gradients, outputs, head)`` from the op's gradient rule at float64 ``inputs``."""
    op = get_op(op_name)
    parsed = op.parse_attrs(attrs or {})
    inputs = [as64(x) for x in inputs]
    arrays = [mx.nd.array(x, dtype=x.dtype) for x in inputs]
    arrays = [a.as_np_ndarray() for a in arrays] if cls is mx.np.ndarray else arrays
    outputs = invoke(op, arrays, parsed)
    if head is None:
        head = numpy.random.uniform(0.5, 1.5, size=outputs[0].shape)
    heads = [cls._wrap(numpy.asarray(head, dtype=numpy.float64), arrays[0].device)]
    zeros = mx.np.zeros_like if cls is mx.np.ndarray else mx.nd.zeros_like
    heads += [zeros(o) for o in outputs[1:]]
    grads = op.gradient(NodeView(op, parsed, arrays, outputs), heads)
    return grads, outputs, head


def check_gradient(op_name, inputs, attrs=None, wrt=None, rtol=1e-5, atol=1e-7, cls=mx.np.ndarray):
    """Assert the gradient rule of ``op_name`` matches central differences (inputs in ``wrt``)."""
    inputs = [as64(x) for x in inputs]
    grads, _, head = analytic_gradient(op_name, inputs, attrs, cls=cls)
    op = get_op(op_name)
    parsed = op.parse_attrs(attrs or {})
    assert len(grads) == len(inputs), f"{op_name}: one gradient entry per input expected"
    for index in range(len(inputs)) if wrt is None else wrt:
        expected = numeric_gradient(op, inputs, parsed, head, index)
        assert grads[index] is not None, f"{op_name}: no gradient for input {index}"
        got = grads[index].asnumpy()
        assert got.shape == inputs[index].shape, f"{op_name}: gradient shape {got.shape}"
        numpy.testing.assert_allclose(got, expected, rtol=rtol, atol=atol,
                                      err_msg=f"{op_name} input {index}")


# -- differential runs against real MXNet 1.9.1 (opt-in) -------------------------------------------
ORACLE_ENV = "MXLAB_MXNET_PYTHON"
requires_oracle = pytest.mark.skipif(not os.environ.get(ORACLE_ENV),
                                     reason=f"set {ORACLE_ENV} to a Python with mxnet==1.9.1")

_DRIVER = r"""
import json, sys
import numpy as np
import mxnet as mx
inputs = {k: np.array(v["data"], dtype=v["dtype"]) for k, v in json.loads(sys.stdin.read()).items()}
outputs = {}
exec(compile(sys.argv[1], "<oracle>", "exec"), {"mx": mx, "np": np, "inputs": inputs,
                                                "outputs": outputs})
print(json.dumps({k: {"data": np.asarray(v).tolist(), "dtype": str(np.asarray(v).dtype),
                      "shape": list(np.shape(v))} for k, v in outputs.items()}))
"""


def run_both(code, inputs):
    """Run ``code`` (which fills ``outputs`` from ``inputs`` with ``mx``) under mxlab here and
    under real MXNet in a subprocess; returns ``(mine, theirs)``, dicts of NumPy arrays."""
    mine = {}
    exec(compile(code, "<mxlab>", "exec"), {"mx": mx, "np": numpy, "inputs": inputs,
                                            "outputs": mine})
    payload = {k: {"data": v.tolist(), "dtype": str(v.dtype)} for k, v in inputs.items()}
    result = subprocess.run([os.environ[ORACLE_ENV], "-c", _DRIVER, code],
                            input=json.dumps(payload), capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    theirs = {k: numpy.array(v["data"], dtype=v["dtype"]).reshape(v["shape"])
              for k, v in json.loads(result.stdout).items()}
    return {k: numpy.asarray(v) for k, v in mine.items()}, theirs


def assert_same_results(mine, theirs, rtol=1e-5, atol=1e-6):
    """Every output agrees in shape, dtype and value."""
    assert sorted(mine) == sorted(theirs)
    for key, ref in theirs.items():
        got = mine[key]
        assert (got.shape, got.dtype) == (ref.shape, ref.dtype), key
        numpy.testing.assert_allclose(got, ref, rtol=rtol, atol=atol, err_msg=key)


def check_second_order(fn, x, eps=1e-5, rtol=1e-5, atol=1e-7):
    """Hessian-vector product through ``mx.autograd`` (gradient of the gradient) against
    central differences of the first gradient; ``fn`` maps an ``mx.np`` array to an array."""
    direction = numpy.random.uniform(-1, 1, size=x.shape)

    def first_grad(point, create_graph=False):
        arr = mx.np.array(point, dtype="float64")
        arr.attach_grad()
        with mx.autograd.record():
            (grad,) = mx.autograd.grad(fn(arr).sum(), [arr], create_graph=create_graph)
            projected = (grad * mx.np.array(direction, dtype="float64")).sum()
        return arr, grad, projected

    arr, _, projected = first_grad(x, create_graph=True)
    projected.backward()
    expected = (first_grad(x + eps * direction)[1].asnumpy()
                - first_grad(x - eps * direction)[1].asnumpy()) / (2 * eps)
    numpy.testing.assert_allclose(arr.grad.asnumpy(), expected, rtol=rtol, atol=atol)


# -- whole functions: mx.np against NumPy ----------------------------------------------------------
def _weighted(outputs, xp):
    """Sum of every output times fixed weights, so each output element matters."""
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    total = 0
    for i, out in enumerate(outputs):
        w = numpy.cos(numpy.arange(out.size) + i).reshape(out.shape) + 1.5
        total = total + (out * (xp.array(w) if xp is mx.np else w)).sum()
    return total


def _numeric(fn, x, eps=1e-6):
    grad = numpy.zeros_like(x)
    flat, out = x.reshape(-1), grad.reshape(-1)
    for i in range(flat.size):
        keep = flat[i]
        flat[i] = keep + eps
        plus = fn(x)
        flat[i] = keep - eps
        minus = fn(x)
        flat[i] = keep
        out[i] = (plus - minus) / (2 * eps)
    return grad


def check_np_function(fn, *xs, wrt=None, rtol=1e-5, atol=1e-7):
    """``fn(xp, *arrays)`` with xp = mx.np and numpy agree in value, and the gradient of mx.np's
    (through ``mx.autograd``) matches central differences of NumPy's (float64)."""
    arrays = [mx.np.array(x, dtype="float64") for x in xs]
    for a in arrays:
        a.attach_grad()
    with mx.autograd.record():
        out = _weighted(fn(mx.np, *arrays), mx.np)
    out.backward()
    expected_value = _weighted(fn(numpy, *xs), numpy)
    numpy.testing.assert_allclose(float(out), expected_value, rtol=1e-8)
    for i in range(len(xs)) if wrt is None else wrt:
        def partial(xi, i=i):
            args = list(xs)
            args[i] = xi
            return _weighted(fn(numpy, *args), numpy)
        numeric = _numeric(partial, xs[i].copy())
        numpy.testing.assert_allclose(arrays[i].grad.asnumpy(), numeric, rtol=rtol, atol=atol,
                                      err_msg=f"input {i}")


class FnBlock(HybridBlock):
    """A HybridBlock running ``fn(x)``: hybridize it to trace one function."""

    def __init__(self, fn):
        super().__init__()
        self._fn = fn

    def forward(self, x):
        return self._fn(x)
