"""torchvision detectors exported to ONNX (issue "Real ONNX models"):
data-dependent shapes (NonMaxSuppression, TopK over a run-time count,
gathers of the kept boxes) through mlprog, against onnxruntime.

detection_export.py (run under the project's .venv) builds the detector
with random weights and exports it with torch's TorchScript exporter at
opset 17. Its pre-processing computes the padded image size from
constants with ReduceMax, Div, Ceil and Cast; mlprog evaluates those at
import time (ConstantEvaluation.h), without which the first convolution
had dynamic channels.

Against onnxruntime rather than PyTorch: with random weights most
detections score alike (up to float noise), so which of the tied boxes a
detector keeps, and in what order, is a tie-break that ONNX's TopK and
NonMaxSuppression settle by index and PyTorch's kernels settle otherwise.
mlprog and onnxruntime compute the same scores and keep the same boxes.

Measured (session 19, `pytest -s`): ssdlite320_mobilenet_v3_large, 300
detections: boxes within 3.1e-5 of onnxruntime, scores within 1.5e-7,
labels equal.
"""

import os
import subprocess

import numpy as np
import pytest

import mlprog
from conftest import skip_whole_network_under_sanitizer

pytestmark = pytest.mark.skipif(not mlprog.HAVE_ONNX,
                                reason="built without the ONNX importer")
ort = pytest.importorskip("onnxruntime")

HERE = os.path.dirname(os.path.abspath(__file__))


def test_ssdlite_matches_onnxruntime(repo_root, tmp_path):
    skip_whole_network_under_sanitizer()
    venv = os.path.join(repo_root, ".venv", "bin", "python")
    if not os.path.exists(venv) or subprocess.run(
            [venv, "-c", "import torch, torchvision"],
            capture_output=True).returncode:
        pytest.skip("no .venv with torch and torchvision "
                    "(bash scripts/setup-venv.sh --with torch)")
    subprocess.run([venv, os.path.join(HERE, "detection_export.py"),
                    "ssdlite320_mobilenet_v3_large", str(tmp_path)],
                   check=True, timeout=600, capture_output=True)
    path = str(tmp_path / "model.onnx")
    image = np.load(tmp_path / "image.npy")
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    want = dict(zip(names, session.run(None, {"image": image})))
    got = dict(zip(names, mlprog.compile(mlprog.import_onnx(path))(image)))
    for name in names:
        print("%s: shape %s, max abs diff %.2g" % (
            name, got[name].shape,
            np.abs(got[name].astype(np.float64) - want[name]).max()))
        assert got[name].shape == want[name].shape, name
        assert got[name].dtype == want[name].dtype, name
    assert got["boxes"].shape[0] > 0
    np.testing.assert_array_equal(got["labels"], want["labels"])
    np.testing.assert_allclose(got["boxes"], want["boxes"], atol=1e-3)
    np.testing.assert_allclose(got["scores"], want["scores"], rtol=1e-5,
                               atol=1e-6)
