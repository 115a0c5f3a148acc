"""The single-process stores (``local``, ``device``), ``create``'s names and Trainer(kvstore=...).

Scenarios follow MXNet's tests/python/unittest/test_kvstore.py; ``test_same_as_mxnet`` runs one
script under MXNet 1.9.1 and mxlab and compares every value and which calls raise (opt-in).
"""
import pathlib
import sys

import numpy
import pytest

import mxlab as mx
from mxlab import autograd, gluon
from mxlab.base import (
    MXNetError,
    MXNetKeyError,
    MXNetNotImplementedError,
    MXNetRuntimeError,
    MXNetTypeError,
    MXNetValueError,
)

sys.path.insert(0, str(pathlib.Path(__file__).parent.parent / "oracle"))
from mxnet_oracle import requires_mxnet, run_mxlab, run_mxnet

SHAPE = (4, 4)
KEYS = [5, 7, 11]


def _init_kv(kind="local"):
    kv = mx.kv.create(kind)
    kv.init(3, mx.nd.zeros(SHAPE))
    kv.init(KEYS, [mx.nd.zeros(SHAPE)] * len(KEYS))
    return kv


def _pulled(kv, key):
    out = mx.nd.empty(SHAPE)
    kv.pull(key, out=out)
    return out.asnumpy()


@pytest.mark.parametrize("kind", ["local", "device"])
def test_single_and_list_pairs(kind):
    kv = _init_kv(kind)
    kv.push(3, mx.nd.ones(SHAPE) * 4)
    numpy.testing.assert_array_equal(_pulled(kv, 3), 4)
    kv.push(KEYS, [mx.nd.ones(SHAPE) * 4] * len(KEYS))
    outs = [mx.nd.empty(SHAPE) for _ in KEYS]
    kv.pull(KEYS, out=outs)
    assert all((o.asnumpy() == 4).all() for o in outs)
    assert (kv.type, kv.rank, kv.num_workers) == (kind, 0, 1)


def test_push_sums_devices_and_pull_fills_every_out():
    kv = _init_kv()
    devices = [mx.cpu(i) for i in range(4)]
    kv.push(3, [mx.nd.ones(SHAPE, ctx=d) for d in devices])
    outs = [mx.nd.empty(SHAPE, ctx=d) for d in devices]
    kv.pull(3, out=outs)
    assert all((o.asnumpy() == 4).all() for o in outs)
    kv.push(KEYS, [[mx.nd.ones(SHAPE, ctx=d) * 2 for d in devices]] * len(KEYS))
    nested = [[mx.nd.empty(SHAPE, ctx=d) for d in devices] for _ in KEYS]
    kv.pull(KEYS, out=nested)
    assert all((o.asnumpy() == 8).all() for row in nested for o in row)


def test_pushpull_and_broadcast():
    kv = mx.kv.create("device")
    kv.init(0, mx.nd.zeros(SHAPE))
    values = [mx.nd.ones(SHAPE), mx.nd.ones(SHAPE) * 2]
    kv.pushpull(0, values)                       # in place
    assert all((v.asnumpy() == 3).all() for v in values)
    out = mx.nd.zeros(SHAPE)
    kv.pushpull(0, mx.nd.ones(SHAPE) * 5, out=out)
    numpy.testing.assert_array_equal(out.asnumpy(), 5)
    targets = [mx.nd.zeros(SHAPE), mx.nd.zeros(SHAPE)]
    kv.broadcast(9, mx.nd.ones(SHAPE) * 7, out=targets)
    assert all((t.asnumpy() == 7).all() for t in targets)
    with pytest.raises(MXNetValueError, match="duplicate init of key 9"):
        kv.broadcast(9, mx.nd.ones(SHAPE), out=targets)


