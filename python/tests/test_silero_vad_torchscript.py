"""silero-vad's TorchScript archives, as their authors saved them, imported
by mlprog and run chunk after chunk against PyTorch.

`forward(x, sr)` keeps its state (the LSTM's h/c or the stacked state, the
audio context, the last sample rate and batch size) in module attributes
that it replaces with tensors of other shapes: they become mutable globals
with dynamic bounding types. `sr` is bound at import time
(`constant_inputs={"sr": 16000}`), which selects the 16 kHz branch. After 10
chunks both sides call `reset_states`, imported as a second function that
shares the globals, and run 4 more.

Archives: v4 (2023) in ../shared/models/torchscript, v6.0.0's `.jit` from
the silero-vad wheel (scripts/fetch-silero-vad.sh, into .cache/silero-vad).
"""
import os

import numpy as np
import pytest

import mlprog

torch = pytest.importorskip("torch")
if not mlprog.HAVE_TORCHSCRIPT:
    pytest.skip("built without the TorchScript importer",
                allow_module_level=True)

CHUNK = 512
ATOL = 1e-5


def _archive(repo_root, which):
    if which == "v4":
        path = os.path.join(repo_root, "..", "shared", "models", "torchscript",
                            "snakers4_silero-vad_silero_vad_v4_2023.jit")
        hint = "the public TorchScript models live in ../shared/models"
    else:
        path = os.path.join(repo_root, ".cache", "silero-vad",
                            "silero_vad.jit")
        hint = "run scripts/fetch-silero-vad.sh (silero-vad 6.0.0 from PyPI)"
    if not os.path.exists(path):
        pytest.skip("%s is absent: %s" % (os.path.normpath(path), hint))
    return path


@pytest.mark.parametrize("which", ["v4", "v6"])
def test_chunks_and_reset_match_pytorch(repo_root, which):
    path = _archive(repo_root, which)
    ref = torch.jit.load(path).eval()
    module = mlprog.import_torchscript(
        path, method=["forward", "reset_states"], input_shapes=[[1, CHUNK]],
        constant_inputs={"sr": 16000})
    text = str(module)
    assert "ml_program.global private mutable" in text
    exe = mlprog.compile(module, opt_level=1)
    rng = np.random.default_rng(7)
    # Noise with a louder stretch, so that the probabilities move.
    audio = rng.standard_normal(CHUNK * 14).astype(np.float32) * 0.05
    audio[CHUNK * 3:CHUNK * 7] *= 10.0
    for i in range(14):
        if i == 10:
            ref.reset_states()
            assert exe.reset_states() is None
        x = torch.from_numpy(audio[i * CHUNK:(i + 1) * CHUNK][None].copy())
        with torch.no_grad():
            expected = ref(x, 16000).numpy()
        got = exe.forward(x.numpy())
        np.testing.assert_allclose(got, expected, rtol=0, atol=ATOL,
                                   err_msg="%s chunk %d" % (which, i))


def test_sample_rate_is_needed_or_bound(repo_root):
    path = _archive(repo_root, "v6")
    with pytest.raises(mlprog.Error, match="no imported method has"):
        mlprog.import_torchscript(path, input_shapes=[[1, CHUNK]],
                                  constant_inputs={"rate": 16000})
