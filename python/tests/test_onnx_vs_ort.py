"""scripts/onnx_vs_ort.py, the first tool to run when an ONNX model fails:
it runs the model with mlprog and onnxruntime and says where they part."""

import os
import subprocess

import pytest

from models import export_onnx, make_mlp

onnx = pytest.importorskip("onnx")


def _script(repo_root, onnxruntime_python, tools_dir, *args):
    command = [onnxruntime_python,
               os.path.join(repo_root, "scripts", "onnx_vs_ort.py"),
               "--build-dir", os.path.dirname(tools_dir), *args]
    return subprocess.run(command, capture_output=True, text=True,
                          timeout=300)


def test_matching_model(repo_root, onnxruntime_python, tools_dir, tmp_path):
    model, x = make_mlp()
    path = export_onnx(model, x, str(tmp_path / "mlp.onnx"),
                       dynamic_batch=True)
    result = _script(repo_root, onnxruntime_python, tools_dir, path,
                     "--input-shapes", "3x6")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "input x: (3, 6) float32" in result.stdout
    assert result.stdout.count(": match (3, ") == 2, result.stdout
    assert "all outputs match onnxruntime" in result.stdout


def test_given_inputs_and_a_refused_model(repo_root, onnxruntime_python,
                                          tools_dir, tmp_path):
    """Bernoulli runs in onnxruntime; mlprog has no random ops, so the
    script reports the import error (and exit status 1)."""
    from onnx import TensorProto, helper
    import numpy as np
    graph = helper.make_graph(
        [helper.make_node("Bernoulli", ["p"], ["y"], seed=1.0)], "g",
        [helper.make_tensor_value_info("p", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
    path = str(tmp_path / "bernoulli.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 15)]), path)
    np.save(tmp_path / "p.npy", np.full(4, 0.5, np.float32))
    result = _script(repo_root, onnxruntime_python, tools_dir, path,
                     "--input", "p=%s" % (tmp_path / "p.npy"))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "mlprog: import failed" in result.stdout
    assert "unsupported ONNX op 'RandomUniformLike'" in result.stdout
