"""The fused RNN op (MXNet's ``RNN`` / ``npx.rnn``): vanilla (relu/tanh), LSTM and GRU, stacked
``num_layers`` deep, optionally bidirectional, with dropout between layers while training; LSTMP
(``projection_size``: ``h = W_hr (o * tanh(c))``) and variable-length batches
(``use_sequence_length``: states stop at each sequence's length, later outputs are zeros, the
reverse direction starts at each sequence's last valid step).

Parameters come in MXNet's flat layout: every weight first (for each layer, each direction: the
input-to-hidden ``(G*H, in)`` then the hidden-to-hidden ``(G*H, H)`` matrix), then every bias in
the same order; gates are ordered ``i, f, g, o`` (LSTM) and ``r, z, n`` (GRU, cuDNN's form with
``r * (W_hn h + b_hn)``). The kernel loops over time with ``xp`` matmuls; ``_backward_RNN``
recomputes the forward pass and runs backpropagation through time (the dropout masks are a
hidden output, so both passes drop the same units).

Example
-------
>>> import mxlab as mx
>>> from mxlab.ops.rnn import rnn_param_size
>>> rnn_param_size("lstm", num_layers=1, input_size=3, state_size=2)
56
"""
from ..base import MXNetValueError
from .attrs import Attr
from .registry import F, Op, register

__all__ = ["GATES", "rnn_param_size", "param_layout"]

GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}


def rnn_param_size(mode, num_layers, input_size, state_size, bidirectional=False,
                   projection_size=None):
    """Length of the flat parameter vector (MXNet's ``GetRnnParamSize``)."""
    gates, dirs, h = GATES[mode], 2 if bidirectional else 1, state_size
    p = projection_size or h
    size = 0
    for layer in range(num_layers):
        width = input_size if layer == 0 else dirs * p
        size += dirs * (gates * h * (width + p) + 2 * gates * h)
        if projection_size:
            size += dirs * p * h
    return size


def param_layout(attrs, input_size):
    """Per layer and direction, ``[wx, wh, bx, bh]`` (``[wx, wh, wr, bx, bh]`` with
    ``projection_size``) as ``(start, stop, shape)`` spans of the flat vector (the ONNX exporter
    slices it the same way)."""
    gates, dirs, h = GATES[attrs["mode"]], _dirs(attrs), attrs["state_size"]
    proj = attrs.get("projection_size")
    p = proj or h
    spans, offset = [], 0
    for layer in range(attrs["num_layers"]):
        width = input_size if layer == 0 else dirs * p
        for _ in range(dirs):
            wx = (offset, offset + gates * h * width, (gates * h, width))
            wh = (wx[1], wx[1] + gates * h * p, (gates * h, p))
            spans.append([wx, wh])
            offset = wh[1]
            if proj:
                spans[-1].append((offset, offset + p * h, (p, h)))
                offset += p * h
    for span in spans:
        bx = (offset, offset + gates * h, (gates * h,))
        bh = (bx[1], bx[1] + gates * h, (gates * h,))
        span += [bx, bh]
        offset = bh[1]
    return spans


def _dirs(attrs):
    return 2 if attrs["bidirectional"] else 1


def _unpack(flat, span):
    return [flat[a:b].reshape(shape) for a, b, shape in span]


def _sigmoid(xp, x):
    return 1 / (1 + xp.exp(-x))


# -- one direction of one layer -------------------------------------------------------------------
def _forward_direction(xp, mode, x, h, c, weights, valid=None):
    """Run one direction over time ``x`` (T, N, in); returns outputs (T, N, H), final h, c and the
    per-step cache backward needs. ``valid`` (T, N, 1): steps past a sequence's length keep its
    states and output zeros. ``weights`` has a fifth array, ``wr`` (P, H), for LSTMP."""
    wx, wh, bx, bh = weights[0], weights[1], weights[-2], weights[-1]
    wr = weights[2] if len(weights) == 5 else None
    projected = x @ wx.T + bx
    outputs, cache = [], []
    for t in range(x.shape[0]):
        hidden = h @ wh.T + bh
        c_new = c
        if mode == "lstm":
            i, f, g, o = xp.split(projected[t] + hidden, 4, axis=-1)
            i, f, g, o = _sigmoid(xp, i), _sigmoid(xp, f), xp.tanh(g), _sigmoid(xp, o)
            c_new = f * c + i * g
            tanh_c = xp.tanh(c_new)
            raw = o * tanh_c
            cache.append((h, c, i, f, g, o, tanh_c, raw))
            h_new = raw @ wr.T if wr is not None else raw
        elif mode == "gru":
            xr, xz, xn = xp.split(projected[t], 3, axis=-1)
            hr, hz, hn = xp.split(hidden, 3, axis=-1)
            r, z = _sigmoid(xp, xr + hr), _sigmoid(xp, xz + hz)
            n = xp.tanh(xn + r * hn)
            cache.append((h, r, z, n, hn))
            h_new = (1 - z) * n + z * h
        else:
            pre = projected[t] + hidden
            h_new = xp.maximum(pre, 0) if mode == "rnn_relu" else xp.tanh(pre)
            cache.append((h, h_new))
        if valid is None:
            h, c = h_new, c_new
            outputs.append(h)
        else:
            h, c = xp.where(valid[t], h_new, h), xp.where(valid[t], c_new, c)
            outputs.append(h_new * valid[t])
    return xp.stack(outputs), h, c, cache


