"""Quantized ONNX models against onnxruntime's int8 kernels (issue "Real
ONNX models"): models quantized by onnxruntime's own tools, and the
com.microsoft contrib ops its QOperator format uses.

int8_export.py (run under the project's .venv) writes resnet18 quantized
by `quantize_static` in the QDQ and QOperator formats and a small BERT
quantized by `quantize_dynamic`. mlprog computes the QDQ pairs and the
QLinear ops by their ONNX definitions (dequantize, compute, requantize,
rounding half to even); onnxruntime fuses them into integer kernels whose
float steps round in another order, so a quantized value may land one
step away and carry that through the next layers. The acceptance: float
outputs within one quantization step of the output's scale (the final
DequantizeLinear's), integer outputs equal or one step apart.

Measured (session 19, `pytest -s`, 22 s): resnet18 QOperator equal to
onnxruntime in all 1000 logits; resnet18 QDQ: 200 of 1000 logits one
step (0.042) apart, none further; BERT dynamic: 7.2e-7; the contrib-op
model: one of 216 QLinearMul values one step apart.
"""

import os
import subprocess

import numpy as np
import pytest

import mlprog

pytestmark = pytest.mark.skipif(not mlprog.HAVE_ONNX,
                                reason="built without the ONNX importer")

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope="module")
def quantized_models(repo_root, tmp_path_factory):
    venv = os.path.join(repo_root, ".venv", "bin", "python")
    if not os.path.exists(venv) or subprocess.run(
            [venv, "-c", "import torch, torchvision, transformers, "
             "onnxruntime.quantization"], capture_output=True).returncode:
        pytest.skip("no .venv with torch, transformers and onnxruntime "
                    "(bash scripts/setup-venv.sh --with torch --with "
                    "transformers)")
    out = tmp_path_factory.mktemp("int8")
    subprocess.run([venv, os.path.join(HERE, "int8_export.py"), str(out)],
                   check=True, timeout=900, capture_output=True)
    return out


