"""Detection contrib ops (MultiBoxPrior/Target/Detection, box_encode/decode, bipartite_matching,
Proposal/MultiProposal, PSROIPooling): hand cases, graph and hybridized paths against the
imperative call, and the oracle cases against MXNet 1.9.1."""
import numpy
import pytest
from helpers import assert_same_results, requires_oracle, run_both

import mxlab as mx
from mxlab.base import MXNetError
from mxlab.gluon import HybridBlock
from mxlab.test_utils import check_numeric_gradient

nd = mx.nd


def test_multibox_prior_layout_steps_offsets_and_clip():
    x = nd.zeros((2, 3, 2, 4))
    anchors = nd.contrib.MultiBoxPrior(x, sizes=(0.5, 0.25), ratios=(1, 4), clip=False)
    assert anchors.shape == (1, 2 * 4 * 3, 4)
    boxes = anchors.asnumpy().reshape(2, 4, 3, 4)
    # location (row 1, col 2): centre ((2 + 0.5) / 4, (1 + 0.5) / 2)
    cx, cy = 2.5 / 4, 1.5 / 2
    want = []
    for size, ratio in ((0.5, 1), (0.25, 1), (0.5, 4)):
        w, h = size * 2 / 4 * numpy.sqrt(ratio) / 2, size / numpy.sqrt(ratio) / 2
        want.append([cx - w, cy - h, cx + w, cy + h])
    numpy.testing.assert_allclose(boxes[1, 2], want, rtol=1e-6)
    custom = nd.contrib.MultiBoxPrior(x, sizes=(0.5,), steps=(0.25, 0.5), offsets=(0, 1), clip=True)
    first = custom.asnumpy()[0, 0]
    numpy.testing.assert_allclose(first, [0.5 - 0.125, 0, 0.5 + 0.125, 0.25], rtol=1e-6)
    assert custom.asnumpy().min() >= 0 and custom.asnumpy().max() <= 1


def test_multibox_prior_rejects_bad_offsets_and_shapes():
    with pytest.raises(MXNetError, match="offsets"):
        nd.contrib.MultiBoxPrior(nd.zeros((1, 1, 2, 2)), offsets=(0.5, 1.5)).wait_to_read()
    with pytest.raises(MXNetError, match="4-D"):
        nd.contrib.MultiBoxPrior(nd.zeros((2, 2))).wait_to_read()


def test_multibox_target_matches_mxnet_unittest_case():
    anchors = nd.array([[0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.8]]).reshape((1, -1, 4))
    cls_pred = nd.array(list(range(10))).reshape((1, -1, 2))
    label = nd.array([1, 0.1, 0.1, 0.5, 0.6]).reshape((1, -1, 5))
    loc, mask, cls = nd.contrib.MultiBoxTarget(anchors, label, cls_pred, overlap_threshold=0.5,
                                               negative_mining_ratio=3,
                                               negative_mining_thresh=0.4)
    numpy.testing.assert_allclose(loc.asnumpy(), [[5.0, 2.5000005, 3.4657357, 4.581454, 0, 0, 0,
                                                   0]], rtol=1e-5, atol=1e-5)
    assert mask.asnumpy().tolist() == [[1, 1, 1, 1, 0, 0, 0, 0]]
    assert cls.asnumpy().tolist() == [[2, 0]]


def test_multibox_target_without_labels_and_without_mining():
    anchors = nd.array([[0, 0, 0.5, 0.5], [0.5, 0.5, 1, 1], [0, 0, 1, 1]]).reshape((1, 3, 4))
    labels = nd.array([[[0, 0, 0, 0.5, 0.5], [-1, -1, -1, -1, -1]],
                       [[-1, -1, -1, -1, -1], [-1, -1, -1, -1, -1]]])
    preds = nd.zeros((2, 2, 3))
    loc, mask, cls = nd.contrib.MultiBoxTarget(anchors, labels, preds, ignore_label=-7)
    assert cls.asnumpy().tolist() == [[1, 0, 0], [-7, -7, -7]]
    assert mask.asnumpy()[0].tolist() == [1] * 4 + [0] * 8
    numpy.testing.assert_allclose(loc.asnumpy()[0, :4], 0, atol=1e-6)


