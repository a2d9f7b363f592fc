"""silero-vad's three ONNX files (silero-vad 6.0.0 from PyPI, fetched by
scripts/fetch-silero-vad.sh) against onnxruntime over 10 consecutive chunks,
each side feeding its own state back (silero_vad_reference.py).

mlprog imports each with its input shapes pinned (input [1, 576] = 64
context samples and a 512-sample chunk, state [2, 1, 128]) and, where the
model takes one, the sample rate bound to 16000 (`--input-constants`): the
graphs compute their STFT padding from shapes and branch on `sr` and on
tensor sizes, which then all fold at import. Measured: probability within
3.0e-7, state within 3.6e-6 (fp32; silero_vad_half.onnx keeps fp16 weights
and computes in fp32). The test allows 1e-5 and 1e-4."""

import os
import subprocess

import numpy as np
import pytest

import mlprog

pytestmark = pytest.mark.skipif(not mlprog.HAVE_ONNX,
                                reason="built without the ONNX importer")

CHUNKS = 10


@pytest.mark.parametrize("name", ["silero_vad", "silero_vad_16k_op15",
                                  "silero_vad_half"])
def test_matches_onnxruntime_with_state_fed_back(repo_root, onnxruntime_python,
                                                 tmp_path, name):
    path = os.path.join(repo_root, ".cache", "silero-vad", name + ".onnx")
    if not os.path.exists(path):
        pytest.skip("%s is absent: run scripts/fetch-silero-vad.sh" % path)
    out = tmp_path / "reference.npz"
    subprocess.run([onnxruntime_python,
                    os.path.join(os.path.dirname(__file__),
                                 "silero_vad_reference.py"),
                    path, str(out), str(CHUNKS)], check=True, timeout=300)
    reference = dict(np.load(out))
    takes_rate = name != "silero_vad_half"
    module = mlprog.import_onnx(
        path, input_shapes=[[1, 576], [2, 1, 128]] + ([[]] if takes_rate
                                                       else []),
        constant_inputs={"sr": 16000} if takes_rate else None)
    exe = mlprog.compile(module)
    assert len(exe.main.signature["inputs"]) == 2
    state = np.zeros((2, 1, 128), np.float32)
    probs = []
    for k in range(CHUNKS):
        prob, state = exe.main(reference["input_%d" % k], state)
        np.testing.assert_allclose(prob, reference["prob_%d" % k], rtol=0,
                                   atol=1e-5, err_msg="chunk %d" % k)
        np.testing.assert_allclose(state, reference["state_%d" % k], rtol=0,
                                   atol=1e-4, err_msg="chunk %d" % k)
        probs.append(float(prob.reshape(-1)[0]))
    # The clip exercises the network: the probability moves.
    assert max(probs) - min(probs) > 0.3, probs