def test_updater_runs_on_push():
    kv = _init_kv()
    kv._set_updater(lambda key, grad, stored: stored.__iadd__(grad * 2))
    devices = [mx.cpu(i) for i in range(2)]
    for _ in range(3):
        kv.push(3, [mx.nd.ones(SHAPE, ctx=d) for d in devices])
    numpy.testing.assert_array_equal(_pulled(kv, 3), 3 * 2 * 2)


def test_set_optimizer_and_states_round_trip(tmp_path):
    def store(weight):
        kv = mx.kv.create("local")
        kv.init(0, mx.nd.array(weight))
        kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9))
        return kv

    kv = store([1.0, 1.0])
    kv.push(0, [mx.nd.ones((2,)), mx.nd.ones((2,))])          # summed over devices: grad 2
    after_one = _pulled_vec(kv)
    numpy.testing.assert_allclose(after_one, 0.8, rtol=1e-6)
    kv.save_optimizer_states(str(tmp_path / "kv.states"), dump_optimizer=True)
    kv.push(0, mx.nd.ones((2,)))
    resumed = store(after_one)
    resumed.load_optimizer_states(str(tmp_path / "kv.states"))   # the momentum comes back
    resumed.push(0, mx.nd.ones((2,)))
    numpy.testing.assert_allclose(_pulled_vec(resumed), _pulled_vec(kv), rtol=1e-6)
    numpy.testing.assert_allclose(_pulled_vec(kv), 0.8 - 0.1 - 0.9 * 0.2, rtol=1e-6)


def _pulled_vec(kv, key=0):
    out = mx.nd.zeros((2,))
    kv.pull(key, out=out)
    return out.asnumpy()


def test_errors_name_the_problem():
    kv = _init_kv()
    with pytest.raises(MXNetKeyError, match="key 99 has not been inited"):
        kv.pull(99, out=mx.nd.empty(SHAPE))
    with pytest.raises(MXNetValueError, match="holds shape"):
        kv.pull(3, out=mx.nd.empty((3, 3)))
    with pytest.raises(MXNetTypeError, match="Mixed key types"):
        kv.init("a", mx.nd.ones(SHAPE))
    with pytest.raises(MXNetValueError, match="out is required"):
        kv.pull(3)
    with pytest.raises(MXNetValueError, match="out must be row_sparse"):
        kv.row_sparse_pull(3, out=mx.nd.empty(SHAPE), row_ids=mx.nd.array([0]))
    with pytest.raises(MXNetNotImplementedError, match="gradient compression"):
        kv.set_gradient_compression({"type": "2bit"})
    with pytest.raises(MXNetRuntimeError, match="no optimizer is set"):
        kv.save_optimizer_states("unused")
    with pytest.raises(MXNetValueError, match="Unknown capability"):
        kv.is_capable("foo")


@pytest.mark.parametrize("name,error,text", [
    ("dist_async", MXNetNotImplementedError, "dist_async"),
    ("nccl", MXNetNotImplementedError, "nccl"),
    ("no_such_store", MXNetValueError, "unknown kvstore type"),
    ("dist_sync", MXNetRuntimeError, "mpiexec -n 2 python train.py"),
    ("horovod", MXNetRuntimeError, "needs an MPI job"),
])
def test_create_refuses_what_it_cannot_honour(name, error, text, monkeypatch):
    for var in ("PMI_RANK", "PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(error, match=text):
        mx.kv.create(name)
    with pytest.raises(MXNetTypeError):
        mx.kv.create(3)


def test_registered_store_is_created_by_name():
    @mx.kv.KVStoreBase.register
    class ToyStore(mx.kv.KVStoreBase):
        @property
        def type(self):
            return "toystore"

    try:
        assert mx.kvstore.create("ToyStore").type == "toystore"
    finally:
        del mx.kv.KVStoreBase.kv_registry["toystore"]


# -- Trainer(kvstore=...) ------------------------------------------------------------------------
def _two_device_step(update_on_kvstore, kvstore="device", steps=2):
    devices = [mx.cpu(0), mx.cpu(1)]
    net = gluon.nn.Dense(2, in_units=3)
    net.initialize(mx.init.One(), ctx=devices)
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.5},
                            kvstore=kvstore, update_on_kvstore=update_on_kvstore)
    data = mx.nd.array(numpy.arange(12, dtype="float32").reshape(4, 3) / 10)
    for _ in range(steps):
        parts = gluon.utils.split_and_load(data, devices)
        with autograd.record():
            losses = [net(p).sum() for p in parts]
        autograd.backward(losses)
        trainer.step(4)
    return trainer, [w.asnumpy() for w in net.weight.list_data()]


