#!/usr/bin/env python3
"""Writes small ONNX models of the transformer ops of opsets 18-25
(Attention, RotaryEmbedding, RMSNormalization, GroupNormalization), their
inputs and numpy references for the lit tests.

Usage: make_transformer_models.py NAME OUTDIR
writes OUTDIR/model.onnx, OUTDIR/in_<i>.npy (graph inputs in order) and
OUTDIR/ref_<i>.npy (expected outputs in order).

lit's python has onnx 1.12, which has no schemas for these ops: the nodes are
built with onnx.helper by hand, with the IR version and opset set here and
no checker run. The references are plain numpy written from the operator
specs.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper

F = TensorProto.FLOAT
rng = np.random.default_rng(7)


def model(nodes, inputs, outputs, opset):
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    m = helper.make_model(graph, producer_name="lit",
                          opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 10
    return m


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def softmax(x):
    with np.errstate(invalid="ignore"):  # fully masked rows; zeroed later
        e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def split_heads(x, heads):
    b, s, hidden = x.shape
    return x.reshape(b, s, heads, hidden // heads).transpose(0, 2, 1, 3)


def attention_ref(q, k, v, bias, scale, softcap=0.0):
    """Scores, biased scores and output of 4-D attention (GQA by repeat)."""
    reps = q.shape[1] // k.shape[1]
    k = np.repeat(k, reps, axis=1)
    v = np.repeat(v, reps, axis=1)
    s = (q * np.sqrt(scale)) @ (k * np.sqrt(scale)).transpose(0, 1, 3, 2)
    if softcap > 0:
        s = softcap * np.tanh(s / softcap)
    biased = s + bias
    p = softmax(biased)
    p = np.where(np.isneginf(bias.max(-1, keepdims=True)), 0, p)
    return s, biased, p, p @ v


def attention_gqa_past():
    """Opset 23, 3-D inputs: 4 query heads over 2 key/value heads, a past
    cache, a short boolean mask (padded to the total length), is_causal,
    softcap and qk_matmul_output_mode 2 (scores with softcap and bias)."""
    node = helper.make_node(
        "Attention", ["q", "k", "v", "mask", "pk", "pv"],
        ["y", "present_k", "present_v", "qk"], name="attn", q_num_heads=4,
        kv_num_heads=2, is_causal=1, softcap=2.0, qk_matmul_output_mode=2)
    q = rng.standard_normal((1, 3, 16)).astype(np.float32)
    k = rng.standard_normal((1, 3, 8)).astype(np.float32)
    v = rng.standard_normal((1, 3, 8)).astype(np.float32)
    mask = np.array([[1, 0, 1, 1], [1, 1, 1, 1], [0, 0, 0, 1]], bool)
    pk = rng.standard_normal((1, 2, 2, 4)).astype(np.float32)
    pv = rng.standard_normal((1, 2, 2, 4)).astype(np.float32)
    ins = [q, k, v, mask, pk, pv]
    m = model([node],
              [vi("q", F, q.shape), vi("k", F, k.shape), vi("v", F, v.shape),
               vi("mask", TensorProto.BOOL, mask.shape),
               vi("pk", F, pk.shape), vi("pv", F, pv.shape)],
              [vi("y", F, [1, 3, 16]), vi("present_k", F, [1, 2, 5, 4]),
               vi("present_v", F, [1, 2, 5, 4]), vi("qk", F, [1, 4, 3, 5])],
              23)
    k4 = np.concatenate([pk, split_heads(k, 2)], axis=2)
    v4 = np.concatenate([pv, split_heads(v, 2)], axis=2)
    total = k4.shape[2]
    allowed = np.pad(mask, [(0, 0), (0, total - mask.shape[1])])
    i = np.arange(3)[:, None]
    j = np.arange(total)[None, :]
    allowed = allowed & (j <= i + 2)  # causal, offset = past length
    bias = np.where(allowed, 0, -np.inf).astype(np.float32)
    _, biased, _, y = attention_ref(split_heads(q, 4), k4, v4, bias,
                                    1 / np.sqrt(4), softcap=2.0)
    y = y.transpose(0, 2, 1, 3).reshape(1, 3, 16)
    return m, ins, [y, k4, v4, biased]


def attention_nonpad_window():
    """Opset 25, 4-D inputs: per-batch valid key lengths (nonpad_kv_seqlen),
    is_causal aligned bottom-right, a left window of 1, a float mask, a
    scale, softmax in double and qk_matmul_output_mode 3 (probabilities; the
    fully masked row of batch 1 is 0)."""
    node = helper.make_node(
        "Attention", ["q", "k", "v", "mask", "", "", "lens"], ["y", "", "",
                                                               "qk"],
        name="attn", is_causal=1, left_window_size=1, scale=0.3,
        softmax_precision=TensorProto.DOUBLE, qk_matmul_output_mode=3)
    q = rng.standard_normal((2, 2, 3, 4)).astype(np.float32)
    k = rng.standard_normal((2, 2, 5, 4)).astype(np.float32)
    v = rng.standard_normal((2, 2, 5, 4)).astype(np.float32)
    mask = rng.standard_normal((1, 5)).astype(np.float32)
    lens = np.array([5, 2], np.int64)
    ins = [q, k, v, mask, lens]
    m = model([node],
              [vi("q", F, q.shape), vi("k", F, k.shape), vi("v", F, v.shape),
               vi("mask", F, mask.shape),
               vi("lens", TensorProto.INT64, lens.shape)],
              [vi("y", F, [2, 2, 3, 4]), vi("qk", F, [2, 2, 3, 5])], 25)
    i = np.arange(3)[None, :, None]
    j = np.arange(5)[None, None, :]
    pos = i + (lens - 3)[:, None, None]
    allowed = (j <= pos) & (pos - j <= 1) & (j < lens[:, None, None])
    bias = (mask + np.where(allowed, 0, -np.inf))[:, None].astype(np.float32)
    _, _, p, y = attention_ref(q.astype(np.float64), k.astype(np.float64),
                               v.astype(np.float64), bias, 0.3)
    return m, ins, [y.astype(np.float32), p.astype(np.float32)]


def rope_ref(x, cos, sin, interleaved, dim):
    """x [B, H, S, D], cos/sin [B, S, dim/2]."""
    cos, sin = cos[:, None], sin[:, None]
    rot, rest = x[..., :dim], x[..., dim:]
    if interleaved:
        x1, x2 = rot[..., 0::2], rot[..., 1::2]
    else:
        x1, x2 = rot[..., :dim // 2], rot[..., dim // 2:]
    real = cos * x1 - sin * x2
    imag = sin * x1 + cos * x2
    if interleaved:
        rot = np.stack([real, imag], axis=-1).reshape(rot.shape)
    else:
        rot = np.concatenate([real, imag], axis=-1)
    return np.concatenate([rot, rest], axis=-1)


def rotary():
    """Opset 23: a 4-D input with position ids, interleaved, partial
    rotation (rotary_embedding_dim 6 of 8); a 3-D input (num_heads 2)
    without position ids, rotating all of each head by halves."""
    nodes = [
        helper.make_node("RotaryEmbedding", ["x", "cos_t", "sin_t", "pos"],
                         ["y"], name="rope4", interleaved=1,
                         rotary_embedding_dim=6),
        helper.make_node("RotaryEmbedding", ["x3", "cos3", "sin3"], ["y3"],
                         name="rope3", num_heads=2),
    ]
    x = rng.standard_normal((1, 2, 3, 8)).astype(np.float32)
    angles = rng.standard_normal((5, 3)).astype(np.float32)
    cos_t, sin_t = np.cos(angles), np.sin(angles)
    pos = np.array([[4, 0, 2]], np.int64)
    x3 = rng.standard_normal((1, 3, 16)).astype(np.float32)
    angles3 = rng.standard_normal((1, 3, 4)).astype(np.float32)
    cos3, sin3 = np.cos(angles3), np.sin(angles3)
    ins = [x, cos_t, sin_t, pos, x3, cos3, sin3]
    m = model(nodes,
              [vi("x", F, x.shape), vi("cos_t", F, cos_t.shape),
               vi("sin_t", F, sin_t.shape),
               vi("pos", TensorProto.INT64, pos.shape),
               vi("x3", F, x3.shape), vi("cos3", F, cos3.shape),
               vi("sin3", F, sin3.shape)],
              [vi("y", F, x.shape), vi("y3", F, x3.shape)], 23)
    y = rope_ref(x, cos_t[pos], sin_t[pos], True, 6)
    y3 = rope_ref(split_heads(x3, 2), cos3, sin3, False, 8)
    y3 = y3.transpose(0, 2, 1, 3).reshape(x3.shape)
    return m, ins, [y, y3]


def norms(opset):
    """RMSNormalization (axis 1) and GroupNormalization (2 groups): opset 23
    scales per channel [4], opset 18 per group [2]."""
    params = 4 if opset >= 21 else 2
    nodes = [helper.make_node("GroupNormalization", ["g", "gs", "gb"], ["gy"],
                              name="gn", num_groups=2, epsilon=1e-3)]
    if opset >= 23:
        nodes.append(helper.make_node("RMSNormalization", ["x", "s"], ["y"],
                                      name="rms", axis=1))
    g = rng.standard_normal((2, 4, 3)).astype(np.float32)
    gs = rng.standard_normal(params).astype(np.float32)
    gb = rng.standard_normal(params).astype(np.float32)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    s = rng.standard_normal((3, 4)).astype(np.float32)
    grouped = g.reshape(2, 2, -1)
    mean = grouped.mean(-1, keepdims=True)
    var = grouped.var(-1, keepdims=True)
    normed = ((grouped - mean) / np.sqrt(var + 1e-3)).reshape(g.shape)
    if params == 2:
        gs, gb = np.repeat(gs, 2), np.repeat(gb, 2)
        gy = normed * gs[:, None] + gb[:, None]
        gs, gb = gs[::2].copy(), gb[::2].copy()
    else:
        gy = normed * gs[:, None] + gb[:, None]
    ins = [g, gs, gb]
    inputs = [vi("g", F, g.shape), vi("gs", F, gs.shape),
              vi("gb", F, gb.shape)]
    outputs = [vi("gy", F, g.shape)]
    refs = [gy]
    if opset >= 23:
        ins += [x, s]
        inputs += [vi("x", F, x.shape), vi("s", F, s.shape)]
        outputs.append(vi("y", F, x.shape))
        rms = np.sqrt((x * x).mean(axis=(1, 2), keepdims=True) + 1e-5)
        refs.append(x / rms * s)
    return model(nodes, inputs, outputs, opset), ins, refs


def attention_bad(**attrs):
    def make():
        node = helper.make_node("Attention", ["q", "k", "v"], ["y", "", "",
                                                               "qk"],
                                name="bad", **attrs)
        shape = [1, 2, 8]
        m = model([node], [vi(n, F, shape) for n in "qkv"],
                  [vi("y", F, shape), vi("qk", F, [1, 2, 2, 2])], 23)
        return m, [], []
    return make


MODELS = {
    "attention_gqa_past": attention_gqa_past,
    "attention_nonpad_window": attention_nonpad_window,
    "rotary": rotary,
    "norms23": lambda: norms(23),
    "norms18": lambda: norms(18),
    "attention_no_heads": attention_bad(),
    "attention_bad_mode": attention_bad(q_num_heads=2, kv_num_heads=2,
                                        qk_matmul_output_mode=4),
}

if __name__ == "__main__":
    m, ins, refs = MODELS[sys.argv[1]]()
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "model.onnx"), "wb") as f:
        f.write(m.SerializeToString())
    for i, a in enumerate(ins):
        np.save(os.path.join(out, f"in_{i}.npy"), a)
    for i, a in enumerate(refs):
        np.save(os.path.join(out, f"ref_{i}.npy"), np.asarray(a, np.float32))
