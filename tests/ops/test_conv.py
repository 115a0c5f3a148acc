"""Convolution / Deconvolution: values vs direct loops, gradients, shapes, errors, MXNet oracle."""

import itertools
import json
import os
import subprocess
import types

import numpy
import pytest

import mxlab as mx
from mxlab.base import MXNetNotImplementedError, MXNetValueError
from mxlab.ops.nn.conv import ALGORITHMS, conv_plan
from mxlab.ops.nn import conv_algo
from mxlab.ops.nn.conv_algo import TUNE_BATCH, viable_candidates
from mxlab.ops.registry import get_op
from mxlab.test_utils import assert_almost_equal, check_numeric_gradient


@pytest.fixture(autouse=True)
def _autotune_on(monkeypatch):
    """This file tests autotune itself (the suite runs with it off: see the root conftest)."""
    monkeypatch.setenv("MXNET_CUDNN_AUTOTUNE_DEFAULT", "1")


def _positions(shape):
    return itertools.product(*(range(s) for s in shape))


def conv_ref(x, w, b, stride, pad, dilate, groups):
    """Direct-loop convolution: every output is one dot product over its window."""
    nd = x.ndim - 2
    xp = numpy.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    f, cg = w.shape[:2]
    k = w.shape[2:]
    out_sp = [(xp.shape[2 + i] - (k[i] - 1) * dilate[i] - 1) // stride[i] + 1 for i in range(nd)]
    out = numpy.zeros((x.shape[0], f) + tuple(out_sp))
    fg = f // groups
    for n, fo in itertools.product(range(x.shape[0]), range(f)):
        g = fo // fg
        for o in _positions(out_sp):
            idx = tuple(
                slice(o[i] * stride[i], o[i] * stride[i] + (k[i] - 1) * dilate[i] + 1, dilate[i])
                for i in range(nd)
            )
            window = xp[(n, slice(g * cg, (g + 1) * cg)) + idx]
            out[(n, fo) + o] = numpy.sum(window * w[fo]) + (0 if b is None else b[fo])
    return out


def deconv_ref(x, w, b, stride, pad, dilate, groups, adj):
    """Direct-loop transposed convolution: every input scatters weight * value into the output."""
    nd = x.ndim - 2
    cin, fg = w.shape[:2]
    k = w.shape[2:]
    full = [stride[i] * (x.shape[2 + i] - 1) + (k[i] - 1) * dilate[i] + 1 for i in range(nd)]
    out = numpy.zeros((x.shape[0], fg * groups) + tuple(f + a for f, a in zip(full, adj)))
    cpg = cin // groups
    for n, c in itertools.product(range(x.shape[0]), range(cin)):
        g = c // cpg
        for i in _positions(x.shape[2:]):
            for kk in _positions(k):
                pos = tuple(i[d] * stride[d] + kk[d] * dilate[d] for d in range(nd))
                out[(n, slice(g * fg, (g + 1) * fg)) + pos] += (
                    x[(n, c) + i] * w[(c, slice(None)) + kk]
                )
    crop = tuple(slice(p, out.shape[2 + d] - p) for d, p in enumerate(pad))
    out = out[(slice(None), slice(None)) + crop]
    if b is not None:
        out = out + b.reshape((1, -1) + (1,) * nd)
    return out


CASES = [
    # (data shape, kernel, stride, pad, dilate, num_filter, num_group)
    ((2, 3, 9), (3,), (2,), (1,), (2,), 4, 1),
    ((2, 4, 7, 6), (3, 2), (2, 1), (1, 0), (1, 2), 6, 2),
    ((1, 2, 5, 4, 5), (2, 3, 2), (1, 2, 1), (1, 1, 0), (2, 1, 1), 3, 1),
    ((2, 6, 5, 5), (3, 3), (1, 1), (1, 1), (1, 1), 6, 3),
]


def _attrs(kernel, stride, pad, dilate, num_filter, num_group, **extra):
    return dict(
        kernel=kernel,
        stride=stride,
        pad=pad,
        dilate=dilate,
        num_filter=num_filter,
        num_group=num_group,
        **extra,
    )


@pytest.mark.parametrize("shape,kernel,stride,pad,dilate,nf,ng", CASES)
def test_convolution_matches_direct_loops(shape, kernel, stride, pad, dilate, nf, ng):
    x = numpy.random.randn(*shape)
    w = numpy.random.randn(nf, shape[1] // ng, *kernel)
    b = numpy.random.randn(nf)
    out = mx.nd.Convolution(
        mx.nd.array(x, dtype="float64"),
        mx.nd.array(w, dtype="float64"),
        mx.nd.array(b, dtype="float64"),
        **_attrs(kernel, stride, pad, dilate, nf, ng),
    )
    assert_almost_equal(out, conv_ref(x, w, b, stride, pad, dilate, ng), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("shape,kernel,stride,pad,dilate,nf,ng", CASES)
def test_deconvolution_matches_direct_loops(shape, kernel, stride, pad, dilate, nf, ng):
    adj = tuple(min(1, s - 1) for s in stride)
    x = numpy.random.randn(*shape)
    w = numpy.random.randn(shape[1], nf // ng, *kernel)
    b = numpy.random.randn(nf)
    out = mx.nd.Deconvolution(
        mx.nd.array(x, dtype="float64"),
        mx.nd.array(w, dtype="float64"),
        mx.nd.array(b, dtype="float64"),
        no_bias=False,
        adj=adj,
        **_attrs(kernel, stride, pad, dilate, nf, ng),
    )
    assert_almost_equal(
        out, deconv_ref(x, w, b, stride, pad, dilate, ng, adj), rtol=1e-10, atol=1e-10
    )


ALGORITHM_CASES = CASES + [
    # stride 1 (backward data as a transposed convolution), 1x1, padding wider than the kernel
    ((2, 4, 6, 5), (3, 3), (1, 1), (1, 1), (1, 1), 6, 2),
    ((3, 3, 8), (5,), (1,), (3,), (1,), 4, 1),
    ((2, 4, 5, 5), (1, 1), (1, 1), (0, 0), (1, 1), 8, 1),
    ((2, 4, 5, 5), (1, 1), (2, 2), (0, 0), (1, 1), 8, 4),
    ((1, 2, 4, 5, 3), (3, 2, 3), (1, 1, 1), (1, 0, 2), (1, 2, 1), 4, 2),
    ((2, 2, 6, 6), (2, 2), (1, 1), (0, 1), (2, 1), 2, 1),
]


@pytest.mark.parametrize("chunk_bytes", [None, 1])
@pytest.mark.parametrize("shape,kernel,stride,pad,dilate,nf,ng", ALGORITHM_CASES)
def test_every_algorithm_matches_direct_loops(shape, kernel, stride, pad, dilate, nf, ng,
                                              chunk_bytes, monkeypatch):
    """Autotuning may pick any candidate: each must compute what the direct loops compute
    (``chunk_bytes=1``: per-sample layouts take one sample at a time, as for large maps)."""
    if chunk_bytes is not None:
        monkeypatch.setattr(conv_algo, "CHUNK_BYTES", chunk_bytes)
    x = numpy.random.randn(*shape)
    w = numpy.random.randn(nf, shape[1] // ng, *kernel)
    attrs = get_op("Convolution").parse_attrs(
        _attrs(kernel, stride, pad, dilate, nf, ng, no_bias=True)
    )
    plan = conv_plan("Convolution", numpy, attrs, x, w)
    dy = numpy.random.randn(*plan.out_shape)
    dx, dw = conv_grads_ref(x, w, dy, stride, pad, dilate, ng)
    expected = {
        "forward": conv_ref(x, w, None, stride, pad, dilate, ng),
        "backward_data": dx,
        "backward_weight": dw,
    }
    operands = {"forward": (x, w), "backward_data": (dy, w), "backward_weight": (dy, x)}
    for direction, candidates in ALGORITHMS.items():
        for name, fn in candidates.items():
            got = fn(plan, numpy, *operands[direction])
            assert_almost_equal(got, expected[direction], rtol=1e-7, atol=1e-7,
                                names=(f"{direction} {name}", "loops"))
        assert plan.algorithms[direction] in candidates


def conv_grads_ref(x, w, dy, stride, pad, dilate, groups):
    """Direct-loop gradients of ``sum(dy * conv(x, w))``: each output's window receives
    ``dy * w`` and the weight ``dy * window``."""
    nd = x.ndim - 2
    xpad = numpy.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    dxpad, dw = numpy.zeros(xpad.shape), numpy.zeros(w.shape)
    f, cg = w.shape[:2]
    k = w.shape[2:]
    fg = f // groups
    for n, fo in itertools.product(range(x.shape[0]), range(f)):
        g = fo // fg
        for o in _positions(dy.shape[2:]):
            idx = (n, slice(g * cg, (g + 1) * cg)) + tuple(
                slice(o[i] * stride[i], o[i] * stride[i] + (k[i] - 1) * dilate[i] + 1, dilate[i])
                for i in range(nd)
            )
            dxpad[idx] += dy[(n, fo) + o] * w[fo]
            dw[fo] += dy[(n, fo) + o] * xpad[idx]
    crop = tuple(slice(p, p + s) for p, s in zip(pad, x.shape[2:]))
    return dxpad[(slice(None), slice(None)) + crop], dw


def test_forward_writes_into_a_given_buffer():
    """Static graphs hand Convolution its planned output buffer: the result lands there."""
    x = numpy.random.randn(2, 4, 6, 5).astype("float32")
    w = numpy.random.randn(6, 4, 3, 3).astype("float32")
    b = numpy.random.randn(6).astype("float32")
    attrs = get_op("Convolution").parse_attrs(_attrs((3, 3), (1, 1), (1, 1), (1, 1), 6, 1))
    op = get_op("Convolution")
    expected = op.forward(numpy, [x, w, b], attrs)[0]
    buffer = numpy.full(expected.shape, numpy.nan, dtype="float32")
    (out,) = op.forward(numpy, [x, w, b], attrs, outs=[buffer])
    assert out is buffer
    assert_almost_equal(buffer, conv_ref(x, w, b, (1, 1), (1, 1), (1, 1), 1), rtol=1e-4,
                        atol=1e-4)


def test_autotune_off_uses_defaults(monkeypatch):
    monkeypatch.setenv("MXNET_CUDNN_AUTOTUNE_DEFAULT", "0")
    mx.op_cache.clear()
    attrs = get_op("Convolution").parse_attrs(_attrs((3,), (), (), (), 2, 1))
    plan = conv_plan("Convolution", numpy, attrs, numpy.ones((1, 1, 5)), numpy.ones((2, 1, 3)))
    assert plan.algorithms == {
        "forward": "im2col",
        "backward_data": "col2im",
        "backward_weight": "im2col",
    }
    assert plan.tune_times == {}


def _plan(shape, kernel, nf, stride=()):
    attrs = get_op("Convolution").parse_attrs(
        _attrs(kernel, stride, (1,) * len(kernel), (), nf, 1, no_bias=True)
    )
    w_shape = (nf, shape[1]) + kernel
    return conv_plan("Convolution", numpy, attrs, numpy.ones(shape), numpy.ones(w_shape))


def test_autotune_times_only_viable_candidates():
    """The cost model: shift only up to 3x3, per-sample and batch-innermost layouts not at
    batch 1, per-sample GEMMs not on small maps, the transposed data gradient only at stride 1
    without widening the channels."""
    mx.op_cache.clear()
    wide = _plan((1, 2, 7, 7), (5, 5), 4)
    assert viable_candidates(wide, numpy) == {
        "forward": ["folded"],
        "backward_data": ["folded"],
        "backward_weight": ["folded"],
    }
    assert wide.tune_times == {}  # one candidate per direction: nothing to time
    narrow = _plan((3, 4, 10, 10), (3, 3), 2)
    assert viable_candidates(narrow, numpy)["backward_data"] == [
        "col2im", "shift", "transposed", "cn", "winograd2"  # 10x10: whole 2x2 tiles, not 4x4
    ]
    assert viable_candidates(_plan((3, 4, 10, 10), (3, 3), 2, (2, 2)), numpy)["backward_data"] == [
        "cn"  # 4x4 outputs: per-sample GEMMs of 16 columns are not timed, nor folded col2im
    ]
    for direction, times in narrow.tune_times.items():
        assert set(times) == set(viable_candidates(narrow, numpy)[direction])
    data_times = narrow.tune_times["backward_data"]
    assert narrow.algorithms["backward_data"] == min(data_times, key=data_times.get)


def test_autotune_runs_on_a_bounded_sub_batch(monkeypatch):
    """Candidates are timed on TUNE_BATCH samples, whatever the batch; the plan keeps its shape."""
    seen = []
    fwd = ALGORITHMS["forward"]["folded"]

    def spy(plan, xp, x, w, out=None):
        seen.append(x.shape[0])
        return fwd(plan, xp, x, w, out)

    monkeypatch.setitem(ALGORITHMS["forward"], "folded", spy)
    mx.op_cache.clear()
    plan = _plan((4 * TUNE_BATCH, 4, 6, 6), (3, 3), 2)
    assert seen and set(seen) == {TUNE_BATCH}
    assert plan.batch == 4 * TUNE_BATCH


@pytest.mark.parametrize("shape,kernel,stride,pad,dilate,nf,ng", CASES[:3])
def test_convolution_gradients(shape, kernel, stride, pad, dilate, nf, ng):
    shape = (1,) + shape[1:]
    location = [
        numpy.random.randn(*shape),
        numpy.random.randn(nf, shape[1] // ng, *kernel),
        numpy.random.randn(nf),
    ]
    attrs = _attrs(kernel, stride, pad, dilate, nf, ng)
    check_numeric_gradient(
        lambda x, w, b: mx.nd.Convolution(x, w, b, **attrs),
        location,
        numeric_eps=1e-5,
        rtol=1e-5,
        atol=1e-6,
        dtype=numpy.float64,
    )


def test_deconvolution_gradients():
    location = [
        numpy.random.randn(1, 4, 3, 4),
        numpy.random.randn(4, 3, 3, 2),
        numpy.random.randn(6),
    ]
    attrs = _attrs((3, 2), (2, 1), (1, 0), (1, 2), 6, 2, adj=(1, 0), no_bias=False)
    check_numeric_gradient(
        lambda x, w, b: mx.nd.Deconvolution(x, w, b, **attrs),
        location,
        numeric_eps=1e-5,
        rtol=1e-5,
        atol=1e-6,
        dtype=numpy.float64,
    )


def test_gradient_rule_uses_backward_op_and_no_bias():
    """The rule, called on a bare node, returns one entry per input: two without bias."""
    op = get_op("Convolution")
    attrs = op.parse_attrs(dict(kernel=(2,), num_filter=2, no_bias=True))
    x, w = numpy.random.randn(1, 1, 4), numpy.random.randn(2, 1, 2)
    node = types.SimpleNamespace(
        op=op, attrs=attrs, inputs=[mx.nd.array(x), mx.nd.array(w)], outputs=[None]
    )
    grads = op.gradient(node, [mx.nd.array(numpy.ones((1, 2, 3)))])
    assert len(grads) == 2 and grads[1].shape == (2, 1, 2)
    expected = numpy.array([x[0, 0, :3].sum(), x[0, 0, 1:].sum()])
    assert_almost_equal(
        grads[1].asnumpy()[:, 0], numpy.stack([expected, expected]), rtol=1e-5, atol=1e-5
    )


def test_infer_shape_fills_weight_and_bias_like_mxnet():
    conv = get_op("Convolution")
    attrs = conv.parse_attrs(dict(kernel=(3, 3), num_filter=8, num_group=2))
    ins, outs = conv.infer_shapes(attrs, [(2, 4, 9, 9), None, None])
    assert ins == [(2, 4, 9, 9), (8, 2, 3, 3), (8,)] and outs == [(2, 8, 7, 7)]
    deconv = get_op("Deconvolution")
    attrs = deconv.parse_attrs(dict(kernel=(3, 3), num_filter=8, num_group=2))
    ins, outs = deconv.infer_shapes(attrs, [(2, 4, 9, 9), None])
    assert ins == [(2, 4, 9, 9), (4, 4, 3, 3)] and outs == [(2, 8, 11, 11)]


@pytest.mark.parametrize("target", [(10, 10), (11, 11), (9, 9)])
def test_deconvolution_target_shape(target):
    x = mx.nd.array(numpy.random.randn(1, 1, 5, 5))
    w = mx.nd.array(numpy.random.randn(1, 1, 3, 3))
    out = mx.nd.Deconvolution(x, w, kernel=(3, 3), stride=(2, 2), num_filter=1, target_shape=target)
    assert out.shape == (1, 1) + target


def test_npx_names_and_ignored_attributes():
    x = mx.np.array(numpy.random.randn(1, 2, 5, 5))
    w = mx.np.array(numpy.random.randn(3, 2, 3, 3))
    out = mx.npx.convolution(
        x,
        w,
        kernel=(3, 3),
        num_filter=3,
        no_bias=True,
        workspace=512,
        cudnn_tune="fastest",
        cudnn_off=True,
    )
    assert isinstance(out, mx.np.ndarray) and out.shape == (1, 3, 3, 3)
    back = mx.npx.deconvolution(out, w, kernel=(3, 3), num_filter=2)
    assert back.shape == (1, 2, 5, 5)


def test_errors_name_op_and_argument():
    x = mx.nd.array(numpy.ones((1, 2, 5, 5)))
    with pytest.raises(MXNetValueError, match="Convolution.*'weight'"):
        mx.nd.Convolution(
            x, mx.nd.array(numpy.ones((3, 1, 3, 3))), kernel=(3, 3), num_filter=3, no_bias=True
        )
        mx.engine.wait_all()
    with pytest.raises(MXNetValueError, match="Convolution.*'data'"):
        mx.nd.Convolution(
            x, mx.nd.array(numpy.ones((3, 2, 3))), kernel=(3,), num_filter=3, no_bias=True
        )
        mx.engine.wait_all()
    with pytest.raises(MXNetValueError, match="Convolution.*does not fit"):
        mx.nd.Convolution(
            x, mx.nd.array(numpy.ones((3, 2, 7, 7))), kernel=(7, 7), num_filter=3, no_bias=True
        )
        mx.engine.wait_all()
    with pytest.raises(MXNetValueError, match="num_group"):
        get_op("Convolution").infer_shapes(
            get_op("Convolution").parse_attrs(dict(kernel=(3, 3), num_filter=3, num_group=2)),
            [(1, 2, 5, 5), None, None],
        )
        mx.engine.wait_all()
    with pytest.raises(MXNetValueError, match="Deconvolution: expects inputs.*no_bias=True"):
        mx.nd.Deconvolution(
            x,
            mx.nd.array(numpy.ones((2, 1, 3, 3))),
            mx.nd.array(numpy.ones(1)),
            kernel=(3, 3),
            num_filter=1,
        )
        mx.engine.wait_all()
    with pytest.raises(MXNetNotImplementedError, match="layout 'NHWC'"):
        mx.nd.Convolution(
            x,
            mx.nd.array(numpy.ones((3, 2, 3, 3))),
            kernel=(3, 3),
            num_filter=3,
            no_bias=True,
            layout="NHWC",
        )
        mx.engine.wait_all()


def test_forward_and_backward_share_one_cache_entry():
    mx.op_cache.clear()
    x = mx.nd.array(numpy.random.randn(1, 2, 5, 5))
    w = mx.nd.array(numpy.random.randn(3, 2, 3, 3))
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Convolution(x, w, kernel=(3, 3), num_filter=3, no_bias=True)
    y.backward()
    mx.nd.waitall()
    stats = mx.op_cache.info()["Convolution"]
    if mx.engine.get_engine().is_async:
        # NOTE: forward and backward may run on two workers, each with its own cache (as MXNet's
        #   thread_local maps): one entry per thread that built one
        assert stats.misses + stats.hits == 2 and stats.size == stats.misses
    else:
        assert (stats.misses, stats.hits, stats.size) == (1, 1, 1)


# -- oracle: real MXNet 1.9.1 in a subprocess ------------------------------------------------------
_ORACLE = r"""
import json, sys
import numpy as np
import mxnet as mx
cases = json.loads(sys.stdin.read())
results = []
for case in cases:
    args = [mx.nd.array(np.array(a), dtype="float64") for a in case["inputs"]]
    for a in args:
        a.attach_grad()
    with mx.autograd.record(train_mode=True):
        out = getattr(mx.nd, case["op"])(*args, **case["attrs"])
        out = out[0] if isinstance(out, list) else out
    out.backward(mx.nd.array(np.array(case["head"]), dtype="float64"))
    results.append({"out": out.asnumpy().tolist(),
                    "grads": [a.grad.asnumpy().tolist() for a in args],
                    "after": [a.asnumpy().tolist() for a in args]})
print(json.dumps(results))
"""


def _oracle_cases():
    r = numpy.random.randn
    conv = dict(kernel=(3, 3), stride=(2, 1), pad=(1, 1), dilate=(1, 2), num_filter=4, num_group=2)
    deconv = dict(
        kernel=(3, 2),
        stride=(2, 2),
        pad=(1, 0),
        adj=(1, 1),
        num_filter=4,
        num_group=2,
        no_bias=False,
    )
    bn = dict(fix_gamma=False, eps=1e-3, momentum=0.9)
    return [
        ("Convolution", [r(2, 4, 6, 7), r(4, 2, 3, 3), r(4)], conv, 1),
        ("Deconvolution", [r(2, 4, 3, 4), r(4, 2, 3, 2), r(4)], deconv, 1),
        (
            "Pooling",
            [r(2, 3, 7, 6)],
            dict(kernel=(3, 2), stride=(2, 2), pad=(1, 1), pool_type="max"),
            1,
        ),
        (
            "Pooling",
            [r(2, 3, 7, 6)],
            dict(
                kernel=(3, 3),
                stride=(2, 2),
                pad=(1, 1),
                pool_type="avg",
                pooling_convention="full",
                count_include_pad=False,
            ),
            1,
        ),
        ("BatchNorm", [r(4, 3, 5, 5), r(3) + 2, r(3), r(3), r(3) ** 2 + 1], bn, 3),
    ]


@pytest.mark.oracle
@pytest.mark.skipif(
    not os.environ.get("MXLAB_MXNET_PYTHON"), reason="set MXLAB_MXNET_PYTHON to real MXNet 1.9.1"
)
def test_oracle_conv_pool_batchnorm_forward_backward():
    cases = []
    for op, inputs, attrs, n_grads in _oracle_cases():
        arrays = [mx.nd.array(a, dtype="float64") for a in inputs]
        for a in arrays[:n_grads]:
            a.attach_grad()
        with mx.autograd.record(train_mode=True):
            out = getattr(mx.nd, op)(*arrays, **attrs)
        head = numpy.random.randn(*out.shape)
        out.backward(mx.nd.array(head, dtype="float64"))
        mine = (
            out.asnumpy(),
            [a.grad.asnumpy() for a in arrays[:n_grads]],
            [a.asnumpy() for a in arrays],
        )
        cases.append(
            (
                dict(op=op, inputs=[a.tolist() for a in inputs], attrs=attrs, head=head.tolist()),
                mine,
                n_grads,
            )
        )
    result = subprocess.run(
        [os.environ["MXLAB_MXNET_PYTHON"], "-c", _ORACLE],
        capture_output=True,
        text=True,
        input=json.dumps([c[0] for c in cases]),
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    for (case, (out, grads, after), n_grads), theirs in zip(cases, json.loads(result.stdout)):
        assert_almost_equal(
            out, numpy.array(theirs["out"]), rtol=1e-5, atol=1e-6, names=(case["op"], "mxnet")
        )
        for mine, ref in zip(grads, theirs["grads"][:n_grads]):
            assert_almost_equal(
                mine, numpy.array(ref), rtol=1e-5, atol=1e-6, names=(case["op"], "mxnet")
            )
        for mine, ref in zip(
            after, theirs["after"]
        ):  # BatchNorm's moving statistics after one step
            assert_almost_equal(
                mine, numpy.array(ref), rtol=1e-5, atol=1e-6, names=(case["op"], "mxnet")
            )


@pytest.mark.gpu
@pytest.mark.skipif(mx.num_gpus() == 0, reason="needs CuPy and a GPU")
def test_gpu_matches_cpu_forward_and_backward():
    """The same xp-generic kernels on CuPy: conv, deconv, pooling and BatchNorm agree with NumPy."""
    inputs = [numpy.random.randn(2, 4, 6, 7), numpy.random.randn(4, 2, 3, 3), numpy.random.randn(4)]
    conv = dict(kernel=(3, 3), stride=(2, 1), pad=(1, 1), num_filter=4, num_group=2)
    results = []
    for device in (mx.cpu(), mx.gpu(0)):
        x, w, b = (mx.nd.array(a, ctx=device) for a in inputs)
        stats = [mx.nd.array(numpy.zeros(4), ctx=device), mx.nd.array(numpy.ones(4), ctx=device)]
        for a in (x, w, b):
            a.attach_grad()
        with mx.autograd.record():
            y = mx.nd.Convolution(x, w, b, **conv)
            y = mx.nd.BatchNorm(y, b, b, *stats, fix_gamma=False)
            y = mx.nd.Pooling(y, kernel=(2, 2), stride=(2, 2), pool_type="avg")
            y = mx.nd.Deconvolution(y, w, kernel=(3, 3), num_filter=4, num_group=2)
        y.backward()
        results.append([y.asnumpy(), x.grad.asnumpy(), w.grad.asnumpy(), b.grad.asnumpy()])
    for cpu, gpu in zip(*results):
        assert_almost_equal(cpu, gpu, rtol=1e-4, atol=1e-4)
