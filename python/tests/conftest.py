"""Shared fixtures of the mlprog Python tests.

Run with the build tree on the path:
  PYTHONPATH=build/python /usr/bin/python3 -m pytest -q python/tests
(`ninja -C build check-mlprog-python` does exactly that). MLPROG_TOOLS_DIR
names the directory of mlprog-opt/mlprog-run (default: build/bin next to the
package).
"""

import os
import sys

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


@pytest.fixture(scope="session")
def onnxruntime_python(repo_root):
    """A Python with onnxruntime: this one, else the project's .venv; the
    test is skipped when neither has it."""
    try:
        import onnxruntime  # noqa: F401
        return sys.executable
    except ImportError:
        pass
    venv = os.path.join(repo_root, ".venv", "bin", "python")
    if os.path.exists(venv):
        return venv
    pytest.skip("no onnxruntime (pip install onnxruntime, or "
                "scripts/setup-venv.sh for .venv)")
