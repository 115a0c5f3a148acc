"""What every model-zoo constructor shares: MXNet's ``pretrained`` / ``ctx`` / ``device`` /
``root`` keywords.

Pretrained weights live on a download server this toolkit never reaches, so ``pretrained=True``
raises and says how to load a local ``.params`` file instead; ``ctx`` (1.x) and ``device``
(2.0) are accepted alike and only name where parameters go once initialised.
"""
from ....base import MXNetValueError

__all__ = ["unmarked", "zoo_constructor"]


def _pretrained_error(name, weights, root):
    return MXNetValueError(
        f"{name}(pretrained=True): pretrained model-zoo weights cannot be downloaded here. "
        f"Build the model with pretrained=False and load a local file: "
        f"net.load_parameters('{root or '~/.mxnet/models'}/{weights}.params')")


def zoo_constructor(name, build, weights=None):
    """A public constructor ``name(pretrained=False, ctx=None, device=None, root=None, **kw)``
    around ``build(**kw)``; ``weights`` is MXNet's name of the pretrained file."""

    def constructor(pretrained=False, ctx=None, device=None, root=None, **kwargs):
        if pretrained:
            raise _pretrained_error(name, weights or name, root)
        return build(**kwargs)

    constructor.__name__ = constructor.__qualname__ = name
    constructor.__doc__ = f"``{name}`` as in MXNet's model zoo (randomly initialised)."
    return constructor


def unmarked(cls, *args, prefix, **kwargs):
    """``cls(*args, prefix=prefix, **kwargs)`` named as MXNet 1.x's zoo names it (``stage1_``, or
    ``''``: counted in the enclosing scope), without marking the model as Gluon 1 code: its
    ``collect_params`` keys stay structural (``features.0.weight``)."""
    block = cls(*args, prefix=prefix, **kwargs)
    block._gluon1 = False
    return block
