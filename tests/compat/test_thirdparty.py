"""Opt-in runs of real MXNet libraries on the ``mxnet`` alias (skipped unless their sources are
given): GluonNLP master's BERT (``MXLAB_GLUONNLP_SRC=<gluon-nlp>/src``, with its pip
dependencies ``yacs sacremoses fasttext`` importable) and GluonCV's detectors (YOLOv3, SSD with
its feature extractor and a training step, Faster R-CNN with FPN)
(``MXLAB_GLUONCV_SRC=<gluon-cv>``, with ``portalocker`` importable). Each runs in a subprocess,
eager and hybridized."""
import os
import subprocess
import sys
import textwrap

import pytest

BERT = textwrap.dedent("""
    import numpy as np
    import mxnet as mx
    mx.npx.set_np()
    from gluonnlp.models.bert import BertModel
    cfg = BertModel.get_cfg()
    cfg.defrost()
    cfg.MODEL.vocab_size, cfg.MODEL.units, cfg.MODEL.hidden_size = 100, 32, 64
    cfg.MODEL.num_layers, cfg.MODEL.num_heads, cfg.MODEL.max_length = 2, 4, 32
    cfg.freeze()
    model = BertModel.from_cfg(cfg)
    model.initialize()
    tokens = mx.np.array(np.random.default_rng(0).integers(0, 100, (2, 10)), dtype=np.int32)
    types, valid = mx.np.zeros((2, 10), dtype=np.int32), mx.np.array([10, 6], dtype=np.int32)
    eager = [o.asnumpy() for o in model(tokens, types, valid)]
    model.hybridize()
    hybrid = [o.asnumpy() for o in model(tokens, types, valid)]
    assert all(np.array_equal(a, b) for a, b in zip(eager, hybrid))
    with mx.autograd.record():
        loss = model(tokens, types, valid)[0].sum()
    loss.backward()
    assert np.isfinite(model.word_embed.weight.grad().asnumpy()).all()
    print("ok", [a.shape for a in eager])
""")

GLUONCV = textwrap.dedent("""
    import sys
    import numpy as np
    sys.modules["torch"] = None   # NOTE: GluonCV refuses torch >= 2
    np.float, np.int = float, int   # NOTE: GluonCV predates NumPy 2
    import mxnet as mx
    import gluoncv.data, gluoncv.loss
    from gluoncv.model_zoo import get_model
    name, size = sys.argv[1], int(sys.argv[2])
    net = get_model(name, pretrained=False, pretrained_base=False)
    net.initialize()
    x = mx.nd.array(np.random.default_rng(0).uniform(-1, 1, (1, 3, size, size)).astype("float32"))
    eager = [o.asnumpy() for o in net(x)]
    net.hybridize()
    hybrid = [o.asnumpy() for o in net(x)]
    assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(eager, hybrid))
    print("ok", [a.shape for a in eager])
""")

# NOTE: SSD's training step as GluonCV's train_ssd.py takes it: the hybridized net returns its
#   training outputs under train_mode, targets with hard negative mining, SSDMultiBoxLoss, SGD.
GLUONCV_SSD_TRAINING = textwrap.dedent("""
    import sys
    import numpy as np
    sys.modules["torch"] = None
    np.float, np.int = float, int
    import mxnet as mx
    from mxnet import autograd, gluon
    from gluoncv.model_zoo import get_model
    from gluoncv.loss import SSDMultiBoxLoss
    from gluoncv.model_zoo.ssd.target import SSDTargetGenerator
    net = get_model("ssd_300_mobilenet0.25_voc", pretrained=False, pretrained_base=False)
    net.initialize()
    net.hybridize(static_alloc=True)
    x = mx.nd.array(np.random.default_rng(0).uniform(-1, 1, (2, 3, 300, 300)).astype("float32"))
    boxes = mx.nd.array([[[30, 40, 120, 150]], [[10, 10, 200, 220]]])
    ids = mx.nd.array([[[3]], [[7]]])
    with autograd.train_mode():
        cls_preds, _, anchors = net(x)
    cls_t, box_t, _ = SSDTargetGenerator()(anchors, cls_preds, boxes, ids)
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.01})
    losses = []
    for _ in range(3):
        with autograd.record():
            cls_preds, box_preds, _ = net(x)
            sum_loss, _, _ = SSDMultiBoxLoss()(cls_preds, box_preds, cls_t, box_t)
            autograd.backward(sum_loss)
        trainer.step(1)
        losses.append(float(sum(l.mean().asscalar() for l in sum_loss)))
    assert np.isfinite(losses).all() and losses[-1] < losses[0], losses
    print("ok", losses)
""")


def _run(code, path, tmp_path, *args):
    script = tmp_path / "script.py"
    script.write_text(code)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [path, os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-m", "mxlab.compat", str(script), *args], env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.skipif(not os.environ.get("MXLAB_GLUONNLP_SRC"), reason="MXLAB_GLUONNLP_SRC unset")
def test_gluonnlp_bert_runs_eager_hybridized_and_backward(tmp_path):
    result = _run(BERT, os.environ["MXLAB_GLUONNLP_SRC"], tmp_path)
    assert result.returncode == 0 and "ok" in result.stdout, result.stderr[-3000:]


_GLUONCV = pytest.mark.skipif(not os.environ.get("MXLAB_GLUONCV_SRC"),
                              reason="MXLAB_GLUONCV_SRC unset")


@_GLUONCV
@pytest.mark.parametrize("model, size", [
    ("yolo3_darknet53_voc", 160),
    ("ssd_300_mobilenet0.25_voc", 300),           # NOTE: FeatureExpander: 1.x names, SymbolBlock
    ("ssd_512_resnet18_v1_voc", 256),             # NOTE: prefix='' blocks' ops in stage scopes
    ("faster_rcnn_fpn_resnet50_v1b_coco", 128),   # NOTE: FPN: op attr={'__init__': Xavier()}
])
def test_gluoncv_models_run_eager_and_hybridized(model, size, tmp_path):
    result = _run(GLUONCV, os.environ["MXLAB_GLUONCV_SRC"], tmp_path, model, str(size))
    assert result.returncode == 0 and "ok" in result.stdout, result.stderr[-3000:]


@_GLUONCV
def test_gluoncv_ssd_training_steps_lower_the_loss(tmp_path):
    result = _run(GLUONCV_SSD_TRAINING, os.environ["MXLAB_GLUONCV_SRC"], tmp_path)
    assert result.returncode == 0 and "ok" in result.stdout, result.stderr[-3000:]
