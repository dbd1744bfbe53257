// dlc-profile: each kernel between calls to dlcProfileEnter/Exit(id), the
// hooks declared once, and the module's dlc.profile table describing
// each id: its function after dlk-to-linalg, kind, root op with operand
// shapes, flops (2 x multiply-adds of a matmul or conv2d) and bytes moved.
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-fuse),dlc-profile)' | FileCheck %s
// The names are those of the functions dlk-to-linalg outlines:
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-fuse),dlc-profile,dlk-to-linalg)' | FileCheck %s --check-prefix=NAMES
// NAMES-DAG: func.func private @main_kernel0({{.*}} attributes {dlk.kind = "contraction"
// NAMES-DAG: func.func private @main_kernel1({{.*}} attributes {dlk.kind = "reduction"
// NAMES-DAG: func.func private @conv_kernel0({{.*}} attributes {dlk.kind = "contraction"
// The hooks survive lowering around the kernel's code:
// RUN: dlc-opt %s --lower-to-llvm=profile=true | FileCheck %s --check-prefix=LLVM

// CHECK: module attributes {dlc.profile = [
// CHECK-SAME: {bytes = 230400 : i64, flops = 4194304 : i64, kind = "contraction", name = "main_kernel0", root = "matmul 64x128 * 128x256"},
// CHECK-SAME: {bytes = 131072 : i64, flops = 0 : i64, kind = "reduction", name = "main_kernel1", root = "softmax 64x256"},
// CHECK-SAME: {bytes = 1376 : i64, flops = 5184 : i64, kind = "contraction", name = "conv_kernel0", root = "conv2d 1x2x8x8 * 4x2x3x3"}]}
// CHECK-DAG: func.func private @dlcProfileEnter(i64)
// CHECK-DAG: func.func private @dlcProfileExit(i64)
// CHECK-LABEL: func.func @main
// CHECK: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-NEXT: call @dlcProfileEnter(%[[C0]]) : (i64) -> ()
// CHECK-NEXT: dlk.kernel "contraction"
// CHECK: dlk.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[E0:.*]] = arith.constant 0 : i64
// CHECK-NEXT: call @dlcProfileExit(%[[E0]])
// CHECK: call @dlcProfileEnter(%{{.*}})
// CHECK-NEXT: dlk.kernel "reduction"
// CHECK: call @dlcProfileExit(%{{.*}})
// CHECK-NEXT: return
// LLVM: llvm.func @main
// LLVM: llvm.call @dlcProfileEnter
// LLVM: omp.parallel
// LLVM: llvm.call @dlcProfileExit
func.func @main(%x: tensor<64x128xf32>, %w: tensor<128x256xf32>, %b: tensor<256xf32>) -> tensor<64x256xf32> {
  %0 = dlg.matmul %x, %w : tensor<64x128xf32>, tensor<128x256xf32> -> tensor<64x256xf32>
  %1 = dlg.add %0, %b : tensor<64x256xf32>, tensor<256xf32> -> tensor<64x256xf32>
  %2 = dlg.relu %1 : tensor<64x256xf32>
  %3 = dlg.softmax %2 {axis = 1 : i64} : tensor<64x256xf32>
  return %3 : tensor<64x256xf32>
}

// Ids continue across functions; each function numbers its own kernels.
// conv2d: 1 x 4 x 6 x 6 outputs of 2 x 3 x 3 multiply-adds each, 2 flops
// a multiply-add: 5184 flops; bytes 512 + 288 + 576.
func.func @conv(%x: tensor<1x2x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %0 = dlg.conv2d %x, %w : (tensor<1x2x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}
