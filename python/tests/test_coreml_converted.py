"""Models converted by coremltools from PyTorch (torchvision resnet18 and
mobilenet_v2, a 2-layer transformer encoder; fp32 and fp16 programs) import,
run and match PyTorch: scripts/coreml_models.py under .venv-coreml, whose
tolerances are in its docstring."""

import os
import subprocess

import pytest

import mlprog
from conftest import skip_whole_network_under_sanitizer


def test_coreml_converted_models_match_pytorch(repo_root):
    skip_whole_network_under_sanitizer()
    python = os.path.join(repo_root, ".venv-coreml", "bin", "python")
    if not os.path.exists(python):
        pytest.skip("no .venv-coreml (scripts/setup-venv.sh --with coreml)")
    build = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(mlprog.__file__))))
    run = subprocess.run(
        [python, os.path.join(repo_root, "scripts", "coreml_models.py"),
         "--build-dir", build], capture_output=True, text=True, timeout=900)
    rows = [l for l in run.stdout.splitlines() if l.startswith("| ")]
    assert run.returncode == 0, "\n".join(rows) + run.stderr[-2000:]
    assert len(rows) == 2 + 6, run.stdout