def _ort(path, feeds):
    session = ort.InferenceSession(str(path),
                                   providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def _output_step(path):
    """The scale of the DequantizeLinear that makes the graph's output."""
    model = onnx.load(str(path))
    inits = {t.name: numpy_helper.to_array(t)
             for t in model.graph.initializer}
    output = model.graph.output[0].name
    for node in model.graph.node:
        if node.op_type == "DequantizeLinear" and output in node.output:
            return float(inits[node.input[1]])
    raise AssertionError("the output is not made by a DequantizeLinear")


@pytest.mark.parametrize("fmt", ["qdq", "qop"])
def test_static_resnet18_within_one_step(quantized_models, fmt):
    path = quantized_models / ("resnet18-%s.onnx" % fmt)
    image = np.load(quantized_models / "image.npy")
    (want,) = _ort(path, {"input": image})
    got = mlprog.compile(mlprog.import_onnx(str(path)))(image)
    step = _output_step(path)
    diff = np.abs(got - want)
    print("resnet18 %s: %d of %d logits differ, max %.3g (one step %.3g)" % (
        fmt, int((diff > 0).sum()), diff.size, diff.max(), step))
    assert got.shape == want.shape and got.dtype == want.dtype
    assert diff.max() <= step * 1.0001
    # Most logits agree exactly: a difference is a rounding tie, not a bug.
    assert (diff == 0).mean() > 0.5


def test_dynamic_bert(quantized_models):
    path = quantized_models / "bert-dynamic.onnx"
    ids = np.load(quantized_models / "input_ids.npy")
    mask = np.load(quantized_models / "attention_mask.npy")
    (want,) = _ort(path, {"input_ids": ids, "attention_mask": mask})
    got = mlprog.compile(mlprog.import_onnx(str(path)))(ids, mask)
    print("bert dynamic: max abs diff %.2e" % np.abs(got - want).max())
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def _contrib_model():
    """QLinearAdd, QLinearMul, QLinearGlobalAveragePool (NCHW and NHWC) and
    QGemm (transB, per-column int8 B, i32 bias; quantized and float
    outputs) on uint8 inputs."""
    rng = np.random.default_rng(3)

    def const(name, array):
        return numpy_helper.from_array(np.asarray(array), name)

    inits = [
        _const("sa", np.float32(0.05)), _const("za", np.uint8(120)),
        _const("sb", np.float32(0.03)), _const("zb", np.uint8(100)),
        _const("sc", np.float32(0.07)), _const("zc", np.uint8(128)),
        _const("sp", np.float32(0.02)), _const("zp", np.uint8(10)),
        _const("w", rng.integers(-127, 128, (5, 12)).astype(np.int8)),
        _const("sw", rng.uniform(0.01, 0.05, 5).astype(np.float32)),
        _const("zw", np.zeros(5, np.int8)),
        _const("bias", rng.integers(-500, 500, 5).astype(np.int32)),
        _const("sy", np.float32(0.4)), _const("zy", np.uint8(128)),
    ]
    ms = "com.microsoft"
    nodes = [
        helper.make_node("QLinearAdd", ["a", "sa", "za", "b", "sb", "zb",
                                        "sc", "zc"], ["add"], domain=ms),
        helper.make_node("QLinearMul", ["a", "sa", "za", "b", "sb", "zb",
                                        "sc", "zc"], ["mul"], domain=ms),
        helper.make_node("QLinearGlobalAveragePool",
                         ["add", "sc", "zc", "sp", "zp"], ["pool"],
                         domain=ms, channels_last=0),
        helper.make_node("QLinearGlobalAveragePool",
                         ["mul", "sc", "zc", "sp", "zp"], ["pool_nhwc"],
                         domain=ms, channels_last=1),
        helper.make_node("Reshape", ["pool", "shape"], ["flat"]),
        helper.make_node("QGemm", ["flat", "sp", "zp", "w", "sw", "zw",
                                   "bias", "sy", "zy"], ["gemm"], domain=ms,
                         transB=1, alpha=0.5),
        helper.make_node("QGemm", ["flat", "sp", "zp", "w", "sw", "zw",
                                   "bias"], ["gemm_float"], domain=ms,
                         transB=1),
    ]
    inits.append(_const("shape", np.array([2, 12], np.int64)))
    u8 = TensorProto.UINT8
    graph = helper.make_graph(
        nodes, "contrib",
        [helper.make_tensor_value_info("a", u8, [2, 12, 3, 3]),
         helper.make_tensor_value_info("b", u8, [1, 12, 1, 3])],
        [helper.make_tensor_value_info("add", u8, [2, 12, 3, 3]),
         helper.make_tensor_value_info("mul", u8, [2, 12, 3, 3]),
         helper.make_tensor_value_info("pool_nhwc", u8, [2, 1, 1, 3]),
         helper.make_tensor_value_info("gemm", u8, [2, 5]),
         helper.make_tensor_value_info("gemm_float", TensorProto.FLOAT,
                                       [2, 5])],
        inits)
    model = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 17), helper.make_opsetid(ms, 1)])
    feeds = {"a": rng.integers(0, 256, (2, 12, 3, 3)).astype(np.uint8),
             "b": rng.integers(0, 256, (1, 12, 1, 3)).astype(np.uint8)}
    return model, feeds


def test_contrib_ops_match_onnxruntime(tmp_path):
    model, feeds = _contrib_model()
    path = tmp_path / "contrib.onnx"
    onnx.save(model, str(path))
    want = _ort(path, feeds)
    got = mlprog.compile(mlprog.import_onnx(str(path)))(feeds["a"],
                                                       feeds["b"])
    names = [o.name for o in model.graph.output]
    for name, g, w in zip(names, got, want):
        assert g.shape == w.shape and g.dtype == w.dtype, name
        if w.dtype == np.uint8:
            diff = np.abs(g.astype(np.int32) - w.astype(np.int32))
            print("%s: %d of %d values one step apart" % (
                name, int((diff > 0).sum()), diff.size))
            assert diff.max() <= 1, name
        else:
            # One step of the float output: a_scale * b_scale.
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5,
                                       err_msg=name)