def _ssd_inputs(rng, batch=2, classes=3, height=3, width=4):
    count = height * width * 3
    logits = rng.standard_normal((batch, classes, count)).astype("float32")
    prob = numpy.exp(logits) / numpy.exp(logits).sum(axis=1, keepdims=True)
    loc = (rng.standard_normal((batch, count * 4)) * 0.5).astype("float32")
    return {"data": rng.standard_normal((batch, 2, height, width)).astype("float32"),
            "prob": prob.astype("float32"), "loc": loc}


def test_multibox_detection_sorts_suppresses_and_pads():
    anchors = nd.array([[0.1, 0.1, 0.3, 0.3], [0.12, 0.1, 0.3, 0.3], [0.6, 0.6, 0.9, 0.9],
                        [0.0, 0.0, 0.2, 0.2]]).reshape((1, 4, 4))
    prob = nd.array([[[0.1, 0.2, 0.5, 0.995], [0.9, 0.8, 0.1, 0.004], [0.0, 0.0, 0.4, 0.001]]])
    loc = nd.zeros((1, 16))
    out = nd.contrib.MultiBoxDetection(prob, loc, anchors, threshold=0.01).asnumpy()[0]
    assert out[:, 0].tolist() == [0, -1, 1, -1]
    numpy.testing.assert_allclose(out[0, 1:], [0.9, 0.1, 0.1, 0.3, 0.3], rtol=1e-6)
    numpy.testing.assert_allclose(out[2, 1:], [0.4, 0.6, 0.6, 0.9, 0.9], rtol=1e-6)
    # the suppressed row stays in place, -1 as class only
    numpy.testing.assert_allclose(out[1, 1], 0.8, rtol=1e-6)
    assert (out[3] == -1).all()
    top1 = nd.contrib.MultiBoxDetection(prob, loc, anchors, nms_topk=1).asnumpy()[0]
    assert top1[:, 0].tolist() == [0, -1, -1, -1]
    numpy.testing.assert_allclose(top1[1:3, 1], [0.8, 0.4], rtol=1e-6)   # left unsorted


def test_box_encode_decode_round_trip():
    rng = numpy.random.default_rng(0)
    lo = rng.uniform(0, 0.5, (1, 5, 2))
    anchors = numpy.concatenate([lo, lo + rng.uniform(0.1, 0.4, (1, 5, 2))], axis=-1)
    refs = anchors[:, ::-1] + 0.01
    matches = numpy.array([[4, 3, 2, 1, 0]], dtype="float32")
    samples = numpy.array([[1, 1, 0, 1, -1]], dtype="float32")
    stds = numpy.array([0.1, 0.1, 0.2, 0.2], dtype="float32")
    targets, masks = nd.contrib.box_encode(nd.array(samples), nd.array(matches),
                                           nd.array(anchors), nd.array(refs), nd.zeros(4),
                                           nd.array(stds))
    assert masks.asnumpy()[0, :, 0].tolist() == [1, 1, 0, 1, 0]
    assert (targets.asnumpy()[0, [2, 4]] == 0).all()
    decoded = nd.contrib.box_decode(targets, nd.array(anchors), 0.1, 0.1, 0.2, 0.2,
                                    format="corner").asnumpy()
    numpy.testing.assert_allclose(decoded[0, [0, 1, 3]], refs[0, [4, 3, 1]], rtol=1e-5,
                                  atol=1e-6)
    clipped = nd.contrib.box_decode(nd.ones((1, 1, 4)) * 10, nd.array([[[0.5, 0.5, 0.2, 0.2]]]),
                                    clip=1.0).asnumpy()
    half = numpy.e * 0.2 / 2
    numpy.testing.assert_allclose(clipped[0, 0], [0.5 + 2 - half, 0.5 + 2 - half, 2.5 + half,
                                                  2.5 + half], rtol=1e-5)


