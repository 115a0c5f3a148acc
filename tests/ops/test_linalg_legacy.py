"""MXNet 1.x's legacy ``mx.nd.linalg`` family against NumPy and MXNet's documented examples;
gradients against central differences (tests/oracle/test_mxnet_ops.py compares with MXNet)."""
import itertools

import numpy
import pytest
from helpers import check_gradient

import mxlab as mx
from mxlab.base import MXNetError

L = mx.nd.linalg
RNG = numpy.random.RandomState(7)
LOWER3 = numpy.array([[3.0, 0.0, 0.0], [0.5, 2.0, 0.0], [0.2, 0.4, 1.5]])
SPD3 = LOWER3 @ LOWER3.T


def nd(x):
    return mx.nd.array(x, dtype="float64")


def close(got, want, rtol=1e-7, atol=1e-9):
    if isinstance(got, (list, tuple)):
        for g, w in zip(got, want, strict=True):
            close(g, w, rtol, atol)
        return
    numpy.testing.assert_allclose(got.asnumpy(), want, rtol=rtol, atol=atol)


def op_t(x, t):
    return x.swapaxes(-1, -2) if t else x


def test_gemm_and_gemm2_match_numpy_with_transposes_and_row_axis():
    a, b, c = RNG.rand(2, 4, 3), RNG.rand(2, 5, 4), RNG.rand(2, 3, 5)
    close(L.gemm(nd(a), nd(b), nd(c), transpose_a=True, transpose_b=True, alpha=2.0, beta=0.5),
          2.0 * op_t(a, 1) @ op_t(b, 1) + 0.5 * c)
    close(L.gemm2(nd(a), nd(b), transpose_a=True, transpose_b=True, alpha=-1.0),
          -(op_t(a, 1) @ op_t(b, 1)))
    # axis=1: rows along axis 1, the other axes are batch axes (swapaxes/gemm/swapaxes)
    a4, b4 = RNG.rand(3, 4, 2, 5), RNG.rand(3, 5, 2, 6)
    want = (a4.swapaxes(1, 2) @ b4.swapaxes(1, 2)).swapaxes(1, 2)
    close(L.gemm2(nd(a4), nd(b4), axis=1), want)
    assert mx.nd.linalg_gemm2(nd(a4), nd(b4), axis=-3).shape == (3, 4, 2, 6)


