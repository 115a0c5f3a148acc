"""mx.io: NDArrayIter's batching equals MXNet 1.9.1's (fixtures/io.npz from io_scenarios.py);
CSVIter and MNISTIter read their files; RecordIO is refused by name."""
import gzip
import importlib.util
import pathlib
import struct

import numpy
import pytest

import mxlab as mx

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
_spec = importlib.util.spec_from_file_location("io_scenarios", FIXTURES / "io_scenarios.py")
scenarios = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scenarios)
WANT = numpy.load(FIXTURES / "io.npz")
GOT = scenarios.run(mx)


@pytest.mark.parametrize("key", sorted(WANT.files))
def test_ndarrayiter_equals_mxnet_191(key):
    numpy.testing.assert_array_equal(GOT[key], WANT[key])


def test_batches_and_descriptions():
    it = mx.io.NDArrayIter(mx.nd.ones((5, 3)), batch_size=2, data_name="x")
    batch = next(iter(it))
    assert isinstance(batch.data[0], mx.nd.NDArray) and batch.label == []
    assert it.provide_data[0].name == "x" and it.provide_data[0].shape == (2, 3)
    assert "data shapes: [(2, 3)]" in str(batch)
    with pytest.raises(ValueError, match="last_batch_handle"):
        mx.io.NDArrayIter(numpy.ones((2, 2)), last_batch_handle="wrap")


def test_resize_and_prefetching_iters():
    base = mx.io.NDArrayIter(numpy.arange(6, dtype="f").reshape(6, 1), batch_size=2)
    assert len(list(mx.io.ResizeIter(base, 5))) == 5
    base.reset()
    fetched = [b.data[0].asnumpy()[:, 0].tolist() for b in mx.io.PrefetchingIter(base)]
    assert fetched == [[0, 1], [2, 3], [4, 5]]


def test_csv_iter(tmp_path):
    data = numpy.arange(12, dtype="f").reshape(4, 3)
    numpy.savetxt(tmp_path / "d.csv", data, delimiter=",")
    numpy.savetxt(tmp_path / "l.csv", numpy.arange(4, dtype="f"), delimiter=",")
    it = mx.io.CSVIter(data_csv=str(tmp_path / "d.csv"), data_shape=(3,),
                       label_csv=str(tmp_path / "l.csv"), batch_size=3)
    batches = list(it)
    assert batches[1].pad == 2
    numpy.testing.assert_array_equal(batches[1].data[0].asnumpy(), data[[3, 0, 1]])
    numpy.testing.assert_array_equal(batches[0].label[0].asnumpy(), [0, 1, 2])
    with pytest.raises(ValueError, match="needs 4"):
        mx.io.CSVIter(data_csv=str(tmp_path / "d.csv"), data_shape=(2, 2))


def test_mnist_iter_and_libsvm_refusal(tmp_path):
    pixels = numpy.random.default_rng(0).integers(0, 255, (5, 28, 28), dtype=numpy.uint8)
    with gzip.open(tmp_path / "img.gz", "wb") as f:
        f.write(struct.pack(">IIII", 2051, 5, 28, 28) + pixels.tobytes())
    with gzip.open(tmp_path / "lab.gz", "wb") as f:
        f.write(struct.pack(">II", 2049, 5) + bytes(range(5)))
    it = mx.io.MNISTIter(image=str(tmp_path / "img.gz"), label=str(tmp_path / "lab.gz"),
                         batch_size=5, shuffle=False, flat=True)
    batch = next(iter(it))
    assert batch.data[0].shape == (5, 784)
    numpy.testing.assert_allclose(batch.data[0].asnumpy()[2], pixels[2].ravel() / 255.0,
                                  rtol=1e-6)
    with pytest.raises(NotImplementedError, match="LibSVMIter"):
        mx.io.LibSVMIter(data_libsvm="x.libsvm", data_shape=(4,))


def test_ndarrayiter_refuses_scipy_sparse_sources_by_name():
    scipy_sparse = pytest.importorskip("scipy.sparse")
    with pytest.raises(NotImplementedError, match=r"sparse source 'data' \(csr\)"):
        mx.io.NDArrayIter({"data": scipy_sparse.csr_matrix(numpy.eye(3))}, numpy.ones(3), 2)


def test_ndarrayiter_batches_keep_each_sources_flavour():
    # MXNet 2.0 slices mx.np sources, so their batches are mx.np arrays; mx.nd stay mx.nd
    it = mx.io.NDArrayIter({"data": mx.np.ones((5, 2)), "pos": mx.nd.ones((5, 2))},
                           mx.np.arange(5), batch_size=2, last_batch_handle="roll_over")
    batch = next(iter(it))
    assert [type(x) for x in batch.data] == [mx.np.ndarray, mx.nd.NDArray]
    assert type(batch.label[0]) is mx.np.ndarray
