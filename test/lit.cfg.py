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

llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.mlprog_tools_dir, config.llvm_tools_dir]
tools = ["mlprog-opt", "mlprog-translate", "mlprog-run", "mlprog-lsp-server",
         "mlprog-compile"]
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
