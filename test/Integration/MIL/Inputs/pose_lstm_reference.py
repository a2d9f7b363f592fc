"""Independent numpy reference for technicallypilates' PoseLSTMClassifier
(../shared/models/coreml): a Keras LSTM(64) over 30 steps of 9 features
(gates i, f, c, o; zero initial state), then Dense(32, relu) and
Dense(2, softmax), computed in float32 here (the program computes in fp16).

Usage: pose_lstm_reference.py MODEL_TEXT WEIGHT_BIN OUT_DIR

MODEL_TEXT is the package's model.mlmodel decoded by
`protoc --decode=mlprog.mil.Model`; the weights are read from WEIGHT_BIN
(blob storage v2: per blob a 64-byte record: sentinel, dtype, size in bytes,
data offset) by the offsets the const ops name. Writes input_0.npy (random,
[1, 30, 9]), reference_0.npy (the last hidden state, [1, 1, 64], as the
program's list_gather stacks it) and reference_1.npy (the class
probabilities, [1, 2]).
"""

import ast
import os
import re
import struct
import sys

import numpy as np

model_text, weight_bin, out = sys.argv[1:4]
text = open(model_text).read()
blob = open(weight_bin, "rb").read()

# Each const op: its output name, then a blob offset or immediate bytes.
weights = {}
for chunk in text.split("operations {")[1:]:
    if 'type: "const"' not in chunk:
        continue
    name = re.search(r'name: "([^"]+)"', chunk).group(1)
    offset = re.search(r"blobFileValue \{\s*fileName: \"[^\"]+\"\s*offset: (\d+)",
                       chunk)
    if offset:
        sentinel, dtype, size, data = struct.unpack_from(
            "<IIQQ", blob, int(offset.group(1)))
        assert sentinel == 0xDEADBEEF and dtype in (1, 2), (name, dtype)
        elem = np.float16 if dtype == 1 else np.float32
        weights[name] = np.frombuffer(blob, elem, size // np.dtype(elem).itemsize,
                                      data).astype(np.float32)
        continue
    raw = re.search(r'bytes \{\s*values: ("(?:[^"\\]|\\.)*")', chunk)
    if raw:
        weights[name] = np.frombuffer(ast.literal_eval("b" + raw.group(1)),
                                      np.float16).astype(np.float32)

wx = weights["Func_sequential_lstm_PartitionedCall_input__3_to_fp16"].reshape(9, 256)
wh = weights["Func_sequential_lstm_PartitionedCall_input__4_to_fp16"].reshape(64, 256)
bias = weights["Func_sequential_lstm_PartitionedCall_input__5_to_fp16"]
h0 = weights["sequential_lstm_zeros"].reshape(1, 64)
c0 = weights["sequential_lstm_zeros_1"].reshape(1, 64)
d1 = weights["transpose_0_cast_fp16_to_fp32_to_fp16"].reshape(32, 64)
b1 = weights["sequential_dense_BiasAdd_bias_0_to_fp16"]
d2 = weights["transpose_1_cast_fp16_to_fp32_to_fp16"].reshape(2, 32)
b2 = weights["sequential_dense_1_BiasAdd_bias_0_to_fp16"]


def sigmoid(v):
    return 1 / (1 + np.exp(-v))


x = np.random.default_rng(7).uniform(0, 1, (1, 30, 9)).astype(np.float32)
h, c = h0, c0
for t in range(x.shape[1]):
    i, f, g, o = np.split(x[:, t] @ wx + h @ wh + bias, 4, axis=1)
    c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
    h = sigmoid(o) * np.tanh(c)
logits = np.maximum(h @ d1.T + b1, 0) @ d2.T + b2
probs = np.exp(logits - logits.max(axis=-1, keepdims=True))
probs /= probs.sum(axis=-1, keepdims=True)

np.save(os.path.join(out, "input_0.npy"), x)
np.save(os.path.join(out, "reference_0.npy"), h[None].astype(np.float32))
np.save(os.path.join(out, "reference_1.npy"), probs.astype(np.float32))
