"""The ROI, resize, statistics and Correlation ops against MXNet 1.9.1 (opt-in: set
MXLAB_MXNET_PYTHON): values, and data gradients under a non-uniform head gradient."""
import numpy as np
import pytest
from helpers import assert_same_results, requires_oracle, run_both

pytestmark = [pytest.mark.oracle, requires_oracle]

RNG = np.random.default_rng(5)

# NOTE: the code runs under both frameworks; ``call`` is an expression over ``x`` (and ``y``).
_CODE = """
def run(call, names, backward=True):
    args = {n: mx.nd.array(inputs[n], dtype=inputs[n].dtype) for n in names}
    grads = [n for n in names if n in ("x", "y")]
    for n in grads:
        args[n].attach_grad()
    with mx.autograd.record():
        out = eval(call, {"mx": mx}, args)
    outputs["out"] = out.asnumpy()
    if backward:
        head = (np.cos(np.arange(out.size)) + 1.5).reshape(out.shape).astype(out.dtype)
        out.backward(mx.nd.array(head, dtype=head.dtype))
        for n in grads:
            outputs["d" + n] = args[n].grad.asnumpy()
run(CALL, NAMES, BACKWARD)
"""

ROIS = np.array([[0, 1.1, 1.1, 6.2, 6.2], [1, 6.1, 2.1, 8.2, 11.2], [1, 3.1, 1.1, 5.2, 10.2],
                 [0, 3, 3, 3, 3], [1, -4, -3, 2.4, 1.6], [0, 9.5, 10.5, 20, 30],
                 [1, 8.2, 3.3, 2.1, 1.4]], "float32")


def _check(call, inputs, backward=True, rtol=1e-5, atol=1e-5):
    code = f"CALL, NAMES, BACKWARD = {call!r}, {sorted(inputs)!r}, {backward}\n" + _CODE
    mine, theirs = run_both(code, inputs)
    assert_same_results(mine, theirs, rtol=rtol, atol=atol)


def _data(shape):
    return RNG.uniform(-1, 1, size=shape).astype("float32")


@pytest.mark.parametrize("scale", [1.0, 0.5])
def test_roi_pooling(scale):
    _check(f"mx.nd.ROIPooling(x, rois, pooled_size=(3, 2), spatial_scale={scale})",
           {"x": _data((2, 3, 12, 9)), "rois": ROIS})


@pytest.mark.parametrize("kw", ["sample_ratio=-1", "sample_ratio=2",
                                "position_sensitive=True", "aligned=True"])
def test_roi_align(kw):
    rois = ROIS[[0, 1, 2, 4, 5]] if "aligned" in kw else ROIS
    channels = 12 if "position" in kw else 3
    _check(f"mx.nd.contrib.ROIAlign(x, rois, pooled_size=(3, 2), spatial_scale=0.75, {kw})",
           {"x": _data((2, channels, 12, 9)), "rois": rois})


def test_rroi_align():
    rois = np.array([[0, 5, 4, 6, 3, 30], [1, 2, 8, 7.5, 2, -60], [1, 9, 1, 0.5, 12, 95]],
                    "float32")
    _check("mx.nd.contrib.RROIAlign(x, rois, pooled_size=(2, 3), spatial_scale=0.5)",
           {"x": _data((2, 2, 10, 11)), "rois": rois}, backward=False)


@pytest.mark.parametrize("size", ["()", "3", "(4, 2)", "(9, 11)"])
def test_adaptive_avg_pooling(size):
    _check(f"mx.nd.contrib.AdaptiveAvgPooling2D(x, output_size={size})", {"x": _data((2, 3, 7, 5))})


@pytest.mark.parametrize("kw", ["height=5, width=9", "height=4, width=3, align_corners=False",
                                "scale_height=0.5, scale_width=2.0",
                                "mode='odd_scale', scale_height=2, scale_width=0.5",
                                "mode='to_even_down'", "mode='to_odd_up'"])
def test_bilinear_resize(kw):
    _check(f"mx.nd.contrib.BilinearResize2D(x, {kw})", {"x": _data((2, 2, 7, 8))})


def test_bilinear_resize_like():
    _check("mx.nd.contrib.BilinearResize2D(x, y, mode='like')",
           {"x": _data((1, 2, 4, 5)), "y": _data((1, 3, 7, 2))})


@pytest.mark.parametrize("axes,keepdims", [("(1,)", False), ("(0, 2)", True),
                                           ("(0, 1, 2)", False)])
def test_moments(axes, keepdims):
    call = f"mx.nd.stack(*mx.nd.moments(x, axes={axes}, keepdims={keepdims}))"
    _check(call, {"x": _data((3, 4, 5))})


def test_histogram():
    x = RNG.uniform(-3, 3, size=(4, 5)).astype("float32")
    code = """
a = mx.nd.array(inputs["x"])
outputs["c1"], outputs["e1"] = (v.asnumpy() for v in mx.nd.histogram(a, bins=6, range=(-2.5, 2.5)))
bins = mx.nd.array([-1.0, 0.5, 2.0, 4.5, 50.0])
outputs["c2"], outputs["e2"] = (v.asnumpy() for v in mx.nd.histogram(a, bins=bins))
outputs["c3"], outputs["e3"] = (v.asnumpy() for v in mx.nd.histogram(a, bins=4))
"""
    mine, theirs = run_both(code, {"x": x})
    assert_same_results(mine, theirs)


def test_split_v2_symbol():
    code = """
sym = mx.sym.split_v2(mx.sym.var("x"), (2, 5), axis=1)
exe = sym._simple_bind(mx.cpu(), x=(3, 7)) if hasattr(sym, "_simple_bind") else \\
    sym.simple_bind(mx.cpu(), x=(3, 7))
outs = exe.forward(is_train=True, x=mx.nd.array(inputs["x"]))
exe.backward([mx.nd.ones(o.shape) * (i + 1) for i, o in enumerate(outs)])
outputs.update({"o%d" % i: o.asnumpy() for i, o in enumerate(outs)})
outputs["dx"] = exe.grad_dict["x"].asnumpy()
"""
    mine, theirs = run_both(code, {"x": _data((3, 7))})
    assert_same_results(mine, theirs)


@pytest.mark.parametrize("kw", ["kernel_size=1, max_displacement=4, pad_size=4, is_multiply=False",
                                "kernel_size=1, max_displacement=5, stride2=2, pad_size=5",
                                "kernel_size=3, max_displacement=1, stride1=2, pad_size=2",
                                "kernel_size=3, max_displacement=2, stride1=2, pad_size=2, "
                                "is_multiply=False"])
def test_correlation(kw):
    _check(f"mx.nd.Correlation(x, y, {kw})", {"x": _data((2, 3, 7, 6)), "y": _data((2, 3, 7, 6))},
           rtol=1e-4, atol=1e-5)
