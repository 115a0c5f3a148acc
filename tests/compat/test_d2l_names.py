"""Every ``mxnet.<name>`` D2L's own library (``d2l/mxnet.py`` of d2l-ai/d2l-en, the module each
MXNet chapter imports) uses resolves through the alias: a moved name stops most chapters at once
(session 9 moved ``gluon.parameter.ParameterDict`` and 21 of D2L's sections failed to start).

The list was extracted from ``d2l/mxnet.py`` (attribute chains on its ``mxnet`` imports); the
opt-in harness (``python -m mxlab.compat.harness d2l``) runs the chapters themselves.
"""
import importlib

import pytest

D2L_NAMES = """
    autograd.predict_mode autograd.record gluon.Block gluon.Trainer gluon.data.ArrayDataset
    gluon.data.DataLoader gluon.data.Dataset gluon.data.vision
    gluon.data.vision.FashionMNIST gluon.data.vision.transforms.Compose
    gluon.data.vision.transforms.Resize gluon.data.vision.transforms.ToTensor
    gluon.loss.L2Loss gluon.loss.Loss gluon.loss.SoftmaxCELoss
    gluon.loss.SoftmaxCrossEntropyLoss gluon.nn.Activation gluon.nn.AvgPool2D
    gluon.nn.BatchNorm gluon.nn.Block gluon.nn.Conv2D gluon.nn.Dense gluon.nn.Dropout
    gluon.nn.Embedding gluon.nn.GlobalAvgPool2D gluon.nn.LayerNorm gluon.nn.Sequential
    gluon.parameter.ParameterDict gluon.rnn.GRU gluon.rnn.RNN gluon.utils.split_and_load
    image.fixed_crop image.imread image.random_crop init.Normal init.Xavier np.abs np.arange
    np.argmax np.array np.concatenate np.cos np.cosh np.cumsum np.dot np.exp np.expand_dims
    np.eye np.float32 np.full np.genfromtxt np.int32 np.int64 np.linspace np.log np.max
    np.maximum np.mean np.meshgrid np.minimum np.ndarray np.nonzero np.ones np.ones_like
    np.power np.random.normal np.random.rand np.random.randn np.random.uniform np.repeat
    np.sin np.sinh np.sqrt np.squeeze np.stack np.sum np.tanh np.tile np.unique np.zeros
    np.zeros_like npx.batch_dot npx.cpu npx.gpu npx.num_gpus npx.one_hot npx.relu
    npx.sequence_mask npx.sigmoid npx.softmax npx.waitall
""".split()


@pytest.mark.parametrize("name", D2L_NAMES)
def test_d2l_library_name_resolves_through_the_alias(alias, name):
    obj = importlib.import_module("mxnet")
    for part in name.split("."):
        obj = getattr(obj, part)
    assert obj is not None
