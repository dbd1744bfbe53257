#!/usr/bin/env bash
# Runs the libFuzzer targets of fuzz/ for SECONDS each (default 60) on the
# sanitized build, seeded from fuzz/corpus/ and the tests; prints the
# executions of each and fails on any crash, leak or sanitizer report (the
# input is kept in $DLC_BUILD_DIR/fuzz-artifacts/: make it a regression test).
#
#   bash scripts/fuzz.sh            # 60 s per target
#   bash scripts/fuzz.sh 600        # longer, on demand
#   bash scripts/fuzz.sh 30 shape   # one target
# scripts/test.sh --sanitize runs it for DLC_FUZZ_SECONDS (20) each.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-60}
shift || true
targets=("${@:-npy dlg shape}")
# shellcheck disable=SC2206  # split the default list
targets=(${targets[*]})
build=${DLC_FUZZ_BUILD_DIR:-$root/build-sanitize}
if [ ! -x "$build/bin/dlc-fuzz-npy" ]; then
  DLC_SETUP_SANITIZE=1 bash "$root/scripts/setup.sh" || exit 1
  DLC_BUILD_DIR=$build DLC_CMAKE_ARGS="-DDLC_SANITIZE=address,undefined" \
    bash "$root/scripts/build.sh" || exit 1
fi
ninja -C "$build" dlc-fuzz-npy dlc-fuzz-dlg dlc-fuzz-shape >/dev/null || exit 1

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
artifacts=$build/fuzz-artifacts
mkdir -p "$artifacts"

# Seeds: the committed corpus plus, for dlg, every test input split at
# `// -----` (what --split-input-file does).
for t in npy dlg shape; do
  mkdir -p "$work/$t"
  cp "$root"/fuzz/corpus/$t/* "$work/$t/" 2>/dev/null || true
done
/usr/bin/python3 - "$root" "$work/dlg" <<'PY'
import glob, os, sys
root, out = sys.argv[1], sys.argv[2]
files = sorted(glob.glob(f"{root}/test/Dialect/dlg/*.mlir") + glob.glob(f"{root}/test/Transforms/*.mlir")
               + glob.glob(f"{root}/examples/*.mlir") + glob.glob(f"{root}/test/Robustness/*.mlir"))
n = 0
for f in files:
    for part in open(f).read().split("// -----"):
        if "func.func" in part:
            n += 1
            open(os.path.join(out, f"seed{n:04d}.mlir"), "w").write(part)
PY

export ASAN_OPTIONS="allow_user_poisoning=0:allocator_may_return_null=1:abort_on_error=1${DLC_SANITIZER_LOG_DIR:+:log_path=$DLC_SANITIZER_LOG_DIR/fuzz}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:abort_on_error=1${DLC_SANITIZER_LOG_DIR:+:log_path=$DLC_SANITIZER_LOG_DIR/fuzz}"
# libFuzzer's link puts libstdc++ ahead of the shared ASan runtime, which
# must come first: preload it.
asan_rt=$(/usr/lib/llvm-22/bin/clang -print-file-name=libclang_rt.asan-x86_64.so)
rc=0
for t in "${targets[@]}"; do
  log=$work/$t.log
  # -dict helps the text target find dlg syntax; -max_len bounds one input.
  dict=()
  [ -f "$root/fuzz/$t.dict" ] && dict=(-dict="$root/fuzz/$t.dict")
  LD_PRELOAD=$asan_rt "$build/bin/dlc-fuzz-$t" "$work/$t" "${dict[@]}" -max_total_time="$seconds" \
    -max_len=4096 -rss_limit_mb=3072 -print_final_stats=1 \
    -artifact_prefix="$artifacts/$t-" >"$log" 2>&1
  status=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  if [ $status -ne 0 ]; then
    echo "fuzz $t: FAILED after ${execs:-?} executions (status $status); input in $artifacts" >&2
    grep -E "ERROR|runtime error|SUMMARY|Test unit written" "$log" | head -20 >&2
    rc=1
  else
    echo "fuzz $t: ${execs:-0} executions in ${seconds}s, no crash"
  fi
done
exit $rc
