"""Python custom operators (mx.operator.CustomOp / CustomOpProp / register) on every path:
imperative with autograd, mx.np mode, Symbol executors, hybridized blocks (dynamic and static),
symbol JSON, both engines, errors, the per-input-signature operator cache."""
import numpy
import pytest

import mxlab as mx
from mxlab.base import MXNetError
from mxlab.test_utils import check_numeric_gradient


@pytest.fixture(params=["NaiveEngine", "ThreadedEngine"])
def engine(request):
    previous = mx.engine.get_engine()
    mx.engine.set_engine(request.param)
    yield request.param
    mx.engine.set_engine(previous)


CREATED = []


class Sqr(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        aux[0][:] = aux[0] + 1
        self.assign(out_data[0], req[0], in_data[0] * in_data[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        assert (aux[0].asnumpy() >= 1).all()
        self.assign(in_grad[0], req[0], 2 * in_data[0] * out_grad[0])


@mx.operator.register("t_sqr")
class SqrProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=True)

    def list_auxiliary_states(self):
        return ["aux"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]], [in_shape[0]]

    def create_operator(self, ctx, shapes, dtypes):
        CREATED.append((str(ctx), shapes, dtypes))
        return Sqr()


class ScaledSoftmax(mx.operator.CustomOp):
    """A loss head in the style of MXNet's examples: two outputs, need_top_grad=False, a label
    whose shape the Prop infers, NumPy inside forward/backward."""

    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0].asnumpy() * self.scale
        y = numpy.exp(x - x.max(axis=1, keepdims=True))
        self.assign(out_data[0], req[0], mx.nd.array(y / y.sum(axis=1, keepdims=True)))
        self.assign(out_data[1], req[1], mx.nd.max(in_data[0], axis=1))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        assert out_grad[0] is None   # not declared: need_top_grad=False
        label = in_data[1].asnumpy().astype(numpy.int64)
        y = out_data[0].asnumpy()
        y[numpy.arange(label.shape[0]), label] -= 1.0
        self.assign(in_grad[0], req[0], mx.nd.array(y * self.scale))
        self.assign(in_grad[1], req[1], mx.nd.zeros_like(in_data[1]))


@mx.operator.register("t_softmax")
class ScaledSoftmaxProp(mx.operator.CustomOpProp):
    def __init__(self, scale="1"):
        super().__init__(need_top_grad=False)
        assert isinstance(scale, str)   # MXNet hands kwargs over as strings
        self.scale = float(scale)

    def list_arguments(self):
        return ["data", "label"]

    def list_outputs(self):
        return ["output", "maxval"]

    def infer_shape(self, in_shape):
        data = in_shape[0]
        return [data, (data[0],)], [data, (data[0],)], []

    def create_operator(self, ctx, shapes, dtypes):
        return ScaledSoftmax(self.scale)


def _softmax_reference(x, label, scale):
    z = x * scale
    y = numpy.exp(z - z.max(axis=1, keepdims=True))
    y /= y.sum(axis=1, keepdims=True)
    grad = y.copy()
    grad[numpy.arange(len(label)), label.astype(int)] -= 1
    return y, grad * scale


def _data(seed=0, shape=(3, 4)):
    rng = numpy.random.default_rng(seed)
    return rng.standard_normal(shape).astype("float32"), numpy.array([0, 2, 1], "float32")


def test_imperative_forward_backward_and_aux(engine):
    x = mx.nd.array(numpy.arange(6).reshape(2, 3) - 2.5)
    aux = mx.nd.zeros((2, 3))
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, aux, op_type="t_sqr")
    y.backward(mx.nd.ones((2, 3)) * 3)
    numpy.testing.assert_allclose(y.asnumpy(), x.asnumpy() ** 2)
    numpy.testing.assert_allclose(x.grad.asnumpy(), 6 * x.asnumpy())
    assert (aux.asnumpy() == 1).all()   # the forward wrote the aux state in place


def test_kwargs_reach_prop_as_strings_and_loss_head(engine):
    x, label = _data()
    xs = mx.nd.array(x)
    xs.attach_grad()
    with mx.autograd.record():
        y, top = mx.nd.Custom(xs, mx.nd.array(label), op_type="t_softmax", scale=2)
    y.backward()
    want_y, want_grad = _softmax_reference(x, label, 2.0)
    numpy.testing.assert_allclose(y.asnumpy(), want_y, rtol=1e-5)
    numpy.testing.assert_allclose(top.asnumpy(), x.max(axis=1))
    numpy.testing.assert_allclose(xs.grad.asnumpy(), want_grad, rtol=1e-5, atol=1e-6)


