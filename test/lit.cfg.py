# lit configuration of the dlc test suite.
import os

import lit.formats

config.name = "dlc"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".c", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.dlc_obj_root, "test")

bin_dir = os.path.join(config.dlc_obj_root, "bin")
lib_dir = os.path.join(config.dlc_obj_root, "lib")
config.environment["PATH"] = os.pathsep.join(
    [bin_dir, config.llvm_tools_dir, config.environment.get("PATH", "/usr/bin:/bin")])

# C programs against libdlc.so: the dlc C API headers and the MLIR C API's.
cc = (f"{config.c_compiler} -std=c11 -Wall -Werror -Wno-unused-parameter "
      f"-I{config.dlc_src_root}/capi/include -I{config.mlir_include_dir} "
      f"-L{lib_dir} -Wl,-rpath,{lib_dir} -Wl,-rpath,{config.llvm_lib_dir}")
config.substitutions.append(("%cc", cc))
config.substitutions.append(("%ldlc", "-ldlc"))
config.substitutions.append(("%dlc_lib", os.path.join(lib_dir, "libdlc.so")))
config.substitutions.append(("%dlc_src", config.dlc_src_root))
config.substitutions.append(("%dlc_plugin", os.path.join(lib_dir, "DlcPlugin.so")))
config.substitutions.append(
    ("%mlir_opt", os.path.join(config.llvm_tools_dir, "mlir-opt")))

# Python against libdlc.so (Debian's interpreter, which has numpy/torch/onnx).
config.substitutions.append(
    ("%python", f"env DLC_LIB={os.path.join(lib_dir, 'libdlc.so')} "
                f"PYTHONPATH={os.path.join(config.dlc_src_root, 'python')} /usr/bin/python3"))

# The ONNX/PyTorch tests need Debian's python3-torch, -onnx and -pytest
# (installed by scripts/setup.sh with the extras, which the test command asks for).
import subprocess as _sp
if _sp.call(["/usr/bin/python3", "-c", "import torch, onnx, pytest"],
            stdout=_sp.DEVNULL, stderr=_sp.DEVNULL) == 0:
    config.available_features.add("torch-onnx")

# GPU (test/GPU): ptxas from a CUDA toolkit assembles the PTX of
# --lower-to-nvvm (tests that need it are UNSUPPORTED, with that name, where
# none is found); a CUDA driver decides whether --target cuda can run.
import ctypes as _ct
import glob as _glob
import shutil as _shutil
_ptxas = None
for _v in ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"):
    _p = os.environ.get(_v)
    if _p and os.access(os.path.join(_p, "bin", "ptxas"), os.X_OK):
        _ptxas = os.path.join(_p, "bin", "ptxas")
        break
_ptxas = _ptxas or _shutil.which("ptxas") or next(
    (p for p in sorted(_glob.glob("/usr/local/cuda*/bin/ptxas"), reverse=True)
     if os.access(p, os.X_OK)), None)
if _ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", _ptxas))
try:
    _ct.CDLL("libcuda.so.1")
    config.available_features.add("cuda-driver")
except OSError:
    pass