def _const(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def _qdq_convolution(output, **attributes):
    """The nodes of a convolution of `x` dequantized by (sx, zx) and `w`
    dequantized per output channel by (sw, zw), plus `bias`, into
    `output`, as quantize_static writes it."""
    return [
        helper.make_node("DequantizeLinear", ["x", "sx", "zx"], ["xf"]),
        helper.make_node("DequantizeLinear", ["w", "sw", "zw"], ["wf"],
                         axis=0),
        helper.make_node("Conv", ["xf", "wf", "bias"], [output],
                         **attributes),
    ]


def test_qdq_convolution_with_a_large_filter(tmp_path):
    """A QDQ 1x1 convolution as quantize_static writes per-channel weights
    (one scale and one zero point per output channel, the zero points all
    0), whose filter (1024 x 1024 signed bytes, 1 MiB) is larger than an L2
    block while a column block of its input fits L1. With AVX-512 VNNI it
    is a byte product (QuantizedConvolutions.cpp) that reads the filter from
    row panels made at compile time, row blocks outside, and subtracts the
    input's zero point times the filter's row sums, also computed at
    compile time (DotProducts.cpp). The integer sums are exact, so the
    result is the float64 reference's up to f32 rounding."""
    rng = np.random.default_rng(7)
    channels, features = 1024, 1024
    w = rng.integers(-127, 128, (features, channels, 1, 1)).astype(np.int8)
    sw = rng.uniform(0.001, 0.01, features).astype(np.float32)
    bias = rng.uniform(-1, 1, features).astype(np.float32)
    sx, zx = np.float32(0.02), np.uint8(117)

    nodes = _qdq_convolution("y")
    graph = helper.make_graph(
        nodes, "qdq_conv",
        [helper.make_tensor_value_info("x", TensorProto.UINT8,
                                       [1, channels, 7, 7])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       [1, features, 7, 7])],
        [_const("sx", sx), _const("zx", zx), _const("w", w), _const("sw", sw),
         _const("zw", np.zeros(features, np.int8)), _const("bias", bias)])
    model = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 17)])
    path = tmp_path / "qdq_conv.onnx"
    onnx.save(model, str(path))
    x = rng.integers(0, 256, (1, channels, 7, 7)).astype(np.uint8)
    got = mlprog.compile(mlprog.import_onnx(str(path)))(x)
    sums = np.einsum("fc,cp->fp", w[:, :, 0, 0].astype(np.int64),
                     x[0].reshape(channels, 49).astype(np.int64) - int(zx))
    want = (bias[:, None].astype(np.float64) + float(sx) *
            sw[:, None].astype(np.float64) * sums).reshape(1, features, 7, 7)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(got, _ort(path, {"x": x})[0], rtol=1e-4,
                               atol=1e-3)


def _check_batch(tmp_path, model, x, step):
    """Saves `model` (a batch, input `x`, output `y`) and its batch-1 copy,
    and checks that mlprog's result for `x` is, image by image, bit for bit
    the batch-1 model's, and within one quantization step `step` of
    onnxruntime without its graph optimizations: the QDQ nodes one by one,
    as their definitions say (its fused integer kernels round the
    requantizations in another order: 3% of such values a step apart)."""
    path = tmp_path / "batch.onnx"
    onnx.save(model, str(path))
    model.graph.input[0].type.tensor_type.shape.dim[0].dim_value = 1
    model.graph.output[0].type.tensor_type.shape.dim[0].dim_value = 1
    single = tmp_path / "single.onnx"
    onnx.save(model, str(single))
    got = mlprog.compile(mlprog.import_onnx(str(path)))(x)
    one = mlprog.compile(mlprog.import_onnx(str(single)))
    for image in range(x.shape[0]):
        np.testing.assert_array_equal(got[image:image + 1],
                                      one(x[image:image + 1]))
    options = ort.SessionOptions()
    options.graph_optimization_level = (
        ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    want = ort.InferenceSession(str(path), options, providers=[
        "CPUExecutionProvider"]).run(None, {"x": x})[0]
    assert np.abs(got - want).max() <= float(step) * 1.001
    assert np.mean(got != want) < 0.001


@pytest.mark.parametrize("size", [8, 28, 14, 7])
def test_qdq_residual_block_in_a_batch(tmp_path, size):
    """A QDQ residual block as quantize_static writes one (3x3 convolution
    of per-channel weights, requantized, dequantized and added to the
    block's input, the sum requantized) on a batch of 3 images of size x
    size pixels. With AVX-512 VNNI the convolution is a byte product whose
    columns are the batch's pixels; the requantization and the residual add
    are computed in its register blocks when a block's columns are one
    image's: 8 x 8 pixels (64, whole blocks), 28 x 28 (784, each image's
    columns padded to 800); 14 x 14 (196, padded to 224, too much) and
    7 x 7 (49; the batch's 147 columns padded to 160) keep the images'
    columns contiguous, and the blocks that span two images write each
    image's part (QuantizedConvolutions.cpp, ByteProductEpilogues.cpp,
    DotProducts.cpp). Each way, every image's result is bit for bit that
    image's alone (batch 1), and within one quantization step of
    onnxruntime's."""
    rng = np.random.default_rng(size)
    images, channels = 3, 32
    w = rng.integers(-127, 128, (channels, channels, 3, 3)).astype(np.int8)
    sw = rng.uniform(0.002, 0.004, channels).astype(np.float32)
    bias = rng.uniform(-0.5, 0.5, channels).astype(np.float32)
    sx, zx = np.float32(0.02), np.uint8(120)
    sy, zy = np.float32(0.05), np.uint8(0)
    ss, zs = np.float32(0.06), np.uint8(3)

    nodes = _qdq_convolution("c", pads=[1, 1, 1, 1]) + [
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("QuantizeLinear", ["r", "sy", "zy"], ["rq"]),
        helper.make_node("DequantizeLinear", ["rq", "sy", "zy"], ["rf"]),
        helper.make_node("Add", ["rf", "xf"], ["s"]),
        helper.make_node("QuantizeLinear", ["s", "ss", "zs"], ["sq"]),
        helper.make_node("DequantizeLinear", ["sq", "ss", "zs"], ["y"]),
    ]
    shape = [images, channels, size, size]
    constants = {"sx": sx, "zx": zx, "w": w, "sw": sw,
                 "zw": np.zeros(channels, np.int8), "bias": bias, "sy": sy,
                 "zy": zy, "ss": ss, "zs": zs}
    graph = helper.make_graph(
        nodes, "qdq_block",
        [helper.make_tensor_value_info("x", TensorProto.UINT8, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)],
        [_const(name, value) for name, value in constants.items()])
    model = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 17)])
    x = rng.integers(0, 256, (images, channels, size, size)).astype(np.uint8)
    # Measured: 1 of 6144 values a step apart at 8 x 8, none at 14 and 28.
    _check_batch(tmp_path, model, x, ss)


