"""Small MXNet APIs real code calls: waitall, gradient-steering ops, sequence ops, DLPack, device
helpers, categorical sampling, ``mx.sym.random``, ``tostype``, ``__format__``/``__array__``."""
import numpy
import pytest
from helpers import assert_same_results, check_gradient, requires_oracle, run_both

import mxlab as mx
from mxlab.base import MXNetTypeError, MXNetValueError


def test_waitall_in_nd_and_npx_waits_for_pushed_work():
    x = mx.nd.ones((3,)) * 2
    mx.nd.waitall()
    mx.npx.waitall()
    assert x.asnumpy().tolist() == [2.0, 2.0, 2.0]


# -- BlockGrad / make_loss / MakeLoss --------------------------------------------------------------
def test_block_grad_stops_the_gradient_of_its_input():
    a, b = mx.nd.array([1.0, 2.0]), mx.nd.array([0.0, 1.0])
    a.attach_grad(), b.attach_grad()
    with mx.autograd.record():
        y = mx.nd.BlockGrad(3 * b) + a * mx.nd.stop_gradient(b + 1)
    y.backward()
    assert a.grad.asnumpy().tolist() == [1.0, 2.0]
    assert b.grad.asnumpy().tolist() == [0.0, 0.0]
    assert y.asnumpy().tolist() == [1.0, 7.0]


