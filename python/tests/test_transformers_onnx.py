"""Transformer families from Hugging Face `transformers`, exported to ONNX by
torch 2.x with dynamic batch and sequence axes, imported by mlprog without
pinning any shape, and run at batch 1 and 3 against PyTorch (issue "Real
ONNX models", rtol 1e-4).

transformers_export.py (run under the project's .venv: torch 2.9,
transformers) builds each model from its config with random weights and
writes the ONNX file and PyTorch's outputs. Two exporters: the TorchScript
one at opset 17 (`dynamic_axes`) and torch 2.x's default, dynamo, at opset
18 (IR 10). mlprog compiles the model once with its symbolic extents and
runs both batch sizes (sequence 16 and 7 for text models, with one padded
row) through that one executable.

Measured with these settings (session 18, `pytest -s`): largest difference
to PyTorch 1.7e-6 (ViT; 7e-7 to 1.2e-6 for the others) on outputs of
magnitude up to 3.7; DistilBERT, T5 and Whisper through dynamo (session
24): 7.2e-7, 9.5e-7 and 4.8e-7.
"""

import os
import subprocess

import numpy as np
import pytest

import mlprog

pytestmark = pytest.mark.skipif(not mlprog.HAVE_ONNX,
                                reason="built without the ONNX importer")

HERE = os.path.dirname(os.path.abspath(__file__))

CASES = [(family, "legacy17") for family in
         ("bert", "distilbert", "gpt2", "llama", "t5", "vit", "whisper")] + \
        [(family, "dynamo18") for family in
         ("bert", "distilbert", "gpt2", "llama", "t5", "vit", "whisper")]


@pytest.fixture(scope="session")
def transformers_python(repo_root):
    """The .venv's Python when it has torch and transformers."""
    venv = os.path.join(repo_root, ".venv", "bin", "python")
    if not os.path.exists(venv) or subprocess.run(
            [venv, "-c", "import torch, transformers, onnxscript"],
            capture_output=True).returncode != 0:
        pytest.skip("no .venv with torch and transformers "
                    "(bash scripts/setup-venv.sh --with torch --with "
                    "transformers)")
    return venv


@pytest.mark.parametrize("family,exporter", CASES,
                         ids=["%s-%s" % c for c in CASES])
def test_matches_pytorch_with_dynamic_axes(transformers_python, tmp_path,
                                           family, exporter):
    subprocess.run([transformers_python,
                    os.path.join(HERE, "transformers_export.py"), family,
                    exporter, str(tmp_path)], check=True, timeout=600,
                   capture_output=True)
    reference = dict(np.load(tmp_path / "reference.npz"))
    module = mlprog.import_onnx(str(tmp_path / "model.onnx"))
    # Nothing pinned: the batch (and sequence) extents stay symbolic.
    assert "?" in str(module).split("ml_program.func @main", 1)[1].split(
        "\n", 1)[0]
    exe = mlprog.compile(module)
    for batch in (1, 3):
        inputs = [reference["b%d_in%d" % (batch, i)]
                  for i in range(sum(k.startswith("b%d_in" % batch)
                                     for k in reference))]
        got = exe.main(*inputs)  # one output: the array itself
        want = reference["b%d_out" % batch]
        assert got.shape == want.shape and got.dtype == want.dtype
        print("%s %s batch %d: max abs diff %.2e, max |PyTorch| %.2f" % (
            family, exporter, batch, np.abs(got - want).max(),
            np.abs(want).max()))
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=2e-5,
                                   err_msg="batch %d" % batch)
