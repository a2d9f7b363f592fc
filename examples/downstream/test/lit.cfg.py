# lit configuration of the downstream example: ds-opt from this build,
# mlprog-run from the installed mlprog, FileCheck/not from LLVM.
import os

import lit.formats

config.name = "mlprog-downstream"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".mlir"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.ds_obj_root, "test")
config.environment["PATH"] = os.pathsep.join(
    [config.ds_tools_dir, config.mlprog_tools_dir, config.llvm_tools_dir,
     config.environment.get("PATH", "")])
