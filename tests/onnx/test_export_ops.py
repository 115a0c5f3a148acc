"""Each mapped op, exported with a dynamic batch: onnxruntime and the re-imported model give
mxlab's outputs (small symbols, a few inputs each)."""
import pytest
from onnx_helpers import random_params, roundtrip

import mxlab as mx

S = mx.sym
X = S.var("data")
Y = S.var("other")
N = 2  # batch of the exported shapes; roundtrip also runs batch 3


def conv(**kw):
    return S.Convolution(X, name="conv", **kw)


# name -> (symbol, shapes, extra roundtrip arguments)
CASES = {
    "fc_flatten": (S.FullyConnected(X, num_hidden=4, name="fc"), {"data": (N, 3, 5)}, {}),
    "fc_last_axis": (S.FullyConnected(X, num_hidden=4, flatten=False, name="fc"),
                     {"data": (N, 3, 5)}, {}),
    "fc_no_bias": (S.FullyConnected(X, num_hidden=4, no_bias=True, name="fc"),
                   {"data": (N, 5)}, {}),
    "conv2d": (conv(kernel=(3, 3), pad=(1, 1), stride=(2, 2), num_filter=4),
               {"data": (N, 2, 7, 7)}, {}),
    "conv1d_grouped_dilated": (conv(kernel=(3,), dilate=(2,), num_group=2, num_filter=4),
                               {"data": (N, 4, 9)}, {}),
    "conv3d_no_bias": (conv(kernel=(2, 2, 2), num_filter=3, no_bias=True),
                       {"data": (N, 2, 4, 4, 4)}, {}),
    "deconv": (S.Deconvolution(X, kernel=(3, 3), stride=(2, 2), pad=(1, 1), adj=(1, 1),
                               num_filter=3, no_bias=False, name="deconv"),
               {"data": (N, 2, 4, 4)}, {}),
    "pool_max": (S.Pooling(X, kernel=(3, 3), stride=(2, 2), pad=(1, 1)),
                 {"data": (N, 2, 7, 7)}, {}),
    "pool_max_full": (S.Pooling(X, kernel=(2, 2), stride=(2, 2), pooling_convention="full"),
                      {"data": (N, 2, 7, 7)}, {}),
    "pool_avg": (S.Pooling(X, kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg"),
                 {"data": (N, 2, 6, 6)}, {}),
    "pool_avg_exclude_pad": (S.Pooling(X, kernel=(3,), pad=(1,), pool_type="avg",
                                       count_include_pad=False), {"data": (N, 2, 6)}, {}),
    "pool_global_avg": (S.Pooling(X, kernel=(1, 1), global_pool=True, pool_type="avg"),
                        {"data": (N, 3, 5, 4)}, {}),
    "pool_global_max": (S.Pooling(X, kernel=(1, 1), global_pool=True), {"data": (N, 3, 5, 4)},
                        {}),
    "batchnorm": (S.BatchNorm(X, fix_gamma=False, eps=1e-3, name="bn"), {"data": (N, 3, 4, 4)},
                  {}),
    "batchnorm_fix_gamma": (S.BatchNorm(X, name="bn"), {"data": (N, 3, 4)}, {}),
    "layernorm": (S.LayerNorm(X, name="ln"), {"data": (N, 3, 6)}, {}),
    "instancenorm": (S.InstanceNorm(X, name="in"), {"data": (N, 3, 4, 4)}, {}),
    "groupnorm": (S.GroupNorm(X, num_groups=2, name="gn"), {"data": (N, 4, 3, 3)}, {}),
    "dropout": (S.Dropout(X, p=0.5), {"data": (N, 4)}, {}),
    "embedding": (S.Embedding(X, input_dim=7, output_dim=3, name="emb"), {"data": (N, 5)},
                  {"ints": {"data": 7}}),
    "softmax": (S.softmax(X, axis=1), {"data": (N, 4, 3)}, {}),
    "softmax_temperature": (S.softmax(X, temperature=2.0), {"data": (N, 4)}, {}),
    "log_softmax": (S.log_softmax(X), {"data": (N, 4)}, {}),
    "concat": (S.Concat(X, S.tanh(X), dim=1), {"data": (N, 2, 3)}, {}),
    "split_squeeze": (S.Group(list(S.split(X, num_outputs=3, axis=1, squeeze_axis=True))),
                      {"data": (N, 3, 4)}, {}),
    "split": (S.split(X, num_outputs=2, axis=2)[1], {"data": (N, 3, 4)}, {}),
    "reshape_codes_0_-1": (S.Reshape(X, shape=(0, -1)), {"data": (N, 3, 4)}, {}),
    "reshape_codes_-3_-2": (S.Reshape(X, shape=(-3, -2)), {"data": (N, 3, 4, 2)}, {}),
    "reshape_codes_-4": (S.Reshape(X, shape=(0, -4, 2, -1, 0)), {"data": (N, 6, 5)}, {}),
    "reshape_merge_batch": (S.Reshape(X, shape=(-1, 4)), {"data": (N, 3, 4)}, {}),
    "flatten": (S.Flatten(X), {"data": (N, 3, 2, 2)}, {}),
    "transpose": (S.transpose(X, axes=(0, 2, 1)), {"data": (N, 3, 4)}, {}),
    "swapaxes": (S.SwapAxis(X, dim1=1, dim2=2), {"data": (N, 3, 4)}, {}),
    "slice": (S.slice(X, begin=(None, 1, None), end=(None, None, 1), step=(None, 1, -1)),
              {"data": (N, 4, 5)}, {}),
    "slice_axis": (S.slice_axis(X, axis=2, begin=1, end=-1), {"data": (N, 3, 5)}, {}),
    "expand_squeeze": (S.squeeze(S.expand_dims(X, axis=1), axis=1), {"data": (N, 3)}, {}),
    "stack": (S.stack(X, X * 2, axis=1), {"data": (N, 3)}, {}),
    "broadcast_binary": (S.broadcast_sub(S.broadcast_mul(X, Y), S.broadcast_div(X, Y + 3)),
                         {"data": (N, 3, 4), "other": (N, 1, 4)}, {}),
    "elemwise_maxmin": (S.broadcast_maximum(X, Y) + S.broadcast_minimum(X, Y),
                        {"data": (N, 3), "other": (N, 3)}, {}),
    "power": (S.broadcast_power(X, Y), {"data": (N, 3), "other": (N, 3)},
              {"low": 0.5, "high": 2.0}),
    "scalars": ((1 - X) * 2 + 3 / (X + 4) - X / 5 + X ** 2 + 2 ** X, {"data": (N, 3)}, {}),
    "scalar_maxmin": (S.maximum(X, 0.2) + S.minimum(X, -0.1), {"data": (N, 3)}, {}),
    "comparisons": ((X > 0.1) + (X <= 0) * 2 + (X == Y) + (X != 0.5) + S.broadcast_lesser(X, Y),
                    {"data": (N, 3), "other": (N, 3)}, {}),
    "unary": (S.abs(X) + S.exp(X) + S.floor(X) + S.ceil(X) + S.sin(X) + S.cos(X) + S.erf(X)
              + S.sign(X) + S.negative(X) + S.square(X) + S.arctan(X) + S.sinh(X),
              {"data": (N, 3)}, {}),
    "unary_positive": (S.log(X) + S.sqrt(X) + S.rsqrt(X) + S.reciprocal(X), {"data": (N, 3)},
                       {"low": 0.5, "high": 2.0}),
    "log_exp_variants": (S.log1p(X) + S.expm1(X) + S.log2(X) + S.log10(X), {"data": (N, 3)},
                         {"low": 0.5, "high": 2.0}),
    "logical_not": (S.logical_not(X > 0) + S.BlockGrad(X) + S.make_loss(X), {"data": (N, 3)},
                    {}),
    "reverse_tile": (S.reverse(X, axis=1)
                     + S.slice_axis(S.tile(X, reps=(1, 2)), axis=2, begin=0, end=2),
                     {"data": (N, 3, 2)}, {}),
    "softmax_activation": (S.SoftmaxActivation(X) + S.SoftmaxActivation(X, mode="channel"),
                           {"data": (N, 3, 2)}, {}),
    "add_n": (S.add_n(X, X * 2, S.tanh(X)), {"data": (N, 3)}, {}),
    "sum_axis": (S.sum(X, axis=1), {"data": (N, 3, 4)}, {}),
    "mean_keepdims": (S.mean(X, axis=(1, 2), keepdims=True), {"data": (N, 3, 4)}, {}),
    "max_exclude": (S.max(X, axis=1, exclude=True), {"data": (N, 3, 4)}, {}),
    "min_prod": (S.min(X, axis=2) + S.prod(X, axis=2), {"data": (N, 3, 4)}, {}),
    "norm": (S.norm(X, axis=1), {"data": (N, 3, 4)}, {}),
    "argmax": (S.argmax(X, axis=1), {"data": (N, 5)}, {}),
    "dot": (S.dot(X, S.var("w", shape=(4, 3))), {"data": (N, 4)}, {}),
    "dot_transpose_b": (S.dot(X, S.var("w", shape=(3, 4)), transpose_b=True),
                        {"data": (N, 5, 4)}, {}),
    "batch_dot": (S.batch_dot(X, Y, transpose_b=True), {"data": (N, 3, 4), "other": (N, 5, 4)},
                  {}),
    "batch_dot_transpose_a": (S.batch_dot(X, Y, transpose_a=True),
                              {"data": (N, 4, 3), "other": (N, 4, 5)}, {}),
    "clip": (S.clip(X, -0.5, 0.3), {"data": (N, 4)}, {}),
    "where": (S.where(X > 0, X, Y), {"data": (N, 4), "other": (N, 4)}, {}),
    "cast": (S.Cast(S.Cast(X * 10, dtype="int32"), dtype="float32"), {"data": (N, 4)}, {}),
    "broadcast_to": (S.broadcast_to(X, shape=(0, 3, 4)), {"data": (N, 1, 4)}, {}),
    "broadcast_like": (S.broadcast_like(X, Y), {"data": (N, 1, 4), "other": (N, 3, 4)}, {}),
    "zeros_ones_like": (S.zeros_like(X) + S.ones_like(X) + X, {"data": (N, 4)}, {}),
    "take": (S.take(S.var("table", shape=(6, 3)), X), {"data": (N, 4)}, {"ints": {"data": 6}}),
}
ACTIVATIONS = ["relu", "sigmoid", "tanh", "softrelu", "softsign", "log_sigmoid", "mish"]
LEAKY = ["leaky", "elu", "selu", "gelu", "prelu", "rrelu"]


@pytest.mark.parametrize("case", sorted(CASES))
def test_op_roundtrip(case, tmp_path):
    sym, shapes, extra = CASES[case]
    params = random_params(sym, shapes)
    roundtrip(sym, params, shapes, tmp_path / "model.onnx", **extra)


@pytest.mark.parametrize("act_type", ACTIVATIONS)
def test_activation_roundtrip(act_type, tmp_path):
    sym = S.Activation(X, act_type=act_type)
    roundtrip(sym, {}, {"data": (N, 5)}, tmp_path / "model.onnx", low=-3, high=3)


@pytest.mark.parametrize("act_type", LEAKY)
def test_leaky_relu_roundtrip(act_type, tmp_path):
    gamma = [S.var("gamma", shape=(3,))] if act_type == "prelu" else []
    sym = S.LeakyReLU(X, *gamma, act_type=act_type, slope=0.3, name="act")
    sym = sym[0] if act_type == "rrelu" else sym  # NOTE: rrelu's second output is its mask
    shapes = {"data": (N, 3, 4)}
    roundtrip(sym, random_params(sym, shapes), shapes, tmp_path / "model.onnx", low=-3, high=3)


def test_an_output_the_converter_does_not_write_is_an_error(tmp_path):
    sym = S.LeakyReLU(X, act_type="rrelu", name="act")  # outputs: value and (training) mask
    with pytest.raises(mx.onnx.UnmappedOpError, match=r"'LeakyReLU' \(node 'act'\).*output 1"):
        mx.onnx.export_model(sym, {}, [(N, 3)], onnx_file_path=str(tmp_path / "m.onnx"))


def test_dropout_that_drops_at_inference_is_not_exported(tmp_path):
    sym = S.Dropout(X, p=0.5, mode="always", name="drop")
    with pytest.raises(mx.onnx.UnmappedOpError, match="'Dropout' \\(node 'drop'\\).*always"):
        mx.onnx.export_model(sym, {}, [(N, 3)], onnx_file_path=str(tmp_path / "m.onnx"))
