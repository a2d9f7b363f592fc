#!/usr/bin/python3
"""Regenerates the seed corpora in fuzz/corpus/<target>/ from the test inputs.

usage: fuzz/make_corpus.py   (needs /usr/bin/python3 with numpy, onnx and torch, and
protoc; run from anywhere). Seeds are small valid files of each format, so
the fuzzers start from inputs that reach deep into the readers.
"""
import hashlib
import re
import os
import shutil
import struct
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "fuzz", "corpus")
sys.path.insert(0, os.path.join(ROOT, "test", "BadInput", "Inputs"))
sys.path.insert(0, os.path.join(ROOT, "test", "Import", "ONNX", "Inputs"))
sys.path.insert(0, os.path.join(ROOT, "test", "Import", "MIL", "Inputs"))


def put(target, data, name=None):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    name = name or hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def mil_encode(text, message="Program"):
    proto_dir = os.path.join(ROOT, "include", "mlprog", "Import", "MIL")
    return subprocess.run(
        ["protoc", "-I" + proto_dir, "mil.proto",
         "--encode=mlprog.mil." + message],
        input=text.encode(), capture_output=True, check=True).stdout


def strip_comments(path):
    lines = open(path).read().splitlines()
    return "\n".join(l for l in lines if not l.lstrip().startswith("#")) + "\n"


# onnx 1.23 node tests that seed fuzz-onnx (IR 9+, opsets 18-25).
NODE_TESTS_1_23 = (
    "attention_3d", "attention_4d_gqa_with_past_and_present",
    "rms_normalization_2d_axis0", "rotary_embedding",
    "split_equal_parts_1d_opset18",
    "reduce_mean_default_axes_keepdims_example", "center_crop_pad_crop",
    "col2im", "group_normalization_example", "bitwise_and_i32_2d",
    "gelu_tanh_1", "resize_downsample_scales_linear_antialias",
    "layer_normalization_2d_axis0_expanded_ver18", "loop16_seq_none",
    "if_opt",
    # Session 16: Unique, TfIdfVectorizer, DFT-20, DeformConv, FlexAttention
    # (a non-default domain with subgraphs), blocked QuantizeLinear,
    # dilated AveragePool, antialiased Resize, volumetric GridSample,
    # sequences and optionals, BitCast, TensorScatter, AffineGrid, Col2Im,
    # CausalConvWithState, LinearAttention.
    "unique_sorted_with_axis", "tfidfvectorizer_tf_uniandbigrams_skip5",
    "dft_irfft", "dft_axis", "basic_deform_conv_with_padding",
    "flexattention_score_mod", "quantizelinear_blocked_asymmetric",
    "averagepool_2d_dilations", "resize_downsample_sizes_cubic_antialias",
    "gridsample_volumetric_bilinear_align_corners_0",
    "sequence_insert_at_back", "split_to_sequence_1",
    "optional_has_element_optional_input", "sequence_map_add_2_sequences",
    "bitcast_float32_to_int32", "tensorscatter", "affine_grid_2d",
    "causal_conv_with_state_basic", "linear_attention_gated_delta")


def torchscript_parity_seeds():
    """IR text of every function case of the TorchScript parity suite
    (test/Integration/TorchScript/Inputs/parity.py), each tensor input typed
    with its example's dtype and shape as the importer needs."""
    import inspect
    import torch
    sys.path.insert(0, os.path.join(ROOT, "test", "Integration",
                                    "TorchScript", "Inputs"))
    import parity
    for case in parity.CASES:
        fn = case["obj"]
        if not inspect.isfunction(fn) or fn.__code__.co_argcount == 0:
            continue  # module factories: their graphs take `self`
        graph = torch.jit.script(fn).graph
        for value, example in zip(graph.inputs(), case["inputs"]):
            if isinstance(example, np.ndarray):
                value.setType(torch._C.TensorType.create_from_tensor(
                    torch.from_numpy(example)))
        put("fuzz-torchscript", str(graph).encode(), "parity-" + case["name"])


def node_tests_per_op(node_dir, max_bytes=8192):
    """One passing onnx 1.23 node test per op type (the first by name whose
    model is at most max_bytes): every opset 18+ handler gets a seed."""
    import onnx
    xfail = os.path.join(ROOT, "test", "Import", "ONNX",
                         "conformance-xfail-1.23.txt")
    failing = {l.split()[0].split("/")[-1] for l in open(xfail)
               if l.strip() and not l.startswith("#")}
    seen = set()
    for case in sorted(os.listdir(node_dir)):
        path = os.path.join(node_dir, case, "model.onnx")
        if case in failing or not os.path.exists(path) or \
                os.path.getsize(path) > max_bytes:
            continue
        model = onnx.load(path)
        key = tuple(sorted({(n.domain, n.op_type) for n in model.graph.node}))
        if key in seen:
            continue
        seen.add(key)
        with open(path, "rb") as f:
            put("fuzz-onnx", f.read(), "onnx123-" + case[len("test_"):])


