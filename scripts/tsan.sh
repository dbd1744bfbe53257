#!/usr/bin/env bash
# ThreadSanitizer check of the JIT path (not part of the test suite: it
# builds a second, instrumented libdlc into build-tsan, ~20 min on 2 cores).
# test/CAPI/threads.c then runs against it: 2 threads x 200 calls of one
# program, a dynamic program's variants from two threads, two programs
# compiled at once. OpenMP is off (libomp is not instrumented and reports
# its own internal locking). The AOT path's check is test/AOT/tsan.test.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$root/build-tsan
cc=/usr/lib/llvm-22/bin/clang
rt=$(dirname "$(ls /usr/lib/llvm-22/lib/clang/*/lib/linux/libclang_rt.tsan-x86_64.so | head -1)")
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    "-DCMAKE_C_FLAGS=-fsanitize=thread -g" "-DCMAKE_CXX_FLAGS=-fsanitize=thread -g" \
    "-DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread -shared-libsan" \
    "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread -shared-libsan"
fi
ninja -C "$build" dlc
"$cc" -std=c11 -g -O1 -fsanitize=thread -shared-libsan -I"$root/capi/include" \
  -I/usr/lib/llvm-22/include "$root/test/CAPI/threads.c" -o "$build/threads-tsan" \
  -L"$build/lib" -ldlc -Wl,-rpath,"$build/lib" -Wl,-rpath,/usr/lib/llvm-22/lib \
  -Wl,-rpath,"$rt" -lpthread
TSAN_OPTIONS=exitcode=66 "$build/threads-tsan" "$root/examples/mlp_block.mlir" \
  'builtin.module(lower-to-llvm{parallel=false})'
echo "tsan: no data race reported"
