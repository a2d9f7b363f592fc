"""Activations and residual adds computed in the blocks of the convolution
before them (lib/Pipelines/CPU/Epilogues.cpp): each path of a convolution
(a pointwise matmul, a blocked column tensor, pixels as rows of a
transposed product, the direct 3x3 kernel, a depthwise window) with the
activations users have (ReLU, Clip, SiLU, a residual add), run by
scripts/onnx_vs_ort.py against onnxruntime."""

import os
import subprocess

import pytest

onnx = pytest.importorskip("onnx")
np = pytest.importorskip("numpy")


def _conv_model(path, channels, features, size, kernel, activation,
                group=1, stride=1, batch=1, bias=True):
    """Conv (with a bias unless `bias` is false) then `activation`: none,
    relu, clip, silu, add_relu (a
    residual add of the input, then ReLU), relu_max_pool (ReLU, then a 3x3
    stride-2 MaxPool padded by 1: a ResNet's stem) or two_users (ReLU and
    Sigmoid both read the convolution: no epilogue applies)."""
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(7)
    weight = rng.standard_normal(
        (features, channels // group, kernel, kernel)).astype(np.float32)
    inits = [numpy_helper.from_array(weight * 0.2, "w")]
    if bias:
        inits.append(numpy_helper.from_array(
            rng.standard_normal(features).astype(np.float32), "b"))
    nodes = [helper.make_node("Conv", ["x", "w"] + (["b"] if bias else []),
                              ["y" if activation == "none" else "c"],
                              pads=[kernel // 2] * 4, group=group,
                              strides=[stride, stride])]
    outputs = ["y"]
    if activation == "relu":
        nodes.append(helper.make_node("Relu", ["c"], ["y"]))
    elif activation == "clip":
        inits += [numpy_helper.from_array(np.array(0, np.float32), "lo"),
                  numpy_helper.from_array(np.array(6, np.float32), "hi")]
        nodes.append(helper.make_node("Clip", ["c", "lo", "hi"], ["y"]))
    elif activation == "silu":
        nodes += [helper.make_node("Sigmoid", ["c"], ["s"]),
                  helper.make_node("Mul", ["c", "s"], ["y"])]
    elif activation == "add_relu":
        nodes += [helper.make_node("Add", ["c", "x"], ["a"]),
                  helper.make_node("Relu", ["a"], ["y"])]
    elif activation == "relu_max_pool":
        nodes += [helper.make_node("Relu", ["c"], ["r"]),
                  helper.make_node("MaxPool", ["r"], ["y"],
                                   kernel_shape=[3, 3], strides=[2, 2],
                                   pads=[1, 1, 1, 1])]
    elif activation == "two_users":
        nodes += [helper.make_node("Relu", ["c"], ["y"]),
                  helper.make_node("Sigmoid", ["c"], ["z"])]
        outputs.append("z")
    out = (size + 2 * (kernel // 2) - kernel) // stride + 1
    if activation == "relu_max_pool":
        out = (out + 2 - 3) // 2 + 1
    graph = helper.make_graph(
        nodes, "conv",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       [batch, channels, size, size])],
        [helper.make_tensor_value_info(name, TensorProto.FLOAT,
                                       [batch, features, out, out])
         for name in outputs], inits)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, path)


CASES = {
    # 1x1 over 56x56: a matmul of 3136 columns, the activation in its
    # register blocks.
    "pointwise_relu": (32, 96, 56, 1, "relu", 1),
    "pointwise_silu": (32, 96, 56, 1, "silu", 1),
    "pointwise_add_relu": (64, 64, 56, 1, "add_relu", 1),
    # 14x14 and 7x7 outputs: pixels as the rows of a transposed product, the
    # activation applied before the transpose back.
    "pixels_as_rows_silu": (112, 672, 14, 1, "silu", 1),
    "pixels_as_rows_clip": (64, 128, 7, 3, "clip", 1),
    # 3x3 over 56x56 with features that are no multiple of 32: a blocked
    # column tensor, each block starting from the bias and computing the
    # epilogue on its part of the output, at batch 1 and 2.
    "blocked_add_relu": (48, 48, 56, 3, "add_relu", 1),
    "blocked_relu_batch2": (48, 48, 56, 3, "relu", 1, 1, 2),
    # 3x3 stride 1 and 2 over rows of 8k and 7k pixels: the direct kernel
    # (DirectConvolutions.cpp), its register blocks starting from the bias
    # (or zeros) and computing the epilogue after their transpose.
    "direct_add_relu": (64, 64, 56, 3, "add_relu", 1),
    "direct_relu_stride2_batch2": (32, 64, 56, 3, "relu", 1, 2, 2),
    "direct_silu_14": (64, 128, 14, 3, "silu", 1),
    "direct_no_bias_28": (16, 96, 28, 3, "none", 1, 1, 1, False),
    "direct_7x7_batch2": (64, 64, 7, 3, "add_relu", 1, 1, 2),
    # Batch 2 over 14x14 (48 features, no direct kernel): one product for
    # both images, starting from the bias; its transposed copy into the
    # output computes the epilogue.
    "batch2_add_relu": (48, 48, 14, 3, "add_relu", 1, 1, 2),
    "batch2_pointwise_silu": (64, 96, 14, 1, "silu", 1, 1, 2),
    "two_users": (32, 96, 28, 1, "two_users", 1),
    # Depthwise windows: Clip applied to each plane, SiLU apart.
    "depthwise_clip": (96, 96, 28, 3, "clip", 96),
    "depthwise_silu": (144, 144, 14, 5, "silu", 144),
    # A ResNet's stem at batch 2: the max pooling reads the convolution
    # through zero padding and applies the ReLU to its output.
    "stem_relu_max_pool": (3, 16, 64, 7, "relu_max_pool", 1, 2, 2),
}


# Cases also run with AVX2 vectors (8 lanes: the direct kernel's panels of
# 16 features) and 2 threads.
AVX2 = {"direct_add_relu", "direct_relu_stride2_batch2", "direct_no_bias_28"}


@pytest.mark.parametrize("name,avx2", [(name, False) for name in sorted(CASES)]
                         + [(name, True) for name in sorted(AVX2)])
def test_conv_then_activation_matches_onnxruntime(
        name, avx2, repo_root, onnxruntime_python, tools_dir, tmp_path):
    path = str(tmp_path / ("%s.onnx" % name))
    _conv_model(path, *CASES[name])
    extra = (["--mcpu=haswell", "--mattr=+avx2,+fma", "--threads=2"]
             if avx2 else [])
    result = subprocess.run(
        [onnxruntime_python,
         os.path.join(repo_root, "scripts", "onnx_vs_ort.py"), path,
         "--build-dir", os.path.dirname(tools_dir)] + extra,
        capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "all outputs match onnxruntime" in result.stdout, result.stdout
