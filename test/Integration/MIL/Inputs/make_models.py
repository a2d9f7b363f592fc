"""Writes the MIL execution-test models with their inputs and numpy
references:

  make_models.py cnn OUT [--weights blob|inline]
  make_models.py transformer OUT [--weights blob|inline]
  make_models.py fp16-package OUT

OUT gets program.pbtxt (a Program; encode with `protoc --encode`),
weights/weight.bin (blob mode), input_0.npy and reference_0.npy; the
fp16-package model is laid out as OUT/model.mlpackage (the Model text is
Data/com.apple.CoreML/model.pbtxt, encode it to model.mlmodel next to it).
"""

import argparse
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "Import", "MIL", "Inputs"))
from mil_writer import (Program, S, Var, immediate, tensor_type,  # noqa: E402
                        write_package)

RNG = np.random.default_rng(7)


def rand(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


def windows(x, k, stride):
    v = np.lib.stride_tricks.sliding_window_view(x, (k, k), axis=(2, 3))
    return v[:, :, ::stride, ::stride]


def conv2d(x, w, b, stride=1, pad=0):
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    out = np.einsum("nchwij,fcij->nfhw", windows(xp, w.shape[2], stride), w)
    return (out + b[None, :, None, None]).astype(np.float32)


def conv_transpose2d(x, w, b, stride, pads, dilation, groups, out_pad=(0, 0)):
    """Direct scatter definition; pads = (top, bottom, left, right)."""
    n, c, h, wd = x.shape
    cg, fg, kh, kw = w.shape[0] // groups, w.shape[1], w.shape[2], w.shape[3]
    full_h = (h - 1) * stride[0] + dilation[0] * (kh - 1) + 1 + out_pad[0]
    full_w = (wd - 1) * stride[1] + dilation[1] * (kw - 1) + 1 + out_pad[1]
    out = np.zeros((n, groups * fg, full_h, full_w), np.float64)
    for g in range(groups):
        for ci in range(cg):
            for fo in range(fg):
                for i in range(kh):
                    for j in range(kw):
                        r0, c0 = i * dilation[0], j * dilation[1]
                        out[:, g * fg + fo,
                            r0:r0 + (h - 1) * stride[0] + 1:stride[0],
                            c0:c0 + (wd - 1) * stride[1] + 1:stride[1]] += \
                            x[:, g * cg + ci] * w[g * cg + ci, fo, i, j]
    out = out[:, :, pads[0]:full_h - pads[1], pads[2]:full_w - pads[3]]
    return (out + b[None, :, None, None]).astype(np.float32)


def erf(x):
    return np.vectorize(math.erf)(x.astype(np.float64))


def gelu(x):
    return (0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))).astype(np.float32)


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return (e / e.sum(axis=axis, keepdims=True)).astype(np.float32)


def layer_norm(x, g, b, eps=1e-5):
    m = x.mean(axis=-1, keepdims=True)
    v = ((x - m) ** 2).mean(axis=-1, keepdims=True)
    return ((x - m) / np.sqrt(v + eps) * g + b).astype(np.float32)


