"""The fused RNN op (``RNN``: rnn_relu, rnn_tanh, lstm, gru) to and from ONNX's RNN/LSTM/GRU.

MXNet keeps every layer's and direction's weights in one flat vector (all weights, then all
biases; gates ``i, f, g, o`` for LSTM, ``r, z, n`` for GRU); ONNX wants per-layer ``W`` (D, G*H,
in), ``R`` (D, G*H, H) and ``B`` (D, 2*G*H) with gates ``i, o, f, c`` / ``z, r, h``. Export slices
and reorders the flat vector with ONNX ops (so it works whether the parameters are constants or
inputs) and chains one ONNX node per layer; import rebuilds the flat vector from constant
``W``/``R``/``B`` and makes a one-layer RNN op per ONNX node. GRU uses
``linear_before_reset=1``, MXNet's (cuDNN's) form.
"""
import numpy

from ..ops.rnn import GATES, param_layout
from ._registry import attributes, exports, imports

__all__ = []

ONNX_OP = {"rnn_relu": "RNN", "rnn_tanh": "RNN", "lstm": "LSTM", "gru": "GRU"}
# ONNX gate k takes MXNet gate ORDER[mode][k]
ORDER = {"rnn_relu": [0], "rnn_tanh": [0], "lstm": [0, 3, 1, 2], "gru": [1, 0, 2]}


def _onnx_attrs(mode, hidden, dirs):
    attrs = {"hidden_size": hidden, "direction": "bidirectional" if dirs == 2 else "forward"}
    if mode in ("rnn_relu", "rnn_tanh"):
        attrs["activations"] = ["Relu" if mode == "rnn_relu" else "Tanh"] * dirs
    if mode == "gru":
        attrs["linear_before_reset"] = 1
    return attrs


def _piece(ctx, flat, span, mode, hidden):
    """One weight or bias of the flat vector, gates reordered for ONNX, with a leading axis."""
    start, stop, shape = span
    part = ctx.emit("Slice", [flat, ctx.int64s([start]), ctx.int64s([stop]), ctx.int64s([0])])
    part = ctx.emit("Reshape", [part, ctx.int64s(list(shape))])
    if len(ORDER[mode]) > 1:
        index = numpy.concatenate([numpy.arange(g * hidden, (g + 1) * hidden)
                                   for g in ORDER[mode]])
        part = ctx.emit("Gather", [part, ctx.int64s(index)], axis=0)
    return ctx.emit("Unsqueeze", [part, ctx.int64s([0])])


def _states(ctx, node, i, layer, dirs):
    return ctx.emit("Slice", [ctx.inp(node, i), ctx.int64s([layer * dirs]),
                              ctx.int64s([(layer + 1) * dirs]), ctx.int64s([0])])


@exports("RNN")
def rnn(ctx, node):
    """One ONNX RNN/LSTM/GRU per layer over (T, N, C) data (inference: no dropout)."""
    attrs = node.attrs
    mode, hidden, layers = attrs["mode"], attrs["state_size"], attrs["num_layers"]
    dirs = 2 if attrs["bidirectional"] else 1
    if attrs["use_sequence_length"] or attrs["projection_size"]:
        raise ctx_fail(ctx, node, "use_sequence_length or projection_size")
    lstm = mode == "lstm"
    spans = param_layout(attrs, ctx.in_shape(node)[2])
    flat, data, last_h, last_c = ctx.inp(node, 1), ctx.inp(node, 0), [], []
    for layer in range(layers):
        pieces = [[_piece(ctx, flat, s, mode, hidden) for s in spans[layer * dirs + d]]
                  for d in range(dirs)]
        w, r, bx, bh = (ctx.emit("Concat", [p[k] for p in pieces], axis=0) if dirs == 2
                        else pieces[0][k] for k in range(4))
        bias = ctx.emit("Concat", [bx, bh], axis=1)
        inputs = [data, w, r, bias, "", _states(ctx, node, 2, layer, dirs)]
        if lstm:
            inputs.append(_states(ctx, node, 3, layer, dirs))
        outs = ctx.emit(ONNX_OP[mode], inputs, [ctx.fresh("y"), ctx.fresh("y_h")]
                        + ([ctx.fresh("y_c")] if lstm else []), **_onnx_attrs(mode, hidden, dirs))
        y, *finals = outs
        last_h.append(finals[0])
        if lstm:
            last_c.append(finals[1])
        # (T, D, N, H) -> (T, N, D*H)
        y = ctx.emit("Transpose", [y], perm=[0, 2, 1, 3])
        data = ctx.emit("Reshape", [y, ctx.int64s([0, 0, -1])])
    ctx.emit("Identity", [data], ctx.out(node))
    if attrs["state_outputs"]:
        ctx.emit("Concat", last_h, ctx.out(node, 1), axis=0)
        if lstm:
            ctx.emit("Concat", last_c, ctx.out(node, 2), axis=0)


