// Elementwise kernels read and write 128 bits a thread (ld/st.global.v4),
// 128 threads a block and 512 blocks (132 SMs), through Module.ir("ptx").
// RUN: %python %dlc_src/test/GPU/print_ptx.py %s | FileCheck %s
// CHECK: // gpu.binary @main_kernel
// CHECK: .target sm_90
// CHECK: .visible .entry main_kernel(
// CHECK: .maxntid 128, 1, 1
// CHECK: ld.global.v4.b32
// CHECK: ld.global.v4.b32
// CHECK: max.NaN.f32
// CHECK: st.global.v4.b32
// CHECK-NOT: ld.global.b32

func.func @main(%a: tensor<256x1024xf32>, %b: tensor<256x1024xf32>) -> tensor<256x1024xf32> {
  %0 = dlg.add %a, %b : tensor<256x1024xf32>, tensor<256x1024xf32> -> tensor<256x1024xf32>
  %1 = dlg.relu %0 : tensor<256x1024xf32>
  return %1 : tensor<256x1024xf32>
}
