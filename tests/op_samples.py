"""Sample inputs for every registered op, derived from its metadata where possible.

An op's attributes are its defaults plus :data:`SPECIAL`'s; its input shapes come from its own
shape rule given a data shape (FullyConnected, Convolution and BatchNorm fill their weights),
else every input takes the data shape; values are uniform in (0.2, 0.9) (inside every unary
op's domain), float64 so central differences are exact enough. :data:`SPECIAL` adds what
metadata cannot tell: required attributes, index inputs, shapes. :data:`UNSUPPORTED` lists the
ops no generic path check can run, with the reason.
"""
import numpy

import mxlab
from mxlab.ops.registry import get_op, list_ops

from op_paths import Sample

DATA_SHAPES = ((2, 3), (2, 3, 4, 4), (3,))

# name -> {"attrs": ..., "shapes": [...], "ints": {input: high}, "int_dtype": ..., "dtype": ...,
#          "grad": False}
_SPD = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]]
_WELL_CONDITIONED = [[3.0, 0.5, 0.2], [0.0, 2.0, 0.4], [0.0, 0.0, 1.0]]

SPECIAL = {
    "Activation": {"attrs": {"act_type": "tanh"}},
    "Cast": {"attrs": {"dtype": "float32"}, "grad": False},
    "Convolution": {"attrs": {"kernel": (3, 3), "num_filter": 2}},
    "_contrib_DeformableConvolution": {
        "attrs": {"kernel": (3, 3), "num_filter": 2, "pad": (1, 1)},
        "shapes": [(1, 2, 4, 4), (1, 18, 4, 4), (2, 2, 3, 3), (2,)]},
    "_contrib_ModulatedDeformableConvolution": {
        "attrs": {"kernel": (3, 3), "num_filter": 2, "pad": (1, 1)},
        "shapes": [(1, 2, 4, 4), (1, 18, 4, 4), (1, 9, 4, 4), (2, 2, 3, 3), (2,)]},
    "masked_softmax": {"shapes": [(2, 3), (2, 3)], "ints": {1: 2},
                       "fixed": {1: [[1, 1, 0], [1, 0, 1]]}},
    # NOTE: masked positions are -inf: central differences of the output are not finite
    "masked_log_softmax": {"shapes": [(2, 3), (2, 3)], "ints": {1: 2},
                           "fixed": {1: [[1, 1, 0], [1, 0, 1]]}, "numeric": False},
    "_unravel_index": {"attrs": {"shape": (3, 4)}, "shapes": [(5,)], "ints": {0: 12},
                       "grad": False},
    "_ravel_multi_index": {"attrs": {"shape": (3, 4)}, "shapes": [(2, 5)], "ints": {0: 3},
                           "grad": False},
    "Deconvolution": {"attrs": {"kernel": (3, 3), "num_filter": 2}},
    "ElementWiseSum": {"attrs": {"num_args": 2}},
    "Embedding": {"attrs": {"input_dim": 5, "output_dim": 3}, "shapes": [(2, 3), (5, 3)],
                  "ints": {0: 5}},
    "_contrib_SparseEmbedding": {"attrs": {"input_dim": 5, "output_dim": 3},
                                 "shapes": [(2, 3), (5, 3)], "ints": {0: 5}},
    "FullyConnected": {"attrs": {"num_hidden": 3}},
    "SliceChannel": {"attrs": {"num_outputs": 3}, "shapes": [(2, 6)]},
    "_npi_split": {"attrs": {"sections": 3, "axis": 1}, "shapes": [(2, 6)]},
    "_split_v2": {"attrs": {"indices": (0, 2, 5), "axis": 1}, "shapes": [(2, 6)]},
    "depth_to_space": {"attrs": {"block_size": 2}, "shapes": [(1, 8, 2, 3)]},
    "im2col": {"attrs": {"kernel": (2, 2), "stride": (1, 2), "pad": (1, 0)},
               "shapes": [(1, 2, 3, 4)]},
    "col2im": {"attrs": {"output_size": (3, 4), "kernel": (2, 2), "stride": (1, 2),
                         "pad": (1, 0)}, "shapes": [(1, 8, 8)]},
    "multi_all_finite": {"attrs": {"num_arrays": 2}, "grad": False},
    "softmax_cross_entropy": {"shapes": [(2, 3), (2,)], "ints": {1: 3}},
    "_contrib_allclose": {"grad": False},
    "fill_element_0index": {"shapes": [(2, 3), (2,), (2,)], "ints": {2: 3}},
    "space_to_depth": {"attrs": {"block_size": 2}, "shapes": [(1, 2, 4, 6)]},
    "_npi_array_split": {"attrs": {"sections": 2, "axis": 1}, "shapes": [(2, 6)]},
    "Reshape": {"attrs": {"shape": (3, 2)}},
    "_arange": {"attrs": {"start": 1, "stop": 7, "step": 2}},
    "_npi_arange": {"attrs": {"start": 1, "stop": 7, "step": 2}},
    "_eye": {"attrs": {"N": 3, "k": 1}},
    "_full": {"attrs": {"shape": (2, 3), "value": 1.5}},
    "_linspace": {"attrs": {"start": 0, "stop": 1, "num": 5}},
    "_npi_full_like": {"attrs": {"fill_value": 2.5}},
    "_random_randint": {"attrs": {"low": 0, "high": 9, "shape": (2, 3)}},
    "_random_normal": {"attrs": {"shape": (2, 3)}},
    "_random_uniform": {"attrs": {"shape": (2, 3)}},
    "_sample_uniform": {"low_high": True},
    "_sample_unique_zipfian": {"attrs": {"range_max": 50, "shape": (2, 3)}, "grad": False},
    # NOTE: MXNet gives discrete densities no gradient in the sample (a count); central differences
    #   in it would not be zero. tests/ops/test_distributions.py checks the parameter gradients.
    **{f"_random_pdf_{name}": {"numeric": False}
       for name in ("poisson", "negative_binomial", "generalized_negative_binomial")},
    "_npi_bitwise_not": {"dtype": "int32"},
    "_empty": {"attrs": {"shape": (2, 3)}, "values": False},   # uninitialised memory
    "_contrib_boolean_mask": {"shapes": [(3, 2), (3,)], "ints": {1: 2}},
    "_np_moveaxis": {"attrs": {"source": 0, "destination": 1}},
    "_np_reshape": {"attrs": {"newshape": (3, 2)}},
    "_npx_reshape": {"attrs": {"newshape": (3, 2)}},
    "broadcast_to": {"attrs": {"shape": (2, 2, 3)}},
    "_npi_broadcast_to": {"attrs": {"shape": (2, 2, 3)}},
    "_npi_eye": {"attrs": {"N": 3, "k": 1}},
    "_npx_index_add": {"shapes": [(3, 4), (1, 2), (2, 4)], "ints": {1: 3}, "int_dtype": "int64",
                       "fixed": {1: [[0, 2]]}},
    "_npx_index_update": {"shapes": [(3, 4), (1, 2), (2, 4)], "ints": {1: 3},
                          "int_dtype": "int64", "fixed": {1: [[0, 2]]}},
    "expand_dims": {"attrs": {"axis": 1}},
    "one_hot": {"attrs": {"depth": 4}, "ints": {0: 4}},
    "repeat": {"attrs": {"repeats": 2}},
    "reverse": {"attrs": {"axis": 0}},
    "slice": {"attrs": {"begin": (0, 1), "end": (2, 3)}},
    "slice_axis": {"attrs": {"axis": 1, "begin": 0, "end": 2}},
    "tile": {"attrs": {"reps": (2, 1)}},
    "scatter_nd": {"attrs": {"shape": (4, 3)}, "shapes": [(2, 3), (1, 2)], "ints": {1: 4},
                   "fixed": {1: [[0, 2]]}},   # distinct indices: duplicates have no gradient
    "gather_nd": {"shapes": [(4, 3), (1, 2)], "ints": {1: 4}},
    "take": {"shapes": [(4, 3), (2,)], "ints": {1: 4}},
    "pick": {"shapes": [(2, 3), (2,)], "ints": {1: 3}},
    "batch_take": {"shapes": [(3, 4), (3,)], "ints": {1: 4}, "grad": False},
    "batch_dot": {"shapes": [(2, 3, 4), (2, 4, 2)]},
    "dot": {"shapes": [(2, 3), (3, 4)]},
    "_np_dot": {"shapes": [(2, 3), (3, 4)]},
    "_npi_matmul": {"shapes": [(2, 3), (3, 4)]},
    "broadcast_like": {"shapes": [(1, 3), (2, 3)]},
    "broadcast_axis": {"attrs": {"axis": 0, "size": 2}, "shapes": [(1, 3)]},
    "_reduce_sum_like": {"shapes": [(2, 3), (1, 3)]},
    "reshape_like": {"shapes": [(2, 3), (3, 2)]},
    "stack": {"attrs": {"num_args": 2}},
    "Concat": {"attrs": {"num_args": 2}},
    "_npi_concatenate": {"attrs": {"num_args": 2}},
    "where": {"ints": {0: 2}},
    "squeeze": {"shapes": [(2, 1, 3)]},
    "LRN": {"attrs": {"nsize": 3}, "shapes": [(2, 3, 4, 4)]},
    # NOTE: a loss head: its gradient is the hinge loss's, whatever the head gradient
    "SVMOutput": {"shapes": [(2, 3), (2,)], "ints": {1: 3}, "numeric": False},
    "Pooling": {"attrs": {"kernel": (2, 2)}, "shapes": [(2, 3, 4, 4)]},
    # NOTE: their gradient rules are not derivatives (stop / loss gradients): no central
    #   differences, the paths are still compared with each other.
    "BlockGrad": {"numeric": False},
    "MakeLoss": {"numeric": False},
    "make_loss": {"numeric": False},
    "SoftmaxOutput": {"shapes": [(2, 3), (2,)], "ints": {1: 3}, "numeric": False},
    "LinearRegressionOutput": {"shapes": [(2, 3), (2, 3)], "numeric": False},
    "LogisticRegressionOutput": {"shapes": [(2, 3), (2, 3)], "numeric": False},
    "MAERegressionOutput": {"shapes": [(2, 3), (2, 3)], "numeric": False},
    "SequenceMask": {"attrs": {"use_sequence_length": True}, "shapes": [(3, 2, 2), (2,)],
                     "ints": {1: 3}, "fixed": {1: [1, 3]}},
    "SequenceReverse": {"attrs": {"use_sequence_length": True}, "shapes": [(3, 2, 2), (2,)],
                        "ints": {1: 3}, "fixed": {1: [1, 3]}},
    "RNN": {"attrs": {"state_size": 2, "num_layers": 1, "mode": "lstm"},
            "shapes": [(3, 2, 2), (48,), (1, 2, 2), (1, 2, 2)]},
    "_contrib_box_iou": {"shapes": [(2, 4), (3, 4)], "grad": False},
    "_contrib_dynamic_reshape": {"shapes": [(2, 3), (2,)], "ints": {1: 4}, "fixed": {1: [3, -1]}},
    "_contrib_MultiBoxPrior": {"dtype": "float32", "shapes": [(1, 2, 2, 3)],
                               "attrs": {"sizes": (0.5, 0.2)}, "grad": False},
    "_contrib_MultiBoxTarget": {
        "dtype": "float32", "shapes": [(1, 3, 4), (2, 2, 5), (2, 2, 3)], "grad": False,
        "fixed": {0: [[[0.1, 0.1, 0.4, 0.5], [0.3, 0.2, 0.9, 0.8], [0.5, 0.5, 0.7, 0.9]]],
                  1: [[[0, 0.1, 0.1, 0.5, 0.5], [1, 0.4, 0.3, 0.9, 0.9]],
                      [[1, 0.2, 0.2, 0.6, 0.8], [-1, -1, -1, -1, -1]]]}},
    "_contrib_MultiBoxDetection": {
        "dtype": "float32", "shapes": [(2, 3, 3), (2, 12), (1, 3, 4)], "grad": False,
        "fixed": {2: [[[0.1, 0.1, 0.4, 0.5], [0.3, 0.2, 0.9, 0.8], [0.5, 0.5, 0.7, 0.9]]]}},
    "_contrib_box_encode": {
        "shapes": [(1, 3), (1, 3), (1, 3, 4), (1, 2, 4), (4,), (4,)], "grad": False,
        "fixed": {0: [[1, 0, 1]], 1: [[1, 0, 0]],
                  2: [[[0.1, 0.1, 0.4, 0.5], [0.3, 0.2, 0.9, 0.8], [0.5, 0.5, 0.7, 0.9]]],
                  3: [[[0.2, 0.1, 0.5, 0.5], [0.3, 0.3, 0.8, 0.8]]]}},
    "_contrib_box_decode": {"shapes": [(2, 3, 4), (1, 3, 4)], "grad": False},
    "_contrib_bipartite_matching": {"shapes": [(2, 3, 4)], "attrs": {"threshold": 0.3},
                                    "grad": False},
    "_contrib_Proposal": {
        "dtype": "float32", "shapes": [(1, 2, 3, 3), (1, 4, 3, 3), (1, 3)], "grad": False,
        "fixed": {2: [[12, 12, 1]]},
        "attrs": {"scales": (2,), "ratios": (1,), "feature_stride": 4, "rpn_min_size": 1,
                  "rpn_pre_nms_top_n": 6, "rpn_post_nms_top_n": 4}},
    "_contrib_MultiProposal": {
        "dtype": "float32", "shapes": [(2, 2, 3, 3), (2, 4, 3, 3), (2, 3)], "grad": False,
        "fixed": {2: [[12, 12, 1], [8, 12, 1]]},
        "attrs": {"scales": (2,), "ratios": (1,), "feature_stride": 4, "rpn_min_size": 1,
                  "rpn_pre_nms_top_n": 6, "rpn_post_nms_top_n": 4, "output_score": True}},
    "_contrib_PSROIPooling": {
        "shapes": [(2, 8, 4, 4), (2, 5)], "ints": {1: 2},
        "fixed": {1: [[0, 0, 0, 5, 6], [1, 2, 1, 7, 7]]},
        "attrs": {"spatial_scale": 0.5, "output_dim": 2, "pooled_size": 2}},
    "_contrib_box_nms": {"shapes": [(1, 4, 6)], "numeric": False},
    "_contrib_interleaved_matmul_selfatt_qk": {"attrs": {"heads": 2}, "shapes": [(3, 2, 12)]},
    "_contrib_interleaved_matmul_selfatt_valatt": {"attrs": {"heads": 2},
                                                   "shapes": [(3, 2, 12), (4, 3, 3)]},
    "_contrib_interleaved_matmul_encdec_qk": {"attrs": {"heads": 2},
                                              "shapes": [(2, 2, 4), (3, 2, 8)]},
    "_contrib_interleaved_matmul_encdec_valatt": {"attrs": {"heads": 2},
                                                  "shapes": [(3, 2, 8), (4, 2, 3)]},
    "amp_multicast": {"attrs": {"num_outputs": 2}, "shapes": [(2, 3), (2, 3)]},
    "_contrib_index_copy": {"shapes": [(4, 3), (2,), (2, 3)], "ints": {1: 4},
                            "fixed": {1: [0, 2]}},
    "_npi_einsum": {"attrs": {"subscripts": "ij,jk->ik", "num_args": 2},
                    "shapes": [(2, 3), (3, 4)]},
    "_npi_pad": {"attrs": {"pad_width": ((1, 0), (0, 2))}},
    "_npi_qr": {"shapes": [(3, 2)]},
    "_npi_solve": {"shapes": [(3, 3), (3, 2)], "fixed": {0: _WELL_CONDITIONED}},
    # NOTE: symmetric-matrix ops read one triangle, so single-element central differences
    #   disagree with the symmetric gradient MXNet gives; tests/ops/test_linalg.py checks them.
    "_npi_cholesky": {"shapes": [(3, 3)], "fixed": {0: _SPD}, "numeric": False},
    "_npi_eigh": {"shapes": [(3, 3)], "fixed": {0: _SPD}, "numeric": False},
    "_npi_eigvalsh": {"shapes": [(3, 3)], "fixed": {0: _SPD}, "numeric": False},
    "_npi_eig": {"shapes": [(3, 3)], "fixed": {0: _WELL_CONDITIONED}, "grad": False},
    "_npi_eigvals": {"shapes": [(3, 3)], "fixed": {0: _WELL_CONDITIONED}, "grad": False},
    # the legacy linalg family: potrf and syevd read one triangle (numeric checks as above)
    "_linalg_gemm": {"attrs": {"transpose_b": True, "alpha": 0.5, "beta": 2.0},
                     "shapes": [(2, 3, 4), (2, 5, 4), (2, 3, 5)]},
    "_linalg_gemm2": {"attrs": {"transpose_a": True}, "shapes": [(2, 4, 3), (2, 4, 5)]},
    "_linalg_potrf": {"shapes": [(3, 3)], "fixed": {0: _SPD}, "numeric": False},
    "_linalg_syevd": {"shapes": [(3, 3)], "fixed": {0: _SPD}, "numeric": False},
    "_linalg_trmm": {"attrs": {"rightside": True, "alpha": 2.0}, "shapes": [(3, 3), (4, 3)]},
    "_linalg_trsm": {"attrs": {"lower": False, "transpose": True}, "shapes": [(3, 3), (3, 4)],
                     "fixed": {0: _WELL_CONDITIONED}},
    "_linalg_potri": {"shapes": [(3, 3)], "fixed": {0: _WELL_CONDITIONED},
                      "attrs": {"lower": False}},
    "_linalg_inverse": {"shapes": [(3, 3)], "fixed": {0: _WELL_CONDITIONED}},
    "_linalg_det": {"shapes": [(3, 3)], "fixed": {0: _WELL_CONDITIONED}},
    "_linalg_slogdet": {"shapes": [(3, 3)], "fixed": {0: _WELL_CONDITIONED}},
    "_linalg_sumlogdiag": {"shapes": [(2, 3, 3)]},
    "_linalg_extractdiag": {"attrs": {"offset": -1}, "shapes": [(2, 3, 3)]},
    "_linalg_makediag": {"attrs": {"offset": 1}, "shapes": [(2, 3)]},
    "_linalg_extracttrian": {"attrs": {"offset": 1}, "shapes": [(2, 4, 4)]},
    "_linalg_maketrian": {"attrs": {"lower": False}, "shapes": [(2, 6)]},
    "_linalg_syrk": {"attrs": {"transpose": True}, "shapes": [(2, 3, 4)]},
    "_linalg_gelqf": {"shapes": [(2, 3)]},
    **{f"_npi_{name}": {"dtype": "int32", "grad": False} for name in (
        "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "gcd", "lcm")},
    "CTCLoss": {"shapes": [(4, 2, 3), (2, 2)], "ints": {1: 3}, "fixed": {1: [[1, 2], [2, 1]]}},
    "Pad": {"attrs": {"pad_width": (0, 0, 0, 0, 1, 1, 1, 1)}, "shapes": [(1, 2, 3, 3)]},
    "BilinearSampler": {"shapes": [(1, 2, 4, 4), (1, 2, 3, 3)]},
    "UpSampling": {"attrs": {"scale": 2, "sample_type": "nearest", "num_args": 2},
                   "shapes": [(1, 2, 2, 3), (1, 1, 4, 6)]},
    "GridGenerator": {"attrs": {"transform_type": "affine", "target_shape": (3, 4)},
                      "shapes": [(2, 6)]},
    "SpatialTransformer": {"attrs": {"target_shape": (3, 3)}, "shapes": [(1, 2, 4, 4), (1, 6)],
                           "fixed": {1: [[0.8, 0.1, 0.05, -0.1, 0.7, 0.1]]}},
    **{name: {"attrs": {"pooled_size": (2, 2), "spatial_scale": 1.0, **extra},
              "shapes": [(2, 2, 5, 5), (3, 5)], "ints": {1: 2},
              "fixed": {1: [[0, 0.2, 0.6, 3.1, 3.4], [1, 1.1, 0.3, 4.4, 2.2], [0, 2, 2, 2, 2]]}}
       for name, extra in (("ROIPooling", {}), ("_contrib_ROIAlign", {"sample_ratio": 2}))},
    "_contrib_RROIAlign": {"attrs": {"pooled_size": (2, 2), "spatial_scale": 1.0},
                           "shapes": [(2, 2, 5, 5), (2, 6)], "grad": False,
                           "fixed": {1: [[0, 2.5, 2.5, 3, 2, 30], [1, 2, 3, 2.5, 2, -45]]}},
    "_histogram": {"attrs": {"bin_cnt": 3, "range": (0, 1)}, "shapes": [(2, 3)], "grad": False},
    "moments": {"attrs": {"axes": (1,)}, "shapes": [(2, 3, 4)]},
    "_contrib_BilinearResize2D": {"attrs": {"height": 3, "width": 7}, "shapes": [(1, 2, 4, 5)]},
    "_contrib_AdaptiveAvgPooling2D": {"attrs": {"output_size": (2, 3)},
                                      "shapes": [(1, 2, 5, 4)]},
    "Correlation": {"attrs": {"kernel_size": 3, "max_displacement": 1, "pad_size": 2,
                              "stride1": 2}, "shapes": [(1, 2, 5, 4), (1, 2, 5, 4)]},
    "_image_random_hue": {"attrs": {"min_factor": 0.0, "max_factor": 0.2},
                          "shapes": [(4, 5, 3)], "grad": False},
    "_image_random_color_jitter": {"attrs": {"brightness": 0.2, "contrast": 0.2,
                                             "saturation": 0.2, "hue": 0.1},
                                   "shapes": [(4, 5, 3)], "grad": False},
    "_image_random_crop": {"attrs": {"width": 3, "height": 2}, "shapes": [(4, 5, 3)],
                           "grad": False},
    "_image_random_resized_crop": {"attrs": {"width": 3, "height": 2}, "shapes": [(4, 5, 3)],
                                   "grad": False},
    "_image_to_tensor": {"shapes": [(4, 5, 3)], "grad": False},
    "_image_normalize": {"attrs": {"mean": (0.1, 0.2, 0.3), "std": (0.5, 2.0, 1.5)},
                         "shapes": [(3, 4, 5)]},
    "_image_crop": {"attrs": {"x": 1, "y": 0, "width": 2, "height": 3}, "shapes": [(4, 5, 3)]},
    "_image_resize": {"attrs": {"size": (3, 2)}, "shapes": [(4, 5, 3)], "grad": False},
    "_image_adjust_lighting": {"attrs": {"alpha": (0.01, -0.02, 0.03)}, "shapes": [(4, 5, 3)]},
    **{f"_image_{name}": {"shapes": [(4, 5, 3)]} for name in ("flip_left_right",
                                                               "flip_top_bottom")},
    **{f"_image_random_{name}": {"attrs": {"min_factor": 0.5, "max_factor": 1.5},
                                 "shapes": [(4, 5, 3)], "grad": False}
       for name in ("brightness", "contrast", "saturation")},
    **{f"_image_random_{name}": {"shapes": [(4, 5, 3)], "grad": False}
       for name in ("flip_left_right", "flip_top_bottom", "lighting")},
    "sgd_update": {"attrs": {"lr": 0.1}, "grad": False},
    "sgd_mom_update": {"attrs": {"lr": 0.1}, "grad": False},
    "adam_update": {"attrs": {"lr": 0.1}, "grad": False},
    "ftrl_update": {"attrs": {"lr": 0.1}, "grad": False},
    "rmsprop_update": {"attrs": {"lr": 0.1}, "grad": False},
    "rmspropalex_update": {"attrs": {"lr": 0.1}, "grad": False},
    "ftml_update": {"attrs": {"lr": 0.1, "t": 2}, "grad": False},
    "signsgd_update": {"attrs": {"lr": 0.1, "wd": 0.01}, "grad": False},
    "lamb_update_phase1": {"attrs": {"t": 2, "wd": 0.1}, "grad": False},
    "lamb_update_phase2": {"attrs": {"lr": 0.1}, "shapes": [(4, 3), (4, 3), (1,), (1,)],
                           "grad": False},
    "_contrib_group_adagrad_update": {"attrs": {"lr": 0.1}, "shapes": [(4, 3), (4, 3), (4, 1)],
                                      "grad": False},
    "khatri_rao": {"attrs": {"num_args": 2}, "shapes": [(3, 2), (2, 2)], "grad": False},
    # straight-through estimators: an identity gradient by design, not the derivative
    "_contrib_round_ste": {"numeric": False},
    "_contrib_sign_ste": {"numeric": False},
    "signum_update": {"attrs": {"lr": 0.1, "momentum": 0.9, "wd_lh": 0.01}, "grad": False},
}

class _MulSin(mxlab.operator.CustomOp):
    """The Python custom op the sweep runs as ``Custom``: ``(a * b, sin(a))``."""

    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0] * in_data[1])
        self.assign(out_data[1], req[1], mxlab.nd.sin(in_data[0]))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        a, b = in_data
        self.assign(in_grad[0], req[0], out_grad[0] * b + out_grad[1] * mxlab.nd.cos(a))
        self.assign(in_grad[1], req[1], out_grad[0] * a)


