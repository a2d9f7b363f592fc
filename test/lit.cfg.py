# -*- Python -*-
# lit configuration of the mlprog test suite.

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "MLPROG"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".py", ".pbtxt"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "Inputs", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.mlprog_obj_root, "test")

# Every execution test gets a bound; a hung JIT must not hang CI.
lit_config.maxIndividualTestTime = 300

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%mlprog_src_root", config.mlprog_src_root))
config.substitutions.append(("%mlprog_obj_root", config.mlprog_obj_root))
config.substitutions.append(("%onnx_testdata", config.onnx_testdata_dir))
# protoc --encode=mlprog.mil.<Message> against our MIL protobuf schema
# (MIL tests are protobuf text with RUN lines in '#' comments).
config.substitutions.append(
    ("%mil_encode",
     "protoc -I%s mil.proto --encode" %
     os.path.join(config.mlprog_src_root, "include", "mlprog", "Import", "MIL")))

# Real public models live in ../shared/models beside the repository (never
# copied into it, see its README); their tests need the feature.
config.shared_models_dir = os.path.join(
    os.path.dirname(config.mlprog_src_root), "shared", "models")
config.substitutions.append(("%shared_models", config.shared_models_dir))
if os.path.isdir(config.shared_models_dir):
    config.available_features.add("shared-models")
    if os.path.isdir(os.path.join(config.shared_models_dir, "coreml")):
        config.available_features.add("coreml-models")
else:
    lit_config.note("real-model tests (REQUIRES: shared-models) are skipped: "
                    "%s not found" % config.shared_models_dir)

llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])

# Sanitized builds (-DMLPROG_SANITIZE=...): the tools are instrumented, the
# libraries they load (libMLIR, libtorch, libprotobuf) are not; see
# docs/reliability.md for the options.
if getattr(config, "mlprog_sanitize", ""):
    config.available_features.add("sanitizer")
    supp = os.path.join(config.mlprog_src_root, "scripts", "sanitizers")
    config.environment["ASAN_OPTIONS"] = os.environ.get(
        "ASAN_OPTIONS",
        "detect_odr_violation=0:detect_leaks=1:abort_on_error=0:allow_user_poisoning=0:"
        "allocator_may_return_null=1")
    config.environment["UBSAN_OPTIONS"] = os.environ.get(
        "UBSAN_OPTIONS",
        "print_stacktrace=1:halt_on_error=1:suppressions=%s" %
        os.path.join(supp, "ubsan.supp"))
llvm_config.use_default_substitutions()

tool_dirs = [config.mlprog_tools_dir, config.llvm_tools_dir]
tools = ["mlprog-opt", "mlprog-translate", "mlprog-run", "mlprog-lsp-server",
         "mlprog-compile"]
if getattr(config, "mlprog_sanitize", ""):
    # LeakSanitizer's tracer crashes at exit (signal 11, "LeakSanitizer has
    # encountered a fatal error") in a process that ran OpenMP-parallel
    # compiled code, which any -O2 contraction does: `mlprog-run` runs
    # without the leak check (AddressSanitizer and UBSan still check it);
    # the importers and the compiler keep it (docs/reliability.md).
    _no_leaks = config.environment["ASAN_OPTIONS"].replace(
        "detect_leaks=1", "detect_leaks=0")
    tools[tools.index("mlprog-run")] = ToolSubst(
        "mlprog-run", command="env",
        extra_args=["ASAN_OPTIONS=" + _no_leaks,
                    os.path.join(config.mlprog_tools_dir, "mlprog-run")])
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.mlprog_tools_dir, append_path=True)

if os.path.isdir(config.onnx_testdata_dir):
    config.available_features.add("onnx-testdata")
try:
    import subprocess
    subprocess.run([config.python_executable, "-c", "import torch, onnx"],
                   check=True, capture_output=True, timeout=120)
    config.available_features.add("torch")
except Exception:
    pass

# The project's pinned Python environment (.venv of scripts/setup-venv.sh,
# or MLPROG_VENV_PYTHON): `coremltools` tests build Core ML packages with its
# MIL Builder and ct.convert.
_venv_python = os.environ.get(
    "MLPROG_VENV_PYTHON",
    os.path.join(config.mlprog_src_root, ".venv", "bin", "python"))
config.substitutions.append(("%venv_python", _venv_python))
# `%torch_python`: the interpreter whose torch writes the TorchScript test
# archives and computes their references: .venv's torch 2.x, whose libtorch
# the importer links (docs/importers/torchscript.md, "Which libtorch"), else
# Debian's python3 and torch.
_torch_python = config.python_executable
try:
    subprocess.run([_venv_python, "-c", "import torch"], check=True,
                   capture_output=True, timeout=120)
    _torch_python = _venv_python
    config.available_features.add("torch2")
except Exception:
    pass
config.substitutions.append(("%torch_python", _torch_python))
try:
    subprocess.run([_venv_python, "-c", "import coremltools"], check=True,
                   capture_output=True, timeout=120)
    config.available_features.add("coremltools")
except Exception:
    pass

# GPU tests. `cuda-device`: libcuda.so.1 loads, cuInit succeeds and reports a
# device (GPU execution tests need it). `ptxas`: NVIDIA's PTX assembler is
# around (not a dependency; when present, tests assemble our PTX with it).
# Probed in a child process so that a broken driver cannot take lit down.
import subprocess
_cuda_probe = r"""
import ctypes, sys
try:
    cuda = ctypes.CDLL('libcuda.so.1')
except OSError as e:
    sys.exit('libcuda.so.1 not loadable: %s' % e)
if cuda.cuInit(0) != 0:
    sys.exit('cuInit failed')
count = ctypes.c_int(0)
if cuda.cuDeviceGetCount(ctypes.byref(count)) != 0 or count.value == 0:
    sys.exit('no CUDA device')
"""
try:
    _probe = subprocess.run([config.python_executable, "-c", _cuda_probe],
                            capture_output=True, text=True, timeout=60)
    if _probe.returncode == 0:
        config.available_features.add("cuda-device")
    else:
        lit_config.note("GPU execution tests (REQUIRES: cuda-device) are "
                        "skipped: " + (_probe.stderr.strip().splitlines() or
                                       ["probe failed"])[-1])
except Exception as e:
    lit_config.note("GPU execution tests are skipped: %s" % e)

import glob
import shutil
_ptxas = shutil.which("ptxas") or next(
    iter(sorted(glob.glob("/usr/local/cuda*/bin/ptxas"))), None)
if _ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", _ptxas))
