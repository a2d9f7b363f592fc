"""Writes DFT/STFT/MelWeightMatrix test models with inputs and numpy.fft references.

usage: make_signal_models.py CASE OUT_DIR

Writes OUT_DIR/model.onnx, input_<i>.npy and reference_<i>.npy for
run_graph_model.py. Cases cover what ONNX's node tests do not: onesided
output, a dft_length that pads or truncates, complex input, an inverse
along another axis, the inverse of a one-sided spectrum (irfft) along an
axis given at run time (DFT-20), and STFT with a constant frame step and no
window; TfIdfVectorizer in IDF and TFIDF modes with weights, skips and
three gram lengths (the node tests only cover TF).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper


def complex_of(x):
    return x[..., 0] + 1j * x[..., 1] if x.shape[-1] == 2 else x[..., 0]


def stack(z):
    return np.stack([z.real, z.imag], -1).astype(np.float32)


def mel_reference(bins, length, rate, lower, upper):
    """The triangular filters of the ONNX MelWeightMatrix definition."""
    def to_mel(hz):
        return 2595 * np.log10(1 + hz / 700)
    step = (to_mel(upper) - to_mel(lower)) / (bins + 2)
    hz = 700 * (10 ** ((np.arange(bins + 2) * step + to_mel(lower)) / 2595)
                - 1)
    edges = np.floor((length + 1) * hz / rate).astype(int)
    out = np.zeros((length // 2 + 1, bins))
    for i in range(bins):
        lo, mid, hi = edges[i], edges[i + 1], edges[i + 2]
        if lo == mid:
            out[mid, i] = 1
        else:
            for j in range(lo, mid + 1):
                out[j, i] = (j - lo) / (mid - lo)
        for j in range(mid, hi):
            out[j, i] = (hi - j) / (hi - mid)
    return out.astype(np.float32)


def make_mel(out):
    """num_mel_bins and dft_length are inputs (run-time values), the rest
    initializers."""
    bins, length = np.int64(5), np.int64(40)
    inits = [helper.make_tensor("rate", TensorProto.INT64, [], [16000]),
             helper.make_tensor("lo", TensorProto.FLOAT, [], [100.0]),
             helper.make_tensor("hi", TensorProto.FLOAT, [], [7000.0])]
    node = helper.make_node("MelWeightMatrix",
                            ["bins", "length", "rate", "lo", "hi"], ["y"])
    ref = mel_reference(int(bins), int(length), 16000, 100.0, 7000.0)
    graph = helper.make_graph(
        [node], "mel",
        [helper.make_tensor_value_info("bins", TensorProto.INT64, []),
         helper.make_tensor_value_info("length", TensorProto.INT64, [])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["r", "m"])],
        initializer=inits)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    os.makedirs(out, exist_ok=True)
    onnx.save(model, os.path.join(out, "model.onnx"))
    np.save(os.path.join(out, "input_0.npy"), np.array(bins))
    np.save(os.path.join(out, "input_1.npy"), np.array(length))
    np.save(os.path.join(out, "reference_0.npy"), ref)


def tfidf_reference(x, grams, features, weights, lo, hi, skip, mode):
    """Counts each vocabulary n-gram at every start and skip (unigrams once)."""
    out = np.zeros((x.shape[0], max(features) + 1), np.float32)
    for r, row in enumerate(x):
        for g, f in zip(grams, features):
            n = len(g)
            if not lo <= n <= hi:
                continue
            for s in range(skip + 1 if n > 1 else 1):
                step = s + 1
                for i in range(len(row) - (n - 1) * step):
                    if all(row[i + k * step] == g[k] for k in range(n)):
                        out[r, f] += 1
    w = np.array(weights, np.float32)
    if mode == "IDF":
        return np.where(out > 0, w, 0).astype(np.float32)
    return (out * w).astype(np.float32)


def make_tfidf(out, mode):
    rng = np.random.default_rng(3)
    x = rng.integers(1, 5, size=(2, 9)).astype(np.int64)
    grams = [[1], [3], [2, 3], [4, 1], [1, 2, 3], [3, 3, 3]]
    features = [0, 1, 2, 3, 4, 5]
    weights = [0.5, 2.0, 1.5, 3.0, 4.0, 0.25]
    pool = [t for g in grams for t in g]
    node = helper.make_node(
        "TfIdfVectorizer", ["x"], ["y"], mode=mode, min_gram_length=1,
        max_gram_length=3, max_skip_count=1, ngram_counts=[0, 2, 6],
        ngram_indexes=features, pool_int64s=pool, weights=weights)
    ref = tfidf_reference(x, grams, features, weights, 1, 3, 1, mode)
    graph = helper.make_graph(
        [node], "tfidf",
        [helper.make_tensor_value_info("x", TensorProto.INT64, x.shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ref.shape)])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 9)])
    onnx.checker.check_model(model)
    os.makedirs(out, exist_ok=True)
    onnx.save(model, os.path.join(out, "model.onnx"))
    np.save(os.path.join(out, "input_0.npy"), x)
    np.save(os.path.join(out, "reference_0.npy"), ref)


def main():
    name, out = sys.argv[1], sys.argv[2]
    rng = np.random.default_rng(7)
    inits, inputs, attrs, node_inputs = [], {}, {}, ["x"]
    opset, extra = 17, []
    if name == "dft_onesided_pad":
        x = rng.standard_normal((2, 6, 1)).astype(np.float32)
        inits.append(helper.make_tensor("len", TensorProto.INT64, [], [9]))
        node_inputs.append("len")
        attrs = dict(axis=1, onesided=1)
        ref = stack(np.fft.rfft(complex_of(x), n=9, axis=1))
        op = "DFT"
    elif name == "dft_complex_truncate":
        x = rng.standard_normal((2, 3, 7, 2)).astype(np.float32)
        inits.append(helper.make_tensor("len", TensorProto.INT64, [], [5]))
        node_inputs.append("len")
        attrs = dict(axis=2)
        ref = stack(np.fft.fft(complex_of(x)[:, :, :5], axis=2))
        op = "DFT"
    elif name == "dft_inverse_axis":
        x = rng.standard_normal((3, 4, 5, 2)).astype(np.float32)
        attrs = dict(axis=-2, inverse=1)  # the 5-sample axis
        ref = stack(np.fft.ifft(complex_of(x), axis=2))
        op = "DFT"
    elif name == "dft20_irfft_runtime_axis":
        # Candidates: axis 0 (n = 2) and axis 1 (n = 8); the run-time axis
        # picks 1, so the result extent along it is dynamic in the IR.
        x = rng.standard_normal((2, 5, 2)).astype(np.float32)
        node_inputs += ["", "axis"]
        extra = [("axis", np.array(1, dtype=np.int64))]
        attrs = dict(inverse=1, onesided=1)
        ref = np.fft.irfft(complex_of(x), axis=1)[..., None].astype(np.float32)
        op, opset = "DFT", 20
    elif name == "stft_constant_step":
        x = rng.standard_normal((2, 40, 1)).astype(np.float32)
        inits += [helper.make_tensor("step", TensorProto.INT64, [], [6]),
                  helper.make_tensor("flen", TensorProto.INT64, [], [10])]
        node_inputs += ["step", "", "flen"]
        attrs = dict(onesided=0)
        frames = (40 - 10) // 6 + 1
        sig = complex_of(x)
        ref = stack(np.stack([np.fft.fft(sig[:, f * 6:f * 6 + 10], axis=1)
                              for f in range(frames)], 1))
        op = "STFT"
    elif name == "mel":
        return make_mel(out)
    elif name in ("tfidf_idf", "tfidf_tfidf"):
        return make_tfidf(out, name.split("_")[1].upper())
    else:
        sys.exit("unknown case " + name)
    node = helper.make_node(op, node_inputs, ["y"], **attrs)
    graph = helper.make_graph(
        [node], name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)] +
        [helper.make_tensor_value_info(n, TensorProto.INT64, v.shape)
         for n, v in extra],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ref.shape)],
        initializer=inits)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", opset)])
    if opset <= 17:  # the checker of onnx 1.12 knows opsets up to 17
        onnx.checker.check_model(model)
    os.makedirs(out, exist_ok=True)
    onnx.save(model, os.path.join(out, "model.onnx"))
    np.save(os.path.join(out, "input_0.npy"), x)
    for i, (_, v) in enumerate(extra, start=1):
        np.save(os.path.join(out, f"input_{i}.npy"), v)
    np.save(os.path.join(out, "reference_0.npy"), ref)


if __name__ == "__main__":
    main()