def test_bipartite_matching_orders_thresholds_and_topk():
    scores = nd.array([[0.5, 0.6], [0.1, 0.2], [0.3, 0.4]])
    rows, cols = nd.contrib.bipartite_matching(scores, threshold=1e-12)
    assert rows.asnumpy().tolist() == [1, -1, 0] and cols.asnumpy().tolist() == [2, 0]
    rows, cols = nd.contrib.bipartite_matching(scores, threshold=100, is_ascend=True)
    assert rows.asnumpy().tolist() == [-1, 0, 1] and cols.asnumpy().tolist() == [1, 2]
    batch = nd.array(numpy.stack([numpy.eye(3) * 3 + 1] * 2))
    rows, _ = nd.contrib.bipartite_matching(batch, threshold=0, topk=1)
    assert rows.shape == (2, 3)
    assert rows.asnumpy().tolist() == [[0, 1, -1]] * 2   # MXNet keeps topk + 1 matches
    rows, _ = nd.contrib.bipartite_matching(batch, threshold=3.5)
    assert rows.asnumpy().tolist() == [[0, 1, 2]] * 2
    with mx.np_shape():   # NOTE: a zero-size array is unknown-shaped outside NumPy shape mode
        rows, cols = nd.contrib.bipartite_matching(nd.zeros((0, 2)), threshold=0.1)
    assert rows.shape == (0,) and cols.asnumpy().tolist() == [-1, -1]


def _rpn_inputs(rng, batch=2, height=5, width=6, anchors=12):
    return {"cls": rng.uniform(0, 1, (batch, 2 * anchors, height, width)).astype("float32"),
            "bbox": (rng.standard_normal((batch, 4 * anchors, height, width)) * 0.2)
            .astype("float32"),
            "info": numpy.array([[80, 96, 1.0], [64, 70, 0.8]][:batch], dtype="float32")}


def test_proposal_rows_scores_and_multi_proposal_agree():
    inputs = _rpn_inputs(numpy.random.default_rng(1))
    args = dict(rpn_pre_nms_top_n=50, rpn_post_nms_top_n=20, threshold=0.7, rpn_min_size=4,
                feature_stride=16, output_score=True)
    rois, scores = nd.contrib.MultiProposal(nd.array(inputs["cls"]), nd.array(inputs["bbox"]),
                                            nd.array(inputs["info"]), **args)
    assert rois.shape == (40, 5) and scores.shape == (40, 1)
    assert rois.asnumpy()[:, 0].tolist() == [0] * 20 + [1] * 20
    first = scores.asnumpy()[:20, 0]
    kept = first[: len(numpy.unique(rois.asnumpy()[:20, 1:], axis=0))]
    assert (numpy.diff(kept) <= 0).all()
    boxes = rois.asnumpy()[:, 1:]
    assert boxes.min() >= 0 and boxes[:20, 0::2].max() <= 95 and boxes[:20, 1::2].max() <= 79
    for b in range(2):
        one = nd.contrib.Proposal(nd.array(inputs["cls"][b:b + 1]),
                                  nd.array(inputs["bbox"][b:b + 1]),
                                  nd.array(inputs["info"][b:b + 1]), **args)
        numpy.testing.assert_allclose(one[0].asnumpy()[:, 1:], boxes[20 * b:20 * (b + 1)])
    only = nd.contrib.Proposal(nd.array(inputs["cls"][:1]), nd.array(inputs["bbox"][:1]),
                               nd.array(inputs["info"][:1]), rpn_post_nms_top_n=7)
    assert isinstance(only, nd.NDArray) and only.shape == (7, 5)
    with pytest.raises(MXNetError, match="batch 1"):
        nd.contrib.Proposal(nd.array(inputs["cls"]), nd.array(inputs["bbox"]),
                            nd.array(inputs["info"])).wait_to_read()


def test_proposal_repeats_kept_boxes_when_few_survive():
    cls = numpy.zeros((1, 2, 1, 1), dtype="float32")
    cls[0, 1] = 0.9
    rois = nd.contrib.Proposal(nd.array(cls), nd.zeros((1, 4, 1, 1)),
                               nd.array([[16, 16, 1]]), scales=(1,), ratios=(1,),
                               rpn_post_nms_top_n=3, rpn_min_size=1).asnumpy()
    assert rois.tolist() == [[0, 0, 0, 15, 15]] * 3