@pytest.mark.parametrize("images,size,channels", [
    (3, 8, 32), (3, 14, 32), (3, 7, 32), (1, 14, 32), (1, 14, 64),
    (1, 7, 64)])
def test_qdq_two_convolutions_added(tmp_path, images, size, channels):
    """The end of a QDQ ResNet block that downsamples, as quantize_static
    writes it: two convolutions of the block's input (here a 1x1 one and a
    3x3 one: different K), each requantized and dequantized, added, ReLU,
    the sum requantized. With AVX-512 VNNI both are byte products, and the
    epilogue that reads the two is computed in one set of register blocks
    that run both products' K loops (DotProducts.cpp), in a batch too
    (8 x 8: whole blocks per image; 14 x 14 and 7 x 7: blocks that span
    two images). With 64 channels (both K multiples of 64) one image's
    last columns past whole panels (4 of 196, 1 of 49) are both products'
    matrix-vector products (emitTailColumns). Each image's result is bit
    for bit that image's alone, and within one quantization step of
    onnxruntime's QDQ nodes."""
    rng = np.random.default_rng(100 + size)
    features = 64
    w1 = rng.integers(-127, 128, (features, channels, 1, 1)).astype(np.int8)
    w2 = rng.integers(-127, 128, (features, channels, 3, 3)).astype(np.int8)
    sx, zx = np.float32(0.02), np.uint8(120)
    constants = {
        "sx": sx, "zx": zx, "w1": w1, "w2": w2,
        "s1": rng.uniform(0.002, 0.004, features).astype(np.float32),
        "s2": rng.uniform(0.0005, 0.001, features).astype(np.float32),
        "z1": np.zeros(features, np.int8), "z2": np.zeros(features, np.int8),
        "b1": rng.uniform(-0.5, 0.5, features).astype(np.float32),
        "b2": rng.uniform(-0.5, 0.5, features).astype(np.float32),
        "sa": np.float32(0.05), "za": np.uint8(128),
        "sb": np.float32(0.04), "zb": np.uint8(100),
        "sy": np.float32(0.06), "zy": np.uint8(0),
    }
    nodes = [
        helper.make_node("DequantizeLinear", ["x", "sx", "zx"], ["xf"]),
        helper.make_node("DequantizeLinear", ["w1", "s1", "z1"], ["w1f"],
                         axis=0),
        helper.make_node("DequantizeLinear", ["w2", "s2", "z2"], ["w2f"],
                         axis=0),
        helper.make_node("Conv", ["xf", "w1f", "b1"], ["c1"]),
        helper.make_node("Conv", ["xf", "w2f", "b2"], ["c2"],
                         pads=[1, 1, 1, 1]),
        helper.make_node("QuantizeLinear", ["c1", "sa", "za"], ["c1q"]),
        helper.make_node("DequantizeLinear", ["c1q", "sa", "za"], ["c1f"]),
        helper.make_node("QuantizeLinear", ["c2", "sb", "zb"], ["c2q"]),
        helper.make_node("DequantizeLinear", ["c2q", "sb", "zb"], ["c2f"]),
        helper.make_node("Add", ["c1f", "c2f"], ["s"]),
        helper.make_node("Relu", ["s"], ["r"]),
        helper.make_node("QuantizeLinear", ["r", "sy", "zy"], ["rq"]),
        helper.make_node("DequantizeLinear", ["rq", "sy", "zy"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "qdq_downsampling",
        [helper.make_tensor_value_info("x", TensorProto.UINT8,
                                       [images, channels, size, size])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       [images, features, size, size])],
        [_const(name, value) for name, value in constants.items()])
    model = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 17)])
    x = rng.integers(0, 256, (images, channels, size, size)).astype(np.uint8)
    _check_batch(tmp_path, model, x, constants["sy"])


