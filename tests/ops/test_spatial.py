"""GridGenerator, BilinearSampler, SpatialTransformer: sampling conventions and gradients.

Values against MXNet 1.9.1 are in tests/oracle (opt-in); every path and central-difference
gradients in tests/test_op_paths.py. These pin the conventions a user relies on."""
import numpy
import pytest

import mxlab as mx

IDENTITY = [[1, 0, 0, 0, 1, 0]]


def _image(shape=(1, 2, 4, 5)):
    return numpy.arange(numpy.prod(shape), dtype="float32").reshape(shape)


def test_identity_affine_grid_samples_the_image_back():
    data = _image()
    grid = mx.nd.GridGenerator(mx.nd.array(IDENTITY), transform_type="affine",
                               target_shape=(4, 5))
    assert grid.shape == (1, 2, 4, 5)
    numpy.testing.assert_allclose(grid[0, 0, 0].asnumpy(), numpy.linspace(-1, 1, 5), atol=1e-6)
    out = mx.nd.BilinearSampler(mx.nd.array(data), grid)
    numpy.testing.assert_allclose(out.asnumpy(), data, atol=1e-5)


def test_half_pixel_shift_averages_neighbours_and_outside_reads_zero():
    data = _image((1, 1, 1, 3))                        # one row: 0, 1, 2
    # x positions between pixel 0 and 1, and beyond the last pixel (reads 0 there)
    x = numpy.array([[[[-0.5, 1.5]]]], dtype="float32")
    grid = numpy.concatenate([x, numpy.full_like(x, -1.0)], axis=1)
    out = mx.nd.BilinearSampler(mx.nd.array(data), mx.nd.array(grid)).asnumpy()
    numpy.testing.assert_allclose(out[0, 0, 0], [0.5, 1.0])   # (0+1)/2 ; 2 * 0.5 + 0 * 0.5


def test_warp_with_zero_flow_is_the_identity_grid():
    flow = mx.nd.zeros((2, 2, 3, 4))
    grid = mx.nd.GridGenerator(flow, transform_type="warp")
    affine = mx.nd.GridGenerator(mx.nd.array(IDENTITY * 2), transform_type="affine",
                                 target_shape=(3, 4))
    numpy.testing.assert_allclose(grid.asnumpy(), affine.asnumpy(), atol=1e-6)


def test_spatial_transformer_is_grid_generator_then_sampler_with_gradients():
    rng = numpy.random.default_rng(3)
    data = mx.nd.array(rng.standard_normal((2, 3, 5, 5)).astype("float32"))
    loc = mx.nd.array(numpy.array(IDENTITY * 2, "float32") + rng.uniform(-0.2, 0.2, (2, 6)))
    grads = []
    for fused in (True, False):
        x, a = data.copy(), loc.copy()
        x.attach_grad()
        a.attach_grad()
        with mx.autograd.record():
            if fused:
                y = mx.nd.SpatialTransformer(x, a, target_shape=(4, 3), transform_type="affine",
                                             sampler_type="bilinear")
            else:
                grid = mx.nd.GridGenerator(a, transform_type="affine", target_shape=(4, 3))
                y = mx.nd.BilinearSampler(x, grid)
        y.backward(mx.nd.ones_like(y) * 0.5)
        grads.append((y.asnumpy(), x.grad.asnumpy(), a.grad.asnumpy()))
    for fused, composed in zip(*grads):
        numpy.testing.assert_allclose(fused, composed, rtol=1e-5, atol=1e-6)
    assert numpy.abs(grads[0][2]).sum() > 0


@pytest.mark.parametrize("call, message", [
    (lambda: mx.nd.GridGenerator(mx.nd.ones((2, 5)), transform_type="affine",
                                 target_shape=(2, 2)).asnumpy(), "(batch, 6)"),
    (lambda: mx.nd.GridGenerator(mx.nd.ones((2, 6)), transform_type="affine").asnumpy(),
     "target_shape"),
    (lambda: mx.nd.BilinearSampler(mx.nd.ones((1, 1, 2, 2)), mx.nd.ones((1, 3, 2, 2))).asnumpy(),
     "grid must be (batch, 2, H, W)"),
    (lambda: mx.nd.BilinearSampler(mx.nd.ones((2, 1, 2, 2)), mx.nd.ones((1, 2, 2, 2))).asnumpy(),
     "batch"),
])
def test_bad_shapes_name_the_input_at_fault(call, message):
    """(``asnumpy`` waits: under ThreadedEngine a kernel's error surfaces at the wait.)"""
    with pytest.raises(mx.MXNetError, match=message.replace("(", r"\(").replace(")", r"\)")) as err:
        call()
    assert isinstance(err.value, ValueError)