def test_psroipooling_averages_position_sensitive_bins_and_gradient():
    rng = numpy.random.default_rng(3)
    data = rng.standard_normal((2, 2 * 4, 6, 6))
    rois = numpy.array([[1, 0, 0, 5, 5], [0, 2, 1, 4.6, 3]])
    out = nd.contrib.PSROIPooling(nd.array(data), nd.array(rois), spatial_scale=1.0,
                                  output_dim=2, pooled_size=2).asnumpy()
    # roi 0: image 1, bins of 3x3; output channel 1, cell (0, 1) reads channel (1*2+0)*2+1 = 5
    numpy.testing.assert_allclose(out[0, 1, 0, 1], data[1, 5, 0:3, 3:6].mean(), rtol=1e-5)
    # roi 1: x 2..5 (round 4.6 = 5, +1 -> 6), y 1..4: bin width 2, height 1.5
    numpy.testing.assert_allclose(out[1, 0, 1, 0], data[0, 2, 2:4, 2:4].mean(), rtol=1e-5)
    check_numeric_gradient(
        mx.sym.contrib.PSROIPooling(mx.sym.var("data"), mx.sym.var("rois"), spatial_scale=0.5,
                                    output_dim=2, pooled_size=2),
        [data, rois * 1.3], grad_nodes=["data"], rtol=1e-2, atol=1e-3)
    with pytest.raises(MXNetError, match="channels"):
        nd.contrib.PSROIPooling(nd.array(data), nd.array(rois), spatial_scale=1.0,
                                output_dim=3, pooled_size=2).wait_to_read()


class _SSDHead(HybridBlock):
    def forward(self, data, prob, loc):
        anchors = nd.contrib.MultiBoxPrior(data, sizes=(0.4, 0.2), ratios=(1, 2))
        return nd.contrib.MultiBoxDetection(prob, loc, anchors, nms_threshold=0.4), anchors


class _RFCNHead(HybridBlock):
    def forward(self, cls, bbox, info, feat):
        rois = nd.contrib.MultiProposal(cls, bbox, info, rpn_pre_nms_top_n=30,
                                        rpn_post_nms_top_n=8, rpn_min_size=2)
        return nd.contrib.PSROIPooling(feat, rois, spatial_scale=1 / 16, output_dim=2,
                                       pooled_size=3)


def test_hybridized_blocks_equal_imperative_calls():
    rng = numpy.random.default_rng(4)
    ssd = _ssd_inputs(rng)
    args = [nd.array(ssd[k]) for k in ("data", "prob", "loc")]
    block = _SSDHead()
    want = [o.asnumpy() for o in block(*args)]
    block.hybridize()
    for _ in range(2):
        got = [o.asnumpy() for o in block(*args)]
        for a, b in zip(got, want):
            numpy.testing.assert_allclose(a, b, rtol=1e-6)
    rpn = _rpn_inputs(rng)
    args = [nd.array(rpn[k]) for k in ("cls", "bbox", "info")] + \
        [nd.array(rng.standard_normal((2, 18, 5, 6)))]
    block = _RFCNHead()
    want = block(*args).asnumpy()
    block.hybridize(static_alloc=True, static_shape=True)
    numpy.testing.assert_allclose(block(*args).asnumpy(), want, rtol=1e-6)
    assert want.shape == (16, 2, 3, 3)


