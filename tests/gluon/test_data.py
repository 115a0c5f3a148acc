"""gluon.data: datasets, DataLoader batching, shuffling and last_batch modes, batchify; and
gluon.utils.split_and_load / clip_global_norm."""
import os

import numpy
import pytest

import mxlab as mx
from mxlab import gluon
from mxlab.gluon.data import ArrayDataset, DataLoader, SimpleDataset, batchify


def batches(loader):
    return [b.asnumpy().tolist() for b in loader]


def test_array_and_simple_datasets():
    ds = ArrayDataset(numpy.arange(4), mx.nd.arange(4) * 10)
    assert len(ds) == 4
    x, y = ds[2]      # a 1-d mx.nd array is kept as NumPy, as MXNet does: samples are scalars
    assert x == 2 and isinstance(y, numpy.float32) and y == 20.0
    with pytest.raises(ValueError, match="same length"):
        ArrayDataset([1, 2], [1])
    doubled = SimpleDataset([1, 2, 3]).transform(lambda v: v * 2)
    assert [doubled[i] for i in range(3)] == [2, 4, 6]
    first = ArrayDataset([1, 2], [3, 4]).transform_first(lambda v: -v, lazy=False)
    assert first[1] == (-2, 4)


@pytest.mark.parametrize("mode,expected", [
    ("keep", [[0, 1, 2], [3, 4, 5], [6]]),
    ("discard", [[0, 1, 2], [3, 4, 5]]),
])
def test_last_batch_keep_and_discard(mode, expected):
    loader = DataLoader(SimpleDataset(list(range(7))), batch_size=3, last_batch=mode)
    assert batches(loader) == expected
    assert len(loader) == len(expected)


def test_last_batch_rollover_carries_leftover():
    loader = DataLoader(SimpleDataset(list(range(7))), batch_size=3, last_batch="rollover")
    assert len(loader) == 2
    assert batches(loader) == [[0, 1, 2], [3, 4, 5]]
    assert batches(loader) == [[6, 0, 1], [2, 3, 4]]
    assert len(loader) == 3  # NOTE: the two carried samples make a third batch next pass
    with pytest.raises(ValueError, match="last_batch must be one of"):
        DataLoader(SimpleDataset([1]), batch_size=1, last_batch="bad")


def test_shuffle_changes_order_but_not_content():
    loader = DataLoader(SimpleDataset(list(range(20))), batch_size=20, shuffle=True)
    first, second = batches(loader)[0], batches(loader)[0]
    assert sorted(first) == list(range(20)) and first != list(range(20))
    assert first != second


def test_tuple_samples_batchify_and_flavour():
    ds = ArrayDataset(numpy.ones((5, 2), dtype="float32"), numpy.arange(5))
    data, label = next(iter(DataLoader(ds, batch_size=4)))
    assert data.shape == (4, 2) and label.asnumpy().tolist() == [0, 1, 2, 3]
    npds = SimpleDataset([mx.np.ones((2,)) for _ in range(3)])
    assert isinstance(next(iter(DataLoader(npds, batch_size=3))), mx.np.ndarray)
    padded = batchify.Pad(val=-1)([numpy.array([1, 2, 3]), numpy.array([4])])
    assert padded.asnumpy().tolist() == [[1, 2, 3], [4, -1, -1]]
    grouped = batchify.Group(batchify.Stack(), batchify.Pad())([(1, [1]), (2, [1, 2])])
    assert grouped[0].asnumpy().tolist() == [1, 2] and grouped[1].shape == (2, 2)
    custom = DataLoader(SimpleDataset([1, 2, 3]), batch_size=2, batchify_fn=sum)
    assert list(custom) == [3, 3]


def test_argument_errors():
    with pytest.raises(ValueError, match="batch_size must be specified"):
        DataLoader(SimpleDataset([1]))


