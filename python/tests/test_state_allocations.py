"""Heap allocations of a decode step of a real decoder (issue "State as a
first-class, fast path", point 4; docs/state.md, "What a step allocates").

decoders.py's scripted `CachedDecoder` (transformers' GPT-2 and LLaMA at the
tiny size, per-layer caches [1, kv_heads, 1024, head_dim] in registered
buffers written by slice assignment) is imported from TorchScript and run 30
steps of one token by the GoogleTest `MLProgAllocationTests` (its
`ModuleFromEnvironment` case), whose process counts every heap allocation
(unittests/Runtime/CountingMalloc.c). From the second step on, each step
must make as many allocations as the second, none as large as a cache, and
its bytes may grow only by what the attention over one more position
needs (GROWTH).
"""

import os
import re
import subprocess

import pytest

import mlprog
from conftest import python_with

HERE = os.path.dirname(os.path.abspath(__file__))
STEPS = 30

# Bytes a step may allocate more than the step before: the attention's
# buffers that span the context (the scores [1, heads, 1, position], LLaMA's
# keys and values repeated for the query heads) grow with the position.
# Measured growth per step: GPT-2 608 bytes, LLaMA 1632 bytes (the test's
# output). The bounds are those rounded up to a power of two; a copy of the
# caches' used part per step would add one row of every layer's keys and
# values (GPT-2 1024 bytes, LLaMA 512 bytes) and cross them, a copy of a
# whole cache (256 KiB for GPT-2, 128 KiB for LLaMA) fails the largest-buffer
# check.
GROWTH = {"gpt2": 1024, "llama": 2048}


@pytest.fixture(scope="module")
def allocation_tests(tools_dir):
    path = os.path.join(tools_dir, "MLProgAllocationTests")
    if not os.path.exists(path):
        pytest.skip("MLProgAllocationTests not built (sanitizer builds "
                    "leave it out)")
    return path


@pytest.mark.skipif(not mlprog.HAVE_TORCHSCRIPT,
                    reason="built without the TorchScript importer")
@pytest.mark.parametrize("family", ["gpt2", "llama"])
def test_decode_step_allocations_stay_flat(family, allocation_tests,
                                           repo_root, tmp_path):
    python = python_with(repo_root, "torch", "transformers")
    subprocess.run([python, os.path.join(HERE, "decoders.py"), family,
                    "tiny", str(tmp_path), "--no-onnx"], check=True,
                   timeout=600, capture_output=True)
    module = mlprog.import_torchscript(str(tmp_path / "decoder.pt"),
                                       input_shapes=[[1, None]],
                                       input_dtypes=["int64"])
    assert "ml_program.global private mutable @" in str(module)
    path = tmp_path / "decoder.mlir"
    module.save(str(path), weights_threshold=None)
    env = dict(os.environ, MLPROG_ALLOCATION_TEST_MODULE=str(path),
               MLPROG_ALLOCATION_TEST_ENTRY="forward",
               MLPROG_ALLOCATION_TEST_GROWTH=str(GROWTH[family]))
    run = subprocess.run(
        [allocation_tests,
         "--gtest_filter=StateAllocationTest.ModuleFromEnvironment"],
        env=env, timeout=600, capture_output=True, text=True)
    print(run.stdout)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "[  PASSED  ] 1 test" in run.stdout, run.stdout
    steps = dict((int(m.group(1)), (int(m.group(2)), int(m.group(3))))
                 for m in re.finditer(
                     r"step (\d+): (\d+) allocations, (\d+) bytes",
                     run.stdout))
    assert set(steps) == {1, 2, STEPS}
    assert steps[2][0] == steps[STEPS][0]
    assert steps[STEPS][1] - steps[2][1] <= (STEPS - 2) * GROWTH[family]
