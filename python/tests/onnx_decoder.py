"""A small GPT-style ONNX decoder with past/present KV cache inputs and
outputs, as transformers/optimum export them, and greedy decoding with
onnxruntime feeding `present.*` back as `past_key_values.*`.

Imports neither mlprog nor pytest: test_onnx_state.py runs this file in a
Python that has onnxruntime (the project's .venv) to get the reference:

    python onnx_decoder.py OUT.npz   # writes tokens and logits per step

Model (opset 17, IR 8, onnx.helper only; onnx 1.12 and 1.23 both load it):
inputs `input_ids` [1, seq] int64 and `past_key_values.<l>.{key,value}`
[1, HEADS, past, HEAD_DIM]; outputs `logits` [1, seq, VOCAB] and
`present.<l>.{key,value}` [1, HEADS, past + seq, HEAD_DIM]. Each of LAYERS
pre-LayerNorm blocks has causal multi-head attention over Concat(past, new)
and a quick-GELU MLP; positions start at the past length.
"""

import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

VOCAB, HIDDEN, HEADS, LAYERS, MAX_POS = 32, 16, 2, 2, 64
HEAD_DIM = HIDDEN // HEADS
PROMPT = [3, 17, 5, 29, 11]
NEW_TOKENS = 16


def build_decoder(seed=0):
    """The decoder as an onnx.ModelProto with random weights."""
    rng = np.random.default_rng(seed)
    inits, nodes = [], []

    def weight(name, shape, scale=0.5):
        inits.append(numpy_helper.from_array(
            (rng.standard_normal(shape) * scale).astype(np.float32), name))
        return name

    def const(name, value):
        inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def node(op, inputs, output, **attrs):
        nodes.append(helper.make_node(op, inputs, [output], **attrs))
        return output

    def layer_norm(x, prefix):
        inits.append(numpy_helper.from_array(
            (1 + 0.1 * rng.standard_normal(HIDDEN)).astype(np.float32),
            prefix + ".gamma"))
        weight(prefix + ".beta", [HIDDEN], 0.1)
        return node("LayerNormalization",
                    [x, prefix + ".gamma", prefix + ".beta"], prefix + ".out",
                    axis=-1, epsilon=1e-5)

    const("one", np.array(1, np.int64))
    const("zero", np.array(0, np.int64))
    const("axis0", np.array([0], np.int64))
    const("axis1", np.array([1], np.int64))
    const("heads_shape", np.array([0, 0, HEADS, HEAD_DIM], np.int64))
    const("hidden_shape", np.array([0, 0, HIDDEN], np.int64))
    const("scale", np.array(1 / np.sqrt(HEAD_DIM), np.float32))
    const("masked", np.array(-1e9, np.float32))
    const("unmasked", np.array(0, np.float32))
    const("gelu_k", np.array(1.702, np.float32))

    # Positions past .. past + seq - 1 and the causal mask over past + seq.
    node("Shape", ["past_key_values.0.key"], "past_1", start=2, end=3)
    node("Shape", ["input_ids"], "seq_1", start=1, end=2)
    node("Squeeze", ["past_1", "axis0"], "past_len")
    node("Squeeze", ["seq_1", "axis0"], "seq_len")
    node("Add", ["past_len", "seq_len"], "total_len")
    node("Range", ["past_len", "total_len", "one"], "positions")
    node("Range", ["zero", "total_len", "one"], "key_positions")
    node("Unsqueeze", ["positions", "axis1"], "query_column")
    node("LessOrEqual", ["key_positions", "query_column"], "allowed")
    node("Where", ["allowed", "unmasked", "masked"], "causal_bias")

    weight("wte", [VOCAB, HIDDEN])
    weight("wpe", [MAX_POS, HIDDEN])
    node("Gather", ["wte", "input_ids"], "tok_emb")
    node("Gather", ["wpe", "positions"], "pos_emb")
    h = node("Add", ["tok_emb", "pos_emb"], "h0")

    for l in range(LAYERS):
        p = "l%d" % l
        x = layer_norm(h, p + ".ln1")
        heads = {}
        for n in ("q", "k", "v"):
            proj = node("MatMul", [x, weight("%s.w%s" % (p, n),
                                             [HIDDEN, HIDDEN])], p + "." + n)
            split = node("Reshape", [proj, "heads_shape"], proj + ".split")
            heads[n] = node("Transpose", [split], proj + ".heads",
                            perm=[0, 2, 1, 3])
        key = node("Concat", ["past_key_values.%d.key" % l, heads["k"]],
                   "present.%d.key" % l, axis=2)
        value = node("Concat", ["past_key_values.%d.value" % l, heads["v"]],
                     "present.%d.value" % l, axis=2)
        kt = node("Transpose", [key], p + ".kt", perm=[0, 1, 3, 2])
        scores = node("MatMul", [heads["q"], kt], p + ".scores")
        scaled = node("Mul", [scores, "scale"], p + ".scaled")
        biased = node("Add", [scaled, "causal_bias"], p + ".biased")
        probs = node("Softmax", [biased], p + ".probs", axis=-1)
        ctx = node("MatMul", [probs, value], p + ".ctx")
        merged = node("Transpose", [ctx], p + ".merged", perm=[0, 2, 1, 3])
        flat = node("Reshape", [merged, "hidden_shape"], p + ".flat")
        attn = node("MatMul", [flat, weight(p + ".wo", [HIDDEN, HIDDEN])],
                    p + ".attn")
        h = node("Add", [h, attn], p + ".h1")
        x = layer_norm(h, p + ".ln2")
        up = node("MatMul", [x, weight(p + ".w1", [HIDDEN, 4 * HIDDEN])],
                  p + ".up")
        gate = node("Sigmoid", [node("Mul", [up, "gelu_k"], p + ".upk")],
                    p + ".gate")
        act = node("Mul", [up, gate], p + ".act")
        down = node("MatMul", [act, weight(p + ".w2", [4 * HIDDEN, HIDDEN])],
                    p + ".down")
        h = node("Add", [h, down], p + ".h2")
    x = layer_norm(h, "ln_f")
    node("MatMul", [x, weight("lm_head", [HIDDEN, VOCAB])], "logits")

    f = TensorProto.FLOAT
    cache = [1, HEADS, "past_sequence_length", HEAD_DIM]
    present = [1, HEADS, "total_sequence_length", HEAD_DIM]
    inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT64,
                                            [1, "sequence_length"])]
    outputs = [helper.make_tensor_value_info("logits", f,
                                             [1, "sequence_length", VOCAB])]
    for l in range(LAYERS):
        for kind in ("key", "value"):
            inputs.append(helper.make_tensor_value_info(
                "past_key_values.%d.%s" % (l, kind), f, cache))
            outputs.append(helper.make_tensor_value_info(
                "present.%d.%s" % (l, kind), f, present))
    graph = helper.make_graph(nodes, "decoder", inputs, outputs,
                              initializer=inits)
    model = helper.make_model(graph, producer_name="mlprog-test",
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def empty_cache():
    """The past of the first step: LAYERS x (key, value) of length 0."""
    return [np.zeros((1, HEADS, 0, HEAD_DIM), np.float32)
            for _ in range(2 * LAYERS)]


def greedy(step, prompt=PROMPT, new_tokens=NEW_TOKENS):
    """Greedy decoding with `step(input_ids) -> logits` that keeps its own
    cache: the prompt in one step, then one token per step. Returns the
    generated tokens and each step's logits."""
    tokens, logits = [], []
    ids = np.array([prompt], np.int64)
    for _ in range(new_tokens):
        out = step(ids)
        logits.append(out)
        tokens.append(int(np.argmax(out[0, -1])))
        ids = np.array([[tokens[-1]]], np.int64)
    return tokens, logits


def onnxruntime_greedy(model):
    """greedy() through onnxruntime, feeding present.* back as past.*."""
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()][1:]
    cache = empty_cache()

    def step(ids):
        outs = session.run(None, dict(zip(["input_ids"] + names,
                                          [ids] + cache)))
        cache[:] = outs[1:]
        return outs[0]

    return greedy(step)


def main():
    tokens, logits = onnxruntime_greedy(build_decoder())
    np.savez(sys.argv[1], tokens=np.array(tokens, np.int64),
             **{"logits_%d" % i: l for i, l in enumerate(logits)})


if __name__ == "__main__":
    main()
