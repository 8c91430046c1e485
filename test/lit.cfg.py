# -*- Python -*-
import os
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TP"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tp_obj_root, "test")
config.excludes = ["Inputs", "Unit", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "tp-capi-test.c", "tp-capi-ranks-test.c"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%tp_src_root", config.tp_src_root))
config.substitutions.append(("%tp_obj_root", config.tp_obj_root))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

# Strict FileCheck everywhere: captured values do not leak across labels.
config.substitutions.insert(0, ("FileCheck ", "FileCheck --enable-var-scope "))

tool_dirs = [config.tp_tools_dir, config.llvm_tools_dir]
tools = [
    "tp-opt",
    "tp-capi-test",
    "tp-capi-ranks-test",
    "tp-run",
    "tp-launch-probe",
    "tp-watch-mpirun",
    ToolSubst("tp-mpi-backend-check", unresolved="ignore"),
    ToolSubst("tp-glue-gpu-check", unresolved="ignore"),
    "tp-fuzz-ir",
    "tp-fuzz-npy",
    "not",
    "count",
    "split-file",
    ToolSubst("mlir-opt", command=os.path.join(config.llvm_tools_dir, "mlir-opt")),
    ToolSubst("mlir-translate", command=os.path.join(config.llvm_tools_dir, "mlir-translate")),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# The CUDA backend is built; a GPU is there to run it (tests that expect the
# no-GPU errors are UNSUPPORTED on a GPU machine).
if config.tp_have_cuda:
    config.available_features.add("cuda-build")
if os.path.exists("/dev/nvidiactl"):
    config.available_features.add("cuda-device")

# ptxas from the CUDA toolkit checks the PTX of GPU glue.
if config.tp_ptxas and os.path.exists(config.tp_ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.tp_ptxas))

# `%fails-within S CMD...`: CMD must fail, and within S seconds: a hang is a
# test failure, not the failure `not` would accept.
config.substitutions.append(
    ("%fails-within",
     "sh -c 'timeout \"$0\" \"$@\"; rc=$?; [ $rc -ne 0 ] && [ $rc -ne 124 ]'"))

# The AddressSanitizer + UndefinedBehaviorSanitizer build: the long
# multi-process numerics suites run in the plain build only.
if config.tp_sanitizers.upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("sanitizers")

# Multi-process runs under Open MPI's mpirun, as root in CI, with more ranks
# than cores.
mpirun = shutil.which("mpirun")
if config.tp_have_mpi and mpirun:
    config.available_features.add("mpi")
    for name in ["OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"]:
        config.environment[name] = "1"
    # Watched as tp-run watches its own mpirun (tp-watch-mpirun): Open MPI
    # 4.1's mpirun can hang in its finalize after an abort, with every rank
    # ended, and that also keeps each job's session folders apart (two jobs
    # starting together race on Open MPI's shared one). ob1, as tp-run's own
    # launch picks it: Open MPI's default probes the interconnect layers
    # first, which doubles every job's start-up.
    config.substitutions.append(
        ("%mpirun", os.path.join(config.tp_tools_dir, "tp-watch-mpirun") +
         " " + mpirun + " --oversubscribe --mca pml ob1 -n"))

# A Python with numpy (Debian's python3-numpy, which scripts/install-deps.sh
# installs), for the tests that check compiled code against numpy.
import subprocess
import sys
for candidate in [sys.executable, "/usr/bin/python3", shutil.which("python3")]:
    if candidate and subprocess.run([candidate, "-c", "import numpy"],
                                    capture_output=True).returncode == 0:
        config.available_features.add("numpy")
        config.substitutions.append(("%numpy-python", candidate))
        break