@mxlab.operator.register("op_paths_mul_sin")
class _MulSinProp(mxlab.operator.CustomOpProp):
    def list_arguments(self):
        return ["a", "b"]

    def list_outputs(self):
        return ["product", "sine"]

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return _MulSin()


SPECIAL["Custom"] = {"attrs": {"op_type": "op_paths_mul_sin"}}

#: Ops no generic path check runs, and why (keep this short: each is a hole in the net).
UNSUPPORTED = {
    "_index_get": "advanced indexing: the frontend builds its key, and hybridized code refuses it "
                  "(as MXNet's HybridBlock does), so no traced path exists",
}


def _uniform(rng, shape):
    return rng.uniform(0.2, 0.9, size=shape)


def _shapes(op, attrs, count, given):
    """Input shapes: given, or filled by the op's shape rule from a data shape, or all alike."""
    if given is not None:
        return [tuple(s) for s in given]
    if count == 0:
        return []
    for data in DATA_SHAPES:
        try:
            ins, _ = op.infer_shapes(attrs, [data] + [None] * (count - 1))
        except Exception:  # noqa: BLE001 - a rule rejecting this data shape: try the next
            continue
        if all(s is not None and None not in s for s in ins):
            return [tuple(s) for s in ins]
    return [DATA_SHAPES[0]] * count


