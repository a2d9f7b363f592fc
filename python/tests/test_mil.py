"""mlprog.import_mil: a Core ML .mlpackage with fp16 weights in weight.bin,
imported from Python, compiled and run against the numpy reference written
with it (the same model as test/Integration/MIL/mlpackage-fp16.test)."""

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import mlprog

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
MODELS = os.path.join(ROOT, "test", "Integration", "MIL", "Inputs",
                      "make_models.py")
PROTO_DIR = os.path.join(ROOT, "include", "mlprog", "Import", "MIL")

pytestmark = pytest.mark.skipif(not mlprog.HAVE_MIL,
                                reason="built without the MIL importer")


def test_mlpackage_fp16_runs_and_matches_numpy(tmp_path):
    if not shutil.which("protoc"):
        pytest.skip("protoc not found")
    subprocess.run([sys.executable, MODELS, "fp16-package", str(tmp_path)],
                   check=True)
    data = tmp_path / "model.mlpackage" / "Data" / "com.apple.CoreML"
    with open(data / "model.pbtxt", "rb") as text, \
            open(data / "model.mlmodel", "wb") as binary:
        subprocess.run(["protoc", "--encode=mlprog.mil.Model",
                        "-I", PROTO_DIR, os.path.join(PROTO_DIR, "mil.proto")],
                       stdin=text, stdout=binary, check=True)
    module = mlprog.import_mil(tmp_path / "model.mlpackage")
    assert "#ml_program.external_storage" in str(module)
    exe = mlprog.compile(module)
    x = np.load(tmp_path / "input_0.npy")
    expected = np.load(tmp_path / "reference_0.npy")
    np.testing.assert_allclose(exe.main(x), expected, rtol=1e-4, atol=1e-6)


def test_garbage_is_a_located_error(tmp_path):
    path = tmp_path / "garbage.pb"
    path.write_bytes(b"\xff\xff\xff garbage")
    with pytest.raises(mlprog.Error, match="garbage.pb"):
        mlprog.import_mil(path)