def cnn(p):
    """conv(same) -> batch_norm -> relu -> max_pool -> conv(valid) -> relu
    -> avg_pool -> reshape -> linear -> softmax."""
    x = p.input("x", rand(2, 3, 8, 8))
    w1, b1 = p.const(rand(8, 3, 3, 3, scale=0.4), "w1"), p.const(rand(8), "b1")
    strides = p.const(np.array([1, 1], np.int32), "strides")
    pad_type = p.const(S("same"), "pad_type")
    y = p.op("conv", conv2d(x.value, w1.value, b1.value, pad=1), x=x,
             weight=w1, bias=b1, strides=strides, pad_type=pad_type,
             dilations=np.array([1, 1], np.int32), groups=np.int32(1))
    mean, var = rand(8, scale=0.1), np.abs(rand(8)) + 0.5
    gamma, beta = rand(8), rand(8)
    bn = (y.value - mean[None, :, None, None]) / np.sqrt(
        var[None, :, None, None] + 1e-5) * gamma[None, :, None, None] + \
        beta[None, :, None, None]
    y = p.op("batch_norm", bn.astype(np.float32), x=y, mean=p.const(mean),
             variance=p.const(var), gamma=p.const(gamma), beta=p.const(beta),
             epsilon=np.float32(1e-5))
    y = p.op("relu", np.maximum(y.value, 0), x=y)
    y = p.op("max_pool", windows(y.value, 2, 2).max(axis=(-1, -2)), x=y,
             kernel_sizes=np.array([2, 2], np.int32),
             strides=np.array([2, 2], np.int32), pad_type=S("valid"))
    w2, b2 = rand(16, 8, 3, 3, scale=0.2), rand(16)
    y = p.op("conv", conv2d(y.value, w2, b2), x=y, weight=p.const(w2),
             bias=p.const(b2), pad_type=S("valid"))
    y = p.op("relu", np.maximum(y.value, 0), x=y)
    y = p.op("avg_pool", windows(y.value, 2, 2).mean(axis=(-1, -2)).astype(
        np.float32), x=y, kernel_sizes=np.array([2, 2], np.int32),
             strides=np.array([2, 2], np.int32), pad_type=S("valid"),
             exclude_padding_from_average=False)
    flat = y.value.reshape(2, -1)
    y = p.op("reshape", flat, x=y, shape=np.array([2, -1], np.int32))
    w3, b3 = rand(10, flat.shape[1], scale=0.2), rand(10)
    y = p.op("linear", (flat @ w3.T + b3).astype(np.float32), x=y,
             weight=p.const(w3), bias=p.const(b3))
    return x, p.op("softmax", softmax(y.value, 1), x=y, axis=np.int32(1))


def transformer(p, seq=8, dim=16, heads=2):
    """Pre-norm self-attention and GELU MLP block with residuals."""
    hd = dim // heads
    x = p.input("x", rand(1, seq, dim))

    def linear(v, dout, name):
        w, b = rand(dout, v.value.shape[-1], scale=0.3), rand(dout, scale=0.1)
        return p.op("linear", (v.value @ w.T + b).astype(np.float32), x=v,
                    weight=p.const(w, name + "_w"), bias=p.const(b, name + "_b"),
                    name=name)

    def norm(v, name):
        g, b = 1 + rand(dim, scale=0.1), rand(dim, scale=0.1)
        return p.op("layer_norm", layer_norm(v.value, g, b), x=v,
                    axes=np.array([-1], np.int32), gamma=p.const(g),
                    beta=p.const(b), epsilon=np.float32(1e-5), name=name)

    def split_heads(v):
        r = v.value.reshape(1, seq, heads, hd)
        r = p.op("reshape", r, x=v,
                 shape=np.array([1, seq, heads, hd], np.int32))
        return p.op("transpose", r.value.transpose(0, 2, 1, 3), x=r,
                    perm=np.array([0, 2, 1, 3], np.int32))

    h = norm(x, "ln1")
    q = split_heads(linear(h, dim, "q"))
    k = split_heads(linear(h, dim, "k"))
    v = split_heads(linear(h, dim, "v"))
    scores = q.value @ k.value.transpose(0, 1, 3, 2)
    s = p.op("matmul", scores.astype(np.float32), x=q, y=k,
             transpose_x=False, transpose_y=True)
    scale = np.float32(1.0 / math.sqrt(hd))
    s = p.op("mul", (s.value * scale).astype(np.float32), x=s,
             y=p.const(scale, "scale"))
    a = p.op("softmax", softmax(s.value, -1), x=s, axis=np.int32(-1))
    o = p.op("matmul", (a.value @ v.value).astype(np.float32), x=a, y=v)
    o = p.op("transpose", o.value.transpose(0, 2, 1, 3), x=o,
             perm=np.array([0, 2, 1, 3], np.int32))
    o = p.op("reshape", o.value.reshape(1, seq, dim), x=o,
             shape=np.array([1, seq, dim], np.int32))
    o = linear(o, dim, "proj")
    r1 = p.op("add", x.value + o.value, x=x, y=o, name="residual1")
    h2 = norm(r1, "ln2")
    f = linear(h2, 4 * dim, "fc1")
    f = p.op("gelu", gelu(f.value), x=f, mode=S("EXACT"))
    f = linear(f, dim, "fc2")
    return x, p.op("add", r1.value + f.value, x=r1, y=f, name="out")