def sample(name):
    """A :class:`~op_paths.Sample` for op ``name``."""
    op = get_op(name)
    special = SPECIAL.get(name, {})
    attrs = op.parse_attrs(special.get("attrs", {}))
    if hasattr(op, "for_attrs"):   # NOTE: Custom: the registered Prop's own op
        op = op.for_attrs(attrs)
    count = op.get_num_inputs(attrs)
    shapes = _shapes(op, attrs, count, special.get("shapes"))
    rng = numpy.random.default_rng(sum(map(ord, name)))
    ints = special.get("ints", {})
    inputs = []
    for i, shape in enumerate(shapes):
        if i in ints:
            inputs.append(rng.integers(0, ints[i], size=shape).astype(
                special.get("int_dtype", numpy.float64)))
        else:
            inputs.append(_uniform(rng, shape).astype(special.get("dtype", "float64")))
    for i, value in special.get("fixed", {}).items():
        inputs[i] = numpy.array(value, dtype=inputs[i].dtype)
    if special.get("low_high"):
        inputs[1] = inputs[0] + 1
    return Sample(op, attrs, inputs, differentiable=special.get("grad", True),
                  numeric=special.get("numeric", True),
                  values=special.get("values", not op.is_random), no_grad=set(ints))


def swept_ops():
    """Every public op (hidden ones run inside their forward op's gradient)."""
    return sorted(n for n in list_ops() if not get_op(n).hidden and n not in UNSUPPORTED)
