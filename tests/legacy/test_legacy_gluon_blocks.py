"""Gluon 1 (MXNet 1.9.1) block behaviour next to Gluon 2's: collect_params keys of Gluon 1 code,
blocks called on symbols, parameter variable names, SymbolBlock inside a Gluon 1 trace, uneven
split_data, Estimator(context=)."""
import pathlib
import sys

import numpy as np
import pytest

import mxlab as mx
from mxlab import gluon
from mxlab.gluon import nn

sys.path.insert(0, str(pathlib.Path(__file__).parent.parent / "oracle"))
from mxnet_oracle import requires_mxnet, run_mxlab, run_mxnet  # noqa: E402


# -- collect_params: Gluon 1 code gets full names, Gluon 2 code structural names ----------------
def test_prefix_and_name_scope_give_full_name_keys():
    net = nn.HybridSequential(prefix="test_")
    with net.name_scope():
        net.add(nn.Conv2D(10, 3))
        net.add(nn.Dense(10, activation="relu"))
    assert set(net.collect_params()) == {"test_conv0_weight", "test_conv0_bias",
                                         "test_dense0_weight", "test_dense0_bias"}
    assert set(net.collect_params(".*weight")) == {"test_conv0_weight", "test_dense0_weight"}
    assert net.collect_params().prefix == "test_"


def test_gluon2_tree_keeps_structural_keys():
    net = nn.HybridSequential()
    net.add(nn.Conv2D(10, 3), nn.Dense(10, activation="relu"))
    assert set(net.collect_params()) == {"0.weight", "0.bias", "1.weight", "1.bias"}
    assert net.collect_params().prefix == ""


