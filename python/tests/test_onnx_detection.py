"""torchvision detectors exported to ONNX (issue "Real ONNX models"):
data-dependent shapes (NonMaxSuppression, TopK over a run-time count,
gathers of the kept boxes, Mask R-CNN's Loop that pastes each mask) through
mlprog, against onnxruntime and PyTorch.

detection_export.py (run under the project's .venv) builds the detector
with random weights, made deterministic and tie-free (see its docstring),
and exports it with torch's TorchScript exporter at opset 17. Its
pre-processing computes the padded image size from constants with
ReduceMax, Div, Ceil and Cast; mlprog evaluates those at import time
(ConstantEvaluation.h), without which the first convolution had dynamic
channels.

ssdlite is compared in order with onnxruntime (ONNX's TopK and
NonMaxSuppression break ties by index, as mlprog does). The larger models
are compared as sets of detections (match_detections): float noise of
1e-6 through ResNet-50 moves boxes by a few hundredths of a pixel and
reorders scores closer than 1e-5, between any two runtimes (onnxruntime
and PyTorch too). RetinaNet's detections that do not pair up are boxes
0.01-0.05 px apart at the same ranks, not detections crossing a cut-off
(docs/importers/onnx.md, "Detectors").

retinanet_resnet50_fpn and maskrcnn_resnet50_fpn take 2-4 minutes each to
export, compile and run on 2 cores: they run when
MLPROG_TEST_LARGE_DETECTORS=1. Figures: docs/importers/onnx.md,
"Detectors".
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


def export(repo_root, tmp_path, name, opset=17):
    """Runs detection_export.py for `name` under the .venv (skips without
    one); returns (model path, image, PyTorch's outputs by name)."""
    skip_whole_network_under_sanitizer()
    venv = os.path.join(repo_root, ".venv", "bin", "python")
    if not os.path.exists(venv) or subprocess.run(
            [venv, "-c", "import torch, torchvision"],
            capture_output=True).returncode:
        pytest.skip("no .venv with torch and torchvision "
                    "(bash scripts/setup-venv.sh --with torch)")
    subprocess.run([venv, os.path.join(HERE, "detection_export.py"),
                    name, str(tmp_path), "320", str(opset)],
                   check=True, timeout=600, capture_output=True)
    return (str(tmp_path / "model.onnx"), np.load(tmp_path / "image.npy"),
            dict(np.load(tmp_path / "reference.npz")))


def run_both(path, image):
    """(mlprog's outputs, onnxruntime's outputs), each by output name."""
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    want = dict(zip(names, session.run(None, {"image": image})))
    got = dict(zip(names, mlprog.compile(mlprog.import_onnx(path))(image)))
    return got, want


def match_detections(got, want, box_tol=1e-2, score_tol=2e-3,
                     mask_tol=1e-2):
    """Pairs each detection of `got` with an unused one of `want` of the
    same label whose box is within `box_tol` (the closest); returns (the
    number paired, the largest box and score differences over the pairs,
    the number of pairs whose masks differ by more than `mask_tol`)."""
    used = np.zeros(len(want["scores"]), bool)
    paired, box_diff, score_diff, mask_off = 0, 0.0, 0.0, 0
    for i in range(len(got["scores"])):
        d = np.abs(want["boxes"] - got["boxes"][i]).max(axis=1)
        ok = (want["labels"] == got["labels"][i]) & ~used & (d <= box_tol)
        if not ok.any():
            continue
        j = np.flatnonzero(ok)[np.argmin(d[ok])]
        used[j] = True
        paired += 1
        box_diff = max(box_diff, float(d[j]))
        score_diff = max(score_diff,
                         abs(float(got["scores"][i] - want["scores"][j])))
        if "masks" in got and np.abs(got["masks"][i] -
                                     want["masks"][j]).max() > mask_tol:
            mask_off += 1
    return paired, box_diff, score_diff, mask_off


def check_as_sets(got, want, peer, min_fraction):
    """Same count and dtypes; at least `min_fraction` of the detections
    pair up (match_detections) with scores within its tolerance."""
    for name in want:
        assert got[name].shape[1:] == want[name].shape[1:], name
        assert got[name].dtype == want[name].dtype, name
    count = len(got["scores"])
    assert count == len(want["scores"]) and count > 0
    paired, box_diff, score_diff, mask_off = match_detections(got, want)
    print("against %s: %d of %d detections pair up, boxes within %.2g, "
          "scores within %.2g, %d masks off by > 1e-2" % (
              peer, paired, count, box_diff, score_diff, mask_off))
    assert paired >= min_fraction * count
    assert score_diff <= 2e-3
    assert mask_off <= 0.02 * count


def test_ssdlite_matches_onnxruntime(repo_root, tmp_path):
    path, image, _ = export(repo_root, tmp_path,
                            "ssdlite320_mobilenet_v3_large")
    got, want = run_both(path, image)
    names = list(want)
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


def test_fasterrcnn_matches_pytorch(repo_root, tmp_path):
    """Faster R-CNN (MobileNetV3, 320) against onnxruntime and PyTorch, as
    sets of detections."""
    path, image, reference = export(repo_root, tmp_path,
                                    "fasterrcnn_mobilenet_v3_large_320_fpn")
    got, want = run_both(path, image)
    check_as_sets(got, want, "onnxruntime", 0.95)
    check_as_sets(got, reference, "PyTorch", 0.95)


large = pytest.mark.skipif(
    os.environ.get("MLPROG_TEST_LARGE_DETECTORS") != "1",
    reason="2-4 minutes each: set MLPROG_TEST_LARGE_DETECTORS=1")


@large
@pytest.mark.parametrize("opset", [17, 18])
@pytest.mark.parametrize("name", ["retinanet_resnet50_fpn",
                                  "maskrcnn_resnet50_fpn"])
def test_resnet50_detectors(repo_root, tmp_path, name, opset):
    path, image, reference = export(repo_root, tmp_path, name, opset)
    got, want = run_both(path, image)
    check_as_sets(got, want, "onnxruntime", 0.95)
    check_as_sets(got, reference, "PyTorch", 0.95)
