"""The public silero-vad Core ML packages (../shared/models/coreml,
FluidInference/mobius v6.0.0: fp16 weights, conv, lstm, an STFT as a strided
conv) against silero-vad 6.0.0's ONNX model run by onnxruntime, chunk by
chunk with each side feeding its own state back (silero_vad_reference.py).

Input mapping (found by reading both graphs): the packages' `audio_input`
[1, 576] is the ONNX `input` (64 context samples, then the 512-sample
chunk); `hidden_state`/`cell_state` [1, 128] are `state[0]`/`state[1]`, and
the new ones `stateN[0]`/`stateN[1]`; `sr` is 16000.

Tolerance: the packages compute in fp16 (inputs, weights and activations
are cast to fp16; the LSTM runs in fp32 on fp16-rounded operands), onnxruntime
in fp32. fp16 keeps 11 significant bits (relative rounding 2^-11 = 4.9e-4 per
operation); the STFT magnitudes reach ~30 and feed 3-tap convs over 129
channels, so the encoder output carries absolute errors of ~1e-2, and the
cell state (|c| up to ~6) accumulates them over the chunks. Measured on the
unified package (8 chunks, closed loop): probability within 4.4e-3, h within
2.2e-2, c within 2.3e-2. The
test allows 1e-2 on the probability (in [0, 1]) and 5e-2 + 2e-2 * |ref| on
the states: several times the fp16 noise, and far below what a wrong gate
order, weight layout or state mapping gives (errors of 0.3 to 5; silero-vad
6.2's retrained weights miss by 0.47 on the first chunk).

Skips (with the reason) when the packages or the ONNX file are absent:
fetch the latter with scripts/fetch-silero-vad.sh (into .cache/silero-vad;
MLPROG_SILERO_VAD_ONNX names another file)."""

import os
import subprocess

import numpy as np
import pytest

import mlprog

pytestmark = pytest.mark.skipif(not mlprog.HAVE_MIL,
                                reason="built without the MIL importer")

PACKAGE = "FluidInference_mobius_silero-vad-%s-v6.0.0.mlpackage"
PROB_ATOL = 1e-2
STATE_ATOL, STATE_RTOL = 5e-2, 2e-2


def _models_dir(repo_root):
    path = os.path.join(repo_root, "..", "shared", "models", "coreml")
    if not os.path.isdir(path):
        pytest.skip("%s is absent (the public Core ML packages live there)"
                    % os.path.normpath(path))
    return path


def _package(repo_root, part):
    path = os.path.join(_models_dir(repo_root), PACKAGE % part)
    if not os.path.isdir(path):
        pytest.skip("%s is absent" % os.path.normpath(path))
    return path


@pytest.fixture(scope="module")
def reference(repo_root, onnxruntime_python, tmp_path_factory):
    onnx_path = os.environ.get("MLPROG_SILERO_VAD_ONNX") or os.path.join(
        repo_root, ".cache", "silero-vad", "silero_vad.onnx")
    if not os.path.exists(onnx_path):
        pytest.skip("%s is absent: run scripts/fetch-silero-vad.sh (silero-vad "
                    "6.0.0 from PyPI)" % onnx_path)
    python = onnxruntime_python
    out = tmp_path_factory.mktemp("silero") / "reference.npz"
    script = os.path.join(os.path.dirname(__file__),
                          "silero_vad_reference.py")
    subprocess.run([python, script, onnx_path, str(out)], check=True,
                   timeout=300)
    return dict(np.load(out))


def _chunks(reference):
    return sum(1 for k in reference if k.startswith("prob_"))


def _check(k, prob, h, c, reference):
    want_state = reference["state_%d" % k]
    np.testing.assert_allclose(prob.reshape(-1),
                               reference["prob_%d" % k].reshape(-1),
                               rtol=0, atol=PROB_ATOL,
                               err_msg="probability, chunk %d" % k)
    for name, got, want in (("h", h, want_state[0]), ("c", c, want_state[1])):
        np.testing.assert_allclose(got, want, rtol=STATE_RTOL,
                                   atol=STATE_ATOL,
                                   err_msg="%s, chunk %d" % (name, k))


def test_unified_matches_onnxruntime(repo_root, reference):
    exe = mlprog.compile(mlprog.import_mil(_package(repo_root, "unified")))
    h = np.zeros((1, 128), np.float32)
    c = np.zeros((1, 128), np.float32)
    probs = []
    for k in range(_chunks(reference)):
        prob, h, c = exe.main(reference["input_%d" % k], h, c)
        assert prob.shape == (1, 1, 1)
        _check(k, prob, h, c, reference)
        probs.append(float(prob.reshape(-1)[0]))
    # The clip exercises the network: the probability moves.
    assert max(probs) - min(probs) > 0.1, probs


def test_split_packages_match_onnxruntime(repo_root, reference):
    """stft -> encoder (dynamic frame count) -> decoder (LSTM over a dynamic
    sequence): the same network in three packages."""
    stft, encoder, decoder = (
        mlprog.compile(mlprog.import_mil(_package(repo_root, part)))
        for part in ("stft", "encoder", "decoder"))
    assert encoder.main.signature["inputs"][0]["shape"] == (1, 129, None)
    h = np.zeros((1, 128), np.float32)
    c = np.zeros((1, 128), np.float32)
    for k in range(_chunks(reference)):
        spectrum = stft.main(reference["input_%d" % k])
        features = encoder.main(spectrum)
        assert features.shape == (1, 128, 1)
        prob, h, c = decoder.main(features, h, c)
        _check(k, prob, h, c, reference)


def test_encoder_runs_on_other_frame_counts(repo_root):
    """The encoder's frame axis is dynamic in the package (1..1024): one
    program serves several lengths; each output frame depends only on its
    receptive field (three taps, strides 1, 2, 2, 1), so a longer input's
    first output frame equals a shorter one's."""
    encoder = mlprog.compile(mlprog.import_mil(_package(repo_root,
                                                        "encoder")))
    rng = np.random.default_rng(0)
    x = np.abs(rng.standard_normal((1, 129, 24))).astype(np.float32)
    outs = {n: encoder.main(np.ascontiguousarray(x[:, :, :n]))
            for n in (4, 9, 24)}
    assert outs[4].shape == (1, 128, 1)
    assert outs[9].shape == (1, 128, 3)
    assert outs[24].shape == (1, 128, 6)
    # Frame 0 of the output reads input frames 0..6 (with the zero padding
    # at the start); all three lengths cover them.
    np.testing.assert_allclose(outs[9][..., 0], outs[24][..., 0], rtol=1e-3,
                               atol=2e-3)
    assert np.abs(outs[24][..., 0]).max() > 0.1