def test_is_train_follows_autograd():
    seen = []

    class Probe(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            seen.append(is_train)
            self.assign(out_data[0], req[0], in_data[0])

    @mx.operator.register("t_probe")
    class ProbeProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return Probe()

    x = mx.nd.ones((2,))
    mx.nd.Custom(x, op_type="t_probe").wait_to_read()
    with mx.autograd.record():
        mx.nd.Custom(x, op_type="t_probe").wait_to_read()
    with mx.autograd.record(train_mode=False):
        mx.nd.Custom(x, op_type="t_probe").wait_to_read()
    assert seen == [False, True, False]


def test_operators_per_call_and_per_node_as_mxnet():
    """MXNet makes an operator per imperative call, and per graph node (and input signature)."""
    CREATED.clear()
    for shape in [(5, 7), (5, 7)]:
        mx.nd.Custom(mx.nd.ones(shape), mx.nd.zeros(shape), op_type="t_sqr").wait_to_read()
    assert CREATED == [("cpu(0)", [[5, 7], [5, 7]], [0, 0])] * 2
    CREATED.clear()
    data = mx.sym.var("data")
    sym = mx.sym.Custom(data, op_type="t_sqr", name="a") + mx.sym.Custom(data, op_type="t_sqr",
                                                                         name="b")
    ex = sym.simple_bind(mx.cpu(), data=(6,))
    for _ in range(3):
        ex.forward(is_train=True)
        ex.backward(mx.nd.ones((6,)))
    mx.nd.waitall()
    assert CREATED == [("cpu(0)", [[6], [6]], [0, 0])] * 2   # one per node


class _Keeps(mx.operator.CustomOp):
    """Keeps its input on ``self`` for backward, as many real custom ops do."""

    def forward(self, is_train, req, in_data, out_data, aux):
        self.kept = in_data[0].copy()
        self.assign(out_data[0], req[0], in_data[0] * in_data[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], 2 * self.kept * out_grad[0])


@mx.operator.register("t_keeps")
class _KeepsProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, shapes, dtypes):
        return _Keeps()


def test_state_kept_between_forward_and_backward_is_per_call(engine):
    a, b = mx.nd.array([1.0, 2.0]), mx.nd.array([3.0, 5.0])
    a.attach_grad()
    b.attach_grad()
    with mx.autograd.record():
        ya = mx.nd.Custom(a, op_type="t_keeps")
        yb = mx.nd.Custom(b, op_type="t_keeps")   # same shape: its own operator
        total = ya + yb
    total.backward()
    assert a.grad.asnumpy().tolist() == [2.0, 4.0] and b.grad.asnumpy().tolist() == [6.0, 10.0]
    x = mx.sym.var("x")
    sym = mx.sym.Custom(x, op_type="t_keeps") + mx.sym.Custom(x * 2, op_type="t_keeps")
    ex = sym.simple_bind(mx.cpu(), x=(2,))
    ex.arg_dict["x"][:] = a
    ex.forward(is_train=True)
    ex.backward(mx.nd.ones((2,)))
    assert ex.grad_dict["x"].asnumpy().tolist() == [10.0, 20.0]   # 2x + 8x


def test_symbol_names_json_round_trip_and_executor(engine):
    data = mx.sym.var("data")
    sym = mx.sym.Custom(data, op_type="t_softmax", scale=2, name="sm")
    assert sym.list_arguments() == ["data", "sm_label"]
    assert sym.list_outputs() == ["sm_output", "sm_maxval"]
    assert sym.infer_shape(data=(3, 4))[0] == [(3, 4), (3,)]
    text = sym.tojson()
    assert '"op": "Custom"' in text and '"attrs": {"op_type": "t_softmax", "scale": "2"}' in text
    loaded = mx.sym.fromjson(text)
    assert loaded.tojson() == text
    x, label = _data()
    ex = loaded.simple_bind(mx.cpu(), data=(3, 4))
    ex.arg_dict["data"][:] = x
    ex.arg_dict["sm_label"][:] = label
    outs = ex.forward(is_train=True)
    ex.backward()
    want_y, want_grad = _softmax_reference(x, label, 2.0)
    numpy.testing.assert_allclose(outs[0].asnumpy(), want_y, rtol=1e-5)
    numpy.testing.assert_allclose(ex.grad_dict["data"].asnumpy(), want_grad, rtol=1e-5, atol=1e-6)


