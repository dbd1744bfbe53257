// The exact f32 (FFMA) implicit-GEMM conv shares the epilogue of the
// tensor-core one: one shuffle round (lane ^ 1) gives each lane 4 adjacent
// pixels of an output channel, the bias, residual and relu are applied
// once per element, one st.global.v4.b32 a run. 12 pixels a row, warp
// pixel tiles of 16: the runs wholly past the row are not stored.
// RUN: %python %dlc_src/test/GPU/print_ptx.py %s | FileCheck %s
// CHECK: .visible .entry main_kernel
// CHECK: fma.rn.f32
// CHECK: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK-NOT: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// CHECK-NOT: st.global.b32
// CHECK: st.global.v4.b32
// CHECK-NOT: st.global.b32
// CHECK-NOT: .local
//
// RUN: dlc-opt %s --lower-to-nvvm='stop-after=launch' | FileCheck %s --check-prefix=LAUNCH
// LAUNCH: memref.collapse_shape
// LAUNCH: gpu.shuffle xor
// LAUNCH: arith.cmpi ult, {{.*}}, %c12
// LAUNCH: scf.if
// LAUNCH: vector.store {{.*}} vector<4xf32>

func.func @main(%x: tensor<1x8x12x12xf32>, %w: tensor<16x8x3x3xf32>, %b: tensor<16xf32>, %r: tensor<1x16x12x12xf32>) -> tensor<1x16x12x12xf32> {
  %0 = dlg.conv2d %x, %w, %b {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x12x12xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<1x16x12x12xf32>
  %1 = dlg.add %0, %r : tensor<1x16x12x12xf32>, tensor<1x16x12x12xf32> -> tensor<1x16x12x12xf32>
  %2 = dlg.relu %1 : tensor<1x16x12x12xf32>
  return %2 : tensor<1x16x12x12xf32>
}
