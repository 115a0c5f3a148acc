"""gluon.model_zoo.vision: ResNet variants build, run on tiny inputs, and refuse downloads."""
import pytest

import mxlab as mx
from mxlab.gluon.model_zoo import vision


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
    with pytest.raises(ValueError, match="not downloadable here"):
        vision.resnet18_v1(pretrained=True)
    with pytest.raises(ValueError, match="Model resnet999 is not supported"):
        vision.get_model("resnet999")
