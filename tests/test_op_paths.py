"""Every registered op gives one answer on every execution path (see ``op_paths``)."""
import numpy
import pytest
from op_paths import check_op_paths
from op_samples import SPECIAL, UNSUPPORTED, sample, swept_ops

import mxlab as mx
from mxlab.executor import CachedOp
from mxlab.ops.registry import get_op, list_ops
from mxlab.subgraph import partition_symbol

ALL_PATHS = ["imperative", "deferred", "executor", "cached_dynamic", "cached_static",
             "subgraph", "gradient", "numeric"]


def test_every_public_op_is_swept_or_excused():
    public = {n for n in list_ops() if not get_op(n).hidden}
    assert len(UNSUPPORTED) <= 3, "each unsupported op is a hole in the net: keep the list short"
    assert set(UNSUPPORTED) <= public and set(SPECIAL) <= public
    assert set(swept_ops()) == public - set(UNSUPPORTED)
    assert len(swept_ops()) >= 200


@pytest.mark.parametrize("name", swept_ops())
def test_op_paths(name):
    with numpy.errstate(all="ignore"):
        ran = check_op_paths(sample(name), numeric_limit=4)
    assert ran[:3] == ["imperative", "deferred", "executor"]


def test_the_sweep_runs_every_path_on_a_differentiable_op():
    assert check_op_paths(sample("FullyConnected"), numeric_limit=4) == ALL_PATHS


@pytest.mark.slow
@pytest.mark.parametrize("name", swept_ops())
def test_op_paths_all_elements(name):
    """Central differences at every element (the default run checks four per input)."""
    with numpy.errstate(all="ignore"):
        check_op_paths(sample(name))


# -- divergences the sweep found ------------------------------------------------------------------
ROUNDING = [mx.nd.floor, mx.nd.ceil, mx.nd.trunc, mx.nd.fix, mx.nd.round, mx.nd.rint,
            mx.np.rint, mx.np.round]


@pytest.mark.parametrize("fn", ROUNDING, ids=lambda fn: f"{fn.__module__}.{fn.__name__}")
def test_rounding_gradient_is_zero_on_the_tape(fn):
    """The rule read the input, which a rounding op does not save: backward raised."""
    flavour = mx.np if fn.__module__.startswith("mxlab.numpy") else mx.nd
    x = flavour.array([1.5, -2.5, 3.2])
    x.attach_grad()
    with mx.autograd.record():
        y = fn(x)
    y.backward()
    numpy.testing.assert_array_equal(x.grad.asnumpy(), numpy.zeros(3))


def test_an_absent_optional_input_is_not_saved_for_backward():
    """SequenceMask saves ``sequence_length`` (input 1); recording a call without it raised."""
    x = mx.nd.array(numpy.ones((3, 2)))
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.SequenceMask(x)
    y.backward()
    numpy.testing.assert_array_equal(x.grad.asnumpy(), numpy.ones((3, 2)))


def test_topk_indices_keep_their_dtype_inside_a_subgraph():
    """The subgraph's inner inference guessed the input's dtype for topk's indices."""
    sym = mx.sym.topk(mx.sym.var("x"), k=2)
    part, _ = partition_symbol(sym, "default", op_names=["topk"])
    x = mx.nd.array(numpy.array([[3.0, 1.0, 2.0]]), dtype="float64")
    got = CachedOp(part, {"static_alloc": True})(x)
    assert got.dtype == numpy.float32
    numpy.testing.assert_array_equal(got.asnumpy(), [[0, 2]])


def test_a_subgraph_with_a_value_dependent_shape_trains():
    """The subgraph op did not carry its inner op's dynamic_shape: a recorded call failed to
    plan (and a random inner op was mirrorable)."""
    x, m = mx.sym.var("x"), mx.sym.var("m")
    part, _ = partition_symbol(mx.sym.boolean_mask(x * 2, m), "default",
                               op_names=["_contrib_boolean_mask", "_mul_scalar"])
    op = CachedOp(part, {"static_alloc": True})
    data, mask = mx.nd.array([[1.0], [2.0], [3.0]]), mx.nd.array([1.0, 0.0, 1.0])
    data.attach_grad()
    with mx.autograd.record():
        y = op(data, mask)
    y.backward()
    numpy.testing.assert_array_equal(y.asnumpy(), [[2.0], [6.0]])
    numpy.testing.assert_array_equal(data.grad.asnumpy(), [[2.0], [0.0], [2.0]])
    dropout, _ = partition_symbol(mx.sym.Dropout(x * 2), "default",
                                  op_names=["Dropout", "_mul_scalar"])
    inner = [n.op for n in dropout.graph.indexed.nodes if n.op is not None]
    assert inner and not inner[0].mirrorable


def test_div_sqrt_dim_differentiates_in_a_graph():
    """Its rule read the input's shape, which a graph entry lacks: the gradient pass raised."""
    x = mx.sym.var("x")
    ex = mx.sym.contrib.div_sqrt_dim(x).simple_bind(mx.cpu(), x=(2, 4))
    ex.forward(is_train=True)
    ex.backward(mx.nd.ones((2, 4)))
    numpy.testing.assert_allclose(ex.grad_dict["x"].asnumpy(), numpy.full((2, 4), 0.5))