def _backward_direction(xp, mode, x, weights, cache, d_out, dh, dc, valid=None):
    """BPTT for one direction: gradients of x, the weight arrays, and the initial h, c."""
    wx, wh = weights[0], weights[1]
    wr = weights[2] if len(weights) == 5 else None
    steps = x.shape[0]
    d_projected = xp.zeros((steps,) + d_out.shape[1:-1] + (wx.shape[0],), dtype=x.dtype)
    d_wh = xp.zeros_like(wh)
    d_wr = xp.zeros_like(wr) if wr is not None else None
    d_bh = xp.zeros(wh.shape[0], dtype=x.dtype)
    for t in reversed(range(steps)):
        if valid is None:
            dh = dh + d_out[t]
            dh_skip = dc_skip = 0
        else:
            dh = dh + d_out[t] * valid[t]
            dh_skip, dc_skip = dh * (1 - valid[t]), dc * (1 - valid[t])
            dh, dc = dh * valid[t], dc * valid[t]
        if mode == "lstm":
            h_prev, c_prev, i, f, g, o, tanh_c, raw = cache[t]
            if wr is not None:
                d_wr += dh.T @ raw
                dh = dh @ wr
            do = dh * tanh_c
            dc = dc + dh * o * (1 - tanh_c * tanh_c)
            di, df, dg = dc * g, dc * c_prev, dc * i
            d_gates = xp.concatenate([di * i * (1 - i), df * f * (1 - f), dg * (1 - g * g),
                                      do * o * (1 - o)], axis=-1)
            d_hidden = d_gates
            d_projected[t] = d_gates
            dc = dc * f
        elif mode == "gru":
            h_prev, r, z, n, hn = cache[t]
            dn = dh * (1 - z) * (1 - n * n)
            dz = dh * (h_prev - n) * z * (1 - z)
            dr = dn * hn * r * (1 - r)
            d_projected[t] = xp.concatenate([dr, dz, dn], axis=-1)
            d_hidden = xp.concatenate([dr, dz, dn * r], axis=-1)
            dh_direct = dh * z
        else:
            h_prev, h_new = cache[t]
            d_pre = dh * ((h_new > 0) if mode == "rnn_relu" else (1 - h_new * h_new))
            d_projected[t] = d_pre
            d_hidden = d_pre
        d_wh += d_hidden.T @ h_prev
        d_bh += d_hidden.sum(axis=0)
        dh = d_hidden @ wh + (dh_direct if mode == "gru" else 0) + dh_skip
        dc = dc + dc_skip
    flat_dp = d_projected.reshape(-1, wx.shape[0])
    dx = d_projected @ wx
    d_wx = flat_dp.T @ x.reshape(-1, x.shape[-1])
    d_weights = [d_wx, d_wh] + ([d_wr] if wr is not None else [])
    return dx, d_weights + [flat_dp.sum(axis=0), d_bh], dh, dc


# -- the stack -------------------------------------------------------------------------------------
def _lengths(xp, attrs, inputs, steps):
    """``(valid (T, N, 1), reverse index (T, N))`` from the ``sequence_length`` input, or Nones."""
    if not attrs["use_sequence_length"]:
        return None, None
    lens = inputs[-1].astype("int64")
    t = xp.arange(steps)[:, None]
    valid = t < lens[None, :]
    rev = xp.where(valid, lens[None, :] - 1 - t, t)
    return valid[..., None], rev


def _flip(xp, seq, rev):
    """Time-reversed ``seq`` (T, N, C): whole sequences, or each within its valid length."""
    if rev is None:
        return seq[::-1]
    return xp.take_along_axis(seq, rev[..., None], axis=0)


