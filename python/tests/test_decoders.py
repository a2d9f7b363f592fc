"""KV-cache decoding through ml_program globals (issue "State as a
first-class, fast path"): transformers' GPT-2 and a LLaMA (RoPE, RMSNorm,
SwiGLU, grouped-query attention), random weights, generate 32 tokens
greedily through mlprog with the cache kept as state, and match PyTorch:

- TorchScript: decoders.py's cached decoder, whose caches and position are
  registered buffers written by slice assignment and `add_`, reset by
  `zero_` in an exported `reset` method;
- ONNX: transformers' model exported by torch.onnx with past/present pairs,
  imported with `state="auto"` so the pairs become mutable globals.

The reference is transformers' own greedy decoding (its DynamicCache);
decoders.py runs under the project's .venv (torch 2.9, transformers) and
writes both programs and the reference. Tokens must be identical and the
logits of every step within 1e-4.
"""

import os
import subprocess

import numpy as np
import pytest

import mlprog
from conftest import greedy_decode, python_with

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope="module", params=["gpt2", "llama"])
def exported(request, repo_root, tmp_path_factory):
    python = python_with(repo_root, "torch", "transformers")
    out = tmp_path_factory.mktemp(request.param)
    subprocess.run([python, os.path.join(HERE, "decoders.py"), request.param,
                    "tiny", str(out)], check=True, timeout=600,
                   capture_output=True)
    return request.param, out


def _check(family, exe_step, reset, reference):
    prompt = list(reference["prompt"])
    count = len(reference["tokens"])
    tokens, logits = greedy_decode(exe_step, prompt, count)
    diff = float(np.abs(logits - reference["logits"]).max())
    print("%s: %d tokens, max logit difference %.2g" % (family, count, diff))
    np.testing.assert_array_equal(tokens, reference["tokens"])
    assert len(set(tokens.tolist())) > 3  # not one repeated token
    assert diff <= 1e-4
    # After reset the cache is empty again: the prompt's step repeats.
    reset()
    first = np.asarray(exe_step(np.array([prompt], np.int64)))[0, -1]
    np.testing.assert_allclose(first, reference["logits"][0], rtol=0,
                               atol=1e-4)


@pytest.mark.skipif(not mlprog.HAVE_TORCHSCRIPT,
                    reason="built without the TorchScript importer")
def test_torchscript_buffers(exported):
    family, out = exported
    module = mlprog.import_torchscript(str(out / "decoder.pt"),
                                       input_shapes=[[1, None]],
                                       input_dtypes=["int64"])
    assert module.functions == ["forward", "reset"]
    text = str(module)
    assert "ml_program.global private mutable @pos" in text
    assert text.count(".cache.keys(") >= 2  # one cache global per layer
    exe = mlprog.compile(module)
    _check(family, exe.forward, exe.reset, np.load(out / "reference.npz"))


@pytest.mark.skipif(not mlprog.HAVE_ONNX,
                    reason="built without the ONNX importer")
def test_onnx_past_present_as_state(exported):
    family, out = exported
    module = mlprog.import_onnx(str(out / "decoder.onnx"), state="auto")
    assert module.functions == ["main", "reset"]
    exe = mlprog.compile(module)
    _check(family, exe.main, exe.reset, np.load(out / "reference.npz"))