def test_mxnet_documented_examples():
    ones = numpy.ones
    close(L.gemm(nd(ones((2, 2))), nd(ones((3, 2))), nd(ones((2, 3))), transpose_b=True,
                 alpha=2.0, beta=10.0), 14 * ones((2, 3)))
    close(L.potrf(nd([[4.0, 1.0], [1.0, 4.25]])), [[2.0, 0], [0.5, 2.0]])
    close(L.potri(nd([[2.0, 0], [0.5, 2.0]])), [[0.265625, -0.0625], [-0.0625, 0.25]])
    close(L.trmm(nd([[1.0, 0], [1.0, 1.0]]), nd(ones((2, 3))), alpha=2.0),
          [[2.0] * 3, [4.0] * 3])
    close(L.trsm(nd([[1.0, 0], [1.0, 1.0]]), nd([[2.0] * 3, [4.0] * 3]), alpha=0.5), ones((2, 3)))
    close(L.sumlogdiag(nd([[1.0, 1.0], [1.0, 7.0]])), [numpy.log(7.0)])
    a = nd([[1.0, 2.0], [3.0, 4.0]])
    close(L.extractdiag(a), [1.0, 4.0])
    close(L.extractdiag(a, offset=1), [2.0])
    close(L.makediag(nd([1.0, 2.0]), offset=1), [[0, 1.0, 0], [0, 0, 2.0], [0, 0, 0]])
    close(L.extracttrian(a), [1.0, 3.0, 4.0])
    close(L.extracttrian(a, lower=False), [1.0, 2.0, 4.0])
    close(L.extracttrian(a, offset=-1), [3.0])
    tri = nd([1.0, 2.0, 3.0])
    close(L.maketrian(tri, lower=False), [[1.0, 2.0], [0, 3.0]])
    close(L.maketrian(tri, offset=1), [[0, 1.0, 2.0], [0, 0, 3.0], [0, 0, 0]])
    close(L.maketrian(tri, offset=-1), [[0, 0, 0], [1.0, 0, 0], [2.0, 3.0, 0]])
    x = nd([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    close(L.syrk(x), [[14.0, 32.0], [32.0, 77.0]])
    q, low = L.gelqf(x)
    close([q, low], [[[-0.26726124, -0.53452248, -0.80178373],
                      [0.87287156, 0.21821789, -0.43643578]],
                     [[-3.74165739, 0.0], [-8.55235974, 1.96396101]]], rtol=1e-6)
    u, w = L.syevd(nd([[[1.0, 2.0], [2.0, 4.0]], [[1.0, 2.0], [2.0, 5.0]]]))
    close([u, w], [[[[0.89442719, -0.4472136], [0.4472136, 0.89442719]],
                    [[0.92387953, -0.38268343], [0.38268343, 0.92387953]]],
                   [[0.0, 5.0], [0.17157288, 5.82842712]]], rtol=1e-6, atol=1e-7)
    close(L.inverse(nd([[1.0, 4.0], [2.0, 3.0]])), [[-0.6, 0.8], [0.4, -0.2]])
    close(L.det(nd([[1.0, 4.0], [2.0, 3.0]])), [-5.0])
    sign, logdet = L.slogdet(nd([[[2.0, 3.0], [1.0, 4.0]], [[1.0, 2.0], [2.0, 4.0]],
                                 [[1.0, 2.0], [4.0, 3.0]]]))
    close(sign, [1.0, 0.0, -1.0])
    close(logdet, [numpy.log(5.0), -numpy.inf, numpy.log(5.0)])


@pytest.mark.parametrize("rightside,lower,transpose", list(itertools.product((0, 1), repeat=3)))
def test_trmm_trsm_read_one_triangle_and_match_numpy(rightside, lower, transpose):
    # noise outside the triangle: the ops must not read it
    a = (LOWER3 if lower else LOWER3.T) + (numpy.triu(RNG.rand(3, 3), 1) if lower else
                                           numpy.tril(RNG.rand(3, 3), -1))
    tri = op_t(numpy.tril(a) if lower else numpy.triu(a), transpose)
    b = RNG.rand(4, 3) if rightside else RNG.rand(3, 4)
    attrs = dict(rightside=bool(rightside), lower=bool(lower), transpose=bool(transpose))
    close(L.trmm(nd(a), nd(b), alpha=1.5, **attrs), 1.5 * (b @ tri if rightside else tri @ b))
    want = 1.5 * (b @ numpy.linalg.inv(tri) if rightside else numpy.linalg.solve(tri, b))
    close(L.trsm(nd(a), nd(b), alpha=1.5, **attrs), want)
    for name in ("_linalg_trmm", "_linalg_trsm"):
        check_gradient(name, [a, b], dict(attrs, alpha=1.5), cls=mx.nd.NDArray, rtol=1e-5)


def test_cholesky_tools_match_numpy():
    batch = numpy.stack([SPD3, SPD3 + numpy.eye(3)])
    low = L.potrf(nd(batch)).asnumpy()
    numpy.testing.assert_allclose(low, numpy.linalg.cholesky(batch))
    up = L.potrf(nd(batch), lower=False).asnumpy()
    numpy.testing.assert_allclose(up, low.swapaxes(1, 2))
    close(L.potri(nd(low)), numpy.linalg.inv(batch))
    close(L.potri(nd(up), lower=False), numpy.linalg.inv(batch))
    close(L.sumlogdiag(nd(low)) * 2, numpy.linalg.slogdet(batch)[1])
    close(L.syrk(nd(low)), batch)
    close(L.syrk(nd(up), transpose=True, alpha=0.5), 0.5 * batch)


@pytest.mark.parametrize("name,inputs,attrs", [
    ("_linalg_gemm", [RNG.rand(3, 4, 2, 5), RNG.rand(3, 6, 2, 5), RNG.rand(3, 4, 2, 6)],
     {"transpose_b": True, "axis": 1, "alpha": 0.7, "beta": 1.3}),
    ("_linalg_gemm2", [RNG.rand(2, 4, 3), RNG.rand(2, 4, 5)], {"transpose_a": True}),
    ("_linalg_potri", [LOWER3 + numpy.triu(RNG.rand(3, 3), 1)], {}),
    ("_linalg_potri", [LOWER3.T], {"lower": False}),
    ("_linalg_sumlogdiag", [RNG.rand(2, 3, 3) + 0.5], {}),
    ("_linalg_syrk", [RNG.rand(2, 3, 4)], {"alpha": 0.5}),
    ("_linalg_extracttrian", [RNG.rand(2, 4, 4)], {"offset": 1}),
    ("_linalg_maketrian", [RNG.rand(2, 6)], {"offset": -1, "lower": False}),
    ("_linalg_extractdiag", [RNG.rand(4, 4)], {"offset": -2}),
    ("_linalg_makediag", [RNG.rand(2, 3)], {"offset": 2}),
    ("_linalg_gelqf", [RNG.rand(2, 3, 5)], {}),
    ("_linalg_inverse", [SPD3], {}),
    ("_linalg_det", [RNG.rand(2, 3, 3) + 2 * numpy.eye(3)], {}),
])
def test_gradients_match_central_differences(name, inputs, attrs):
    check_gradient(name, inputs, attrs, cls=mx.nd.NDArray, rtol=1e-5, atol=1e-7)


def test_symmetric_input_gradients():
    """potrf and syevd read one triangle: compare along symmetric perturbations."""
    eps, direction = 1e-6, numpy.triu(RNG.rand(3, 3))
    direction = direction + direction.T
    for fn in (lambda a: L.potrf(a), lambda a: L.syevd(a)[0] * 0.3 + L.syevd(a)[1].sum()):
        x = nd(SPD3)
        x.attach_grad()
        with mx.autograd.record():
            y = fn(x)
        head = numpy.cos(numpy.arange(y.size)).reshape(y.shape) + 1.5
        y.backward(nd(head))
        numeric = ((fn(nd(SPD3 + eps * direction)).asnumpy() -
                    fn(nd(SPD3 - eps * direction)).asnumpy()) * head).sum() / (2 * eps)
        assert abs((x.grad.asnumpy() * direction).sum() - numeric) < 1e-6


def test_det_and_slogdet_do_not_backpropagate_through_singular_matrices():
    a = nd([[[1.0, 2.0], [2.0, 4.0]], [[2.0, 1.0], [1.0, 3.0]]])
    a.attach_grad()
    with mx.autograd.record():
        y = L.det(a) + L.slogdet(a)[1].clip(-10, 10)
    y.backward()
    grad = a.grad.asnumpy()
    assert not grad[0].any()
    inv_t = numpy.linalg.inv([[2.0, 1.0], [1.0, 3.0]]).T
    numpy.testing.assert_allclose(grad[1], 5.0 * inv_t + inv_t)


def test_shapes_dtypes_and_names():
    assert L.det(nd(numpy.eye(2))).shape == (1,)
    assert L.sumlogdiag(nd(numpy.ones((4, 2, 2)))).shape == (4,)
    assert L.gemm2(mx.nd.ones((2, 3)), mx.nd.ones((3, 4))).dtype == numpy.float32
    assert mx.nd.linalg_potrf is not None and mx.sym.linalg_trsm is not None
    assert not hasattr(mx.nd, "linalg_syevd")       # MXNet has no flat alias for syevd
    y = mx.sym.linalg.gemm(mx.sym.var("a"), mx.sym.var("b"), mx.sym.var("c"), transpose_a=True)
    assert y.infer_shape(a=(2, 4, 3), b=(2, 4, 5))[1:] == ([(2, 3, 5)], [])
    assert y.infer_shape(a=(2, 4, 3), b=(2, 4, 5))[0][2] == (2, 3, 5)
    q = mx.sym.linalg.gelqf(mx.sym.var("x"))
    assert q.infer_shape(x=(2, 3, 5))[1] == [(2, 3, 5), (2, 3, 3)]
    assert mx.sym.linalg.det(mx.sym.var("x")).list_outputs() == ["det0_output0"]
    assert mx.sym.load_json(q.tojson()).tojson() == q.tojson()
    assert '"_linalg_gelqf"' in q.tojson()


def test_mxnet_module_paths_resolve():
    import importlib

    import mxlab.compat
    mxlab.compat.install()
    assert importlib.import_module("mxnet.ndarray.linalg") is mx.nd.linalg
    assert importlib.import_module("mxnet.symbol.linalg") is mx.sym.linalg


def test_bad_inputs_raise_errors_naming_the_op():
    with pytest.raises(TypeError, match="potrf"):
        L.potrf(mx.nd.ones((2, 2), dtype="float16")).wait_to_read()
    with pytest.raises(MXNetError, match="potrf"):
        L.potrf(nd(-numpy.eye(2))).wait_to_read()
    with pytest.raises(ValueError, match="gelqf"):
        mx.sym.linalg.gelqf(mx.sym.var("x")).infer_shape(x=(4, 3))
    with pytest.raises(ValueError, match="maketrian"):
        mx.sym.linalg.maketrian(mx.sym.var("x")).infer_shape(x=(2, 5))
    with pytest.raises(ValueError, match="gemm2"):
        mx.sym.linalg.gemm2(mx.sym.var("a"), mx.sym.var("b")).infer_shape(a=(2, 3), b=(4, 5))
    with pytest.raises(ValueError, match="trsm"):
        mx.sym.linalg.trsm(mx.sym.var("a"), mx.sym.var("b")).infer_shape(a=(3, 3), b=(2, 4))


def test_imperative_shape_errors_name_the_op():
    with pytest.raises(ValueError, match="trsm: expects square"):
        L.trsm(mx.nd.ones((2, 3)), mx.nd.ones((2, 3))).wait_to_read()
    with pytest.raises(ValueError, match="gemm2: incompatible"):
        L.gemm2(mx.nd.ones((2, 3)), mx.nd.ones((2, 3))).wait_to_read()


def test_hybrid_block_uses_f_linalg():
    class Block(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.linalg.sumlogdiag(F.linalg.potrf(F.linalg.syrk(x) + 1.0))

    block = Block()
    x = mx.nd.array(RNG.rand(2, 3, 3) + numpy.eye(3))
    eager = block(x).asnumpy()
    block.hybridize()
    numpy.testing.assert_allclose(block(x).asnumpy(), eager, rtol=1e-6)
    want = 0.5 * numpy.linalg.slogdet(x.asnumpy() @ x.asnumpy().swapaxes(1, 2) + 1.0)[1]
    numpy.testing.assert_allclose(eager, want, rtol=1e-5)
