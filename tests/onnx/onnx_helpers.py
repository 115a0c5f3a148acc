"""Shared checks for the ONNX tests: random parameters for a symbol, running it in mxlab and in
onnxruntime, and the export -> run -> import round trip every test asserts."""
import numpy
import pytest

import mxlab as mx

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

RTOL = ATOL = 1e-5  # NOTE: the fp32 bar


def random_params(sym, shapes, seed=0):
    """Uniform(-1, 1) arguments and uniform(0.5, 1.5) auxiliary states (positive variances)."""
    rng = numpy.random.default_rng(seed)
    arg_shapes, _, aux_shapes = sym.infer_shape(**shapes)
    params = {}
    for name, shape in zip(sym.list_arguments(), arg_shapes):
        if name not in shapes:
            params[name] = mx.nd.array(rng.uniform(-1, 1, shape).astype("float32"))
    for name, shape in zip(sym.list_auxiliary_states(), aux_shapes):
        params[name] = mx.nd.array(rng.uniform(0.5, 1.5, shape).astype("float32"))
    return params


def run_mxlab(sym, params, inputs):
    feed = {**params, **{k: mx.nd.array(v, dtype=v.dtype) for k, v in inputs.items()}}
    return [o.asnumpy() for o in sym.eval(mx.cpu(), **feed)]


def run_onnx(path, inputs):
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, inputs)


def assert_close(actual, expected):
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        assert a.shape == e.shape
        numpy.testing.assert_allclose(a.astype("float64"), e.astype("float64"), rtol=RTOL,
                                      atol=ATOL)


def max_diff(actual, expected):
    return max(float(numpy.abs(a.astype("float64") - e).max()) for a, e in zip(actual, expected))


def make_inputs(shapes, seed, low=-1.0, high=1.0, batch=None, ints=None):
    """Random inputs for ``shapes`` (batch axis replaced by ``batch``); ``ints`` names inputs
    that hold integer-valued floats below that bound, {name: bound}."""
    rng = numpy.random.default_rng(seed)
    out = {}
    for name, shape in shapes.items():
        shape = (batch,) + tuple(shape[1:]) if batch else tuple(shape)
        if ints and name in ints:
            out[name] = rng.integers(0, ints[name], shape).astype("float32")
        else:
            out[name] = rng.uniform(low, high, shape).astype("float32")
    return out


def roundtrip(sym, params, shapes, path, batches=(3,), low=-1.0, high=1.0, ints=None,
              **export_kwargs):
    """Export with a dynamic batch; for the given batch and every batch in ``batches`` the
    onnxruntime outputs and the re-imported model's outputs match mxlab. Returns the largest
    difference seen."""
    export_kwargs.setdefault("dynamic", True)
    mx.onnx.export_model(sym, params, list(shapes.values()), numpy.float32, str(path),
                         **export_kwargs)
    onnx.checker.check_model(onnx.load(str(path)))
    imported, arg_params, aux_params = mx.onnx.import_model(str(path))
    worst = 0.0
    for seed, batch in enumerate((None,) + tuple(batches)):
        inputs = make_inputs(shapes, seed, low, high, batch, ints)
        expected = run_mxlab(sym, params, inputs)
        from_onnx = run_onnx(path, inputs)
        assert_close(from_onnx, expected)
        again = run_mxlab(imported, {**arg_params, **aux_params}, inputs)
        assert_close(again, expected)
        worst = max(worst, max_diff(from_onnx, expected))
    return worst
