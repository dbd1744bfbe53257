#!/usr/bin/env bash
# Installs the Debian packages dlc needs, only those missing; safe to run any number of times.
set -euo pipefail

# clang-22 is required: MLIR names template traits by __PRETTY_FUNCTION__, so
# code must be compiled by the compiler family that built libMLIR.so (GCC's
# spelling differs and traits such as IsTerminator silently stop matching).
PKGS=(libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools clang-22
      cmake ninja-build python3 python3-numpy)
# Optional extras (benchmarks, Python tests, ONNX) are added with DLC_SETUP_EXTRAS=1.
if [ "${DLC_SETUP_EXTRAS:-0}" = 1 ]; then
  PKGS+=(python3-pytest python3-onnx python3-torch libopenblas-dev valgrind libtcmalloc-minimal4 python3-torchvision)
fi

# The sanitizer runtimes (ASan, UBSan, libFuzzer) for scripts/test.sh --sanitize
# and scripts/fuzz.sh are added with DLC_SETUP_SANITIZE=1.
if [ "${DLC_SETUP_SANITIZE:-0}" = 1 ]; then
  PKGS+=(libclang-rt-22-dev)
fi

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
  exit 0
fi
echo "setup: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