def ctx_fail(ctx, node, what):
    from ._common import unmapped

    return unmapped(node.op.name, node.name, ctx.opset, f"{what} is not exported")


# -- import ----------------------------------------------------------------------------------------
_MODES = {"LSTM": "lstm", "GRU": "gru"}


def _mode(node, attrs):
    if node.op_type in _MODES:
        return _MODES[node.op_type]
    acts = [a.decode() if isinstance(a, bytes) else a for a in attrs.get("activations", ["Tanh"])]
    return "rnn_relu" if acts[0].lower() == "relu" else "rnn_tanh"


def _flat(mode, w, r, b, hidden):
    """MXNet's flat vector of one layer from ONNX's W, R, B (gates back in MXNet's order)."""
    back = numpy.argsort(ORDER[mode])

    def reorder(m):
        return numpy.concatenate([m[g * hidden:(g + 1) * hidden] for g in back])
    gates = GATES[mode]
    weights, biases = [], []
    for d in range(w.shape[0]):
        weights += [reorder(w[d]).ravel(), reorder(r[d]).ravel()]
        biases += [reorder(b[d][:gates * hidden]), reorder(b[d][gates * hidden:])]
    return numpy.concatenate(weights + biases).astype(w.dtype)


@imports("RNN", "LSTM", "GRU")
def rnn_import(ctx, node):
    """A one-layer RNN op; ``W``/``R``/``B`` must be constants."""
    from .. import symbol as S

    attrs = attributes(node)
    mode = _mode(node, attrs)
    direction = attrs.get("direction", "forward")
    direction = direction.decode() if isinstance(direction, bytes) else direction
    hidden, dirs = attrs["hidden_size"], 2 if direction == "bidirectional" else 1
    if direction not in ("forward", "bidirectional") or (
            mode == "gru" and not attrs.get("linear_before_reset", 0)) or attrs.get("clip"):
        raise ctx.fail(node, "direction 'reverse', clip or GRU without linear_before_reset")
    if len(node.input) > 4 and node.input[4]:
        raise ctx.fail(node, "sequence_lens")
    w, r = ctx.const(node.input[1]), ctx.const(node.input[2])
    b = ctx.optional_const(node, 3)
    gates = GATES[mode]
    b = numpy.zeros((dirs, 2 * gates * hidden), w.dtype) if b is None else b
    name = f"{node.name or node.output[0]}_parameters"
    ctx.constants[name] = _flat(mode, w, r, b, hidden)
    inputs = [ctx.sym(node.input[0]), ctx.sym(name)]
    for index in ((5, 6) if mode == "lstm" else (5,)):
        if len(node.input) <= index or not node.input[index]:
            raise ctx.fail(node, "initial states must be given")
        inputs.append(ctx.sym(node.input[index]))
    out = S.RNN(*inputs, state_size=hidden, num_layers=1, mode=mode,
                bidirectional=dirs == 2, state_outputs=True)
    y, *finals = [out[i] for i in range(3 if mode == "lstm" else 2)]
    # (T, N, D*H) -> ONNX's (T, D, N, H)
    y = S.transpose(S.reshape(y, shape=(0, 0, dirs, hidden)), axes=(0, 2, 1, 3))
    return [y] + finals
