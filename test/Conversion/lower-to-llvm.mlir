// The whole CPU pipeline ends in the LLVM dialect that mlir-translate accepts;
// results become caller-provided buffers (out-params).
// RUN: dlc-opt %s --lower-to-llvm | FileCheck %s
// RUN: dlc-opt %s --dlg-fuse --lower-to-llvm | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVM
// RUN: dlc-opt %s --lower-to-llvm=target=avx2 --mlir-print-ir-after=dlk-to-linalg -o /dev/null 2>&1 | FileCheck %s --check-prefix=STAGE
// RUN: dlc-opt %s --lower-to-llvm=target=avx2 | FileCheck %s --check-prefix=AVX2
// RUN: not dlc-opt %s --dlc-mark-target=isa=sse 2>&1 | FileCheck %s --check-prefix=BADISA

// The module records its target (dlc-mark-target), which the JIT compiles for.
// CHECK: module attributes {{{.*}}dlc.target = "host"
// AVX2: module attributes {{{.*}}dlc.target = "avx2"
// BADISA: error: dlc-mark-target: unknown isa 'sse' (host, avx2 or avx512)

// CHECK: llvm.func @mlp(
// CHECK-NOT: dlg.
// CHECK-NOT: linalg.
// CHECK: llvm.return
// LLVM: define void @mlp(ptr
// The bias add of the epilogue, vectorised over the 4 columns:
// LLVM: fadd <4 x float>
// STAGE: IR Dump After dlk-to-linalg
// STAGE: call @mlp_kernel0
func.func @mlp(%x: tensor<2x8xf32>, %w: tensor<8x4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  %0 = dlg.matmul %x, %w : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  %1 = dlg.add %0, %b : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %2 = dlg.relu %1 : tensor<2x4xf32>
  return %2 : tensor<2x4xf32>
}