def test_symbols_infer_shapes_and_bind():
    prob, loc = mx.sym.var("prob"), mx.sym.var("loc")
    anchors = mx.sym.contrib.MultiBoxPrior(mx.sym.var("data"), sizes=(0.5, 0.3), ratios=(1, 2, 0.5))
    det = mx.sym.contrib.MultiBoxDetection(prob, loc, anchors)
    _, out_shapes, _ = det.infer_shape(data=(2, 3, 4, 5), prob=(2, 4, 80), loc=(2, 320))
    assert out_shapes == [(2, 80, 6)]
    target = mx.sym.contrib.MultiBoxTarget(anchors, mx.sym.var("label"), prob)
    assert target.list_outputs()[-1].endswith("cls_target")
    _, out_shapes, _ = target.infer_shape(data=(2, 3, 4, 5), label=(2, 3, 5), prob=(2, 4, 80))
    assert out_shapes == [(2, 320), (2, 320), (2, 80)]
    proposal = mx.sym.contrib.Proposal(mx.sym.var("cls"), mx.sym.var("bbox"), mx.sym.var("info"),
                                       output_score=True, rpn_post_nms_top_n=9)
    arg_shapes, out_shapes, _ = proposal.infer_shape(cls=(1, 24, 3, 3))
    assert arg_shapes == [(1, 24, 3, 3), (1, 48, 3, 3), (1, 3)]
    assert out_shapes == [(9, 5), (9, 1)]
    rng = numpy.random.default_rng(5)
    ssd = _ssd_inputs(rng, batch=2, classes=4, height=4, width=5)
    ssd["loc"] = numpy.zeros((2, 320), "float32")
    ssd["prob"] = rng.dirichlet(numpy.ones(4), (2, 80)).transpose(0, 2, 1).astype("float32")
    exe = det.simple_bind(mx.cpu(), data=(2, 3, 4, 5), prob=(2, 4, 80), loc=(2, 320))
    exe.forward(is_train=True, data=nd.zeros((2, 3, 4, 5)), prob=nd.array(ssd["prob"]),
                loc=nd.array(ssd["loc"]))
    want = nd.contrib.MultiBoxDetection(
        nd.array(ssd["prob"]), nd.array(ssd["loc"]),
        nd.contrib.MultiBoxPrior(nd.zeros((2, 3, 4, 5)), sizes=(0.5, 0.3), ratios=(1, 2, 0.5)))
    numpy.testing.assert_allclose(exe.outputs[0].asnumpy(), want.asnumpy(), rtol=1e-6)
    exe.backward([nd.ones((2, 80, 6))])
    assert not exe.grad_dict["prob"].asnumpy().any() and not exe.grad_dict["loc"].asnumpy().any()
    loaded = mx.sym.load_json(det.tojson())
    assert loaded.infer_shape(data=(2, 3, 4, 5), prob=(2, 4, 80), loc=(2, 320))[1] == [(2, 80, 6)]


def test_gradients_are_zero_where_mxnet_declares_none():
    prob = nd.array(numpy.full((1, 2, 2), 0.5))
    loc, anchors = nd.zeros((1, 8)), nd.array([[[0, 0, 0.5, 0.5], [0.5, 0.5, 1, 1]]])
    for arr in (prob, loc, anchors):
        arr.attach_grad()
    with mx.autograd.record():
        out = nd.contrib.MultiBoxDetection(prob, loc, anchors) * 2
    out.backward()
    assert not any(a.grad.asnumpy().any() for a in (prob, loc, anchors))


# -- MXNet 1.9.1 ---------------------------------------------------------------------------------
@requires_oracle
@pytest.mark.oracle
def test_multibox_ops_match_mxnet():
    rng = numpy.random.default_rng(10)
    inputs = _ssd_inputs(rng, batch=2, classes=4, height=5, width=6)
    inputs["label"] = numpy.array([[[0, 0.1, 0.1, 0.4, 0.5], [2, 0.5, 0.4, 0.9, 0.95],
                                    [-1, -1, -1, -1, -1]],
                                   [[1, 0.2, 0.3, 0.6, 0.7], [-1] * 5, [-1] * 5]], "float32")
    inputs["pred"] = rng.standard_normal((2, 4, 90)).astype("float32")
    code = """
data = mx.nd.array(inputs['data'])
a = mx.nd.contrib.MultiBoxPrior(data, sizes=[0.3, 0.2], ratios=[1, 2], clip=True)
b = mx.nd.contrib.MultiBoxPrior(data, sizes=(0.6,), ratios=(1, 3), steps=(0.2, 0.15),
                                offsets=(0.2, 0.7))
prob = mx.nd.array(inputs['prob'])
det = mx.nd.contrib.MultiBoxDetection(prob, mx.nd.array(inputs['loc']), a, threshold=0.3,
                                      nms_threshold=0.3)
det2 = mx.nd.contrib.MultiBoxDetection(prob, mx.nd.array(inputs['loc']), a, clip=False,
                                       force_suppress=True, nms_topk=5, threshold=0.3,
                                       variances=(0.2, 0.2, 0.1, 0.1))
t = mx.nd.contrib.MultiBoxTarget(a, mx.nd.array(inputs['label']), mx.nd.array(inputs['pred']),
                                 overlap_threshold=0.3, negative_mining_ratio=2,
                                 negative_mining_thresh=0.3)
t2 = mx.nd.contrib.MultiBoxTarget(a, mx.nd.array(inputs['label']), mx.nd.array(inputs['pred']),
                                  ignore_label=-3, variances=(0.3, 0.3, 0.1, 0.1))
outputs.update(a=a.asnumpy(), b=b.asnumpy(), det=det.asnumpy(), det2=det2.asnumpy())
outputs.update({f't{i}': x.asnumpy() for i, x in enumerate(t)})
outputs.update({f'u{i}': x.asnumpy() for i, x in enumerate(t2)})
"""
    mine, theirs = run_both(code, inputs)
    assert_same_results(mine, theirs, rtol=1e-5, atol=1e-5)