def test_params_get_marks_gluon1_and_str_lists_full_names():
    class Net(gluon.Block):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.dense0 = nn.Dense(10, in_units=5, use_bias=False)

    lines = str(Net(prefix="net1_").collect_params()).splitlines()
    assert lines[0] == "net1_ ("
    assert lines[1].strip() == "Parameter net1_dense0_weight (shape=(10, 5), dtype=float32)"
    assert lines[2] == ")"

    class Own(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            self.w = self.params.get("w", shape=(2,))

    own = Own()
    assert list(own.collect_params()) == [own.prefix + "w"]


def test_sharing_through_collect_params_of_a_named_tree():
    class Net(gluon.Block):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.dense0 = nn.Dense(5, in_units=5)

        def forward(self, x):
            return self.dense0(x)

    net1 = Net(prefix="net1_")
    net2 = Net(prefix="net2_", params=net1.collect_params())
    assert net2.dense0.weight is net1.dense0.weight
    net1.initialize(mx.init.One())
    assert net2(mx.nd.ones((1, 5))).asnumpy().tolist() == [[5.0] * 5]


def test_shared_structural_dict_does_not_match_by_local_name():
    base = nn.HybridSequential()
    base.add(nn.Conv2D(4, 3), nn.Dense(3))
    # NOTE: MXNet 1.x looks the new layer's parameters up by full name (dense<k>_weight): absent
    other = nn.Dense(7, in_units=2, params=base.collect_params())
    assert other.weight is not base[0].weight
    assert other.weight.shape == (7, 2)


# -- calling blocks on symbols -------------------------------------------------------------------
def test_dense_on_symbol_names_ops_under_its_prefix():
    model = nn.Dense(128, activation="tanh", in_units=10, flatten=False, prefix="test_")
    out = model(mx.sym.var("data"))
    assert set(model.collect_params()) == {"test_weight", "test_bias"}
    assert out.list_outputs() == ["test_tanh_fwd_output"]
    assert out.infer_shape(data=(2, 3, 10))[1] == [(2, 3, 128)]


def test_sequential_container_on_symbols():
    model = nn.HybridSequential()
    model.add(nn.Dense(8, activation="tanh", in_units=4), nn.Dropout(0.5), nn.Dense(3, in_units=8))
    out = model(mx.sym.var("data"))
    assert len(out.list_arguments()) == 5
    assert out.infer_shape(data=(2, 4))[1] == [(2, 3)]


def test_mixed_symbol_and_array_inputs_are_value_and_type_errors():
    class Add(gluon.HybridBlock):
        def hybrid_forward(self, F, a, b):
            return a + b

    for args in ((mx.nd.ones((2,)), mx.sym.var("a")), (mx.sym.var("a"), mx.nd.ones((2,)))):
        with pytest.raises(ValueError, match="mix"):
            Add()(*args)
        with pytest.raises(TypeError, match="mix"):
            Add()(*args)


def test_parameter_variable_takes_its_gluon1_name():
    p = gluon.Parameter("weight_v1test", shape=(2, 2))
    assert p.var().name == "weight_v1test"
    twin = gluon.Parameter("weight_v1test", shape=(2, 2))
    assert twin.var().name != "weight_v1test"     # NOTE: a live parameter already holds it
    dense = nn.Dense(3, in_units=2, prefix="v1var_")
    assert dense(mx.sym.var("data")).list_arguments() == ["data", "v1var_weight", "v1var_bias"]


def test_symbol_block_from_structural_params_and_inside_gluon1_trace():
    model = nn.HybridSequential()
    model.add(nn.Dense(4, activation="tanh", in_units=3), nn.Dense(2, in_units=4))
    model.initialize(mx.init.One())
    data = mx.sym.var("data")
    smodel = gluon.SymbolBlock(model(data), data, params=model.collect_params())
    x = mx.nd.ones((2, 3))
    expected = model(x).asnumpy()
    np.testing.assert_allclose(smodel(x).asnumpy(), expected, rtol=1e-6)

    class Outer(gluon.HybridBlock):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def hybrid_forward(self, F, x):
            return self.inner(x) * 2

    outer = Outer(smodel)
    outer.hybridize()
    np.testing.assert_allclose(outer(x).asnumpy(), expected * 2, rtol=1e-6)
    np.testing.assert_allclose(outer(x).asnumpy(), expected * 2, rtol=1e-6)


# -- split_data, Estimator ------------------------------------------------------------------------
def test_uneven_split_data_follows_mxnet_191():
    sizes = [s.shape for s in gluon.utils.split_data(mx.nd.zeros((10, 33)), 4, 1,
                                                      even_split=False)]
    assert sizes == [(10, 9), (10, 8), (10, 8), (10, 8)]   # MXNet 1.9.1's answer
    sizes = [s.shape for s in gluon.utils.split_data(mx.nd.zeros((2, 3)), 3, even_split=False)]
    assert sizes == [(1, 3), (1, 3), (0, 3)]


def test_estimator_takes_mxnet1_context_keyword():
    from mxlab.gluon.contrib.estimator import Estimator

    net = nn.Dense(2, in_units=3)
    net.initialize()
    est = Estimator(net, loss=gluon.loss.L2Loss(), context=mx.cpu())
    assert est.context == [mx.cpu()] or est.context == mx.cpu()
    with pytest.raises(ValueError, match="not both"):
        Estimator(net, loss=gluon.loss.L2Loss(), context=mx.cpu(), device=mx.cpu())


_ORACLE_CODE = """
net = mx.gluon.nn.HybridSequential(prefix='orc_')
with net.name_scope():
    net.add(mx.gluon.nn.Conv2D(2, 3), mx.gluon.nn.MaxPool2D(),
            mx.gluon.nn.Dense(3, activation='relu'))
keys = sorted(net.collect_params().keys())
outputs['keys'] = np.array(keys)
dense = mx.gluon.nn.Dense(4, activation='sigmoid', in_units=2, prefix='orcd_')
outputs['outs'] = np.array(dense(mx.sym.var('data')).list_outputs())
outputs['args'] = np.array(dense(mx.sym.var('data')).list_arguments())
outputs['split'] = np.array([s.shape for s in mx.gluon.utils.split_data(
    mx.nd.zeros((7, 2)), 3, even_split=False)])
"""


@pytest.mark.oracle
@requires_mxnet
def test_gluon1_names_match_mxnet_191():
    ours, theirs = run_mxlab(_ORACLE_CODE, {}), run_mxnet(_ORACLE_CODE, {})
    for key in ("keys", "outs", "args", "split"):
        assert ours[key].tolist() == theirs[key].tolist(), key


# -- Trainer and ParameterDict as MXNet 1.9.1 code reads them -------------------------------------
def test_parameter_trainer_reads_as_trainer_and_as_weak_reference():
    x = gluon.Parameter("x", shape=(3,))
    x.initialize()
    trainer = gluon.Trainer([x], "sgd")
    assert x._trainer is trainer          # MXNet 1.x code
    assert x._trainer() is trainer        # MXNet 2.0 code (a weak reference, called)
    x._set_trainer(None)
    assert x._trainer is None


def test_unprefixed_parameter_dict_get_with_attributes_creates():
    params = gluon.ParameterDict()
    x = params.get("x", shape=(4,), lr_mult=2.0)
    assert list(params) == ["x"] and x.shape == (4,) and x.lr_mult == 2.0
    assert params.get("x") is x and params.get("absent") is None


def test_gluon1_trainer_params_carry_full_names_in_order():
    net = nn.Sequential()
    for name in ("ones_", "zeros_"):
        net.add(nn.Dense(2, in_units=2, use_bias=False, prefix=name))
    net.initialize()
    trainer = gluon.Trainer(net.collect_params(), "sgd")
    assert [p.name for p in trainer._params] == ["ones_weight", "zeros_weight"]


def test_sparse_gradient_dense_weight_updates_outside_a_local_store():
    params = gluon.ParameterDict()
    x = params.get("x", shape=(4, 1), grad_stype="row_sparse")
    params.initialize(ctx=[mx.cpu(0), mx.cpu(1)], init="zeros")
    trainer = gluon.Trainer(params, "sgd", {"learning_rate": 0.1}, kvstore="local")
    with mx.autograd.record():
        for w in x.list_data():
            (w + 1).backward()
    trainer.step(1)
    assert trainer._update_on_kvstore is False      # MXNet 1.9.1's choice
    np.testing.assert_allclose(x.data(mx.cpu(0)).asnumpy(), -0.2 * np.ones((4, 1)), rtol=1e-6)


def test_block_save_load_restores_child_names_and_values(tmp_path):
    class Chain(gluon.Block):
        def add(self, block):
            self._children[block.name + str(len(self._children))] = block

        def forward(self, x):
            for block in self._children.values():
                x = block(x)
            return x

    def build():
        net = Chain()
        net.add(nn.Dense(3, in_units=2))
        net.add(nn.Dense(2, in_units=3))
        return net

    net = build()
    net.initialize()
    net.hybridize()
    x = mx.nd.ones((1, 2))
    expected = net(x).asnumpy()
    net.save(str(tmp_path / "chain"))
    twin = build()                      # NOTE: new blocks, new names: keys differ until load
    assert list(twin._children) != list(net._children)
    twin.load(str(tmp_path / "chain"))
    assert list(twin._children) == list(net._children)
    np.testing.assert_allclose(twin(x).asnumpy(), expected, rtol=1e-6)


def test_dataloader_takes_auto_reload():
    data = gluon.data.ArrayDataset(mx.nd.arange(4))
    for auto_reload in (True, False):
        loader = gluon.data.DataLoader(data, batch_size=1, num_workers=2, thread_pool=True,
                                       auto_reload=auto_reload)
        assert loader.auto_reload is auto_reload
        assert [b.asscalar() for b in loader] == [0.0, 1.0, 2.0, 3.0]


# -- row_sparse parameters -------------------------------------------------------------------------
def test_row_sparse_parameter_data_access_rules():
    p = gluon.Parameter("rsp_w", shape=(4, 2), stype="row_sparse", grad_stype="row_sparse")
    p.initialize(init=mx.init.One(), ctx=[mx.cpu(0), mx.cpu(1)])
    assert p._data[0].stype == "row_sparse" and p._data[1].context == mx.cpu(1)
    with pytest.raises(RuntimeError, match="row_sparse_data"):
        p.data()
    with pytest.raises(RuntimeError, match="row_sparse_data"):
        p.list_data()
    rows = mx.nd.array([0, 2], ctx=mx.cpu(1))
    with pytest.raises(RuntimeError, match="no Trainer"):
        p.row_sparse_data(rows)
    trainer = gluon.Trainer([p], "sgd")   # noqa: F841 (a parameter holds it weakly)
    got = p.row_sparse_data(rows)
    assert got.stype == "row_sparse" and got.context == mx.cpu(1)
    assert got.indices.asnumpy().tolist() == [0, 2]
    assert got.asnumpy().tolist() == [[1, 1], [0, 0], [1, 1], [0, 0]]
    assert len(p.list_row_sparse_data(rows)) == 2
    assert p.var().attr("__storage_type__") == "1"
    dense = gluon.Parameter("dense_w", shape=(2,))
    dense.initialize()
    with pytest.raises(RuntimeError, match="Please use data"):
        dense.row_sparse_data(rows)


def test_load_with_saved_dtype_recasts_initialised_arrays(tmp_path):
    path = str(tmp_path / "p.params")
    params0 = gluon.ParameterDict("")
    params0.get("w0", shape=(2, 2), dtype="float32")
    params0.initialize(mx.init.One())
    params0.save(path)
    params1 = gluon.ParameterDict("")
    params1.get("w0", shape=(2, 2), dtype="float16")
    params1.load(path, cast_dtype=True, dtype_source="current")
    assert params1["w0"].data().dtype == np.float16
    params1.load(path, cast_dtype=True, dtype_source="saved")
    assert params1["w0"].data().dtype == np.float32      # MXNet 1.9.1's answer
    assert set(params1.list_ctx()) == {mx.cpu()}


def test_save_params_full_names_load_into_symbol_block_and_back(tmp_path):
    net = nn.HybridSequential(prefix="")
    with net.name_scope():
        net.add(nn.Dense(3, in_units=2))
    net.initialize(mx.init.One())
    out = net(mx.sym.var("data"))
    path = str(tmp_path / "legacy.params")
    with pytest.warns(DeprecationWarning):
        net.save_params(path)
    names = sorted(mx.nd.load(path))
    assert names == sorted(out.list_arguments()[1:])          # full names, no prefix stripped
    model = gluon.SymbolBlock(out, mx.sym.var("data"))
    with pytest.warns(DeprecationWarning):
        model.load_params(path, ctx=mx.cpu())
    x = mx.nd.ones((1, 2))
    np.testing.assert_allclose(model(x).asnumpy(), net(x).asnumpy())
    twin = nn.HybridSequential(prefix="")
    with twin.name_scope():   # NOTE: prefix='' opens no scope: names count on (MXNet 1.9.1)
        twin.add(nn.Dense(3, in_units=2))
    assert twin[0].prefix != net[0].prefix
    with pytest.raises(ValueError, match="is missing in file"):
        twin.load_parameters(path)   # NOTE: MXNet 1.9.1 refuses it too (other full names)


def test_mx_img_is_mx_image():
    assert mx.img is mx.image
    with pytest.raises(mx.base.MXNetError):
        mx.img.image.imread("/no-such-dir-v1gluon/blah.jpg")


def test_hybridized_gluon1_block_runs_a_csr_input_densely():
    class Linear(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            with self.name_scope():
                self.w = self.params.get("w", shape=(2, 2), init=mx.init.One())

        def hybrid_forward(self, F, x, w):
            return F.dot(x, w) * x

    block = Linear()
    block.initialize()
    block.hybridize()
    x = mx.nd.array([[1, 0], [0, 2]]).tostype("csr")
    with mx.autograd.record():
        z = block(x) + block(x)
    z.backward()
    assert z.asnumpy().tolist() == [[2.0, 0.0], [0.0, 8.0]]
    assert block.w.grad().asnumpy().tolist() == [[2.0, 0.0], [0.0, 8.0]]


def test_inplace_squeeze_inside_a_trace_and_sparse_split_and_load():
    class Squeeze(gluon.HybridBlock):
        def forward(self, x):
            return x.squeeze(inplace=True)

    block = Squeeze()
    block.hybridize()
    assert block(mx.nd.ones((2, 3, 1))).shape == (2, 3)
    x = mx.nd.ones((2, 1))
    view = x.squeeze(inplace=True)       # NOTE: imperative: still a view sharing the data
    view[:] = 5
    assert x.asnumpy().tolist() == [[5.0], [5.0]]
    import scipy.sparse as sps
    csr = mx.nd.sparse.csr_matrix(sps.coo_matrix(([2.0], ([3], [4])), shape=(4, 5)).tocsr())
    parts = gluon.utils.split_and_load(csr, [mx.cpu(0), mx.cpu(0)])
    assert all(p.stype == "csr" for p in parts)
    assert [p.shape for p in parts] == [(2, 5), (2, 5)]
    assert parts[1].asnumpy()[1, 4] == 2.0


def test_parameter_dict_is_reachable_from_gluon_parameter():
    # MXNet 1.x defines ParameterDict in gluon/parameter.py; D2L's MXNet tab (d2l/mxnet.py,
    # classification.md) tests `isinstance(params, gluon.parameter.ParameterDict)`
    net = nn.Dense(2, prefix="d_")
    assert gluon.parameter.ParameterDict is gluon.ParameterDict
    assert isinstance(net.collect_params(), gluon.parameter.ParameterDict)
    assert not isinstance(list(net.collect_params().values()), gluon.parameter.ParameterDict)
    with pytest.raises(AttributeError, match="no attribute 'NoSuchThing'"):
        gluon.parameter.NoSuchThing
