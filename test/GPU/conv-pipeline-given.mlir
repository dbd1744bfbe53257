// A given #dlk.schedule stages = 2 for the f32 implicit-GEMM conv (see
// conv-pipeline.mlir): two stages of each tile, one group in flight (the
// prologue's), wait_group 0 before each k step.
// RUN: dlc-opt %s --lower-to-nvvm='stop-after=launch' | FileCheck %s --check-prefix=LAUNCH
// RUN: dlc-opt %s --lower-to-nvvm='stop-after=nvvm' | FileCheck %s
// CHECK: nvvm.cp.async.shared.global {{.*}}, 4, cache = ca
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: nvvm.barrier
// CHECK: nvvm.cp.async.shared.global
// LAUNCH-DAG: memref.global "private" @__dlc_conv_smem_{{[0-9]+}} : memref<2x32x20xf32, #gpu.address_space<workgroup>>
// LAUNCH-DAG: memref.global "private" @__dlc_conv_smem_{{[0-9]+}} : memref<2x16x36xf32, #gpu.address_space<workgroup>>
// LAUNCH-LABEL: func.func @main
// LAUNCH: nvgpu.device_async_create_group
// LAUNCH-NOT: nvgpu.device_async_create_group
// LAUNCH: scf.for
// LAUNCH: nvgpu.device_async_wait {{.*}} {numGroups = 0 : i32}
// LAUNCH: nvgpu.device_async_create_group
func.func @main(%x: tensor<1x8x16x16xf32>, %w: tensor<64x8x3x3xf32>) -> tensor<1x64x14x14xf32> {
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [1, 32, 2, 0, 0, 0, 0], thread = [0, 16, 0, 16, 0, 0, 0], stages = 2> (%x, %w) : (tensor<1x8x16x16xf32>, tensor<64x8x3x3xf32>) -> tensor<1x64x14x14xf32> {
  ^bb0(%a: tensor<1x8x16x16xf32>, %b: tensor<64x8x3x3xf32>):
    %c = dlg.conv2d %a, %b : (tensor<1x8x16x16xf32>, tensor<64x8x3x3xf32>) -> tensor<1x64x14x14xf32>
    dlk.yield %c : tensor<1x64x14x14xf32>
  }
  return %0 : tensor<1x64x14x14xf32>
}
