"""Layers beyond the first set: transposed convolutions in 1-3D, 3-D pooling, channels-last
layouts, pixel shuffle, reflection padding, SiLU, SyncBatchNorm, HybridConcatenate, and the
Pad op they use (values equal MXNet 1.9.1's: fixtures in the opt-in oracle run)."""
import numpy
import pytest

import mxlab as mx
from mxlab.gluon import nn

RNG = numpy.random.default_rng(11)


def run(block, *inputs, hybridize=True):
    """Output imperatively and hybridized (they must agree)."""
    block.initialize(mx.init.Xavier())
    eager = block(*inputs).asnumpy()
    if hybridize:
        block.hybridize()
        numpy.testing.assert_allclose(block(*inputs).asnumpy(), eager, rtol=1e-5, atol=1e-6)
    return eager


@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_channels_last_conv_and_pool_equal_channels_first(ndim):
    x = RNG.normal(size=(2, 3) + (5,) * ndim).astype("float32")
    first = getattr(nn, f"Conv{ndim}D")(4, 3, padding=1, in_channels=3)
    last = getattr(nn, f"Conv{ndim}D")(4, 3, padding=1, in_channels=3,
                                        layout={1: "NWC", 2: "NHWC", 3: "NDHWC"}[ndim])
    first.initialize(mx.init.Xavier())
    last.initialize()
    w = first.weight.data().asnumpy()
    assert last.weight.shape == (4,) + (3,) * ndim + (3,)
    last.weight.set_data(mx.nd.array(numpy.moveaxis(w, 1, -1)))
    want = first(mx.nd.array(x)).asnumpy()
    got = last(mx.nd.array(numpy.moveaxis(x, 1, -1))).asnumpy()
    numpy.testing.assert_allclose(numpy.moveaxis(got, -1, 1), want, rtol=1e-5, atol=1e-5)
    pool_last = getattr(nn, f"MaxPool{ndim}D")(layout={1: "NWC", 2: "NHWC", 3: "NDHWC"}[ndim])
    pool_first = getattr(nn, f"MaxPool{ndim}D")()
    numpy.testing.assert_allclose(
        numpy.moveaxis(pool_last(mx.nd.array(numpy.moveaxis(x, 1, -1))).asnumpy(), -1, 1),
        pool_first(mx.nd.array(x)).asnumpy())


def test_unknown_layout_is_an_error_naming_the_layer():
    with pytest.raises(NotImplementedError, match="Conv2D: layout must be one of"):
        nn.Conv2D(2, 3, layout="HWCN")
    with pytest.raises(NotImplementedError, match="Conv2DTranspose"):
        nn.Conv2DTranspose(2, 3, layout="NHWC")


@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_transposed_convolution_is_the_adjoint_of_convolution(ndim):
    x = mx.nd.array(RNG.normal(size=(1, 2) + (4,) * ndim).astype("float32"))
    y = mx.nd.array(RNG.normal(size=(1, 3) + (6,) * ndim).astype("float32"))
    deconv = getattr(nn, f"Conv{ndim}DTranspose")(3, 3, in_channels=2, use_bias=False)
    out = run(deconv, x)
    assert out.shape == (1, 3) + (6,) * ndim
    w = deconv.weight.data()                                # (in=2, out=3, k...)
    conv = mx.nd.Convolution(y, w, kernel=(3,) * ndim, num_filter=2, no_bias=True)
    # <deconv(x), y> == <x, conv(y)>
    assert numpy.isclose((out * y.asnumpy()).sum(), (x.asnumpy() * conv.asnumpy()).sum(),
                         rtol=1e-4)


def test_pixel_shuffle_matches_its_definition():
    x = RNG.normal(size=(2, 12, 3, 5)).astype("float32")
    got = run(nn.PixelShuffle2D((2, 3)), mx.nd.array(x))
    want = x.reshape(2, 2, 2, 3, 3, 5).transpose(0, 1, 4, 2, 5, 3).reshape(2, 2, 6, 15)
    numpy.testing.assert_array_equal(got, want)
    x1 = RNG.normal(size=(1, 6, 4)).astype("float32")
    want1 = x1.reshape(1, 2, 3, 4).transpose(0, 1, 3, 2).reshape(1, 2, 12)
    numpy.testing.assert_array_equal(run(nn.PixelShuffle1D(3), mx.nd.array(x1)), want1)
    assert run(nn.PixelShuffle3D(2), mx.nd.ones((1, 16, 2, 2, 2))).shape == (1, 2, 4, 4, 4)