@pytest.mark.parametrize("kvstore", ["device", "local"])
def test_trainer_update_on_kvstore_matches_local_update(kvstore):
    on_store, weights_store = _two_device_step(True, kvstore)
    local, weights_local = _two_device_step(False, kvstore)
    assert on_store._update_on_kvstore and not local._update_on_kvstore
    assert on_store._kvstore.type == kvstore
    for a, b in zip(weights_store, weights_local):
        numpy.testing.assert_allclose(a, b, rtol=1e-6)
    numpy.testing.assert_array_equal(weights_store[0], weights_store[1])
    default, _ = _two_device_step(None, kvstore, steps=1)
    assert default._update_on_kvstore                        # MXNet's default
    with pytest.raises(MXNetRuntimeError, match="update_on_kvstore"):
        on_store.allreduce_grads()


def test_trainer_states_round_trip_through_the_store(tmp_path):
    trainer, _ = _two_device_step(True)
    trainer.save_states(str(tmp_path / "t.states"))
    saved = {k: v.asnumpy() for k, v in trainer._kvstore._updater.states.items()}
    trainer._kvstore._updater.states.clear()
    trainer.load_states(str(tmp_path / "t.states"))
    for key, value in saved.items():
        numpy.testing.assert_array_equal(trainer._kvstore._updater.states[key].asnumpy(), value)


