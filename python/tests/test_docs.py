"""The five-line examples of docs/python.md, executed as written.

Each ```python block after a `<!-- tested: python/tests/test_docs.py (KIND) -->`
marker runs with `model` and `x` defined, in a temporary directory; `y` must
equal `model(x)`.
"""

import os
import re

import numpy as np
import pytest
import torch

import mlprog
from models import make_cnn

MARKER = re.compile(r"<!-- tested: python/tests/test_docs.py \((\w+)\) -->\s*"
                    r"```python\n(.*?)```", re.S)


def doc_examples(repo_root):
    with open(os.path.join(repo_root, "docs", "python.md"),
              encoding="utf-8") as f:
        return dict(MARKER.findall(f.read()))


@pytest.mark.parametrize("kind", ["onnx", "torchscript"])
def test_five_line_example(kind, repo_root, tmp_path, monkeypatch):
    examples = doc_examples(repo_root)
    assert kind in examples, "docs/python.md lost its %s example" % kind
    code = examples[kind]
    assert len(code.strip().splitlines()) == 5
    if kind == "onnx" and not mlprog.HAVE_ONNX:
        pytest.skip("built without the ONNX importer")
    if kind == "torchscript" and not mlprog.HAVE_TORCHSCRIPT:
        pytest.skip("built without the TorchScript importer")
    model, x = make_cnn()
    monkeypatch.chdir(tmp_path)
    scope = {"model": model, "x": x}
    exec(compile(code, "docs/python.md", "exec"), scope)
    y = scope["y"]
    assert isinstance(y, np.ndarray)
    with torch.no_grad():
        expected = model(x).numpy()
    np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-6)
