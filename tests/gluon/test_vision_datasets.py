"""gluon.data.vision datasets read MXNet's local file formats and never download."""
import gzip
import struct

import numpy
import pytest
from PIL import Image

import mxlab as mx
from mxlab.gluon.data import vision


def write_idx(path, values, magic):
    header = struct.pack(">I", magic) + b"".join(struct.pack(">I", n) for n in values.shape)
    with gzip.open(path, "wb") as f:
        f.write(header + values.tobytes())


@pytest.mark.parametrize("cls", [vision.MNIST, vision.FashionMNIST])
@pytest.mark.parametrize("train", [True, False])
def test_mnist_family_reads_idx_files(tmp_path, cls, train):
    prefix = "train" if train else "t10k"
    images = numpy.random.RandomState(0).randint(0, 255, (5, 28, 28), dtype=numpy.uint8)
    write_idx(tmp_path / f"{prefix}-images-idx3-ubyte.gz", images, 2051)
    write_idx(tmp_path / f"{prefix}-labels-idx1-ubyte.gz", numpy.arange(5, dtype=numpy.uint8),
              2049)
    ds = cls(root=str(tmp_path), train=train)
    data, label = ds[3]
    assert len(ds) == 5 and label == 3 and data.dtype == numpy.uint8
    assert (data.asnumpy()[..., 0] == images[3]).all()
    batches = list(mx.gluon.data.DataLoader(
        ds.transform_first(vision.transforms.ToTensor()), batch_size=2, num_workers=2))
    assert [x.shape for x, _ in batches] == [(2, 1, 28, 28)] * 2 + [(1, 1, 28, 28)]
    assert numpy.allclose(batches[1][0].asnumpy()[1, 0], images[3] / 255.0)


def test_missing_files_name_what_to_place(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"train-images-idx3-ubyte.gz.*place"):
        vision.FashionMNIST(root=str(tmp_path))
    with pytest.raises(mx.base.MXNetError, match="cifar-10-binary.tar.gz"):
        vision.CIFAR10(root=str(tmp_path))


@pytest.mark.parametrize("cls,width,fine", [(vision.CIFAR10, 1, None), (vision.CIFAR100, 2, True),
                                            (vision.CIFAR100, 2, False)])
def test_cifar_binary_batches(tmp_path, cls, width, fine):
    rng = numpy.random.RandomState(1)
    names = (["test_batch.bin"] if cls is vision.CIFAR10 else ["test.bin"])
    rows = rng.randint(0, 255, (4, 3072 + width), dtype=numpy.uint8)
    rows[:, :width] = [[7, 9][:width]] * 4
    rows.tofile(tmp_path / names[0])
    kwargs = {} if fine is None else {"fine_label": fine}
    ds = cls(root=str(tmp_path), train=False, **kwargs)
    data, label = ds[2]
    assert data.shape == (32, 32, 3)
    assert (data.asnumpy() == rows[2, width:].reshape(3, 32, 32).transpose(1, 2, 0)).all()
    assert label == (9 if fine else 7)


def test_image_folder_dataset(tmp_path):
    for cls, count in (("cat", 2), ("dog", 1)):
        (tmp_path / cls).mkdir()
        for i in range(count):
            Image.fromarray(numpy.full((4, 5, 3), 40 * i, numpy.uint8)).save(
                tmp_path / cls / f"{i}.png")
    (tmp_path / "dog" / "notes.txt").write_text("x")
    with pytest.warns(UserWarning, match="notes.txt"):
        ds = vision.ImageFolderDataset(str(tmp_path))
    assert ds.synsets == ["cat", "dog"] and len(ds) == 3
    img, label = ds[1]
    assert img.shape == (4, 5, 3) and int(img.asnumpy()[0, 0, 0]) == 40 and label == 0
    assert ds[2][1] == 1