def _run(xp, inputs, attrs, masks):
    """Forward over every layer and direction; returns outputs, states and caches per layer."""
    mode, dirs, layers = attrs["mode"], _dirs(attrs), attrs["num_layers"]
    data, flat, hx = inputs[0], inputs[1], inputs[2]
    cx = inputs[3] if mode == "lstm" else xp.zeros_like(hx)
    valid, rev = _lengths(xp, attrs, inputs, data.shape[0])
    if valid is not None:
        valid = valid.astype(data.dtype)
    spans = param_layout(attrs, data.shape[-1])
    x, hy, cy, record = data, [], [], []
    for layer in range(layers):
        if layer > 0 and attrs["p"]:
            x = x * masks[layer - 1]
        outs, caches = [], []
        for d in range(dirs):
            k = layer * dirs + d
            seq = _flip(xp, x, rev) if d else x
            out, h, c, cache = _forward_direction(xp, mode, seq, hx[k], cx[k],
                                                  _unpack(flat, spans[k]), valid)
            outs.append(_flip(xp, out, rev) if d else out)
            caches.append((seq, cache))
            hy.append(h)
            cy.append(c)
        record.append((x, caches))
        x = xp.concatenate(outs, axis=-1) if dirs == 2 else outs[0]
    return x, xp.stack(hy), xp.stack(cy), record, spans


def _masks(xp, attrs, data, ctx):
    """Dropout masks for the inputs of layers 1.. (scaled by 1/(1-p)); ones when not dropping."""
    layers, p = attrs["num_layers"], attrs["p"]
    width = attrs["projection_size"] or attrs["state_size"]
    shape = (layers - 1,) + data.shape[:-1] + (_dirs(attrs) * width,)
    if layers == 1 or p == 0 or not ctx.is_train:
        return xp.ones(shape, dtype=data.dtype)
    keep = ctx.draw(xp, lambda gen: gen.uniform(0.0, 1.0, size=shape)) < 1.0 - p
    return (xp.asarray(keep, dtype=data.dtype) / (1.0 - p)).astype(data.dtype)


def _check(attrs):
    if attrs["projection_size"] is not None and attrs["mode"] != "lstm":
        raise MXNetValueError(f"RNN: projection_size is only valid for mode='lstm', not "
                              f"{attrs['mode']!r}")
    if attrs["lstm_state_clip_min"] is not None or attrs["lstm_state_clip_max"] is not None:
        raise NotImplementedError("RNN: lstm_state_clip_min/max are not built in mxlab")


def _rnn(xp, inputs, attrs, ctx):
    _check(attrs)
    masks = _masks(xp, attrs, inputs[0], ctx)
    out, hy, cy, _, _ = _run(xp, inputs, attrs, masks)
    outs = [out]
    if attrs["state_outputs"]:
        outs += [hy.astype(out.dtype)] + ([cy.astype(out.dtype)] if attrs["mode"] == "lstm"
                                          else [])
    return tuple(outs + [masks])


def _rnn_backward(xp, inputs, attrs):
    """Gradients of data, parameters and initial states from the visible outputs' gradients."""
    n_vis = _num_visible(attrs)
    grads, fwd = inputs[:n_vis], inputs[n_vis:]
    masks = fwd[-1]
    fwd_inputs = fwd[:-1]
    _, _, _, record, spans = _run(xp, fwd_inputs, attrs, masks)
    mode, dirs = attrs["mode"], _dirs(attrs)
    width = attrs["projection_size"] or attrs["state_size"]
    valid, rev = _lengths(xp, attrs, fwd_inputs, fwd_inputs[0].shape[0])
    if valid is not None:
        valid = valid.astype(fwd_inputs[0].dtype)
    flat, hx = fwd_inputs[1], fwd_inputs[2]
    cx = fwd_inputs[3] if mode == "lstm" else hx
    d_flat = xp.zeros_like(flat)
    d_hy = grads[1] if attrs["state_outputs"] else xp.zeros_like(hx)
    d_cy = grads[2] if attrs["state_outputs"] and mode == "lstm" else xp.zeros_like(cx)
    d_hx, d_cx = xp.zeros_like(hx), xp.zeros_like(cx)
    d_out = grads[0]
    for layer in reversed(range(attrs["num_layers"])):
        x, caches = record[layer]
        dx = xp.zeros_like(x)
        for d in range(dirs):
            k = layer * dirs + d
            seq, cache = caches[d]
            part = d_out[..., d * width:(d + 1) * width]
            part = _flip(xp, part, rev) if d else part
            d_seq, d_weights, d_hx[k], d_cx[k] = _backward_direction(
                xp, mode, seq, _unpack(flat, spans[k]), cache, part, d_hy[k], d_cy[k], valid)
            dx += _flip(xp, d_seq, rev) if d else d_seq
            for (a, b, _), dw in zip(spans[k], d_weights):
                d_flat[a:b] += dw.reshape(-1)
        d_out = dx * masks[layer - 1] if layer > 0 and attrs["p"] else dx
    result = [d_out, d_flat, d_hx]
    return tuple(result + ([d_cx] if mode == "lstm" else []))