def test_split_and_load_and_clip_global_norm():
    parts = gluon.utils.split_and_load(mx.nd.arange(6).reshape((3, 2)), [mx.cpu(0), mx.cpu(1)],
                                       even_split=False)
    assert [p.shape for p in parts] == [(2, 2), (1, 2)]   # MXNet 1.9.1's array_split sizes
    assert parts[1].device == mx.cpu(1)
    with pytest.raises(ValueError, match="cannot be evenly split"):
        gluon.utils.split_and_load(mx.nd.arange(3), [mx.cpu(0), mx.cpu(1)])
    arrays = [mx.nd.array([3.0, 0.0]), mx.nd.array([4.0])]
    norm = gluon.utils.clip_global_norm(arrays, 1.0)
    assert norm == pytest.approx(5.0)
    numpy.testing.assert_allclose(arrays[0].asnumpy(), [0.6, 0.0], rtol=1e-6)
    numpy.testing.assert_allclose(arrays[1].asnumpy(), [0.8], rtol=1e-6)


# -- worker processes and threads ------------------------------------------------------------------
def _batches_as_numpy(loader):
    return [tuple(type(part).__name__ + ":" + repr(part.asnumpy().tolist()) for part in batch)
            for batch in loader]


@pytest.mark.parametrize("options", [{"num_workers": 2}, {"num_workers": 2, "thread_pool": True},
                                     {"num_workers": 3, "prefetch": 1},
                                     {"num_workers": 1, "last_batch": "discard"}])
def test_workers_give_the_same_batches_in_the_same_order(options):
    ds = mx.gluon.data.ArrayDataset(mx.np.arange(22).reshape(11, 2), mx.nd.arange(11))
    last_batch = options.pop("last_batch", None)
    serial = mx.gluon.data.DataLoader(ds, batch_size=3, last_batch=last_batch)
    parallel = mx.gluon.data.DataLoader(ds, batch_size=3, last_batch=last_batch, **options)
    assert _batches_as_numpy(parallel) == _batches_as_numpy(serial)


def test_workers_see_transforms_and_keep_order_when_finishing_out_of_order():
    import time

    def slow_first(x):
        time.sleep(0.2 if float(x) == 0 else 0)  # NOTE: batch 0 finishes last
        return x * 10

    ds = mx.gluon.data.SimpleDataset(list(range(6))).transform(slow_first)
    got = [b.asnumpy().tolist() for b in mx.gluon.data.DataLoader(ds, batch_size=1,
                                                                  num_workers=3)]
    assert got == [[0], [10], [20], [30], [40], [50]]


class _DiesAtTwo(mx.gluon.data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, idx):
        if idx == 2:
            os._exit(3)  # NOTE: a hard crash, as a segfault in native code would be
        return numpy.float32(idx)


def test_a_dead_worker_is_a_clear_error_not_a_hang():
    with pytest.raises(mx.base.MXNetError, match="worker process died"):
        list(mx.gluon.data.DataLoader(_DiesAtTwo(), batch_size=1, num_workers=2, timeout=60))


class _Sleeps(mx.gluon.data.Dataset):
    def __len__(self):
        return 1

    def __getitem__(self, idx):
        import time

        time.sleep(2)
        return numpy.float32(idx)


def test_a_slow_worker_times_out_with_the_timeout_named():
    with pytest.raises(RuntimeError, match=r"timeout=0.2s"):
        list(mx.gluon.data.DataLoader(_Sleeps(), batch_size=1, num_workers=1, timeout=0.2))


def test_negative_workers_rejected():
    with pytest.raises(ValueError, match="num_workers"):
        mx.gluon.data.DataLoader([1], batch_size=1, num_workers=-1)


def test_pin_memory_batches_come_on_cpu_pinned():
    # MXNet: DataLoader(pin_memory=True) gives batches on cpu_pinned(pin_device_id)
    dataset = mx.gluon.data.ArrayDataset(numpy.ones((5, 2)), numpy.arange(5))
    batches = list(mx.gluon.data.DataLoader(dataset, 2, pin_memory=True, pin_device_id=0))
    assert all(x.context == mx.cpu_pinned(0) and y.context == mx.cpu_pinned(0)
               for x, y in batches)
    assert float(batches[0][0].sum().asscalar()) == 4.0
    assert all(x.context == mx.cpu(0) for x, _ in mx.gluon.data.DataLoader(dataset, 2))
