// An f32 GEMM with its bias fused: each thread's 4 x 4 tile accumulates in
// registers with exact FFMA (fma.rn.f32, 16 a k step), B read 128 bits at
// a time; the epilogue writes 128 bits. Not yet: shared-memory tiles
// (ld.shared), tensor cores (mma.sync) -- see docs/gpu.md.
// RUN: %python %dlc_src/test/GPU/print_ptx.py %s | FileCheck %s
// CHECK: .visible .entry main_kernel(
// CHECK: ld.global.v4.b32
// CHECK-COUNT-16: fma.rn.f32
// CHECK: st.global.v4.b32
// CHECK-NOT: .extern

func.func @main(%x: tensor<128x256xf32>, %w: tensor<256x512xf32>, %b: tensor<512xf32>) -> tensor<128x512xf32> {
  %0 = dlg.matmul %x, %w : tensor<128x256xf32>, tensor<256x512xf32> -> tensor<128x512xf32>
  %1 = dlg.add %0, %b : tensor<128x512xf32>, tensor<512xf32> -> tensor<128x512xf32>
  return %1 : tensor<128x512xf32>
}