def main():
    shutil.rmtree(CORPUS, ignore_errors=True)
    import make_bad
    import make_model
    import onnx

    # ONNX: the importer test models and the bad-input suite's valid model.
    for name in ("add_bcast_dynamic", "matmul_dynamic", "initializers",
                 "unsupported_op", "unsorted", "ir10_opset18",
                 "ml_domain_newer", "float6_input"):
        put("fuzz-onnx", getattr(make_model, name)().SerializeToString(), name)
    put("fuzz-onnx", make_bad.onnx_valid(), "relu")
    put("fuzz-onnx", make_bad.onnx_cycle(), "cycle")
    # Models of IR 9+ and opsets 18+ (the libonnx view of ModelLoader.cpp):
    # small node tests of onnx 1.23, when scripts/onnx_conformance.py
    # --onnx-version 1.23 has generated them into build/.
    node_123 = os.path.join(ROOT, "build", "onnx-testdata-1.23", "node")
    if os.path.isdir(node_123):
        for case in NODE_TESTS_1_23:
            with open(os.path.join(node_123, "test_" + case,
                                   "model.onnx"), "rb") as f:
                put("fuzz-onnx", f.read(), "onnx123-" + case)
        node_tests_per_op(node_123)
    else:
        print(f"make_corpus: {node_123} missing; no onnx 1.23 seeds "
              "(run scripts/onnx_conformance.py --onnx-version 1.23 first)")

    # The ONNX state bindings (fuzz-onnx imports with --state=auto): a
    # decoder step with past_key_values.* inputs and present.* outputs.
    import make_state_models
    put("fuzz-onnx", make_state_models.kv(None).SerializeToString(),
        "state-kv")

    # TorchScript IR text: the importer tests are IR text files.
    ts_dir = os.path.join(ROOT, "test", "Import", "TorchScript")
    for name in sorted(os.listdir(ts_dir)):
        path = os.path.join(ts_dir, name)
        if name.endswith(".test") and "graph(" in open(path).read():
            put("fuzz-torchscript", strip_comments(path).encode(), name[:-5])

    # ... and the parity suite's scripted functions (the op set that PyTorch
    # programs use), their inputs typed with the cases' example shapes.
    torchscript_parity_seeds()

    # MIL: Programs and a Model from the test inputs.
    inputs = os.path.join(ROOT, "test", "BadInput", "Inputs")
    put("fuzz-mil", mil_encode(open(os.path.join(inputs, "mil-program.pbtxt")).read()), "program")
    put("fuzz-mil", mil_encode(open(os.path.join(inputs, "mil-blob.pbtxt")).read()), "blob")
    put("fuzz-mil", mil_encode(open(os.path.join(inputs, "mil-model.pbtxt")).read(), "Model"), "model")
    mil_dir = os.path.join(ROOT, "test", "Import", "MIL")
    # Every importer test program (states, lists, einsum, attention, ...):
    # the files that hold one Program message encode; the others are skipped.
    for name in sorted(n for n in os.listdir(mil_dir) if n.endswith(".pbtxt")):
        try:
            put("fuzz-mil", mil_encode(strip_comments(os.path.join(mil_dir, name))), name[:-6])
        except subprocess.CalledProcessError:
            pass

    # ... and the execution tests' programs (the MIL op set: one output per
    # core op, a CNN, a transformer block), weights inline.
    make_models = os.path.join(ROOT, "test", "Integration", "MIL", "Inputs",
                               "make_models.py")
    with tempfile.TemporaryDirectory() as tmp:
        for kind in ("ops", "cnn", "transformer"):
            subprocess.run([sys.executable, make_models, kind,
                            os.path.join(tmp, kind), "--weights", "inline"],
                           check=True)
            text = open(os.path.join(tmp, kind, "program.pbtxt")).read()
            data = mil_encode(text)
            if len(data) <= 65536:  # the campaign's -max_len
                put("fuzz-mil", data, "program-" + kind)

    # ... and coremltools' own op tests (the whole MIL op set of iOS15-18),
    # kept by the conformance CI subset when it runs with
    # MLPROG_MIL_KEEP_MODELS=build/mil-ci-models (programs without blobs).
    mil_ci = os.path.join(ROOT, "build", "mil-ci-models")
    if os.path.isdir(mil_ci):
        for name in sorted(os.listdir(mil_ci)):
            with open(os.path.join(mil_ci, name), "rb") as f:
                put("fuzz-mil", f.read(), "optest-" + name[:-len(".mlmodel")])
    else:
        print(f"make_corpus: {mil_ci} missing; no MIL op-test seeds (run "
              "MLPROG_MIL_KEEP_MODELS=build/mil-ci-models scripts/"
              "mil_conformance.py --ci-subset first)")

    # weight.bin: the MIL test writer's file and the bad-input suite's.
    from mil_writer import BlobWriter
    w = BlobWriter()
    w.add(np.arange(6, dtype=np.float32).reshape(2, 3))
    w.add(np.arange(1, 5, dtype=np.float16))
    w.add(np.arange(8, dtype=np.int8))
    put("fuzz-weight-bin", w.bytes(), "three-blobs")
    put("fuzz-weight-bin", make_bad.blob_valid(), "one-blob")

    # safetensors.
    put("fuzz-safetensors", make_bad._st(
        {"w": {"dtype": "F32", "shape": [2, 4], "data_offsets": [0, 32]},
         "b": {"dtype": "I64", "shape": [1], "data_offsets": [32, 40]},
         "__metadata__": {"format": "pt"}}, bytes(range(40))), "two")
    put("fuzz-safetensors", make_bad._st({}, b""), "empty")
    put("fuzz-safetensors", make_bad._st(
        {"h": {"dtype": "BF16", "shape": [], "data_offsets": [0, 2]}}, b"\1\2"),
        "scalar")

    # .npy: several dtypes, ranks and versions.
    import io
    for i, arr in enumerate([np.zeros((2, 4), np.float32),
                             np.arange(5, dtype=np.int64),
                             np.array(True),
                             np.ones((1, 2, 3), np.float16),
                             np.arange(6, dtype=np.uint8).reshape(2, 3)]):
        buf = io.BytesIO()
        np.save(buf, arr)
        put("fuzz-npy", buf.getvalue(), "array%d" % i)
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.zeros(3, np.float64), version=(2, 0))
    put("fuzz-npy", buf.getvalue(), "v2")

    # .mlir: the dialect tests' cases that use only ml_program, arith and
    # builtin ops.
    dialect = os.path.join(ROOT, "test", "Dialect", "MLProgram")
    allowed = ("ml_program", "arith", "cf", "builtin")
    for name in sorted(os.listdir(dialect)):
        if not name.endswith(".mlir"):
            continue
        text = open(os.path.join(dialect, name)).read()
        for i, case in enumerate(text.split("// -----")):
            body = "\n".join(l for l in case.splitlines()
                             if not l.lstrip().startswith("//"))
            dialects = {m.group(1) for m in
                        re.finditer(r"(?:^|[\s=])\"?([a-z_]+)\.[a-z_]+", body)}
            ops = dialects - set(allowed) - {"onnx", "weight", "model", "llvm"}
            if body.strip() and not ops:
                put("fuzz-mlir", body.encode(), "%s-%d" % (name[:-5], i))

    # fuzz-model-path: a flag byte (bit 0: allowAbsolute), the offset and
    # length of a range check (little-endian uint64 each), then a name that
    # meets one trap of the target's tree (fuzz/fuzz-model-path.cpp).
    for i, (flag, offset, length, name) in enumerate([
            (0, 0, 16, b"w.bin"), (0, 8, 8, b"sub/x.bin"),
            (0, 0, 0, b"../secret"), (0, 0, 0, b"./sub/../../secret"),
            (0, 0, 0, b"out"), (0, 0, 0, b"up/secret"), (0, 0, 0, b"in"),
            (0, 0, 0, b"sibling/y.bin"), (0, 0, 0, b"sub-out"),
            (0, 0, 0, b"loop-a"), (0, 0, 0, b"fifo"), (0, 0, 0, b"dir"),
            (0, 0, 0, b"%2e%2e"), (0, 0, 0, b"%2e%2e/secret"),
            (1, 0, 0, b"/etc/hostname"), (0, 2**64 - 1, 1, b"w.bin"),
            (0, 17, 0, b"w.bin"), (0, 0, 0, b"w.bin\0/../secret")]):
        put("fuzz-model-path", struct.pack("<BQQ", flag, offset, length) + name,
            "seed%02d" % i)

    # Every fuzzer finding, kept as a bad-input test input named
    # test/BadInput/Inputs/fuzz-TARGET-WHAT.EXT, is a seed of its target too.
    targets = ("onnx", "torchscript", "mil", "weight-bin", "safetensors",
               "npy", "mlir", "model-path")
    for name in sorted(os.listdir(inputs)):
        m = re.match(r"fuzz-(%s)-(.+)\.[a-z]+$" % "|".join(targets), name)
        if m:
            data = open(os.path.join(inputs, name), "rb").read()
            put("fuzz-" + m.group(1), data, "regression-" + m.group(2))

if __name__ == "__main__":
    main()