def test_reflection_pad_values_and_gradient():
    x = RNG.normal(size=(1, 2, 3, 4)).astype("float32")
    want = numpy.pad(x, ((0, 0), (0, 0), (2, 2), (2, 2)), mode="reflect")
    numpy.testing.assert_array_equal(run(nn.ReflectionPad2D(2), mx.nd.array(x)), want)
    data = mx.nd.array(x)
    data.attach_grad()
    with mx.autograd.record():
        out = nn.ReflectionPad2D(1)(data)
    out.backward()
    # every input element is copied once, plus once per border that mirrors it
    counts = numpy.pad(numpy.ones((3, 4)), 1, mode="reflect")
    back = numpy.zeros((3, 4))
    src_r = numpy.pad(numpy.arange(3), 1, mode="reflect")
    src_c = numpy.pad(numpy.arange(4), 1, mode="reflect")
    numpy.add.at(back, (src_r[:, None], src_c[None, :]), counts)
    numpy.testing.assert_array_equal(data.grad.asnumpy()[0, 0], back)


def test_pad_op_modes_and_mxnet_rules():
    x = mx.nd.array(RNG.normal(size=(1, 1, 2, 3)).astype("float32"))
    for mode in ("constant", "edge", "reflect"):
        got = mx.nd.pad(x, mode=mode, pad_width=(0, 0, 0, 0, 1, 1, 2, 1), constant_value=2.5)
        kwargs = {"constant_values": 2.5} if mode == "constant" else {}
        want = numpy.pad(x.asnumpy(), ((0, 0), (0, 0), (1, 1), (2, 1)), mode=mode, **kwargs)
        numpy.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)
    with pytest.raises(ValueError, match="first two axes"):
        mx.nd.pad(x, mode="edge", pad_width=(1, 0, 0, 0, 0, 0, 0, 0)).wait_to_read()
    with pytest.raises(ValueError, match="4-d or 5-d"):
        mx.nd.pad(mx.nd.ones((2, 2)), mode="edge", pad_width=(1, 1, 1, 1)).wait_to_read()


def test_silu_syncbatchnorm_and_stubs():
    x = RNG.normal(size=(2, 3, 4)).astype("float32")
    numpy.testing.assert_allclose(run(nn.SiLU(), mx.nd.array(x)), x / (1 + numpy.exp(-x)),
                                  rtol=1e-5)
    sync, plain = nn.SyncBatchNorm(), nn.BatchNorm()
    numpy.testing.assert_allclose(run(sync, mx.nd.array(x)), run(plain, mx.nd.array(x)))
    with pytest.raises(NotImplementedError, match="num_devices=2"):
        nn.SyncBatchNorm(num_devices=2)
    with pytest.raises(NotImplementedError, match="layout 'NHWC'"):
        nn.DeformableConvolution(4, 3, layout="NHWC")


def test_hybrid_concatenate_joins_branches_and_trains():
    block = nn.HybridConcatenate(axis=1)
    block.add(nn.Dense(2, in_units=3), nn.Dense(4, in_units=3), nn.Identity())
    x = mx.nd.array(RNG.normal(size=(5, 3)).astype("float32"))
    out = run(block, x)
    assert out.shape == (5, 9)
    numpy.testing.assert_allclose(out[:, 6:], x.asnumpy(), rtol=1e-6)


@pytest.mark.parametrize("cls", [nn.DeformableConvolution, nn.ModulatedDeformableConvolution])
@pytest.mark.parametrize("hybridize", [False, True])
def test_deformable_convolution_starts_as_a_plain_convolution(cls, hybridize):
    """Offsets are predicted by a zero-initialised convolution, so an untrained block (mask
    2 * sigmoid(0) = 1 when modulated) equals Conv2D with the same weights."""
    net = cls(4, kernel_size=(3, 2), padding=1, in_channels=2)
    net.initialize(mx.init.Uniform())
    if hybridize:
        net.hybridize()
    x = mx.nd.random.uniform(shape=(2, 2, 5, 6))
    conv = nn.Conv2D(4, kernel_size=(3, 2), padding=1, in_channels=2)
    conv.initialize()
    conv.weight.set_data(net.deformable_conv_weight.data())
    conv.bias.set_data(net.deformable_conv_bias.data())
    x.attach_grad()
    with mx.autograd.record():
        y = net(x)
    y.backward()
    assert net.offset_weight.shape[0] == (3 if "Modulated" in cls.__name__ else 2) * 6
    numpy.testing.assert_allclose(y.asnumpy(), conv(x).asnumpy(), rtol=1e-5, atol=1e-5)
    assert net.offset_weight.grad().shape == net.offset_weight.shape


def test_block_setattr_reset_arrays_and_initializer_equality():
    net = nn.HybridSequential()
    net.add(nn.Dense(2, in_units=3), nn.Dense(1, in_units=2))
    net.setattr("grad_req", "null")
    assert {p.grad_req for p in net.collect_params().values()} == {"null"}
    arrays = [mx.nd.ones((2,)), mx.nd.ones((3, 1))]
    mx.nd.reset_arrays(*arrays, num_arrays=2)
    assert all((a.asnumpy() == 0).all() for a in arrays)
    assert mx.init.Constant(-10.0) == mx.init.Constant(-10.0)
    assert mx.init.Constant(1.0) != mx.init.Constant(2.0) and mx.init.Zero() != mx.init.One()
