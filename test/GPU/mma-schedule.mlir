// A given #dlk.schedule with mma overrides the cost model's tensor-core
// tiles: `thread` is the warp tile, `stages` the depth of the cp.async
// pipeline through shared memory, stages = 1 no staging (fragments loaded
// from global memory).
// RUN: dlc-opt %s --split-input-file --pass-pipeline='builtin.module(dlk-to-linalg{pack=false},func.func(linalg-generalize-named-ops),dlc-gpu-schedule)' | FileCheck %s --check-prefix=SCHED
// RUN: dlc-opt %s --split-input-file --lower-to-nvvm='stop-after=launch' | FileCheck %s

// SCHED-LABEL: func.func private @staged_kernel
// SCHED-SAME: #dlk.schedule<workgroup = [64, 64, 0], thread = [32, 16, 0], stages = 2, mma = [16, 8, 16]>
// SCHED: dlc.mma = array<i64: 16, 8, 16, 2>, mapping = [#gpu.warp<y>, #gpu.warp<x>]
// SCHED: dlc.block_dims = array<i64: 128, 2, 1>
// CHECK-LABEL: func.func @staged
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c2, {{.*}} = %c2, {{.*}}) threads({{.*}}) in ({{.*}} = %c128, {{.*}} = %c2,
// CHECK: nvgpu.device_async_copy
// CHECK: nvgpu.device_async_wait {{.*}} {numGroups = 0 : i32}
// CHECK-COUNT-4: nvgpu.mma.sync
func.func @staged(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>) -> tensor<128x128xf16> {
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [64, 64, 0], thread = [32, 16, 0], stages = 2, mma = [16, 8, 16]> (%a, %b) : (tensor<128x64xf16>, tensor<64x128xf16>) -> tensor<128x128xf16> {
  ^bb0(%x: tensor<128x64xf16>, %y: tensor<64x128xf16>):
    %m = dlg.matmul %x, %y : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf16>
    dlk.yield %m : tensor<128x128xf16>
  }
  return %0 : tensor<128x128xf16>
}

// -----

// SCHED-LABEL: func.func private @direct_kernel
// SCHED: dlc.mma = array<i64: 16, 8, 16, 1>
// CHECK-LABEL: func.func @direct
// CHECK-NOT: nvgpu.device_async_copy
// CHECK-NOT: memref.global
// CHECK: gpu.lane_id
// CHECK: memref.load %{{.*}} : memref<32x64xf16, strided<[64, 1], offset: ?>>
// CHECK: nvgpu.mma.sync
func.func @direct(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>) -> tensor<128x128xf16> {
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [32, 32, 0], thread = [32, 32, 0], stages = 1, mma = [16, 8, 16]> (%a, %b) : (tensor<128x64xf16>, tensor<64x128xf16>) -> tensor<128x128xf16> {
  ^bb0(%x: tensor<128x64xf16>, %y: tensor<64x128xf16>):
    %m = dlg.matmul %x, %y : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf16>
    dlk.yield %m : tensor<128x128xf16>
  }
  return %0 : tensor<128x128xf16>
}