@requires_oracle
@pytest.mark.oracle
def test_box_coding_and_matching_match_mxnet():
    rng = numpy.random.default_rng(11)
    lo = rng.uniform(0, 0.6, (2, 6, 2))
    inputs = {"anchors": numpy.concatenate([lo, lo + rng.uniform(0.05, 0.4, (2, 6, 2))], -1)
              .astype("float32"),
              "refs": numpy.concatenate([lo[:, :4], lo[:, :4] + 0.2], -1).astype("float32"),
              "samples": rng.integers(-1, 2, (2, 6)).astype("float32"),
              "matches": rng.integers(0, 4, (2, 6)).astype("float32"),
              "offsets": rng.standard_normal((2, 6, 4)).astype("float32"),
              "scores": rng.uniform(0, 1, (3, 5, 4)).astype("float32")}
    inputs["scores"][0, 1, 2] = inputs["scores"][0, 3, 0]   # a tie
    code = """
A = lambda k: mx.nd.array(inputs[k])
y, m = mx.nd.contrib.box_encode(A('samples'), A('matches'), A('anchors'), A('refs'),
                                mx.nd.array([0.1, -0.1, 0.2, 0]), mx.nd.array([0.1, 0.1, 0.2, 0.2]))
d1 = mx.nd.contrib.box_decode(A('offsets'), A('anchors')[:1], 0.1, 0.2, 0.3, 0.4,
                              format='corner', clip=0.5)
d2 = mx.nd.contrib.box_decode(A('offsets'), A('anchors')[1:])
outputs.update(y=y.asnumpy(), m=m.asnumpy(), d1=d1.asnumpy(), d2=d2.asnumpy())
for i, kw in enumerate([dict(threshold=0.2), dict(threshold=0.9, is_ascend=True),
                        dict(threshold=0.1, topk=2)]):
    r, c = mx.nd.contrib.bipartite_matching(A('scores'), **kw)
    outputs[f'r{i}'], outputs[f'c{i}'] = r.asnumpy(), c.asnumpy()
"""
    mine, theirs = run_both(code, inputs)
    assert_same_results(mine, theirs, rtol=1e-5, atol=1e-5)


@requires_oracle
@pytest.mark.oracle
def test_proposals_and_psroipooling_match_mxnet():
    rng = numpy.random.default_rng(12)
    inputs = _rpn_inputs(rng, batch=2, height=7, width=8, anchors=6)
    inputs["feat"] = rng.standard_normal((2, 2 * 9, 7, 8)).astype("float32")
    inputs["rois"] = numpy.array([[0, 3.4, 10, 90.5, 70], [1, 40, 2.5, 60, 30],
                                  [1, -5, -3, 200, 150]], "float32")
    inputs["head"] = rng.standard_normal((3, 2, 3, 3)).astype("float32")
    code = """
A = lambda k: mx.nd.array(inputs[k])
kw = dict(rpn_pre_nms_top_n=120, rpn_post_nms_top_n=40, threshold=0.6, rpn_min_size=3,
          scales=(2, 4, 8), ratios=(0.5, 2), output_score=True)
r, s = mx.nd.contrib.MultiProposal(A('cls'), A('bbox'), A('info'), **kw)
r1, s1 = mx.nd.contrib.Proposal(A('cls')[1:], A('bbox')[1:], A('info')[1:], **kw)
kw.update(iou_loss=True, rpn_pre_nms_top_n=-1)
r2 = mx.nd.contrib.MultiProposal(A('cls'), A('bbox') * 10, A('info'), **kw)[0]
feat = A('feat')
feat.attach_grad()
with mx.autograd.record():
    p = mx.nd.contrib.PSROIPooling(feat, A('rois'), spatial_scale=0.125, output_dim=2,
                                   pooled_size=3)
p.backward(A('head'))
outputs.update(r=r.asnumpy(), s=s.asnumpy(), r1=r1.asnumpy(), s1=s1.asnumpy(), r2=r2.asnumpy(),
               p=p.asnumpy(), g=feat.grad.asnumpy())
"""
    mine, theirs = run_both(code, inputs)
    assert_same_results(mine, theirs, rtol=1e-4, atol=1e-4)


