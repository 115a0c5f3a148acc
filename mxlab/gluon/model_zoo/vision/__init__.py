"""``mx.gluon.model_zoo.vision``: ResNet v1/v2 (18, 34) and ``get_model``."""
from ....base import MXNetValueError
from .resnet import *  # noqa: F401,F403
from . import resnet as _resnet

_MODELS = {name: getattr(_resnet, name) for name in _resnet.__all__ if name.startswith("resnet")}


def get_model(name, **kwargs):
    """A model by name (``'resnet18_v1'``), built with ``kwargs`` (``classes``, ...)."""
    if name.lower() not in _MODELS:
        raise MXNetValueError(f"Model {name} is not supported. Available options are\n\t"
                              + "\n\t".join(sorted(_MODELS)))
    return _MODELS[name.lower()](**kwargs)
