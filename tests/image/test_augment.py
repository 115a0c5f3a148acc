"""mx.image augmenters: CreateAugmenter pipelines, seeded like MXNet's, give MXNet 1.9.1's
pixels (fixtures/augment.npz from augment_scenarios.py); ImageIter batches a file list."""
import importlib.util
import json
import pathlib

import numpy
import pytest
from PIL import Image

import mxlab as mx

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
_spec = importlib.util.spec_from_file_location("augment_scenarios",
                                               FIXTURES / "augment_scenarios.py")
scenarios = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scenarios)
WANT = numpy.load(FIXTURES / "augment.npz")
GOT = scenarios.run(mx)


@pytest.mark.parametrize("key", sorted(WANT.files))
def test_pipelines_equal_mxnet_191(key):
    # NOTE: OpenCV rounds its fixed-point resize weights: at most about one grey level, scaled
    #   by the colour jitters that follow
    numpy.testing.assert_allclose(GOT[key], WANT[key], atol=2.0)


def test_dumps_names_and_arguments():
    augs = mx.image.CreateAugmenter((3, 8, 8), rand_mirror=True, mean=True)
    assert [json.loads(a.dumps())[0] for a in augs] == ["centercropaug", "horizontalflipaug",
                                                         "castaug", "colornormalizeaug"]
    with pytest.raises(ValueError, match="rand_resize needs rand_crop"):
        mx.image.CreateAugmenter((3, 8, 8), rand_resize=True)


def test_image_iter_batches_a_file_list(tmp_path):
    for i in range(3):
        Image.fromarray(numpy.full((10, 12, 3), 50 * i, numpy.uint8)).save(tmp_path / f"{i}.png")
    (tmp_path / "list.lst").write_text("".join(f"{i}\t{i % 2}\t{i}.png\n" for i in range(3)))
    it = mx.image.ImageIter(batch_size=2, data_shape=(3, 8, 8), path_root=str(tmp_path),
                            path_imglist=str(tmp_path / "list.lst"))
    batches = list(it)
    assert [b.data[0].shape for b in batches] == [(2, 3, 8, 8)] * 2 and batches[1].pad == 1
    assert batches[0].label[0].asnumpy().tolist() == [0, 1]
    assert float(batches[1].data[0].asnumpy()[0].mean()) == 100.0
    with pytest.raises(mx.MXNetError, match="x.rec") as err:
        mx.image.ImageIter(2, (3, 8, 8), path_imgrec=str(tmp_path / "x.rec"))
    assert isinstance(err.value, FileNotFoundError)