def test_aux_states_in_symbols_and_numeric_gradient():
    sym = mx.sym.Custom(data=mx.sym.var("data"), aux=mx.sym.var("aux"), op_type="t_sqr")
    assert sym.list_arguments() == ["data"] and sym.list_auxiliary_states() == ["aux"]
    assert '[1, 0, 1]' in sym.tojson()   # the aux entry's version, as MXNet writes it
    x = mx.nd.array(numpy.random.default_rng(1).uniform(-1, 1, (4, 5)))
    check_numeric_gradient(sym, [x], [mx.nd.zeros((4, 5))])
    check_numeric_gradient(mx.sym.cast(sym, dtype="float64"), [x], [mx.nd.zeros((4, 5))])
    x64 = mx.nd.array(x.asnumpy(), dtype="float64")   # the dtype rule: aux follows the data
    sym64 = mx.sym.Custom(data=mx.sym.var("data"), op_type="t_sqr")
    assert sym64.infer_type(data="float64") == ([numpy.float64],) * 3
    assert mx.nd.Custom(x64, mx.nd.zeros((4, 5), dtype="float64"), op_type="t_sqr").dtype \
        == numpy.float64


class _Head(mx.gluon.HybridBlock):
    def hybrid_forward(self, F, x, label):
        y = F.Custom(x * 1, label, op_type="t_softmax", scale=2)
        return y[0] * 2


@pytest.mark.parametrize("flags", [{}, {"static_alloc": True},
                                   {"static_alloc": True, "static_shape": True}])
def test_hybridized_block(engine, flags):
    x, label = _data()
    net = _Head()
    net.hybridize(**flags)
    xs = mx.nd.array(x)
    xs.attach_grad()
    for _ in range(2):
        with mx.autograd.record():
            out = net(xs, mx.nd.array(label))
        out.backward()
    want_y, want_grad = _softmax_reference(x, label, 2.0)
    numpy.testing.assert_allclose(out.asnumpy(), 2 * want_y, rtol=1e-5)
    # need_top_grad=False: the head gradient (2) never reaches the op
    numpy.testing.assert_allclose(xs.grad.asnumpy(), want_grad, rtol=1e-5, atol=1e-6)
    assert '"op": "Custom"' in net.traced_symbol.tojson()


class _Dot(mx.operator.CustomOp):
    """Calls mx.nd ops inside forward/backward and waits on them (MXNet's custom-op worker
    thread; here the ThreadedEngine must not deadlock)."""

    def forward(self, is_train, req, in_data, out_data, aux):
        out_data[0][:] = mx.nd.dot(in_data[0], in_data[1])
        out_data[0].wait_to_read()

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], mx.nd.dot(out_grad[0], in_data[1].T))
        self.assign(in_grad[1], req[1], mx.nd.dot(in_data[0].T, out_grad[0]))


@mx.operator.register("t_dot")
class _DotProp(mx.operator.CustomOpProp):
    def list_arguments(self):
        return ["a", "b"]

    def infer_shape(self, in_shape):
        return in_shape, [(in_shape[0][0], in_shape[1][1])]

    def create_operator(self, ctx, shapes, dtypes):
        return _Dot()


def test_forward_calling_nd_ops_does_not_deadlock(engine):
    rng = numpy.random.default_rng(2)
    a, b = rng.standard_normal((3, 2)), rng.standard_normal((2, 4))
    xa, xb = mx.nd.array(a), mx.nd.array(b)
    xa.attach_grad()
    xb.attach_grad()
    for _ in range(10):
        with mx.autograd.record():
            c = mx.nd.Custom(xa, xb, op_type="t_dot") * 2
        c.backward()
    mx.nd.waitall()
    numpy.testing.assert_allclose(c.asnumpy(), 2 * a @ b, rtol=1e-5)
    numpy.testing.assert_allclose(xa.grad.asnumpy(), 2 * numpy.ones((3, 4)) @ b.T, rtol=1e-5)
    numpy.testing.assert_allclose(xb.grad.asnumpy(), 2 * a.T @ numpy.ones((3, 4)), rtol=1e-5)