def _max_pool_bytes(x, kernel, strides, pads, dilations, out_size):
    """numpy's max pooling of the bytes `x` [N, C, H, W] (padding never
    wins), the exact reference."""
    n, c, h, w = x.shape
    oh, ow = out_size
    padded = np.full((n, c, h + pads[0] + pads[2] + 2 * kernel[0] * dilations[0],
                      w + pads[1] + pads[3] + 2 * kernel[1] * dilations[1]),
                     -1, np.int16)
    padded[:, :, pads[0]:pads[0] + h, pads[1]:pads[1] + w] = x
    out = np.full((n, c, oh, ow), -1, np.int16)
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            r0, c0 = i * dilations[0], j * dilations[1]
            window = padded[:, :, r0:r0 + (oh - 1) * strides[0] + 1:strides[0],
                            c0:c0 + (ow - 1) * strides[1] + 1:strides[1]]
            out = np.maximum(out, window)
    return out.astype(np.uint8)


@pytest.mark.parametrize("shape,kernel,strides,pads,dilations,ceil", [
    ((1, 64, 112, 112), (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 0),
    ((2, 5, 15, 13), (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 0),
    ((1, 3, 8, 8), (3, 3), (2, 2), (0, 0, 0, 0), (1, 1), 1),
    ((1, 4, 10, 9), (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 0),
    ((1, 2, 11, 11), (2, 2), (1, 1), (0, 0, 0, 0), (2, 2), 0),
    ((3, 2, 20, 40), (5, 5), (1, 1), (2, 2, 2, 2), (1, 1), 0),
])
def test_qdq_max_pool_in_bytes(tmp_path, shape, kernel, strides, pads,
                               dilations, ceil):
    """A MaxPool between QDQ pairs of one scale and zero point (a QDQ
    ResNet's stem): with AVX-512 VNNI --mlprog-quantized-convolutions pools
    the bytes themselves (QuantizedConvolutions.cpp, WindowOps.cpp), else
    the dequantized floats are pooled and requantized. Either way the
    result is exactly the pooling of the bytes: dequantization is
    increasing and requantizes to the same byte."""
    rng = np.random.default_rng(sum(shape))
    out_size = []
    for d in range(2):
        span = shape[2 + d] + pads[d] + pads[2 + d] - (
            (kernel[d] - 1) * dilations[d] + 1)
        out_size.append((-(-span // strides[d]) if ceil else
                         span // strides[d]) + 1)
    attributes = dict(kernel_shape=list(kernel), strides=list(strides),
                      pads=list(pads), dilations=list(dilations),
                      ceil_mode=ceil)
    nodes = [
        helper.make_node("DequantizeLinear", ["x", "s", "z"], ["xf"]),
        helper.make_node("MaxPool", ["xf"], ["p"], **attributes),
        helper.make_node("QuantizeLinear", ["p", "s", "z"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "qdq_max_pool",
        [helper.make_tensor_value_info("x", TensorProto.UINT8, list(shape))],
        [helper.make_tensor_value_info("y", TensorProto.UINT8,
                                       list(shape[:2]) + out_size)],
        [_const("s", np.float32(0.0173)), _const("z", np.uint8(31))])
    model = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 17)])
    path = tmp_path / "qdq_max_pool.onnx"
    onnx.save(model, str(path))
    x = rng.integers(0, 256, shape).astype(np.uint8)
    got = mlprog.compile(mlprog.import_onnx(str(path)))(x)
    (want,) = _ort(path, {"x": x})
    assert got.dtype == np.uint8 and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(
        got, _max_pool_bytes(x, kernel, strides, pads, dilations, out_size))
