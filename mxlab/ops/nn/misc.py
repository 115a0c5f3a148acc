"""Dropout and Embedding, with their gradients.

Dropout draws its keep-mask from the device generator (the ``rng`` resource, seeded by
``mx.random.seed``) and returns it as a hidden second output holding ``0`` or ``1 / (1 - p)``, so
the gradient is just ``out_grad * mask`` and the input need not be kept. Outside training
(``mode='training'``) it is the identity. Embedding clips indices into ``[0, input_dim)`` like MXNet
and sends its gradient to the weight only, through ``_backward_Embedding`` (a scatter-add over the
looked-up rows).

Example
-------
>>> import mxlab as mx
>>> w = mx.nd.array([[0., 1.], [2., 3.], [4., 5.]])
>>> mx.nd.Embedding(mx.nd.array([2, 0]), w, input_dim=3, output_dim=2).asnumpy().tolist()
[[4.0, 5.0], [0.0, 1.0]]
"""

from ...base import MXNetValueError
from ..attrs import REQUIRED, Attr
from ..infer import known
from ..registry import F, Op, register

__all__ = []


# -- Dropout ---------------------------------------------------------------------------------------
def _mask_shape(op_name, shape, axes):
    """Variational dropout: one mask entry shared along each axis in ``axes``."""
    ndim = len(shape)
    for axis in axes:
        if not -ndim <= axis < ndim:
            raise MXNetValueError(
                f"{op_name}: attribute 'axes' {axes} is out of range for {ndim}-d input 'data'"
            )
    shared = {a % ndim for a in axes}
    return tuple(1 if i in shared else d for i, d in enumerate(shape))


def _dropout_forward(xp, inputs, attrs, ctx):
    x = inputs[0]
    p = attrs["p"]
    if not (attrs["mode"] == "always" or ctx.is_train) or p == 0:
        return x.copy(), xp.ones_like(x)
    shape = _mask_shape("Dropout", x.shape, attrs["axes"])
    keep = ctx.draw(xp, lambda gen: gen.uniform(0.0, 1.0, size=shape)) < 1.0 - p
    scale = 0.0 if p >= 1 else 1.0 / (1.0 - p)
    mask = xp.asarray(xp.broadcast_to(xp.asarray(keep * scale, dtype=x.dtype), x.shape), order="C")
    return x * mask, mask


register(
    Op(
        name="Dropout",
        compute=_dropout_forward,
        input_names=("data",),   # NOTE: declared: the monitor names it data
        attrs=(
            Attr("p", "float", 0.5, check=(lambda v: 0 <= v <= 1, "must be in [0, 1]")),
            Attr("mode", "str", "training", choices=("training", "always")),
            Attr("axes", "shape", ()),
        ),
        num_outputs=2,
        output_names=("output", "mask"),
        num_visible_outputs=1,
        infer_shape=lambda attrs, s: (s, [s[0], s[0]]),
        infer_type=lambda attrs, d: (d, [d[0], d[0]]),
        gradient=lambda node, g: [F.broadcast_mul(g[0], node.outputs[1])],
        save_inputs=False,
        save_outputs=(1,),
        resources=("rng",),
        is_random=True,
        ignored_attrs=("cudnn_off",),
        npx_name="dropout",
        nd_names=("Dropout",),
        doc="Zero each element with probability p and scale the rest by 1/(1-p) while training.",
    )
)


# -- Embedding -------------------------------------------------------------------------------------
def _indices(xp, data, input_dim):
    return xp.clip(data.astype("int64"), 0, input_dim - 1)


def _embedding_forward(xp, inputs, attrs):
    data, weight = inputs
    return weight[_indices(xp, data, attrs["input_dim"])]


def _scatter_add(xp, target, index, values):
    if xp.__name__ == "numpy":
        xp.add.at(target, index, values)
    else:
        import cupyx  # NOTE: only reached on GPU, where CuPy (and so cupyx) is installed.

        cupyx.scatter_add(target, index, values)


def _embedding_backward(xp, inputs, attrs):
    dy, data = inputs
    grad = xp.zeros((attrs["input_dim"], attrs["output_dim"]), dtype=dy.dtype)
    _scatter_add(
        xp,
        grad,
        _indices(xp, data, attrs["input_dim"]).ravel(),
        dy.reshape(-1, attrs["output_dim"]),
    )
    return grad


def _embedding_infer(attrs, in_shapes):
    data, weight = in_shapes
    expected = (attrs["input_dim"], attrs["output_dim"])
    if known(weight) and tuple(weight) != expected:
        raise MXNetValueError(
            f"Embedding: input 'weight' has shape {tuple(weight)} but (input_dim, output_dim) = "
            f"{expected}"
        )
    out = None if data is None else tuple(data) + (attrs["output_dim"],)
    return [data, expected], [out]


def _embedding_dtype(attrs, in_dtypes):
    data, weight = in_dtypes
    weight = weight or attrs["dtype"]
    return [data or "float32", weight], [weight]


_EMBED_ATTRS = (
    Attr("input_dim", "int", REQUIRED, check=(lambda v: v > 0, "must be positive")),
    Attr("output_dim", "int", REQUIRED, check=(lambda v: v > 0, "must be positive")),
    Attr("dtype", "dtype", "float32"),
    Attr("sparse_grad", "bool", False),
)

def _register_embedding(name, doc, **fields):
    """Embedding's op shape, for ``Embedding`` and 1.x's ``contrib.SparseEmbedding``."""
    register(Op(name=name, compute=_embedding_forward, attrs=_EMBED_ATTRS, num_inputs=2,
                input_names=("data", "weight"), infer_shape=_embedding_infer,
                infer_type=_embedding_dtype,
                gradient=lambda node, g: [None, F._backward_Embedding(g[0], node.inputs[0],
                                                                      **node.attrs)],
                save_inputs=(0,), save_outputs=False, doc=doc, **fields))


_register_embedding("Embedding", npx_name="embedding", nd_names=("Embedding",),
                    doc="Look up rows of weight by integer index (indices clipped to "
                        "[0, input_dim)).")
_register_embedding("_contrib_SparseEmbedding", ignored_attrs=("deterministic",),
                    doc="MXNet 1.x's contrib.SparseEmbedding: Embedding (its gradient is "
                        "computed dense).")
register(
    Op(
        name="_backward_Embedding",
        compute=_embedding_backward,
        attrs=_EMBED_ATTRS,
        num_inputs=2,
        input_names=("out_grad", "data"),
        infer_shape=lambda a, s: (s, [(a["input_dim"], a["output_dim"])]),
        infer_type=lambda a, d: (d, [d[0]]),
        hidden=True,
        doc="Weight gradient of Embedding: out_grad rows summed into the rows they were read from.",
    )
)
