"""``mx.np.linalg``: values against NumPy, gradients (through ``mx.autograd``) against central
differences of the same function written with NumPy, float64 throughout."""
import numpy
import pytest
from helpers import assert_same_results, requires_oracle, run_both
from helpers import check_np_function as check

import mxlab as mx
from mxlab.base import MXNetValueError

RNG = numpy.random.RandomState(7)
SQUARE = RNG.uniform(-1, 1, (2, 3, 3)) + 3 * numpy.eye(3)
WIDE = RNG.uniform(-1, 1, (3, 4))
TALL = RNG.uniform(-1, 1, (4, 3))
HEAD_SEED = 11


def _sym(x, xp):
    """A symmetric positive-definite matrix from any square ``x`` (keeps the check symmetric)."""
    return x @ xp.swapaxes(x, -1, -2) + 3 * xp.eye(x.shape[-1])


@pytest.mark.parametrize("name, fn, inputs", [
    ("inv", lambda xp, a: xp.linalg.inv(a), [SQUARE]),
    ("det", lambda xp, a: xp.linalg.det(a), [SQUARE]),
    ("slogdet", lambda xp, a: xp.linalg.slogdet(a)[1], [SQUARE]),
    ("solve_matrix", lambda xp, a, b: xp.linalg.solve(a, b),
     [SQUARE, RNG.uniform(-1, 1, (2, 3, 2))]),
    ("solve_vector", lambda xp, a, b: xp.linalg.solve(a, b), [SQUARE[0], RNG.uniform(-1, 1, 3)]),
    ("cholesky", lambda xp, a: xp.linalg.cholesky(_sym(a, xp)), [SQUARE]),
    ("eigvalsh", lambda xp, a: xp.linalg.eigvalsh(_sym(a, xp)), [SQUARE]),
    ("eigh_vectors_sign_fixed",
     lambda xp, a: _fixed_sign(xp, *xp.linalg.eigh(_sym(a, xp))), [SQUARE]),
    ("pinv_tall", lambda xp, a: xp.linalg.pinv(a), [TALL]),
    ("pinv_wide", lambda xp, a: xp.linalg.pinv(a), [WIDE]),
    ("norm_default", lambda xp, a: xp.linalg.norm(a), [WIDE]),
    ("norm_axis_ord1", lambda xp, a: xp.linalg.norm(a, ord=1, axis=1), [WIDE]),
    ("norm_ord3_keepdims", lambda xp, a: xp.linalg.norm(a, ord=3, axis=0, keepdims=True), [WIDE]),
    ("norm_inf_vector", lambda xp, a: xp.linalg.norm(a, ord=numpy.inf, axis=-1), [WIDE]),
    ("norm_fro_batch", lambda xp, a: xp.linalg.norm(a, ord="fro", axis=(1, 2)), [SQUARE]),
    ("norm_nuc", lambda xp, a: xp.linalg.norm(a, ord="nuc"), [WIDE]),
    ("norm_spectral", lambda xp, a: xp.linalg.norm(a, ord=2), [WIDE]),
    ("norm_matrix_1", lambda xp, a: xp.linalg.norm(a, ord=1, axis=(0, 1)), [WIDE]),
    ("norm_matrix_inf", lambda xp, a: xp.linalg.norm(a, ord=-numpy.inf, axis=(1, 2)), [SQUARE]),
    ("tensorinv", lambda xp, a: xp.linalg.tensorinv(a.reshape(3, 3, 1), ind=1), [SQUARE[0]]),
    ("tensorsolve", lambda xp, a, b: xp.linalg.tensorsolve(a.reshape(3, 1, 3), b.reshape(3, 1)),
     [SQUARE[1], RNG.uniform(-1, 1, 3)]),
    ("multi_dot", lambda xp, a, b, c: xp.linalg.multi_dot([a, b, c]), [WIDE, TALL, SQUARE[0]]),
    ("matrix_power", lambda xp, a: xp.linalg.matrix_power(a, 3), [SQUARE[0]]),
])
def test_value_and_gradient(name, fn, inputs):
    check(fn, *[numpy.array(x) for x in inputs])


def _fixed_sign(xp, w, v):
    """Eigenvectors are defined up to sign: make each column's first entry positive."""
    first = v[..., :1, :]
    return w, v * (first / abs(first))


def _svd(xp, a):
    """MXNet's svd is NumPy's thin one."""
    return xp.linalg.svd(a) if xp is mx.np else numpy.linalg.svd(a, full_matrices=False)


def test_svd_value_and_gradient_through_invariant_products():
    def fn(xp, a):
        ut, s, v = _svd(xp, a)
        return s, (ut * s[..., None, :]) @ v, ut @ xp.swapaxes(ut, -1, -2) * 0 + (v * v).sum()
    check(fn, WIDE.copy())
    ut, s, v = mx.np.linalg.svd(mx.np.array(WIDE))
    numpy.testing.assert_allclose((ut.asnumpy() * s.asnumpy()) @ v.asnumpy(), WIDE, atol=1e-6)


