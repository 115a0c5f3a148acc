"""Dataset.filter / shard / take / sample and the Filter / Interval samplers (MXNet 1.6+ API;
the expected lists are what MXNet 1.9.1 returns for the same calls)."""
import pytest

import mxlab as mx

DATA = mx.gluon.data.SimpleDataset(list(range(10)))


def test_views_select_the_samples_mxnet_selects():
    assert list(DATA.filter(lambda x: x % 3 == 0)) == [0, 3, 6, 9]
    assert [list(DATA.shard(3, i)) for i in range(3)] == [[0, 1, 2, 3], [4, 5, 6], [7, 8, 9]]
    assert list(DATA.take(4)) == [0, 1, 2, 3]
    assert list(DATA.take(None)) == list(DATA.take(99)) == list(range(10))
    sampled = DATA.sample(mx.gluon.data.IntervalSampler(10, 3))
    assert list(sampled) == [0, 3, 6, 9, 1, 4, 7, 2, 5, 8]
    assert list(DATA.shard(2, 1).filter(lambda x: x > 6).take(1)) == [7]


def test_views_compose_with_transforms_and_loaders():
    pairs = mx.gluon.data.ArrayDataset(list(range(6)), list(range(10, 16)))
    view = pairs.filter(lambda sample: sample[0] % 2 == 1).transform_first(lambda x: x * 100)
    assert list(view) == [(100, 11), (300, 13), (500, 15)]
    batches = list(mx.gluon.data.DataLoader(pairs.take(4), batch_size=2))
    assert [b[1].asnumpy().tolist() for b in batches] == [[10, 11], [12, 13]]


def test_interval_sampler_length_counts_what_it_yields():
    assert len(mx.gluon.data.IntervalSampler(13, 3)) == 13
    no_rollover = mx.gluon.data.IntervalSampler(13, 3, rollover=False)
    assert list(no_rollover) == [0, 3, 6, 9, 12] and len(no_rollover) == 5  # MXNet says 13


@pytest.mark.parametrize("call, kind", [
    (lambda: DATA.shard(3, 3), ValueError),
    (lambda: DATA.shard(0, 0), ValueError),
    (lambda: DATA.sample([1, 2]), TypeError),
    (lambda: mx.gluon.data.IntervalSampler(3, 5), ValueError),
])
def test_bad_arguments_are_mxnet_errors(call, kind):
    with pytest.raises(mx.MXNetError) as err:
        call()
    assert isinstance(err.value, kind)
