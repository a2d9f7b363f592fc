"""ONNX models exported from PyTorch: import, compile, run, compare."""

import os
import subprocess

import numpy as np
import pytest
import torch

import mlprog
from models import export_onnx, make_cnn, make_mlp

pytestmark = pytest.mark.skipif(not mlprog.HAVE_ONNX,
                                reason="built without the ONNX importer")


def reference(model, x):
    with torch.no_grad():
        out = model(x)
    if isinstance(out, tuple):
        return tuple(o.numpy() for o in out)
    return out.numpy()


def test_small_cnn_matches_pytorch(tmp_path):
    model, x = make_cnn()
    path = export_onnx(model, x, str(tmp_path / "cnn.onnx"))
    module = mlprog.import_onnx(path)
    assert module.functions == ["main"]
    exe = mlprog.compile(module)
    y = exe.main(x.numpy())
    assert isinstance(y, np.ndarray)
    assert y.dtype == np.float32 and y.shape == (2, 10)
    np.testing.assert_allclose(y, reference(model, x), rtol=1e-4, atol=1e-6)
    # The same function, reached three other ways, with a torch tensor.
    for call in (exe["main"], exe, exe.main):
        np.testing.assert_array_equal(call(x), y)


def test_mlp_from_bytes_with_dynamic_batch():
    model, x = make_mlp()
    data = export_onnx(model, x, dynamic_batch=True)
    module = mlprog.import_onnx(data, name="mlp.onnx")
    exe = mlprog.compile(module, opt_level=3)
    sig = exe.main.signature
    assert sig["inputs"][0]["shape"] == (None, 6)
    assert sig["inputs"][0]["dtype"] == "float32"
    for batch in (1, 3, 7):
        xb = torch.randn(batch, 6)
        got = exe.main(xb)
        assert isinstance(got, tuple) and len(got) == 2
        for g, r in zip(got, reference(model, xb)):
            assert g.shape == r.shape
            np.testing.assert_allclose(g, r, rtol=1e-4, atol=1e-5)


def test_input_shapes_pin_a_dynamic_batch():
    """input_shapes= is mlprog-translate --input-shapes: the batch the model
    leaves dynamic becomes static, None keeps an extent as declared."""
    model, x = make_mlp()
    data = export_onnx(model, x, dynamic_batch=True)
    module = mlprog.import_onnx(data, name="mlp.onnx", input_shapes=[[4, 6]])
    exe = mlprog.compile(module)
    assert exe.main.signature["inputs"][0]["shape"] == (4, 6)
    xb = torch.randn(4, 6)
    for g, r in zip(exe.main(xb), reference(model, xb)):
        np.testing.assert_allclose(g, r, rtol=1e-4, atol=1e-5)
    kept = mlprog.import_onnx(data, name="mlp.onnx", input_shapes=[[None, 6]])
    assert mlprog.compile(kept).main.signature["inputs"][0]["shape"] == \
        (None, 6)
    with pytest.raises(mlprog.Error, match="input 'x' has rank 2, the shape "
                       "given has rank 3"):
        mlprog.import_onnx(data, name="mlp.onnx", input_shapes=[[4, 6, 1]])


def test_import_onnx_model_proto(tmp_path):
    onnx = pytest.importorskip("onnx")
    model, x = make_mlp()
    proto = onnx.load_from_string(export_onnx(model, x))
    module = mlprog.import_onnx(proto)
    got = mlprog.compile(module).main(x)
    np.testing.assert_allclose(got[0], reference(model, x)[0], rtol=1e-4,
                               atol=1e-5)


def test_saved_module_runs_with_mlprog_run(tmp_path, tools_dir):
    """What Python saves is what the command-line tools read, with the same
    numbers."""
    model, x = make_cnn()
    module = mlprog.import_onnx(export_onnx(model, x), name="cnn.onnx")
    module.save(tmp_path / "cnn.mlir")
    np.save(tmp_path / "x.npy", x.numpy())
    subprocess.run([os.path.join(tools_dir, "mlprog-run"),
                    str(tmp_path / "cnn.mlir"), "--input", str(tmp_path / "x.npy"),
                    "--output-dir", str(tmp_path / "out")], check=True)
    from_tool = np.load(tmp_path / "out" / "output_0.npy")
    from_python = mlprog.compile(module).main(x)
    np.testing.assert_array_equal(from_tool, from_python)


def test_pipeline_then_compile_lowered_module():
    model, x = make_mlp()
    module = mlprog.import_onnx(export_onnx(model, x))
    text = str(module)
    assert "ml_program.func @main" in text
    module.run_pipeline("mlprog-verify-import-contract,canonicalize,cse")
    module.run_pipeline("builtin.module(mlprog-lower-to-cpu)")
    lowered = str(module)
    assert "llvm.func @main" in lowered and "ml_program." not in lowered
    got = mlprog.compile(module).main(x)
    np.testing.assert_allclose(got[0], reference(model, x)[0], rtol=1e-4,
                               atol=1e-5)


def test_unsupported_op_is_a_located_error():
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    graph = helper.make_graph(
        [helper.make_node("Frobnicate", ["x"], ["y"], name="the_cos",
                          domain="com.example")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])])
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 13),
                              helper.make_opsetid("com.example", 1)])
    with pytest.raises(mlprog.Error) as info:
        mlprog.import_onnx(model.SerializeToString(), name="cos.onnx")
    message = str(info.value)
    assert "cos.onnx:0:0: error: unsupported ONNX op " \
           "'com.example::Frobnicate' in node " \
           "'the_cos'" in message
    assert info.value.diagnostics[0].startswith("cos.onnx:0:0: error:")


def test_bad_inputs_are_errors(tmp_path):
    with pytest.raises(mlprog.Error, match="junk.onnx:0:0: error: failed to parse"):
        mlprog.import_onnx(b"\x08\x07not a model", name="junk.onnx")
    with pytest.raises(mlprog.Error, match="missing.onnx"):
        mlprog.import_onnx(tmp_path / "missing.onnx")


def test_weights_dir_for_external_data(tmp_path):
    """import_onnx(weights_dir=...) reads external data from that folder
    (bytes have no folder of their own) and keeps it inside."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    (tmp_path / "weights").mkdir()
    np.array([1.0, 2.0], np.float32).tofile(tmp_path / "weights" / "w.bin")

    def model_bytes(location):
        w = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[2])
        w.data_location = TensorProto.EXTERNAL
        w.external_data.add(key="location", value=location)
        graph = helper.make_graph(
            [helper.make_node("Add", ["w", "w"], ["y"])], "g", [],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])], [w])
        return helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", 13)])

    module = mlprog.import_onnx(model_bytes("w.bin"), name="m.onnx",
                                weights_dir=tmp_path / "weights")
    np.testing.assert_array_equal(mlprog.compile(module).main(), [2.0, 4.0])
    with pytest.raises(mlprog.Error, match="leaves the model folder"):
        mlprog.import_onnx(model_bytes("../weights/w.bin"), name="m.onnx",
                           weights_dir=tmp_path / "weights")