def test_svd_rotation_terms_match_central_differences():
    def fn(xp, a):
        ut, _, v = _svd(xp, a)
        ut, v = ut * xp.sign(ut[..., :1, :]), v * xp.sign(ut[..., :1, :]).reshape(-1, 1)
        return ut, v
    check(fn, WIDE.copy(), rtol=1e-4, atol=1e-6)


def test_qr_value_and_gradient():
    def fn(xp, a):
        q, r = xp.linalg.qr(a)
        sign = xp.sign(xp.diagonal(r, axis1=-2, axis2=-1))
        return q * sign[..., None, :], r * sign[..., :, None]
    check(fn, TALL.copy())
    check(fn, SQUARE.copy())
    check(fn, WIDE.copy())                    # M < N: the [X | Y] split


def test_forward_only_functions_match_numpy():
    upper = numpy.triu(SQUARE[0]) + numpy.diag([1.0, 2.0, 3.0])
    w, v = mx.np.linalg.eig(mx.np.array(upper))
    numpy.testing.assert_allclose(numpy.sort(w.asnumpy()), numpy.sort(numpy.linalg.eigvals(upper)),
                                  rtol=1e-5)
    numpy.testing.assert_allclose(upper @ v.asnumpy(), v.asnumpy() * w.asnumpy(), atol=1e-5)
    assert int(mx.np.linalg.matrix_rank(mx.np.array(numpy.outer([1, 2], [3, 4])))) == 1
    x, residuals, rank, _ = mx.np.linalg.lstsq(mx.np.array(TALL), mx.np.array(TALL[:, 0] + 1),
                                               rcond=None)
    want = numpy.linalg.lstsq(TALL, TALL[:, 0] + 1, rcond=None)
    numpy.testing.assert_allclose(x.asnumpy(), want[0], rtol=1e-5)
    assert rank == 3 and residuals.shape == (1,)
    numpy.testing.assert_allclose(float(mx.np.linalg.cond(mx.np.array(SQUARE[0]))),
                                  numpy.linalg.cond(SQUARE[0]), rtol=1e-5)


def test_errors_name_the_function():
    with pytest.raises(MXNetValueError, match="inv"):
        mx.np.linalg.inv(mx.np.ones((2, 3))).wait_to_read()
    with pytest.raises(MXNetValueError, match="svd"):
        mx.np.linalg.svd(mx.np.ones((3, 2)))[1].wait_to_read()
    with pytest.raises(MXNetValueError, match="complex"):
        mx.np.linalg.eigvals(mx.np.array([[0.0, -1.0], [1.0, 0.0]])).wait_to_read()
    with pytest.raises(NotImplementedError, match="mode"):
        mx.np.linalg.qr(mx.np.ones((2, 2)), mode="complete")


def test_linalg_in_a_hybridized_block():
    class Net(mx.gluon.HybridBlock):
        def forward(self, a):
            return mx.np.linalg.det(a) + mx.np.linalg.norm(mx.np.linalg.inv(a), axis=(1, 2))
    net = Net()
    net.hybridize()
    a = mx.np.array(SQUARE)
    want = numpy.linalg.det(SQUARE) + numpy.linalg.norm(numpy.linalg.inv(SQUARE), axis=(1, 2))
    for _ in range(2):
        numpy.testing.assert_allclose(net(a).asnumpy(), want, rtol=1e-5)


@requires_oracle
@pytest.mark.oracle
def test_linalg_values_and_gradients_match_mxnet():
    # NOTE: not eigvalsh: MXNet 1.9.1 gives it a zero gradient (mxlab's matches central
    #   differences, test_value_and_gradient[eigvalsh]).
    code = """
mx.npx.set_np()
a = mx.np.array(inputs['a']); s = mx.np.array(inputs['s'])
for x in (a, s):
    x.attach_grad()
with mx.autograd.record():
    total = (mx.np.linalg.inv(a) * 2).sum() + mx.np.linalg.det(a).sum() \\
        + mx.np.linalg.slogdet(a)[1].sum() + mx.np.linalg.norm(a) \\
        + (mx.np.linalg.cholesky(s) * mx.np.arange(9).reshape(3, 3)).sum() \\
        + (mx.np.linalg.solve(a, mx.np.ones((3, 2))) * 3).sum()
total.backward()
outputs.update(total=total.asnumpy(), da=a.grad.asnumpy(), ds=s.grad.asnumpy())
mx.npx.reset_np()
"""
    spd = _sym(SQUARE[0], numpy)
    mine, theirs = run_both(code, {"a": SQUARE[0].astype(numpy.float32),
                                   "s": spd.astype(numpy.float32)})
    assert_same_results(mine, theirs, rtol=1e-4, atol=1e-4)