def test_blocked_greedy_nms_equals_the_plain_loop():
    from mxlab.ops.detection import greedy_nms
    rng = numpy.random.default_rng(6)
    lo = rng.uniform(0, 1, (700, 2))
    boxes = numpy.concatenate([lo, lo + rng.uniform(0.02, 0.3, (700, 2))], axis=1)
    a, b = boxes[:, None], boxes[None]
    inter = (numpy.clip(numpy.minimum(a[..., 2], b[..., 2]) - numpy.maximum(a[..., 0], b[..., 0]),
                        0, None)
             * numpy.clip(numpy.minimum(a[..., 3], b[..., 3]) - numpy.maximum(a[..., 1], b[..., 1]),
                          0, None))
    area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    suppress = inter / (area[:, None] + area[None] - inter) > 0.2
    alive, want = numpy.ones(700, bool), []
    for i in range(700):
        if alive[i]:
            want.append(i)
            alive[i + 1:] &= ~suppress[i, i + 1:]
    for block in (7, 256, 1000):
        kept, mask = greedy_nms(numpy, 700, lambda r, c: suppress[r][:, c], block=block)
        assert kept == want and numpy.flatnonzero(mask).tolist() == want
    assert greedy_nms(numpy, 700, lambda r, c: suppress[r][:, c], limit=5, block=3)[0] == want[:5]


@requires_oracle
@pytest.mark.oracle
def test_box_nms_in_both_precisions_matches_mxnet():
    rng = numpy.random.default_rng(13)
    data = numpy.zeros((2, 9, 6), "float32")
    data[..., 0] = rng.integers(-1, 3, (2, 9))
    data[..., 1] = rng.uniform(0, 1, (2, 9)).round(2)
    lo = rng.uniform(0, 0.6, (2, 9, 2))
    data[..., 2:4], data[..., 4:6] = lo, lo + rng.uniform(0.05, 0.5, (2, 9, 2))
    inputs = {**_ssd_inputs(rng, batch=1, classes=3, height=3, width=3), "boxes": data}
    code = """
d = mx.nd.array(inputs['boxes'])
for i, kw in enumerate([dict(id_index=0), dict(id_index=0, background_id=1, topk=4),
                        dict(id_index=0, force_suppress=True, valid_thresh=0.3,
                             out_format='center'), dict(overlap_thresh=0.2)]):
    outputs[f'nms{i}'] = mx.nd.contrib.box_nms(d, **kw).asnumpy()
    outputs[f'half{i}'] = mx.nd.contrib.box_nms(d.astype('float16'), **kw).asnumpy()
a = mx.nd.contrib.MultiBoxPrior(mx.nd.array(inputs['data']), sizes=[0.4, 0.2], ratios=[1, 2])
try:   # the legacy detection ops take float32 only
    mx.nd.contrib.MultiBoxDetection(mx.nd.array(inputs['prob'], dtype='float64'),
                                    mx.nd.array(inputs['loc']), a).wait_to_read()
except mx.base.MXNetError as e:
    outputs['refused'] = np.array('data type' in str(e))
"""
    mine, theirs = run_both(code, inputs)
    assert_same_results(mine, theirs, rtol=2e-3, atol=2e-3)
