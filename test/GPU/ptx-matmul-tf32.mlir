// f32 GEMMs stay exact FFMA by default (ptx-matmul.mlir); with allow-tf32
// they run on TF32 tensor cores: mma.sync.aligned.m16n8k8 .tf32, the
// operands staged in shared memory by cp.async and read with ld.shared
// (ldmatrix moves 16-bit elements only).
// RUN: dlc-opt %s --lower-to-nvvm='format=isa allow-tf32=true' | FileCheck %s
// CHECK: cp.async.cg.shared.global
// CHECK: ld.shared.b32
// CHECK: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// CHECK-NOT: fma.rn.f32
// RUN: dlc-opt %s --lower-to-nvvm='format=isa' | FileCheck %s --check-prefix=EXACT
// EXACT-NOT: mma.sync
// EXACT: fma.rn.f32

func.func @main(%x: tensor<128x256xf32>, %w: tensor<256x64xf32>, %b: tensor<64xf32>) -> tensor<128x64xf32> {
  %0 = dlg.matmul %x, %w : tensor<128x256xf32>, tensor<256x64xf32> -> tensor<128x64xf32>
  %1 = dlg.add %0, %b : tensor<128x64xf32>, tensor<64xf32> -> tensor<128x64xf32>
  return %1 : tensor<128x64xf32>
}