def test_npx_stop_gradient_on_np_arrays():
    x = mx.np.array([1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = (mx.npx.stop_gradient(x) * x).sum()
    y.backward()
    assert x.grad.asnumpy().tolist() == [1.0, 2.0]


def test_symbolic_make_loss_trains_without_head_gradients():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    loss = mx.sym.MakeLoss(mx.sym.BlockGrad(3 * b) + a)
    exe = loss.simple_bind(mx.cpu(), a=(1, 2), b=(1, 2))
    out = exe.forward(is_train=True, a=mx.nd.array([[1, 2]]), b=mx.nd.array([[0, 1]]))
    exe.backward()
    assert out[0].asnumpy().tolist() == [[1.0, 5.0]]
    assert exe.grad_dict["a"].asnumpy().tolist() == [[1.0, 1.0]]
    assert exe.grad_dict["b"].asnumpy().tolist() == [[0.0, 0.0]]


@pytest.mark.parametrize("normalization, expected", [("null", 2.0), ("batch", 1.0),
                                                     ("valid", 2.0 / 3)])
def test_make_loss_gradient_scale_and_normalization(normalization, expected):
    x = mx.nd.array([[1.0, -1.0], [2.0, 3.0]])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.MakeLoss(x, grad_scale=2.0, normalization=normalization, valid_thresh=0.5)
    y.backward(mx.nd.full((2, 2), 7.0))   # the head gradient is ignored, as in MXNet
    numpy.testing.assert_allclose(x.grad.asnumpy(), numpy.full((2, 2), expected), rtol=1e-6)


def test_make_loss_names_its_output_loss():
    assert mx.sym.make_loss(mx.sym.var("x"), name="l").list_outputs() == ["l_loss"]


# -- sequence ops ----------------------------------------------------------------------------------
def _seq_data():
    rng = numpy.random.RandomState(0)
    return rng.uniform(-1, 1, (4, 3, 2)), numpy.array([2.0, 4.0, 1.0])


def _reference_mask(data, lengths, value, axis):
    out = data.copy()
    for b, n in enumerate(lengths.astype(int)):
        if axis == 0:
            out[n:, b] = value
        else:
            out[b, n:] = value
    return out


@pytest.mark.parametrize("axis", [0, 1])
def test_sequence_mask_matches_a_loop(axis):
    data, lengths = _seq_data()
    data = data if axis == 0 else data.transpose(1, 0, 2)
    got = mx.nd.SequenceMask(mx.nd.array(data), mx.nd.array(lengths), use_sequence_length=True,
                             value=-5.0, axis=axis)
    numpy.testing.assert_allclose(got.asnumpy(), _reference_mask(data, lengths, -5.0, axis),
                                  rtol=1e-6)
    same = mx.npx.sequence_mask(mx.np.array(data), axis=axis)
    numpy.testing.assert_allclose(same.asnumpy(), data, rtol=1e-6)


def test_sequence_last_and_reverse_match_loops():
    data, lengths = _seq_data()
    last = mx.nd.SequenceLast(mx.nd.array(data), mx.nd.array(lengths), use_sequence_length=True)
    want = numpy.stack([data[int(n) - 1, b] for b, n in enumerate(lengths)])
    numpy.testing.assert_allclose(last.asnumpy(), want, rtol=1e-6)
    last1 = mx.nd.SequenceLast(mx.nd.array(data.transpose(1, 0, 2)), axis=1)
    numpy.testing.assert_allclose(last1.asnumpy(), data[-1], rtol=1e-6)
    rev = mx.nd.SequenceReverse(mx.nd.array(data), mx.nd.array(lengths), use_sequence_length=True)
    want = data.copy()
    for b, n in enumerate(lengths.astype(int)):
        want[:n, b] = data[:n, b][::-1]
    numpy.testing.assert_allclose(rev.asnumpy(), want, rtol=1e-6)


@pytest.mark.parametrize("op_name, attrs", [
    ("SequenceMask", {"use_sequence_length": True, "value": 3.0}),
    ("SequenceMask", {"use_sequence_length": True, "axis": 1}),
    ("SequenceLast", {"use_sequence_length": True}),
    ("SequenceLast", {"use_sequence_length": True, "axis": 1}),
    ("SequenceReverse", {"use_sequence_length": True}),
])
def test_sequence_op_gradients_match_central_differences(op_name, attrs):
    data, lengths = _seq_data()
    if attrs.get("axis") == 1:
        data = data.transpose(1, 0, 2)
    check_gradient(op_name, [data, lengths.astype(numpy.int64)], attrs, wrt=[0],
                   cls=mx.nd.NDArray)


def test_sequence_reverse_rejects_axis_1():
    with pytest.raises(MXNetValueError, match="axis"):
        mx.nd.SequenceReverse(mx.nd.ones((2, 2)), axis=1).wait_to_read()


# -- DLPack, from_numpy, devices, npx.slice --------------------------------------------------------
def test_dlpack_write_capsule_shares_memory_both_ways():
    x = mx.np.ones((2, 3))
    y = mx.npx.from_dlpack(mx.npx.to_dlpack_for_write(x))
    y += 1
    y.wait_to_read()   # NOTE: x and y share memory, not a var (as in MXNet): wait for y's write
    assert x.asnumpy().tolist() == [[2.0] * 3] * 2
    legacy = mx.nd.array([1, 2])
    assert mx.nd.from_dlpack(legacy.to_dlpack_for_read()).asnumpy().tolist() == [1.0, 2.0]


def test_array_api_dlpack_protocol_with_numpy():
    x = mx.np.arange(6).reshape(2, 3)
    assert numpy.from_dlpack(x).tolist() == [[0, 1, 2], [3, 4, 5]]
    assert mx.np.from_dlpack(numpy.arange(3.0)).asnumpy().tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(MXNetTypeError, match="DLPack"):
        mx.npx.from_dlpack([1, 2])


def test_from_numpy_zero_copy_makes_the_source_read_only():
    source = numpy.arange(4.0)
    shared = mx.npx.from_numpy(source)
    shared += 1
    shared.wait_to_read()   # NOTE: NumPy reads the memory directly, with no engine sync
    assert source.tolist() == [1.0, 2.0, 3.0, 4.0] and not source.flags.writeable
    copied = mx.nd.from_numpy(numpy.arange(2.0), zero_copy=False)
    assert copied.asnumpy().tolist() == [0.0, 1.0]
    with pytest.raises(MXNetValueError, match="C-contiguous"):
        mx.npx.from_numpy(numpy.ones((3, 2)).T)
    again = mx.nd.from_numpy(source)   # NOTE: MXNet 1.9.1 shares a shared array again
    again[1] = 10
    again.wait_to_read()
    assert source.tolist() == [1.0, 10.0, 3.0, 4.0] and not source.flags.writeable
    frozen = numpy.frombuffer(b"\0" * 8, dtype="float32")
    with pytest.raises(MXNetValueError, match="read-only"):
        mx.nd.from_numpy(frozen)


def test_npx_device_helpers_and_slice():
    assert mx.npx.num_gpus() == mx.device.num_gpus()
    assert mx.npx.cpu() == mx.cpu() and mx.npx.gpu(1) == mx.gpu(1)
    assert mx.npx.current_device() == mx.npx.current_context() == mx.cpu()
    got = mx.npx.slice(mx.np.arange(10), begin=(2,), end=(8,), step=(2,))
    assert isinstance(got, mx.np.ndarray) and got.asnumpy().tolist() == [2.0, 4.0, 6.0]


# -- categorical sampling --------------------------------------------------------------------------
def test_categorical_frequencies_log_likelihood_and_gradient():
    mx.random.seed(3)
    x = mx.nd.array([[0, 1, 2, 3, 4], [4, 3, 2, 1, 0]]) / 10.0
    x.attach_grad()
    with mx.autograd.record():
        y, prob = mx.nd.random.categorical(x, shape=4000, get_prob=True, dtype="uint8")
        (prob * 5).backward()
    assert y.dtype == numpy.uint8 and y.shape == prob.shape == (2, 4000)
    ys, xs = y.asnumpy().astype(int), x.asnumpy()
    for row in range(2):
        freq = numpy.bincount(ys[row], minlength=5) / 4000.0
        numpy.testing.assert_allclose(freq, xs[row], atol=0.04)
        picked = xs[row][ys[row]]
        numpy.testing.assert_allclose(prob.asnumpy()[row], numpy.log(picked), rtol=1e-5)
        want = numpy.bincount(ys[row], weights=5.0 / picked, minlength=5)
        numpy.testing.assert_allclose(x.grad.asnumpy()[row], want, rtol=1e-4)


def test_categorical_shapes_and_namespaces():
    one_hot = mx.nd.array([0.0, 0.0, 1.0])
    assert mx.nd.random.categorical(one_hot, shape=3).asnumpy().tolist() == [2, 2, 2]
    assert mx.nd.random.multinomial(one_hot).asnumpy().tolist() == 2
    npx_draws = mx.npx.random.categorical(mx.np.array([[1.0, 0.0]] * 2), shape=(2, 2))
    assert isinstance(npx_draws, mx.np.ndarray) and npx_draws.shape == (2, 2, 2)
    assert not npx_draws.asnumpy().any()
    counts = mx.nd.random.multinomial(n=[2], p=[[0.5, 0.5]])    # MXNet 2.0's form: counts
    assert counts.shape == (1, 2) and counts.asnumpy().sum() == 2


def test_sym_random_builds_sampling_nodes():
    mx.random.seed(0)
    u = mx.sym.random.uniform(-1, 1, shape=(200,))
    values = u.eval()[0].asnumpy()
    assert values.shape == (200,) and values.min() >= -1 and values.max() < 1
    p = mx.sym.var("p")
    cat = mx.sym.random.categorical(p, shape=4)
    assert cat.list_outputs()[-1].endswith("_prob")
    assert cat.infer_shape(p=(2, 3))[1] == [(2, 4), (2, 4)]
    mu = mx.sym.var("mu")
    per_element = mx.sym.random.normal(mu, 0.0 * mu + 1, shape=2)
    assert per_element.infer_shape(mu=(3,))[1] == [(3, 2)]
    assert mx.sym.random.randint(0, 5, shape=(4,)).eval()[0].asnumpy().max() < 5
    assert mx.sym.random.shuffle(mx.sym.var("d")).infer_shape(d=(3, 2))[1] == [(3, 2)]


# -- tostype, __format__, __array__ ----------------------------------------------------------------
def test_tostype_all_storage_types():
    x = mx.nd.array([1.0, 2.0])
    y = x.tostype("default")
    assert y is not x and y.asnumpy().tolist() == [1.0, 2.0]
    assert x.tostype("row_sparse").stype == "row_sparse"
    with pytest.raises(MXNetValueError, match="csr storage needs a 2-d"):
        x.tostype("csr")
    with pytest.raises(MXNetValueError, match="dense"):
        x.tostype("dense")


def test_format_spec_on_scalars_and_arrays():
    assert f"{mx.np.array(3.14159):.3f}" == "3.142"
    assert f"{mx.nd.array([2.5]):.1f}" == "2.5"
    assert f"{mx.np.ones(2)}" == str(mx.np.ones(2))
    with pytest.raises(TypeError):
        f"{mx.np.ones(2):.2f}"


def test_matplotlib_plots_mx_arrays():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots()
    try:
        (line,) = ax.plot(mx.np.arange(4), mx.nd.array([1.0, 0.0, 2.0, 3.0]))
        ax.axhline(mx.np.array(1.5))
        assert line.get_ydata().tolist() == [1.0, 0.0, 2.0, 3.0]
        assert numpy.asarray(mx.np.array(2.0)).shape == ()
    finally:
        plt.close(fig)


@requires_oracle
@pytest.mark.oracle
def test_sequence_ops_and_make_loss_match_mxnet():
    data, lengths = _seq_data()
    code = """
x, n = mx.nd.array(inputs['x']), mx.nd.array(inputs['n'])
x.attach_grad()
with mx.autograd.record():
    m = mx.nd.SequenceMask(x, n, use_sequence_length=True, value=-2.0)
    l = mx.nd.SequenceLast(x, n, use_sequence_length=True)
    r = mx.nd.SequenceReverse(x, n, use_sequence_length=True)
    total = (m * 2).sum() + (l * 3).sum() + (r * mx.nd.arange(24).reshape((4, 3, 2))).sum()
total.backward()
outputs.update(mask=m.asnumpy(), last=l.asnumpy(), rev=r.asnumpy(), grad=x.grad.asnumpy())
y = mx.nd.array(inputs['x'][:2])
y.attach_grad()
with mx.autograd.record():
    z = mx.nd.MakeLoss(y, grad_scale=3.0, normalization='valid', valid_thresh=0.1)
z.backward()
outputs['make_loss_grad'] = y.grad.asnumpy()
"""
    mine, theirs = run_both(code, {"x": data.astype(numpy.float32),
                                   "n": lengths.astype(numpy.float32)})
    assert_same_results(mine, theirs)


def test_batch_take_clips_indices_and_has_no_gradient():
    a = mx.nd.array([[1, 2], [3, 4], [5, 6]])
    picked = mx.nd.batch_take(a, mx.nd.array([0, 1, 5], dtype="int32"))
    assert picked.asnumpy().tolist() == [1.0, 4.0, 6.0]     # 5 is clipped to the last column
    assert mx.sym.batch_take(mx.sym.var("a"), mx.sym.var("i")).infer_shape(
        a=(3, 2), i=(3,))[1] == [(3,)]


def test_device_type_tables_are_mxnets():
    assert mx.Device.devtype2str[mx.gpu(3).device_typeid] == "gpu"
    assert mx.Device.devstr2type["cpu_pinned"] == 3


def test_numpy_memory_functions_see_from_numpy_sharing():
    # NumPy's (may_)shares_memory on a NumPy array and an mx.np array compare the real buffers
    source = numpy.ones((3, 2), dtype="float32")
    shared = mx.npx.from_numpy(source)
    assert numpy.shares_memory(source, shared) and numpy.may_share_memory(shared, source)
    assert not numpy.shares_memory(source, mx.np.array(source))
