"""gluon.model_zoo.vision: every MXNet zoo network builds with MXNet's parameter shapes, runs,
and refuses downloads."""
import json
import pathlib

import numpy as np
import pytest

import mxlab as mx
from mxlab.gluon.model_zoo import vision

FIXTURES = pathlib.Path(__file__).parent / "fixtures" / "mxnet191"


def conv_weights(net):
    return [name for name in net.collect_params() if name.endswith("weight")
            and len(net.collect_params()[name].shape) == 4]


@pytest.mark.parametrize("name,convs", [("resnet18_v1", 1 + 16 + 3), ("resnet34_v1", 1 + 32 + 3),
                                        ("resnet18_v2", 1 + 16 + 3)])
def test_resnets_build_and_run(name, convs):
    net = vision.get_model(name, classes=7, thumbnail=True)
    net.initialize()
    out = net(mx.nd.random.uniform(shape=(1, 3, 8, 8)))
    assert out.shape == (1, 7)
    assert len(conv_weights(net)) == convs


def test_imagenet_stem_and_errors():
    net = vision.resnet18_v1()
    net.initialize()
    assert net(mx.nd.ones((1, 3, 32, 32))).shape == (1, 1000)
    assert net.features[0].weight.shape == (64, 3, 7, 7)
    with pytest.raises(ValueError, match="cannot be downloaded here"):
        vision.resnet18_v1(pretrained=True)
    with pytest.raises(ValueError, match="Model resnet999 is not supported"):
        vision.get_model("resnet999")


# -- every network of MXNet's vision zoo, against MXNet 1.9.1's own parameter shapes ---------------
# fixtures/mxnet191/model_zoo_shapes.json was written by make_model_zoo_shapes.py under MXNet 1.9.1.
ZOO = json.loads((FIXTURES / "model_zoo_shapes.json").read_text())
# VGG's 25088x4096 Dense layers make initialisation take seconds each: slow run only.
HEAVY = {name for name in ZOO if name.startswith("vgg")}


def traced_parameter_shapes(name, side):
    """Parameter shapes after tracing one image through the net (deferred compute: no compute)."""
    net = vision.get_model(name, classes=10)
    net.initialize()
    _, out = net._get_graph(mx.np.zeros((1, 3, side, side)))
    return net, out, [list(p.shape) for p in net.collect_params().values()]


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in HEAVY else n
                                  for n in sorted(ZOO)])
def test_zoo_matches_mxnet_parameter_shapes(name):
    want = ZOO[name]
    net, out, shapes = traced_parameter_shapes(name, want["side"])
    assert shapes == want["params"]
    side = want["side"]
    assert out.infer_shape_partial(data=(1, 3, side, side))[1] == [tuple(want["output"])]


def test_get_model_knows_every_mxnet_name():
    assert sorted(vision._MODELS) == sorted(ZOO)


@pytest.mark.parametrize("name", ["squeezenet1.1", "mobilenetv2_0.25",
                                  pytest.param("densenet121", marks=pytest.mark.slow)])
def test_small_zoo_nets_run_imperative_and_hybridized_alike(name):
    net = vision.get_model(name, classes=5)
    net.initialize(mx.init.Xavier())
    x = mx.np.random.uniform(size=(1, 3, 224, 224))
    eager = net(x).asnumpy()
    net.hybridize()
    assert eager.shape == (1, 5)
    assert np.allclose(net(x).asnumpy(), eager, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("make", [vision.vgg16_bn, vision.inception_v3, vision.mobilenet0_5,
                                  vision.densenet121, vision.squeezenet1_0, vision.alexnet])
def test_pretrained_refuses_and_names_the_local_file(make):
    with pytest.raises(ValueError, match=r"load_parameters\('/my/models/.*\.params'\)"):
        make(pretrained=True, root="/my/models")


def test_ctx_and_device_keywords_are_accepted():
    net = vision.mobilenet0_25(ctx=mx.cpu(), classes=3)
    net2 = vision.get_model("resnet50_v2", device=mx.cpu(), classes=3)
    assert net.output.weight.shape == (3, 0) and net2.output.weight.shape[0] == 3
