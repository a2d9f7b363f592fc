"""Shared fixtures of the mlprog Python tests.

Run with the build tree on the path:
  PYTHONPATH=build/python /usr/bin/python3 -m pytest -q python/tests
(`ninja -C build check-mlprog-python` does exactly that). MLPROG_TOOLS_DIR
names the directory of mlprog-opt/mlprog-run (default: build/bin next to the
package).
"""

import os
import sys

import numpy as np
import pytest

import mlprog


def _default_tools_dir():
    package = os.path.dirname(os.path.abspath(mlprog.__file__))
    return os.path.join(os.path.dirname(os.path.dirname(package)), "bin")


def under_sanitizer():
    """True in the ASan build's test run (scripts/test-sanitizers.sh), where
    the ASan runtime is preloaded into the uninstrumented interpreter."""
    return "libasan" in os.environ.get("LD_PRELOAD", "")


def skip_whole_network_under_sanitizer():
    """Skips a test that exports and compiles whole networks when it runs
    under ASan: minutes there, and the normal build runs the same code."""
    if under_sanitizer():
        pytest.skip("sanitizer run: exporting and compiling whole networks "
                    "takes minutes under ASan; the normal build runs this "
                    "test")


@pytest.fixture(scope="session")
def tools_dir():
    path = os.environ.get("MLPROG_TOOLS_DIR") or _default_tools_dir()
    if not os.path.exists(os.path.join(path, "mlprog-run")):
        pytest.skip("mlprog tools not found in %s (set MLPROG_TOOLS_DIR)" % path)
    return path


@pytest.fixture(scope="session")
def repo_root():
    return os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))


def python_with(repo_root, *modules):
    """A Python that has `modules`: this one, else the project's .venv; the
    test is skipped when neither has them."""
    try:
        for module in modules:
            __import__(module)
        return sys.executable
    except ImportError:
        pass
    venv = os.path.join(repo_root, ".venv", "bin", "python")
    if os.path.exists(venv):
        return venv
    pytest.skip("no %s (scripts/setup-venv.sh for .venv)"
                % " and ".join(modules))


def greedy_decode(step, prompt, count, dtype=np.int64):
    """Greedy decoding with `step(ids [1, s]) -> logits [1, s, vocab]`, a
    compiled decoder that keeps its KV cache as state: the prompt first,
    then one token a call. Returns (tokens [count], the last position's
    logits of each call [count, vocab])."""
    tokens, logits = [], []
    ids = np.array([prompt], dtype)
    for _ in range(count):
        last = np.asarray(step(ids))[0, -1]
        logits.append(last)
        tokens.append(int(last.argmax()))
        ids = np.array([[tokens[-1]]], dtype)
    return np.array(tokens, np.int64), np.stack(logits)


@pytest.fixture(scope="session")
def onnxruntime_python(repo_root):
    """A Python with onnxruntime (see python_with)."""
    return python_with(repo_root, "onnxruntime")
