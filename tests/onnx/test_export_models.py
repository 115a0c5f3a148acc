"""Whole networks: every model-zoo network and the D2L MXNet chapters' models (written as
HybridBlocks), exported with a dynamic batch, run in onnxruntime at two batch sizes, imported
back; each matches mxlab within 1e-5."""
import numpy
import pytest
from onnx_helpers import assert_close, run_onnx

import mxlab as mx
from mxlab.gluon import nn
from mxlab.gluon.model_zoo import vision

npx = mx.npx


def export_and_compare(net, shape, tmp_path, ints=None):
    """Export ``net`` (one input of ``shape``); onnxruntime matches mxlab at the exported batch
    and at batch + 1, and so does the re-imported block (at batch + 1 only: each new shape
    re-plans mxlab's graph, the slow part). Returns the largest onnxruntime difference."""
    rng = numpy.random.default_rng(0)
    net.hybridize()

    def sample(batch):
        full = (batch,) + tuple(shape[1:])
        if ints:
            return rng.integers(0, ints, full).astype("float32")
        return rng.uniform(-1, 1, full).astype("float32")

    inputs = [sample(shape[0]), sample(shape[0] + 1)]
    net(mx.np.array(inputs[0]))
    randomize_norms(net)
    expected = [net(mx.np.array(x)).asnumpy() for x in inputs]
    path = str(tmp_path / "net.onnx")
    mx.onnx.export_model(net, None, [shape], numpy.float32, path, dynamic=True)
    worst = 0.0
    for x, y in zip(inputs, expected):
        from_onnx = run_onnx(path, {"data": x})
        assert_close(from_onnx, [y])
        scale = float(numpy.abs(y).max())  # NOTE: also relative to small outputs (SqueezeNet's)
        numpy.testing.assert_allclose(from_onnx[0] / scale, y / scale, atol=1e-5)
        worst = max(worst, float(numpy.abs(from_onnx[0] - y).max()))
    imported = mx.onnx.import_to_gluon(path, mx.cpu())
    assert_close([imported(mx.nd.array(inputs[1])).asnumpy()], [expected[1]])
    return worst


def initialized(net):
    net.initialize(mx.init.Xavier())
    return net


def randomize_norms(net):
    """Random normalisation statistics and affine terms (after the first call has given the
    parameters their shapes): with MXNet's defaults (mean 0, var 1) deep nets such as MobileNet
    give outputs near 1e-17, which any export would match."""
    rng = numpy.random.default_rng(1)
    for name, param in net.collect_params().items():
        if name.endswith(("running_var", "gamma")):
            param.set_data(mx.np.array(rng.uniform(0.5, 1.5, param.shape)))
        elif name.endswith(("running_mean", "beta")):
            param.set_data(mx.np.array(rng.uniform(-0.5, 0.5, param.shape)))


# Image side each zoo family needs (fixed-size final pooling); 32 where global pooling allows.
SIDES = {"alexnet": 64, "densenet": 224, "squeezenet": 224, "inceptionv3": 299}
# One network per family at a small size in the default run; every other one is slow-marked.
# (VGG and AlexNet carry 4096-wide dense layers: their layer sets run in test_d2l_network.)
FAST = {"resnet18_v1", "resnet18_v2", "mobilenet0.25", "mobilenetv2_0.25"}


def side_of(name):
    return next((side for prefix, side in SIDES.items() if name.startswith(prefix)), 32)


@pytest.mark.parametrize("name", [n if n in FAST else pytest.param(n, marks=pytest.mark.slow)
                                  for n in sorted(vision._MODELS)])
def test_model_zoo_network(name, tmp_path):
    net = initialized(vision.get_model(name, classes=10))
    side = side_of(name)
    export_and_compare(net, (1 if side > 64 else 2, 3, side, side), tmp_path)


