"""``mx.gluon.model_zoo.vision``: MXNet's vision model zoo (ResNet v1/v2 18-152, VGG, AlexNet,
DenseNet, SqueezeNet, Inception v3, MobileNet v1/v2) and ``get_model``.

Every network is built randomly initialised; ``pretrained=True`` raises with how to load a
local ``.params`` file (the weights are not downloadable here).
"""
from ....base import MXNetValueError
from .alexnet import *  # noqa: F401,F403
from .densenet import *  # noqa: F401,F403
from .inception import *  # noqa: F401,F403
from .mobilenet import *  # noqa: F401,F403
from .resnet import *  # noqa: F401,F403
from .squeezenet import *  # noqa: F401,F403
from .vgg import *  # noqa: F401,F403


def _model_table():
    """MXNet's ``get_model`` names -> constructors (a few names differ from the function's)."""
    names = ([f"resnet{n}_v{v}" for v in (1, 2) for n in (18, 34, 50, 101, 152)]
             + [f"vgg{n}{bn}" for bn in ("", "_bn") for n in (11, 13, 16, 19)]
             + ["alexnet"] + [f"densenet{n}" for n in (121, 161, 169, 201)])
    table = {name: globals()[name] for name in names}
    table.update({"squeezenet1.0": squeezenet1_0, "squeezenet1.1": squeezenet1_1,  # noqa: F405
                  "inceptionv3": inception_v3})  # noqa: F405
    for tag, dotted in (("1_0", "1.0"), ("0_75", "0.75"), ("0_5", "0.5"), ("0_25", "0.25")):
        table[f"mobilenet{dotted}"] = globals()[f"mobilenet{tag}"]
        table[f"mobilenetv2_{dotted}"] = globals()[f"mobilenet_v2_{tag}"]
    return table


_MODELS = _model_table()


def get_model(name, **kwargs):
    """A model by MXNet's name (``'resnet50_v1'``, ``'squeezenet1.0'``, ``'mobilenetv2_1.0'``),
    built with ``kwargs`` (``classes``, ``pretrained``, ``ctx``/``device``, ``root``, ...)."""
    if name.lower() not in _MODELS:
        raise MXNetValueError(f"Model {name} is not supported. Available options are\n\t"
                              + "\n\t".join(sorted(_MODELS)))
    return _MODELS[name.lower()](**kwargs)