# -- registration ----------------------------------------------------------------------------------
def _num_inputs(attrs):
    return 3 + (attrs["mode"] == "lstm") + bool(attrs["use_sequence_length"])


def _input_names(attrs):
    names = ("data", "parameters", "state") + (("state_cell",) if attrs["mode"] == "lstm" else ())
    return names + (("sequence_length",) if attrs["use_sequence_length"] else ())


def _num_visible(attrs):
    if not attrs["state_outputs"]:
        return 1
    return 3 if attrs["mode"] == "lstm" else 2


def _output_names(attrs):
    states = ("hy", "cy")[:_num_visible(attrs) - 1]
    return ("output",) + states + ("dropout_mask",)


def _shape(attrs, shapes):
    data = shapes[0]
    ins = list(shapes)
    if data is None or None in data:
        return ins, [None] * (_num_visible(attrs) + 1)
    if len(data) != 3:
        raise MXNetValueError(f"RNN: data must be (seq_len, batch, input_size), got {data}")
    steps, batch, width = data
    dirs, h, layers = _dirs(attrs), attrs["state_size"], attrs["num_layers"]
    p = attrs["projection_size"] or h
    state, cell = (layers * dirs, batch, p), (layers * dirs, batch, h)
    ins[1] = (rnn_param_size(attrs["mode"], layers, width, h, attrs["bidirectional"],
                             attrs["projection_size"]),)
    ins[2] = state
    if attrs["mode"] == "lstm":
        ins[3] = cell
    if attrs["use_sequence_length"]:
        ins[-1] = (batch,)
    out = [(steps, batch, dirs * p), state, cell][:_num_visible(attrs)]
    drop = (layers - 1, steps, batch, dirs * p)
    return ins, out + [drop]


def _types(attrs, dtypes):
    dtype = next((d for d in dtypes if d is not None), None)
    ins = [dtype] * len(dtypes)
    if attrs["use_sequence_length"]:
        ins[-1] = dtypes[-1] or dtype
    return ins, [dtype] * (_num_visible(attrs) + 1)


def _gradient(node, g):
    n_vis = _num_visible(node.attrs)
    heads = [F.zeros_like(o) if gi is None else gi for gi, o in zip(g[:n_vis], node.outputs)]
    grads = F._backward_RNN(*heads, *node.inputs, node.outputs[-1], **node.attrs)
    return list(grads) + [None] * (len(node.inputs) - len(grads))


_ATTRS = (
    Attr("state_size", "int", doc="hidden units per layer and direction"),
    Attr("num_layers", "int", doc="stacked layers"),
    Attr("mode", "str", choices=tuple(GATES), doc="rnn_relu, rnn_tanh, lstm or gru"),
    Attr("bidirectional", "bool", False),
    Attr("p", "float", 0.0, check=(lambda v: 0 <= v < 1, "must be in [0, 1)"),
         doc="dropout between layers while training"),
    Attr("state_outputs", "bool", False, doc="also return the final states"),
    Attr("projection_size", "int", None, optional=True),
    Attr("lstm_state_clip_min", "float", None, optional=True),
    Attr("lstm_state_clip_max", "float", None, optional=True),
    Attr("lstm_state_clip_nan", "bool", False),
    Attr("use_sequence_length", "bool", False),
)

register(Op(name="RNN", aliases=("_npx_rnn",), npx_name="rnn", compute=_rnn, attrs=_ATTRS,
            num_inputs=_num_inputs, input_names=_input_names, num_outputs=lambda a:
            _num_visible(a) + 1, num_visible_outputs=_num_visible, output_names=_output_names,
            infer_shape=_shape, infer_type=_types, gradient=_gradient, resources=("rng",),
            is_random=True, save_outputs=True, ignored_attrs=("cudnn_off",),
            doc="Fused multi-layer (bidirectional) RNN / LSTM / GRU over (T, N, C) data."))
register(Op(name="_backward_RNN", compute=_rnn_backward, attrs=_ATTRS, hidden=True, nd_names=(),
            num_inputs=lambda a: _num_visible(a) + _num_inputs(a) + 1,
            input_names=lambda a: tuple(f"arg{i}" for i in range(_num_visible(a) +
                                                                  _num_inputs(a) + 1)),
            num_outputs=lambda a: 3 + (a["mode"] == "lstm"),
            infer_shape=lambda a, s: [s[_num_visible(a) + i] for i in
                                      range(3 + (a["mode"] == "lstm"))],
            doc="Gradients of the fused RNN (recomputes the forward pass, then BPTT)."))
