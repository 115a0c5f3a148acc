"""NumPy's dispatch protocols on mx.np arrays: numpy.<fn>(mx array) runs mx.np (recorded, traced),
other NumPy functions fall back to NumPy copies outside autograd, MXNet's mixing rules."""
import numpy
import pytest

import mxlab as mx


def test_listed_ufuncs_and_functions_run_mx_np_and_record():
    x = mx.np.array([0.5, 1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = numpy.sum(numpy.exp(x) * numpy.array([1.0, 2.0, 3.0]))
    y.backward()
    assert isinstance(y, mx.np.ndarray)
    numpy.testing.assert_allclose(x.grad.asnumpy(), numpy.exp([0.5, 1.0, 2.0]) * [1, 2, 3],
                                  rtol=1e-6)


def test_numpy_operands_mix_as_in_mxnet():
    mixed = numpy.ones(2) + mx.np.ones(2)
    assert isinstance(mixed, mx.np.ndarray) and mixed.asnumpy().tolist() == [2.0, 2.0]
    host = numpy.ones(2)
    host += mx.np.ones(2)
    assert type(host) is numpy.ndarray and host.tolist() == [2.0, 2.0]
    joined = numpy.concatenate([mx.np.ones(2), numpy.zeros(1)])
    assert isinstance(joined, mx.np.ndarray) and joined.shape == (3,)


def test_other_numpy_functions_fall_back_outside_autograd_only():
    x = mx.np.array([3.0, 1.0, 2.0])
    ranks = numpy.argpartition(x, 1)            # not in mx.np: NumPy runs it on a copy
    assert isinstance(ranks, mx.np.ndarray) and int(ranks.asnumpy()[0]) == 1
    assert type(numpy.fft.fft(x)) is numpy.ndarray    # complex: mx arrays cannot hold it
    x.attach_grad()
    with mx.autograd.record(), pytest.raises(ValueError, match="Falling back to NumPy operator"):
        numpy.argpartition(x, 1)


def test_a_hybridized_block_traces_numpy_calls():
    class Floor(mx.gluon.HybridBlock):
        def forward(self, x):
            return numpy.floor(x / 2) + numpy.maximum(x, 1.0)

    block = Floor()
    x = mx.np.array([3.0, -1.0, 0.5])
    want = block(x).asnumpy()
    block.hybridize()
    numpy.testing.assert_array_equal(block(x).asnumpy(), want)
    numpy.testing.assert_array_equal(want, [4.0, 0.0, 1.0])


def test_legacy_nd_arrays_keep_numpy_semantics():
    """Only mx.np arrays take part (mx.nd.NDArray converts through __array__, as in MXNet)."""
    result = numpy.exp(mx.nd.array([0.0]))
    assert type(result) is numpy.ndarray
