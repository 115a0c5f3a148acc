"""Straight-through estimators (MXNet's ``contrib.round_ste`` / ``sign_ste``, ``npx.round_ste`` /
``npx.sign_ste``): round or sign forward, the identity backward, so quantised values can be
trained through (Bengio et al. 2013).

Example
-------
>>> import numpy
>>> from mxlab.ops.registry import get_op
>>> get_op("_contrib_round_ste").forward(numpy, [numpy.array([1.5, -1.5, 0.4])], {})[0]
array([ 2., -2.,  0.])
"""
from .infer import same_dtype, same_shape
from .registry import Op, register
from .unary import _round_half_away

__all__ = []

for _name, _forward, _doc in (
        ("round", _round_half_away, "round half away from zero"),
        ("sign", lambda xp, x: xp.sign(x), "sign")):
    register(Op(
        name=f"_contrib_{_name}_ste",
        compute=(lambda f: lambda xp, inputs, attrs: f(xp, inputs[0]))(_forward),
        infer_shape=same_shape,
        infer_type=same_dtype,
        gradient=lambda node, g: [g[0]],
        save_inputs=False,
        save_outputs=False,
        npx_name=f"{_name}_ste",
        doc=f"Straight-through {_doc}: the forward's {_doc}, an identity gradient.",
    ))
