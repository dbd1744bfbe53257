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

# A sanitized build (-DDLC_SANITIZE=...): C programs are built with the same
# flags, Python preloads the shared runtime, and every report aborts (so
# `not` cannot mistake one for an expected failure) and is also written
# under DLC_SANITIZER_LOG_DIR, which scripts/test.sh --sanitize counts.
python_env = ""
if config.dlc_sanitize:
    log_dir = os.environ.get("DLC_SANITIZER_LOG_DIR", "")
    log = f":log_path={log_dir}/report" if log_dir else ""
    common = f"abort_on_error=1{log}"
    # allow_user_poisoning=0: LLVM's allocator in the uninstrumented
    # libMLIR poisons memory it owns, a false positive under ASan.
    # allocator_may_return_null=1: a failed allocation returns NULL as
    # malloc does, so the tests see dlc's own "out of memory" errors.
    asan = "allow_user_poisoning=0:allocator_may_return_null=1"
    config.environment["ASAN_OPTIONS"] = f"{asan}:{common}"
    config.environment["UBSAN_OPTIONS"] = f"halt_on_error=1:print_stacktrace=1:{common}"
    config.available_features.add("sanitize")
    # Uninstrumented programs that load libdlc (Python, Debian's mlir-opt
    # with the plugin) preload the runtime; they keep memory until exit by
    # design, so no leak check inside them.
    python_env = (f"LD_PRELOAD={config.dlc_asan_runtime} "
                  f"ASAN_OPTIONS={asan}:detect_leaks=0:{common} ")

# C programs against libdlc.so: the dlc C API headers (the public ones in
# capi/, and the layers below whose headers they include) and the MLIR C API's.
dlc_includes = " ".join(f"-I{config.dlc_src_root}/{layer}/include"
                        for layer in ("capi", "passes", "dialects", "support"))
cc = (f"{config.c_compiler} {config.dlc_sanitize_flags} -std=c11 -Wall -Werror -Wno-unused-parameter "
      f"{dlc_includes} -I{config.mlir_include_dir} "
      f"-L{lib_dir} -Wl,-rpath,{lib_dir} -Wl,-rpath,{config.llvm_lib_dir}")
config.substitutions.append(("%cc", cc))
config.substitutions.append(("%ldlc", "-ldlc"))
# The C compiler alone, for programs that need no dlc (AOT libraries' users).
config.substitutions.append(("%host_cc", config.c_compiler))
config.substitutions.append(("%dlc_lib", os.path.join(lib_dir, "libdlc.so")))
config.substitutions.append(("%dlc_src", config.dlc_src_root))
config.substitutions.append(("%dlc_plugin", os.path.join(lib_dir, "DlcPlugin.so")))
config.substitutions.append(
    ("%mlir_opt", (f"env {python_env}" if python_env else "") +
     os.path.join(config.llvm_tools_dir, "mlir-opt")))

# Python against libdlc.so (Debian's interpreter, which has numpy/torch/onnx).
config.substitutions.append(
    ("%python", f"env {python_env}DLC_LIB={os.path.join(lib_dir, 'libdlc.so')} "
                f"PYTHONPATH={os.path.join(config.dlc_src_root, 'python')} /usr/bin/python3"))

# The ONNX/PyTorch tests need Debian's python3-torch, -onnx and -pytest
# (installed by scripts/setup.sh with the extras, which the test command asks for).
import subprocess as _sp
if _sp.call(["/usr/bin/python3", "-c", "import torch, onnx, pytest"],
            stdout=_sp.DEVNULL, stderr=_sp.DEVNULL) == 0:
    config.available_features.add("torch-onnx")


# The level-3 cache that this machine's first core shares, as lscpu reads
# it from sysfs: test/Transforms/streaming-stores-host.mlir needs one smaller
# than its 64 MiB output.
import glob as _glob
for _d in _glob.glob("/sys/devices/system/cpu/cpu0/cache/index*"):
    try:
        with open(os.path.join(_d, "level")) as _f:
            if _f.read().strip() != "3":
                continue
        with open(os.path.join(_d, "size")) as _f:
            _size = _f.read().strip()
    except OSError:
        continue
    _scale = {"K": 1 << 10, "M": 1 << 20}.get(_size[-1:], 1)
    _digits = _size.rstrip("KM")
    if _digits.isdigit() and 0 < int(_digits) * _scale < (64 << 20):
        config.available_features.add("host-l3-below-64mib")


# ThreadSanitizer's runtime for the C compiler (test/AOT/tsan.test).
if _glob.glob(os.path.join(os.path.dirname(os.path.dirname(config.c_compiler)), "lib", "clang",
                           "*", "lib", "*", "libclang_rt.tsan*")):
    config.available_features.add("tsan")

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