def test_errors_surface_at_the_wait(engine):
    class Bad(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            assert False, "boom in forward"

    @mx.operator.register("t_bad")
    class BadProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return Bad()

    with pytest.raises(MXNetError, match="t_bad.*boom in forward"):
        mx.nd.Custom(mx.nd.ones((2,)), op_type="t_bad").wait_to_read()
    with pytest.raises(MXNetError, match="_linalg_potrf"):   # an op failing inside forward
        c = mx.nd.Custom(mx.nd.zeros((2, 1)), mx.nd.zeros((1, 3)), op_type="t_dot_potrf")
        c.wait_to_read()
    assert (mx.nd.ones((2,)) + 1).asnumpy().tolist() == [2.0, 2.0]   # the engine still works


class _DotPotrf(_Dot):
    def forward(self, is_train, req, in_data, out_data, aux):
        out_data[0][:] = mx.nd.linalg.potrf(mx.nd.dot(in_data[0], in_data[0].T))


@mx.operator.register("t_dot_potrf")
class _DotPotrfProp(_DotProp):
    def infer_shape(self, in_shape):
        return in_shape, [(in_shape[0][0], in_shape[0][0])]

    def create_operator(self, ctx, shapes, dtypes):
        return _DotPotrf()


def test_bad_calls_name_the_culprit():
    with pytest.raises(MXNetError, match="'t_nope' is not registered"):
        mx.nd.Custom(mx.nd.ones((2,)), op_type="t_nope")
    with pytest.raises(MXNetError, match="unknown input 'weight'"):
        mx.nd.Custom(mx.nd.ones((2,)), weight=mx.nd.ones((2,)), op_type="t_sqr")
    with pytest.raises(MXNetError, match="op_type"):
        mx.nd.Custom(mx.nd.ones((2,)))
    with pytest.raises(MXNetError, match="Error in t_dot.infer_shape"):
        mx.nd.Custom(mx.nd.ones((2,)), mx.nd.ones((2,)), op_type="t_dot").wait_to_read()


class _CsrSqr(mx.operator.CustomOp):
    """MXNet's test_custom_op Sqr on csr: the user sees the sparse arrays themselves."""

    def forward(self, is_train, req, in_data, out_data, aux):
        inp = in_data[0]
        assert isinstance(inp, mx.nd.sparse.CSRNDArray)
        out = mx.nd.sparse.csr_matrix((inp.data * inp.data, inp.indices, inp.indptr),
                                      shape=inp.shape)
        self.assign(out_data[0], req[0], out)
        assert isinstance(out_data[0], mx.nd.sparse.CSRNDArray)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        assert isinstance(in_grad[0], mx.nd.sparse.CSRNDArray)
        self.assign(in_grad[0], req[0], 2 * mx.nd.sparse.elemwise_mul(in_data[0], out_grad[0]))


@mx.operator.register("t_csr_sqr")
class _CsrSqrProp(mx.operator.CustomOpProp):
    def infer_storage_type(self, in_stype):
        return in_stype, in_stype, []

    def infer_storage_type_backward(self, ograd_stype, in_stype, out_stype, igrad_stype,
                                    aux_stype):
        return ograd_stype, in_stype, out_stype, in_stype, aux_stype

    def create_operator(self, ctx, shapes, dtypes):
        return _CsrSqr()


def test_sparse_inputs_reach_the_op_imperatively():
    dense = numpy.array([[0, 1.5, 0], [-2, 0, 0.5]], "float32")
    x = mx.nd.array(dense).tostype("csr")
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, op_type="t_csr_sqr")
    y.backward()
    assert isinstance(y, mx.nd.sparse.CSRNDArray)
    numpy.testing.assert_allclose(y.asnumpy(), dense ** 2)
    numpy.testing.assert_allclose(x.grad.asnumpy(), 2 * dense)