# -- D2L chapters (MXNet tab), small widths -------------------------------------------------------
def lenet():
    """LeNet (sec_lenet): sigmoid convolutions, average pooling, dense layers."""
    net = nn.HybridSequential()
    net.add(nn.Conv2D(6, kernel_size=5, padding=2, activation="sigmoid"),
            nn.AvgPool2D(pool_size=2, strides=2),
            nn.Conv2D(16, kernel_size=5, activation="sigmoid"),
            nn.AvgPool2D(pool_size=2, strides=2),
            nn.Dense(120, activation="sigmoid"), nn.Dense(84, activation="sigmoid"),
            nn.Dense(10))
    return net, (2, 1, 28, 28)


def lenet_batchnorm():
    """LeNet with batch normalization (sec_batch_norm)."""
    net = nn.HybridSequential()
    net.add(nn.Conv2D(6, kernel_size=5), nn.BatchNorm(), nn.Activation("sigmoid"),
            nn.AvgPool2D(pool_size=2, strides=2),
            nn.Conv2D(16, kernel_size=5), nn.BatchNorm(), nn.Activation("sigmoid"),
            nn.AvgPool2D(pool_size=2, strides=2),
            nn.Dense(12), nn.BatchNorm(), nn.Activation("sigmoid"), nn.Dense(10))
    return net, (2, 1, 28, 28)


def alexnet():
    """AlexNet (sec_alexnet), narrow: large-stride convolutions, max pooling, dropout."""
    net = nn.HybridSequential()
    net.add(nn.Conv2D(8, kernel_size=11, strides=4, activation="relu"),
            nn.MaxPool2D(pool_size=3, strides=2),
            nn.Conv2D(16, kernel_size=5, padding=2, activation="relu"),
            nn.MaxPool2D(pool_size=3, strides=2),
            nn.Conv2D(16, kernel_size=3, padding=1, activation="relu"),
            nn.MaxPool2D(pool_size=3, strides=2),
            nn.Dense(32, activation="relu"), nn.Dropout(0.5),
            nn.Dense(32, activation="relu"), nn.Dropout(0.5), nn.Dense(10))
    return net, (2, 1, 96, 96)


def vgg():
    """VGG blocks (sec_vgg)."""
    net = nn.HybridSequential()
    for num_convs, channels in ((1, 4), (2, 8)):
        for _ in range(num_convs):
            net.add(nn.Conv2D(channels, kernel_size=3, padding=1, activation="relu"))
        net.add(nn.MaxPool2D(pool_size=2, strides=2))
    net.add(nn.Dense(16, activation="relu"), nn.Dropout(0.5), nn.Dense(10))
    return net, (2, 1, 16, 16)


def nin():
    """NiN (sec_nin): 1x1 convolutions, global average pooling, flatten."""
    net = nn.HybridSequential()
    for channels, kernel, stride, pad in ((8, 5, 2, 0), (10, 3, 1, 1)):
        net.add(nn.Conv2D(channels, kernel, stride, pad, activation="relu"),
                nn.Conv2D(channels, kernel_size=1, activation="relu"),
                nn.Conv2D(channels, kernel_size=1, activation="relu"))
    net.add(nn.GlobalAvgPool2D(), nn.Flatten())
    return net, (2, 1, 20, 20)


class Inception(nn.HybridBlock):
    """GoogLeNet's Inception block (sec_googlenet): four paths concatenated on channels."""

    def __init__(self, c1, c2, c3, c4):
        super().__init__()
        self.p1_1 = nn.Conv2D(c1, kernel_size=1, activation="relu")
        self.p2_1 = nn.Conv2D(c2[0], kernel_size=1, activation="relu")
        self.p2_2 = nn.Conv2D(c2[1], kernel_size=3, padding=1, activation="relu")
        self.p3_1 = nn.Conv2D(c3[0], kernel_size=1, activation="relu")
        self.p3_2 = nn.Conv2D(c3[1], kernel_size=5, padding=2, activation="relu")
        self.p4_1 = nn.MaxPool2D(pool_size=3, strides=1, padding=1)
        self.p4_2 = nn.Conv2D(c4, kernel_size=1, activation="relu")

    def forward(self, x):
        paths = (self.p1_1(x), self.p2_2(self.p2_1(x)), self.p3_2(self.p3_1(x)),
                 self.p4_2(self.p4_1(x)))
        return mx.np.concatenate(paths, axis=1)


