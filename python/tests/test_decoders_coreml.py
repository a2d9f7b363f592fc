"""Stateful Core ML decoders (iOS18 states) through mlprog: decoders.py's
tiny GPT-2 and LLaMA with their KV caches and position in Core ML states,
converted by coremltools (coreml_decoder_export.py under .venv-coreml),
imported with mlprog.import_mil, compiled and decoded greedily one token at
a time after the prompt.

Core ML states are fp16 (coremltools refuses others), so the program keeps
its cache in fp16 while it computes in fp32: its logits are compared within
1e-4 with the PyTorch decoder whose cache rounds to fp16 the same way, and
its tokens with transformers' own greedy decoding (whose fp32 logits differ
from the program's by the cache's rounding, about 5e-4 for GPT-2)."""

import os
import subprocess
import time

import numpy as np
import pytest

import mlprog
from conftest import (greedy_decode, python_with,
                      skip_whole_network_under_sanitizer)

HERE = os.path.dirname(os.path.abspath(__file__))
EXPORT = os.path.join(HERE, "coreml_decoder_export.py")
# The fp16 cache moves transformers' fp32 logits by 5.3e-4 (GPT-2) and
# 1.0e-4 (LLaMA); this bounds that rounding, not mlprog's error.
FP16_CACHE_ATOL = 2e-3


def _run(cmd):
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-4000:]


@pytest.mark.parametrize("family", ["gpt2", "llama"])
def test_stateful_coreml_decoder_matches_pytorch(repo_root, tmp_path, family):
    skip_whole_network_under_sanitizer()
    if not mlprog.HAVE_MIL:
        pytest.skip("built without the MIL importer")
    coreml_python = os.path.join(repo_root, ".venv-coreml", "bin", "python")
    if not os.path.exists(coreml_python):
        pytest.skip("no .venv-coreml (scripts/setup-venv.sh --with coreml)")
    start = time.perf_counter()
    _run([python_with(repo_root, "torch", "transformers"), EXPORT, "weights", family,
          str(tmp_path)])
    _run([coreml_python, EXPORT, "convert", str(tmp_path)])
    reference = np.load(tmp_path / "reference.npz")
    prompt = reference["prompt"].tolist()
    new_tokens = len(reference["tokens"])

    module = mlprog.import_mil(tmp_path / "decoder.mlpackage")
    text = str(module)
    # The caches and the position are mutable globals, not arguments.
    assert text.count("ml_program.global private mutable") == 5, text[:2000]
    exe = mlprog.compile(module, progress=False)
    tokens, logits = greedy_decode(exe, prompt, new_tokens, np.int32)

    vs_fp16 = float(np.abs(logits - reference["fp16_cache_logits"]).max())
    vs_transformers = float(np.abs(logits - reference["logits"]).max())
    print(f"\n{family}: tokens equal transformers': "
          f"{np.array_equal(tokens, reference['tokens'])}; max logit "
          f"difference {vs_fp16:.3g} from PyTorch with an fp16 cache, "
          f"{vs_transformers:.3g} from transformers (fp32 cache)")
    np.testing.assert_array_equal(tokens, reference["tokens"])
    np.testing.assert_array_equal(tokens, reference["fp16_cache_tokens"])
    assert vs_fp16 <= 1e-4
    assert vs_transformers <= FP16_CACHE_ATOL

    # MIL states have no reset entry: a fresh compile starts from zeros, and
    # its first step repeats the prompt's logits.
    fresh = mlprog.compile(module, progress=False)
    first = np.asarray(fresh(np.array([prompt], np.int32)))[0, -1]
    np.testing.assert_allclose(first, logits[0], rtol=0, atol=1e-6)
    # The first executable kept its state: the prompt again, now after
    # prompt + new_tokens - 1 positions, gives other logits.
    again = np.asarray(exe(np.array([prompt], np.int32)))[0, -1]
    assert np.abs(again - logits[0]).max() > 1e-3
    print(f"{family}: {time.perf_counter() - start:.1f} s")