def fp16_mlp(p):
    """fp16 weights in the blob, cast to fp32 for compute."""
    x = p.input("x", rand(4, 32))
    w1 = rand(64, 32, scale=0.2).astype(np.float16)
    b1 = rand(64, scale=0.1).astype(np.float16)
    w2 = rand(8, 64, scale=0.2).astype(np.float16)
    cast = lambda v: p.op("cast", v.value.astype(np.float32), x=v,
                          dtype=S("fp32"))
    w1c, b1c, w2c = cast(p.const(w1, "w1")), cast(p.const(b1, "b1")), \
        cast(p.const(w2, "w2"))
    h = p.op("linear", (x.value @ w1c.value.T + b1c.value).astype(np.float32),
             x=x, weight=w1c, bias=b1c)
    h = p.op("silu", (h.value / (1 + np.exp(-h.value))).astype(np.float32),
             x=h)
    return x, p.op("linear", (h.value @ w2c.value.T).astype(np.float32), x=h,
                   weight=w2c)


def ops(p):
    """One op (or a short chain) per output, each with its numpy value."""
    x = p.input("x", rand(2, 3, 4, 5))
    y = p.const(rand(4, 5) + 0.5, "y")
    pos = p.op("abs", np.abs(x.value) + 0, x=x)
    pos = p.op("add", pos.value + np.float32(0.25), x=pos, y=np.float32(0.25))
    ints = p.const(RNG.integers(-9, 9, (3, 4)).astype(np.int32), "ints")
    outs = []

    def out(op_type, value, **kw):
        outs.append(p.op(op_type, np.asarray(value), **kw))
        return outs[-1]

    f32 = np.float32
    out("sub", x.value - y.value, x=x, y=y)
    out("real_div", x.value / y.value, x=x, y=y)
    out("floor_div", np.floor(x.value / y.value), x=x, y=y)
    out("floor_div", ints.value // np.int32(4), x=ints, y=np.int32(4))
    out("pow", pos.value ** f32(1.5), x=pos, y=f32(1.5))
    out("maximum", np.maximum(x.value, y.value), x=x, y=y)
    out("minimum", np.minimum(x.value, y.value), x=x, y=y)
    out("leaky_relu", np.where(x.value >= 0, x.value, f32(0.2) * x.value),
        x=x, alpha=f32(0.2))
    out("relu6", np.clip(x.value * 4, 0, 6),
        x=p.op("mul", x.value * 4, x=x, y=f32(4)))
    out("clip", np.clip(x.value, -0.5, 0.7), x=x, alpha=f32(-0.5),
        beta=f32(0.7))
    out("sigmoid", 1 / (1 + np.exp(-x.value)), x=x)
    out("tanh", np.tanh(x.value), x=x)
    out("silu", x.value / (1 + np.exp(-x.value)), x=x)
    out("softplus", np.log1p(np.exp(x.value)), x=x)
    out("erf", erf(x.value).astype(f32), x=x)
    out("exp", np.exp(x.value), x=x)
    out("log", np.log(pos.value), x=pos)
    out("sqrt", np.sqrt(pos.value), x=pos)
    out("rsqrt", 1 / np.sqrt(pos.value + 1e-12), x=pos)
    g = x.value
    out("gelu", 0.5 * g * (1 + np.tanh(math.sqrt(2 / math.pi) *
                                      (g + 0.044715 * g ** 3))),
        x=x, mode=S("TANH_APPROXIMATION"))
    gt = p.op("greater", x.value > y.value, x=x, y=y)
    out("select", np.where(gt.value, x.value, y.value), cond=gt, a=x, b=y)
    le = p.op("less_equal", x.value <= 0, x=x, y=f32(0))
    out("logical_and", gt.value & le.value, x=gt, y=le)
    out("logical_or", gt.value | le.value, x=gt, y=le)
    out("logical_xor", gt.value ^ le.value, x=gt, y=le)
    out("logical_not", ~gt.value, x=gt)
    out("equal", ints.value == 3, x=ints, y=np.int32(3))
    out("not_equal", ints.value != 3, x=ints, y=np.int32(3))
    out("less", ints.value < 0, x=ints, y=np.int32(0))
    out("greater_equal", ints.value >= 0, x=ints, y=np.int32(0))
    out("cast", x.value.astype(np.int32), x=x, dtype=S("int32"))
    out("cast", ints.value.astype(f32), x=ints, dtype=S("fp32"))
    out("cast", (ints.value != 0), x=ints, dtype=S("bool"))
    out("slice_by_index", x.value[:, 1:, ::-2, 3], x=x,
        begin=np.array([0, 1, -1, 3], np.int32),
        end=np.array([0, 3, 0, 4], np.int32),
        stride=np.array([1, 1, -2, 1], np.int32),
        begin_mask=np.array([True, False, False, False]),
        end_mask=np.array([True, True, True, False]),
        squeeze_mask=np.array([False, False, False, True]))
    out("slice_by_size", x.value[1:2, 0:2, 1:4, :], x=x,
        begin=np.array([1, 0, 1, 0], np.int32),
        size=np.array([1, 2, 3, -1], np.int32))
    idx = np.array([[2, 0], [-1, 1]], np.int32)
    out("gather", np.take(x.value, idx, axis=2), x=x, indices=idx,
        axis=np.int32(2))
    along = RNG.integers(0, 3, (2, 3, 2, 5)).astype(np.int32)
    out("gather_along_axis", np.take_along_axis(x.value, along, axis=2),
        x=x, indices=along, axis=np.int32(2))
    e = out("expand_dims", x.value[:, None, ..., None], x=x,
            axes=np.array([1, -1], np.int32))
    out("squeeze", x.value, x=e, axes=np.array([1, 5], np.int32))
    out("tile", np.tile(y.value, (2, 3)), x=y, reps=np.array([2, 3], np.int32))
    out("pad", np.pad(y.value, ((1, 0), (2, 1)), constant_values=1.5), x=y,
        pad=np.array([1, 0, 2, 1], np.int32), mode=S("constant"),
        constant_val=f32(1.5))
    out("pad", np.pad(y.value, ((2, 1), (1, 3)), mode="reflect"), x=y,
        pad=np.array([2, 1, 1, 3], np.int32), mode=S("reflect"))
    out("pad", np.pad(y.value, ((0, 0), (2, 2)), mode="edge"), x=y,
        pad=np.array([2, 2], np.int32), mode=S("replicate"))
    out("reduce_sum", x.value.sum(axis=(1, 3)), x=x,
        axes=np.array([1, -1], np.int32))
    out("reduce_mean", x.value.mean(axis=2, keepdims=True), x=x,
        axes=np.array([2], np.int32), keep_dims=True)
    out("reduce_max", x.value.max(), x=x)
    out("reduce_min", x.value.min(axis=0), x=x, axes=np.array([0], np.int32))
    out("reduce_prod", pos.value.prod(axis=3), x=pos,
        axes=np.array([3], np.int32))
    out("concat", np.concatenate([y.value, y.value * 0 + 1], axis=0),
        values=[y, p.op("fill", np.ones((4, 5), f32),
                        shape=np.array([4, 5], np.int32), value=f32(1))],
        axis=np.int32(0))
    # split has several outputs; the writer's op() declares one.
    sp = np.split(x.value, [1, 4], axis=3)
    split_outs = [p._name("split") for _ in sp]
    p.ops.append(
        'operations { type: "split" inputs { key: "x" value { arguments { '
        'name: "x" } } } inputs { key: "split_sizes" value { arguments { '
        'value { %s } } } } inputs { key: "axis" value { arguments { value { '
        '%s } } } } %s }' % (
            immediate(np.array([1, 3, 1], np.int32)), immediate(np.int32(3)),
            " ".join('outputs { name: "%s" type { %s } }' %
                     (n, tensor_type(v.dtype, v.shape))
                     for n, v in zip(split_outs, sp))))
    outs += [Var(n, v) for n, v in zip(split_outs, sp)]
    sq = p.const(rand(4, 4), "square")
    out("band_part", np.triu(np.tril(sq.value, 1), -2) * 1, x=sq,
        lower=np.int32(2), upper=np.int32(1))
    out("upsample_nearest_neighbor", x.value.repeat(2, axis=2).repeat(3, axis=3),
        x=x, scale_factor_height=f32(2), scale_factor_width=f32(3))
    out("range_1d", np.arange(2, 11, 3, dtype=np.int32), end=np.int32(11),
        start=np.int32(2), step=np.int32(3))
    m = x.value.mean(axis=(2, 3), keepdims=True)
    v = ((x.value - m) ** 2).mean(axis=(2, 3), keepdims=True)
    gam, bet = rand(3), rand(3)
    out("instance_norm", (x.value - m) / np.sqrt(v + 1e-5) *
        gam[None, :, None, None] + bet[None, :, None, None], x=x,
        gamma=p.const(gam), beta=p.const(bet), epsilon=f32(1e-5))
    m = x.value.mean(axis=(1, 2), keepdims=True)
    v = ((x.value - m) ** 2).mean(axis=(1, 2), keepdims=True)
    gam = rand(3, 4)
    out("layer_norm", (x.value - m) / np.sqrt(v + 1e-5) * gam[None, :, :, None],
        x=x, axes=np.array([1, 2], np.int32), gamma=p.const(gam))
    out("identity", x.value, x=x)
    # Grouped (depthwise-multiplier 2) conv with custom padding.
    w = rand(6, 1, 3, 3, scale=0.3)
    ref = np.concatenate([conv2d(x.value[:, c:c + 1], w[2 * c:2 * c + 2],
                                 np.zeros(2, f32), pad=1) for c in range(3)], 1)
    out("conv", ref, x=x, weight=p.const(w), groups=np.int32(3),
        pad_type=S("custom"), pad=np.array([1, 1, 1, 1], np.int32))
    # Transposed convs: strided with custom padding; grouped and dilated
    # with output_shape adding output padding.
    w = rand(3, 2, 3, 3, scale=0.3)
    bias = rand(2)
    out("conv_transpose",
        conv_transpose2d(x.value, w, bias, (2, 2), (1, 1, 0, 1), (1, 1), 1),
        x=x, weight=p.const(w), bias=p.const(bias),
        strides=np.array([2, 2], np.int32), pad_type=S("custom"),
        pad=np.array([1, 1, 0, 1], np.int32))
    w = rand(3, 1, 2, 2, scale=0.3)
    ref = conv_transpose2d(x.value, w, np.zeros(3, f32), (2, 1), (0, 0, 0, 0),
                           (1, 2), 3, out_pad=(1, 0))
    out("conv_transpose", ref, x=x, weight=p.const(w),
        strides=np.array([2, 1], np.int32),
        dilations=np.array([1, 2], np.int32), groups=np.int32(3),
        output_shape=np.array(ref.shape, np.int32))
    return x, outs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model",
                        choices=["cnn", "transformer", "fp16-package", "ops"])
    parser.add_argument("out")
    parser.add_argument("--weights", choices=["blob", "inline"], default="blob")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    blob = args.weights == "blob" or args.model == "fp16-package"
    p = Program(blob_min_elements=8 if blob else None)
    build = {"cnn": cnn, "transformer": transformer,
             "fp16-package": fp16_mlp, "ops": ops}[args.model]
    x, y = build(p)
    np.save(os.path.join(args.out, "input_0.npy"), x.value)
    outputs = y if isinstance(y, list) else [y]
    for i, v in enumerate(outputs):
        np.save(os.path.join(args.out, "reference_%d.npy" % i), v.value)
    y = outputs[0] if len(outputs) == 1 else outputs
    if args.model == "fp16-package":
        write_package(os.path.join(args.out, "model.mlpackage"),
                      p.model_text([y]), p.blobs.bytes())
        return
    with open(os.path.join(args.out, "program.pbtxt"), "w") as f:
        f.write(p.program_text(outputs))
    if blob:
        p.write_weights(os.path.join(args.out, "weights", "weight.bin"))


if __name__ == "__main__":
    main()