def test_sparse_storage_limits_are_named():
    class DenseToCsrProp(mx.operator.CustomOpProp):
        def infer_storage_type(self, in_stype):
            return in_stype, ["csr"], []

    mx.operator.register("t_to_csr")(DenseToCsrProp)
    with pytest.raises(NotImplementedError, match="'t_to_csr'.*'csr'.*dense inputs"):
        mx.nd.Custom(mx.nd.ones((2, 3)), op_type="t_to_csr")
    x = mx.nd.ones((2, 3)).tostype("csr")
    with pytest.raises(MXNetError, match="non default stype 'csr'"):
        mx.nd.Custom(x, op_type="t_sqr_plain")   # the default infer_storage_type refuses csr
    with mx.util.np_array(False), pytest.raises(NotImplementedError, match="traced"):
        with mx.autograd.pause(), mx.deferred_compute.context():
            mx.nd.Custom(x, op_type="t_csr_sqr")


@mx.operator.register("t_sqr_plain")
class _PlainProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, shapes, dtypes):
        return Sqr()


def test_mxnet_test_custom_op_dense_cases():
    """MXNet's test_custom_op without its csr part: two inputs, need_top_grad=False, no inputs."""
    class Mult(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], in_data[0] * in_data[1])

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            self.assign(in_grad[0], req[0], in_data[1])
            self.assign(in_grad[1], req[1], in_data[0])

    class MultProp(mx.operator.CustomOpProp):
        def __init__(self, need_top_grad="True"):
            super().__init__(need_top_grad=need_top_grad == "True")

        def list_arguments(self):
            return ["lhs", "rhs"]

        def infer_shape(self, in_shape):
            return in_shape, [in_shape[0]], []

        def create_operator(self, ctx, shapes, dtypes):
            return Mult()

    class NoInput(mx.operator.CustomOp):
        def __init__(self, length, depth):
            self.output = numpy.ones((length, depth), numpy.float32)

        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], self.output)

    class NoInputProp(mx.operator.CustomOpProp):
        def __init__(self, length, depth):
            super().__init__()
            self.length, self.depth = int(length), int(depth)

        def list_arguments(self):
            return []

        def infer_shape(self, in_shape):
            return [], [(self.length, self.depth)], []

        def infer_type(self, in_type):
            return [], [numpy.float32], []

        def create_operator(self, ctx, shapes, dtypes):
            return NoInput(self.length, self.depth)

    mx.operator.register("t_mult")(MultProp)
    mx.operator.register("t_no_input")(NoInputProp)
    rng = numpy.random.default_rng(3)
    lhs, rhs = (mx.nd.array(rng.uniform(-1, 1, (4, 10))) for _ in range(2))
    for need in ("True", "False"):
        lhs.attach_grad()
        rhs.attach_grad()
        with mx.autograd.record():
            y = mx.nd.Custom(lhs, rhs, op_type="t_mult", need_top_grad=need)
        y.backward()
        numpy.testing.assert_allclose(lhs.grad.asnumpy(), rhs.asnumpy())
        numpy.testing.assert_allclose(rhs.grad.asnumpy(), lhs.asnumpy())
    with mx.autograd.record():
        x = mx.nd.Custom(length=10, depth=10, op_type="t_no_input")
    assert x.shape == (10, 10) and (x.asnumpy() == 1).all()


