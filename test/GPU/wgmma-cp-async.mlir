// The wgmma kernel's cp.async fallback (no TMA): N = 96 is not a whole
// number of TMA's 64-column B boxes, so A and B are staged by cp.async
// into the no-swizzle core-matrix layouts (docs/gpu.md, "Hopper: wgmma"):
// A [stage][k / 8][m][8], B [stage][k / 8][n / 8][k % 8][8], BK 64,
// 128-byte aligned; descriptors with layout type 0 (no swizzle):
// A: LBO 1024, SBO 128 = 34363932672; B: LBO 16 N = 1536, SBO 128 =
// 34366029824. No tensor map, no mbarrier.
// RUN: dlc-opt %s --lower-to-nvvm='chip=sm_90a stop-after=launch' | FileCheck %s --check-prefix=LAUNCH
// LAUNCH-DAG: memref.global "private" @__dlc_smem_{{[0-9]+}} : memref<2x8x64x8xf16, #gpu.address_space<workgroup>> {alignment = 128 : i64}
// LAUNCH-DAG: memref.global "private" @__dlc_smem_{{[0-9]+}} : memref<2x8x12x8x8xf16, #gpu.address_space<workgroup>> {alignment = 128 : i64}
// LAUNCH-DAG: arith.constant 34363932672 : i64
// LAUNCH-DAG: arith.constant 34366029824 : i64
// LAUNCH-NOT: nvgpu.tma
// LAUNCH: gpu.launch
// LAUNCH: nvgpu.device_async_copy {{.*}} {bypassL1}
// LAUNCH: nvgpu.device_async_create_group
// LAUNCH: scf.for {{.*}} iter_args({{.*}}) -> (!llvm.struct<(f32, f32
// LAUNCH: nvgpu.device_async_wait {{.*}} {numGroups = 0 : i32}
// LAUNCH: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// LAUNCH: gpu.barrier
// LAUNCH: nvvm.wgmma.fence.aligned
// LAUNCH-COUNT-4: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 96, k = 16>
// LAUNCH: nvvm.wgmma.wait.group.sync.aligned 0
// LAUNCH-NOT: nvgpu.mbarrier
// LAUNCH-NOT: nvgpu.tma
// RUN: dlc-opt %s --lower-to-nvvm='chip=sm_90a format=isa' | %python %dlc_src/test/GPU/ptx_text.py | FileCheck %s
// CHECK: .maxntid 128, 1, 1
// CHECK: cp.async.cg.shared.global
// CHECK: cp.async.wait_group 0
// CHECK: fence.proxy.async.shared::cta
// CHECK: wgmma.mma_async.sync.aligned.m64n96k16.f32.f16.f16
// CHECK-NOT: cp.async.bulk
// CHECK-NOT: mbarrier

func.func @main(%a: tensor<256x256xf16>, %b: tensor<256x192xf16>) -> tensor<256x192xf16> {
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [64, 96, 0], thread = [64, 96, 0], stages = 2, mma = [64, 96, 16]> (%a, %b) : (tensor<256x256xf16>, tensor<256x192xf16>) -> tensor<256x192xf16> {
  ^bb0(%x: tensor<256x256xf16>, %y: tensor<256x192xf16>):
    %m = dlg.matmul %x, %y : tensor<256x256xf16>, tensor<256x192xf16> -> tensor<256x192xf16>
    dlk.yield %m : tensor<256x192xf16>
  }
  return %0 : tensor<256x192xf16>
}
