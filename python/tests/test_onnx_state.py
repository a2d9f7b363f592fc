"""ONNX past/present through mutable globals (docs/state.md, "From ONNX"):
a GPT-style decoder imported with `state="auto"` keeps its KV cache inside
the executable and decodes greedily with the same tokens and logits as
onnxruntime feeding `present.*` back, and as mlprog itself with the caller
shipping the cache; `reset` empties the cache; two executables of one module
keep separate caches."""

import os
import subprocess

import numpy as np
import pytest

import mlprog
from onnx_decoder import (HEAD_DIM, HEADS, LAYERS, build_decoder, empty_cache,
                          greedy)

pytestmark = pytest.mark.skipif(not mlprog.HAVE_ONNX,
                                reason="built without the ONNX importer")
onnx = pytest.importorskip("onnx")

CACHE = ["past_key_values.%d.%s" % (l, kind) for l in range(LAYERS)
         for kind in ("key", "value")]


@pytest.fixture(scope="module")
def model():
    return build_decoder()


@pytest.fixture(scope="module")
def module(model):
    return mlprog.import_onnx(model, name="decoder.onnx", state="auto")


@pytest.fixture(scope="module")
def stateful(module):
    return mlprog.compile(module)


def test_signature_and_functions(module, stateful):
    assert module.functions == ["main", "reset"]
    text = str(module)
    for name in CACHE:
        assert ("ml_program.global private mutable @%s(dense<> : "
                "tensor<1x%dx0x%dxf32>) : tensor<1x%dx?x%dxf32>"
                % (name, HEADS, HEAD_DIM, HEADS, HEAD_DIM)) in text
    sig = stateful.main.signature
    assert [i["shape"] for i in sig["inputs"]] == [(1, None)]
    assert [r["shape"] for r in sig["results"]] == [(1, None, 32)]


def test_greedy_matches_caller_shipped_cache(model, stateful):
    """The same model without --state, the caller feeding present back."""
    plain = mlprog.compile(mlprog.import_onnx(model, name="decoder.onnx"))
    cache = empty_cache()

    def step(ids):
        outs = plain.main(ids, *cache)
        cache[:] = outs[1:]
        return outs[0]

    want_tokens, want_logits = greedy(step)
    stateful.reset()
    tokens, logits = greedy(stateful.main)
    assert tokens == want_tokens
    for got, want in zip(logits, want_logits):
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-5)


def test_greedy_matches_onnxruntime(stateful, onnxruntime_python, tmp_path):
    python = onnxruntime_python
    reference = tmp_path / "reference.npz"
    script = os.path.join(os.path.dirname(__file__), "onnx_decoder.py")
    subprocess.run([python, script, str(reference)], check=True, timeout=300)
    want = np.load(reference)
    stateful.reset()
    tokens, logits = greedy(stateful.main)
    assert tokens == list(want["tokens"])
    assert len(set(tokens)) > 3  # the decoder does not repeat one token
    for i, got in enumerate(logits):
        np.testing.assert_allclose(got, want["logits_%d" % i], rtol=0,
                                   atol=1e-4)


def test_reset_repeats_the_first_step(stateful):
    stateful.reset()
    ids = np.array([[3, 17, 5]], np.int64)
    first = stateful.main(ids)
    second = stateful.main(ids)  # now attends to the cached prompt too
    assert not np.allclose(first, second)
    stateful.reset()
    np.testing.assert_array_equal(stateful.main(ids), first)
    stateful.reset()
    stateful.reset()  # resetting an empty cache is fine
    np.testing.assert_array_equal(stateful.main(ids), first)


def test_two_executables_keep_separate_caches(module, stateful):
    other = mlprog.compile(module)
    stateful.reset()
    ids = np.array([[3, 17, 5]], np.int64)
    first = stateful.main(ids)
    np.testing.assert_array_equal(other.main(ids), first)
    stateful.main(ids)
    # `other` holds one step; `stateful` two.
    np.testing.assert_array_equal(other.main(np.array([[7]], np.int64)),
                                  _after_one_step(module, ids, [[7]]))


def _after_one_step(module, ids, next_ids):
    exe = mlprog.compile(module)
    exe.main(ids)
    return exe.main(np.array(next_ids, np.int64))


def test_state_keyword_forms(model):
    explicit = {name: name.replace("past_key_values", "present")
                for name in CACHE}
    text = ",".join("%s:%s" % item for item in explicit.items())
    auto = str(mlprog.import_onnx(model, state="auto"))
    assert str(mlprog.import_onnx(model, state=explicit)) == auto
    assert str(mlprog.import_onnx(model, state=text)) == auto
    shaped = mlprog.import_onnx(
        model, state=[(i, o, [1, HEADS, 0, HEAD_DIM])
                      for i, o in explicit.items()])
    assert str(shaped) == auto
    with pytest.raises(mlprog.Error, match="'nope' is not an input"):
        mlprog.import_onnx(model, state={"nope": "present.0.key"})
    with pytest.raises(mlprog.Error, match="malformed --state item 'x'"):
        mlprog.import_onnx(model, state="x")
    with pytest.raises(mlprog.Error, match="state bindings are"):
        mlprog.import_onnx(model, state=[("a",)])