def test_numpy_mode_hands_np_arrays():
    seen = []

    class NpSin(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            seen.append(type(in_data[0]))
            self.assign(out_data[0], req[0], mx.np.sin(in_data[0]))

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            self.assign(in_grad[0], req[0], out_grad[0] * mx.np.cos(in_data[0]))

    with mx.util.np_array(True), mx.util.np_shape(True):
        @mx.operator.register("t_npsin")
        class NpSinProp(mx.operator.CustomOpProp):
            def create_operator(self, ctx, shapes, dtypes):
                return NpSin()

        x = mx.np.array([0.0, 1.0])
        x.attach_grad()
        with mx.autograd.record():
            y = mx.npx.custom(x, op_type="t_npsin")
        y.backward()
    assert seen == [mx.np.ndarray] and isinstance(y, mx.np.ndarray)
    numpy.testing.assert_allclose(y.asnumpy(), numpy.sin([0.0, 1.0]), rtol=1e-6)
    numpy.testing.assert_allclose(x.grad.asnumpy(), numpy.cos([0.0, 1.0]), rtol=1e-6)


def test_mxnet_operator_alias_module():
    from mxlab.compat.internal import operator
    assert operator.CustomOp is mx.operator.CustomOp and operator.register is mx.operator.register
    assert "Custom" in operator.get_all_registered_operators()


def test_profiler_lists_custom_operator_work(tmp_path):
    import json
    mx.profiler.set_config(profile_all=True, aggregate_stats=True,
                           filename=str(tmp_path / "profile.json"))
    a, b = mx.nd.ones((2, 3)), mx.nd.ones((3, 2))
    a.attach_grad()
    mx.profiler.dumps(reset=True)
    mx.profiler.set_state("run")
    try:
        with mx.autograd.record():
            y = mx.nd.Custom(a, b, op_type="t_dot")
        y.backward()
        mx.nd.waitall()
    finally:
        mx.profiler.set_state("stop")
        mx.profiler._PROFILER.output_pending = False   # no trace file at exit
        mx.profiler.set_config(profile_all=False, aggregate_stats=False, filename="profile.json")
    table = json.loads(mx.profiler.dumps(format="json", reset=True))["Time"]
    assert {"t_dot::pure_python", "_backward_t_dot::pure_python", "t_dot::dot",
            "_backward_t_dot::dot"} <= set(table["Custom Operator"])
    assert {"Custom", "_backward_Custom"} <= set(table["operator"])
    assert "dot" not in table["operator"]   # ops inside a custom op count in its table only


def test_prop_arguments_errors_name_the_prop():
    with pytest.raises(MXNetError, match=r"t_softmax.*ScaledSoftmaxProp\(scale='abc'\)") as info:
        mx.nd.Custom(mx.nd.ones((3, 4)), mx.nd.ones((3,)), op_type="t_softmax", scale="abc")
    assert isinstance(info.value, ValueError)   # float('abc'): the natural type too
    with pytest.raises(MXNetError, match="unexpected keyword argument 'bogus'"):
        mx.nd.Custom(mx.nd.ones((2,)), mx.nd.zeros((2,)), op_type="t_sqr", bogus=1)


def test_exported_block_reloads_as_symbol_block(tmp_path):
    x, label = _data()
    net = _Head()
    net.hybridize()
    want = net(mx.nd.array(x), mx.nd.array(label)).asnumpy()
    symbol_file, _ = net.export(str(tmp_path / "head"))   # NOTE: no parameters to load
    loaded = mx.gluon.SymbolBlock.imports(symbol_file, ["data0", "data1"])
    numpy.testing.assert_allclose(loaded(mx.nd.array(x), mx.nd.array(label)).asnumpy(), want)


def test_deprecated_python_ops_run_as_custom_ops():
    """MXNet's test_python_op, and an NDArrayOp with its own forward/backward."""
    with pytest.warns(UserWarning, match="deprecated"):
        op = mx.operator.NumpyOp()
    sym = op.get_symbol(mx.sym.var("X"), name="numpy_op")
    x, dx = mx.nd.ones((10,)) * 10, mx.nd.zeros((10,))
    ex = sym.bind(mx.cpu(), args=[x], args_grad={"X": dx})
    ex.forward(is_train=True)
    ex.backward(mx.nd.ones((10,)))
    assert (ex.outputs[0].asnumpy() == 10).all() and (dx.asnumpy() == 1).all()

    class Triple(mx.operator.NDArrayOp):
        def forward(self, in_data, out_data):
            assert isinstance(in_data[0], mx.nd.NDArray)
            out_data[0][:] = in_data[0] * 3

        def backward(self, out_grad, in_data, out_data, in_grad):
            in_grad[0][:] = out_grad[0] * 3

    with pytest.warns(UserWarning):
        triple = Triple()
    sym = triple(mx.sym.var("data"))
    ex = sym.simple_bind(mx.cpu(), data=(2,))
    ex.arg_dict["data"][:] = mx.nd.array([1.0, 2.0])
    assert ex.forward(is_train=True)[0].asnumpy().tolist() == [3.0, 6.0]
    ex.backward(mx.nd.array([1.0, -1.0]))
    assert ex.grad_dict["data"].asnumpy().tolist() == [3.0, -3.0]
    with pytest.warns(UserWarning), pytest.raises(NotImplementedError, match="override"):
        mx.operator.PythonOp().get_symbol(mx.sym.var("x"))
