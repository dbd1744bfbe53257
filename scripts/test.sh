#!/usr/bin/env bash
# The whole test suite: set up packages, build, run every lit test (dialects,
# passes, C API programs, the mlir-opt plugin, e2e numerics, Python). Exits
# non-zero on any failure and ends with one line "tests: N passed, N failed".
#
#   bash scripts/test.sh              # the suite on the Release build (./build)
#   bash scripts/test.sh --sanitize   # the same suite on an ASan+UBSan build
#                                     # (./build-sanitize), then the fuzz targets
#                                     # for DLC_FUZZ_SECONDS (default 20) each;
#                                     # fails on any sanitizer report
#   bash scripts/test.sh --all        # both, one after the other (what CI runs)
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mode=${1:-}
case "$mode" in
  "" | --sanitize) ;;
  --all)
    bash "$0" || exit 1
    exec bash "$0" --sanitize ;;
  *) echo "usage: scripts/test.sh [--sanitize | --all]" >&2; exit 2 ;;
esac

if [ "$mode" = --sanitize ]; then
  export DLC_BUILD_DIR=${DLC_SANITIZE_BUILD_DIR:-$root/build-sanitize}
  export DLC_CMAKE_ARGS="-DDLC_SANITIZE=address,undefined"
  export DLC_SETUP_SANITIZE=1
fi
build=${DLC_BUILD_DIR:-$root/build}
# The ONNX/PyTorch tests need the extras (python3-torch, -onnx, -torchvision, -pytest).
DLC_SETUP_EXTRAS=${DLC_SETUP_EXTRAS:-1} bash "$root/scripts/setup.sh" || exit 1
bash "$root/scripts/build.sh" || exit 1

reports=""
if [ "$mode" = --sanitize ]; then
  # Every report also lands here (lit.cfg.py and fuzz.sh).
  reports=$(mktemp -d)
  export DLC_SANITIZER_LOG_DIR=$reports
fi
log=$(mktemp)
/usr/lib/llvm-22/bin/lit -sv "$build/test" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
passed=$(sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p' "$log" | head -1)
failed=$(sed -n 's/^ *Failed *: *\([0-9]*\).*/\1/p' "$log" | head -1)
rm -f "$log"
if [ "$mode" = --sanitize ]; then
  DLC_FUZZ_BUILD_DIR=$build DLC_SANITIZER_LOG_DIR=$reports \
    bash "$root/scripts/fuzz.sh" "${DLC_FUZZ_SECONDS:-20}" || rc=1
  # A report is an ERROR/runtime error; allocations that failed on purpose
  # (the tests of dlc's "out of memory" messages) only leave a WARNING.
  n=$(grep -l -E "ERROR: |runtime error:|SUMMARY: " "$reports"/* 2>/dev/null | wc -l)
  if [ "$n" -gt 0 ]; then
    echo "sanitizer reports: $n" >&2
    grep -l -E "ERROR: |runtime error:|SUMMARY: " "$reports"/* | xargs head -40 >&2
    rc=1
  else
    echo "sanitizer reports: 0"
  fi
  rm -rf "$reports"
fi
echo "tests: ${passed:-0} passed, ${failed:-0} failed"
[ "${passed:-0}" -gt 0 ] || rc=1
exit $rc