def googlenet():
    net = nn.HybridSequential()
    net.add(nn.Conv2D(8, kernel_size=3, padding=1, activation="relu"),
            Inception(4, (4, 6), (2, 3), 3), nn.GlobalAvgPool2D(), nn.Dense(10))
    return net, (2, 3, 12, 12)


def densenet():
    """DenseNet (sec_densenet): BN-ReLU-Conv blocks concatenated, a transition block."""
    class DenseBlock(nn.HybridBlock):
        def __init__(self, num_convs, channels):
            super().__init__()
            self.net = nn.HybridSequential()
            for _ in range(num_convs):
                block = nn.HybridSequential()
                block.add(nn.BatchNorm(), nn.Activation("relu"),
                          nn.Conv2D(channels, kernel_size=3, padding=1))
                self.net.add(block)

        def forward(self, x):
            for block in self.net:
                x = mx.np.concatenate((x, block(x)), axis=1)
            return x

    net = nn.HybridSequential()
    net.add(nn.Conv2D(4, kernel_size=3, padding=1), DenseBlock(2, 3), nn.BatchNorm(),
            nn.Activation("relu"), nn.Conv2D(6, kernel_size=1), nn.AvgPool2D(2, strides=2),
            nn.GlobalAvgPool2D(), nn.Dense(10))
    return net, (2, 3, 8, 8)


class Encoder(nn.HybridBlock):
    """A Transformer encoder block (sec_transformer) in hybridizable form: multi-head
    dot-product attention with batch_dot and softmax, AddNorm (dropout, LayerNorm),
    a position-wise FFN (Dense with flatten=False); embeddings in front."""

    def __init__(self, vocab=11, hidden=8, heads=2):
        super().__init__()
        self.heads = heads
        self.embedding = nn.Embedding(vocab, hidden)
        self.w_q, self.w_k, self.w_v, self.w_o = (nn.Dense(hidden, use_bias=False, flatten=False)
                                                  for _ in range(4))
        self.norm1, self.norm2 = nn.LayerNorm(), nn.LayerNorm()
        self.dropout = nn.Dropout(0.1)
        self.ffn1 = nn.Dense(16, flatten=False, activation="relu")
        self.ffn2 = nn.Dense(hidden, flatten=False)

    def split_heads(self, x):
        x = npx.reshape(x, (-2, -2, self.heads, -1)).transpose(0, 2, 1, 3)
        return npx.reshape(x, (-5, -2, -2))

    def forward(self, tokens):
        x = self.embedding(tokens)
        q, k, v = (self.split_heads(w(x)) for w in (self.w_q, self.w_k, self.w_v))
        scores = npx.batch_dot(q, k, transpose_b=True) / numpy.sqrt(q.shape[-1])
        heads = npx.batch_dot(self.dropout(npx.softmax(scores)), v)
        merged = npx.reshape(npx.reshape(heads, (-6, -1, self.heads, -2, -2))
                             .transpose(0, 2, 1, 3), (-2, -2, -1))
        y = self.norm1(x + self.dropout(self.w_o(merged)))
        return self.norm2(y + self.dropout(self.ffn2(self.ffn1(y))))


D2L = {"lenet": lenet, "lenet_batchnorm": lenet_batchnorm, "alexnet": alexnet, "vgg": vgg,
       "nin": nin, "googlenet": googlenet, "densenet": densenet}


@pytest.mark.parametrize("name", sorted(D2L))
def test_d2l_network(name, tmp_path):
    net, shape = D2L[name]()
    export_and_compare(initialized(net), shape, tmp_path)


def test_d2l_transformer_encoder(tmp_path):
    export_and_compare(initialized(Encoder()), (2, 5), tmp_path, ints=11)