def test_trainer_takes_a_store_object_and_rejects_bad_ones(monkeypatch):
    kv = mx.kv.create("device")
    trainer, _ = _two_device_step(False, kvstore=kv, steps=1)
    assert trainer._kvstore is kv
    net = gluon.nn.Dense(1, in_units=1)
    net.initialize()
    with pytest.raises(MXNetTypeError, match="kvstore must be"):
        gluon.Trainer(net.collect_params(), "sgd", kvstore=3)
    with pytest.raises(MXNetValueError, match="unknown kvstore"):
        trainer = gluon.Trainer(net.collect_params(), "sgd", kvstore="no_such_store")
        trainer.step(1)
    for var in ("PMI_RANK", "PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(MXNetError, match="mpiexec"):      # never a silent single-process run
        gluon.Trainer(net.collect_params(), "sgd", kvstore="dist_sync")
    with pytest.raises(MXNetValueError, match="needs a kvstore"):
        trainer = gluon.Trainer(net.collect_params(), "sgd", update_on_kvstore=True)
        trainer.step(1)


_ORACLE_CODE = """
results, raised = {}, []
wait_all = getattr(mx.nd, 'waitall', None) or mx.engine.wait_all
def attempt(fn):
    try:
        fn(); wait_all(); raised.append(0)
    except Exception:
        raised.append(1)
shape = (2, 3)
kv = mx.kv.create('local')
kv.init(3, mx.nd.ones(shape) * 2)
kv.push(3, [mx.nd.ones(shape) * i for i in range(4)])
a = mx.nd.zeros(shape); kv.pull(3, out=a); results['sum'] = a.asnumpy()
o = mx.nd.zeros(shape); kv.pushpull(3, mx.nd.ones(shape) * 5, out=o); results['pp'] = o.asnumpy()
v = [mx.nd.ones(shape), mx.nd.ones(shape) * 2]; kv.pushpull(3, v)
results['pp_inplace'] = v[1].asnumpy()
kv.pull(3, out=a); results['stored'] = a.asnumpy()
kv.push(3, mx.nd.ones(shape) * 3); kv.push(3, mx.nd.ones(shape) * 4)
kv.pull(3, out=a); results['replace'] = a.asnumpy()
kv.broadcast(7, mx.nd.ones(shape) * 4, out=o); results['bcast'] = o.asnumpy()
kv2 = mx.kv.create('local'); kv2.init(0, mx.nd.ones(shape))
kv2.set_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9))
for _ in range(3):
    kv2.push(0, [mx.nd.ones(shape), mx.nd.ones(shape) * 0.5])
kv2.pull(0, out=a); results['sgd'] = a.asnumpy()
attempt(lambda: kv.pull(3, out=[a, o]))
attempt(lambda: kv.init(3, mx.nd.ones(shape)))
attempt(lambda: kv.pull(99, out=a))
attempt(lambda: kv.push(98, mx.nd.ones(shape)))
attempt(lambda: kv.pull(3, out=mx.nd.zeros((3, 3))))
attempt(lambda: kv.init('a', mx.nd.ones(shape)))
attempt(lambda: kv.pull(3))
attempt(lambda: kv.broadcast(7, mx.nd.ones(shape), out=o))
attempt(lambda: kv.is_capable('foo'))
attempt(lambda: kv.save_optimizer_states('unused'))
attempt(lambda: mx.kv.create('dist_async'))
attempt(lambda: kv.push(3, [mx.nd.ones(shape)] * 3))
assert raised[0] == 0 and raised[-1] == 0, raised
results.update(type=kv.type, rank=kv.rank, workers=kv.num_workers,
               capable=kv.is_capable('optimizer'))
outputs.update(results); outputs['raised'] = raised
"""


@requires_mxnet
@pytest.mark.oracle
def test_same_as_mxnet():
    ours, theirs = run_mxlab(_ORACLE_CODE, {}), run_mxnet(_ORACLE_CODE, {})
    assert sorted(ours) == sorted(theirs)
    for name, value in ours.items():
        if value.dtype.kind in "fiub":
            numpy.testing.assert_allclose(value, theirs[name], rtol=1e-6, err_msg=name)
        else:
            assert str(value) == str(theirs[name]), name


def test_local_variant_names_and_sparse_storage_error():
    kv = mx.kv.create("local_allreduce_cpu")
    assert kv.type == "local_allreduce_cpu"
    kv.init("a", mx.nd.ones((2,)))
    kv.pushpull("a", [mx.nd.ones((2,)), mx.nd.ones((2,)) * 2])
    out = mx.nd.zeros((2,))
    kv.pull("a", out=out)
    assert out.asnumpy().tolist() == [3.0, 3.0]
    assert mx.nd.zeros((2, 2), stype="row_sparse").stype == "row_sparse"


def test_a_states_file_that_would_run_code_is_refused(tmp_path):
    """States files are pickles (MXNet's format), read with only arrays, optimizers and LR
    schedulers allowed: a pickle calling os.system raises instead of running."""
    import os
    import pickle

    class Payload:
        def __reduce__(self):
            return (os.system, ("echo pwned > " + str(tmp_path / "pwned"),))

    updater = mx.optimizer.get_updater(mx.optimizer.SGD(learning_rate=0.1))
    with pytest.raises(ValueError, match="refusing to load .*system"):
        updater.set_states(pickle.dumps(Payload()))
    assert not (tmp_path / "pwned").exists()
    adam = mx.optimizer.get_updater(mx.optimizer.Adam(
        lr_scheduler=mx.lr_scheduler.FactorScheduler(10)))
    adam(0, mx.nd.ones((2,)), mx.nd.ones((2,)))
    restored = mx.optimizer.get_updater(mx.optimizer.SGD())
    restored.set_states(adam.get_states(dump_optimizer=True))
    assert isinstance(restored.optimizer, mx.optimizer.Adam)
    assert isinstance(restored.optimizer.lr_scheduler, mx.lr_scheduler.FactorScheduler)
