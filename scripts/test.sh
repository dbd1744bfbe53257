#!/usr/bin/env bash
# The whole test suite: set up packages, build, run every lit test (dialects,
# passes, C API programs, the mlir-opt plugin). Exits non-zero on any failure
# and ends with one line "tests: N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${DLC_BUILD_DIR:-$root/build}
# The ONNX/PyTorch tests need the extras (python3-torch, -onnx, -torchvision, -pytest).
DLC_SETUP_EXTRAS=${DLC_SETUP_EXTRAS:-1} bash "$root/scripts/setup.sh" || exit 1
bash "$root/scripts/build.sh" || exit 1
log=$(mktemp)
/usr/lib/llvm-22/bin/lit -sv "$build/test" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
passed=$(sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p' "$log" | head -1)
failed=$(sed -n 's/^ *Failed *: *\([0-9]*\).*/\1/p' "$log" | head -1)
rm -f "$log"
echo "tests: ${passed:-0} passed, ${failed:-0} failed"
[ "${passed:-0}" -gt 0 ] || rc=1
exit $rc
