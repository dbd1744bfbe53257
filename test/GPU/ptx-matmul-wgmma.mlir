// Hopper (chip=sm_90a): a large f16 GEMM with bias and relu fused runs on
// wgmma.mma_async m64nNk16, one warpgroup (128 threads) a 64 x 128 block
// tile, A and B staged in shared memory by a cp.async pipeline in the
// no-swizzle core-matrix layouts, read by the tensor cores through matrix
// descriptors; the epilogue applied to the accumulators in registers.
// sm_90 (without "a") keeps mma.sync on the same GEMM. ptxas -arch=sm_90a
// assembles this kernel in test/GPU/mma.test (mma_check.py).
//
// RUN: dlc-opt %s --lower-to-nvvm='chip=sm_90a stop-after=schedule' | FileCheck %s --check-prefix=SCHED
// SCHED: dlk.schedule = #dlk.schedule<workgroup = [64, 128, 0], thread = [64, 128, 0], stages = 2, mma = [64, 128, 16]>
// SCHED: dlc.mma = array<i64: 64, 128, 16, 2>
// SCHED: dlc.block_dims = array<i64: 128, 1, 1>
//
// RUN: dlc-opt %s --lower-to-nvvm='chip=sm_90 stop-after=schedule' | FileCheck %s --check-prefix=SM90
// SM90: stages = 3, mma = [16, 8, 16]>
//
// After bufferisation dlc-gpu-mma rewrites the warpgroup's tile; the
// warpgroup forall (one trip) is gone: all 128 threads run the block.
// A: [stage][k / 8][m][8], B: [stage][k / 8][n / 8][k % 8][8] (64-wide k tiles).
// Descriptor constants: (LBO >> 4) << 16 | (SBO >> 4) << 32 with SBO 128 for
// both, LBO 1024 (A: 64 rows of 16 bytes) = 34363932672, LBO 2048 (B: 128
// columns) = 34368126976.
// RUN: dlc-opt %s --lower-to-nvvm='chip=sm_90a stop-after=launch' | FileCheck %s --check-prefix=LAUNCH
// LAUNCH-DAG: memref.global "private" @__dlc_smem_{{[0-9]+}} : memref<2x8x64x8xf16, #gpu.address_space<workgroup>> {alignment = 128 : i64}
// LAUNCH-DAG: memref.global "private" @__dlc_smem_{{[0-9]+}} : memref<2x8x16x8x8xf16, #gpu.address_space<workgroup>> {alignment = 128 : i64}
// LAUNCH-DAG: arith.constant 34363932672 : i64
// LAUNCH-DAG: arith.constant 34368126976 : i64
// LAUNCH: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c128, {{.*}} = %c1, {{.*}} = %c1)
// LAUNCH-NOT: scf.forall
// LAUNCH: memref.extract_aligned_pointer_as_index
// LAUNCH: nvgpu.device_async_copy {{.*}} {bypassL1}
// LAUNCH: nvgpu.device_async_create_group
// LAUNCH: scf.for {{.*}} iter_args({{.*}}) -> (!llvm.struct<(f32, f32
// LAUNCH: nvgpu.device_async_wait {{.*}} {numGroups = 0 : i32}
// LAUNCH: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// LAUNCH: gpu.barrier
// LAUNCH: nvvm.wgmma.fence.aligned
// LAUNCH-COUNT-4: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// LAUNCH: nvvm.wgmma.commit.group.sync.aligned
// LAUNCH: nvvm.wgmma.wait.group.sync.aligned 0
// LAUNCH: scf.yield
// LAUNCH: llvm.extractvalue
// LAUNCH: arith.maximumf
// LAUNCH-NOT: nvgpu.mma.sync
//
// The PTX: imm-trans-a 0 (A K-major), imm-trans-b 1 (B N-major).
// RUN: dlc-opt %s --lower-to-nvvm='chip=sm_90a format=isa' | %python %dlc_src/test/GPU/ptx_text.py | FileCheck %s
// CHECK: .target sm_90a
// CHECK: .visible .entry main_kernel(
// CHECK: .maxntid 128, 1, 1
// CHECK-DAG: .shared .align 128 .b8 __dlc_smem_{{[0-9]+}}[16384];
// CHECK-DAG: .shared .align 128 .b8 __dlc_smem_{{[0-9]+}}[32768];
// CHECK: cp.async.cg.shared.global
// CHECK: cp.async.commit_group
// CHECK: cp.async.wait_group 0
// CHECK: fence.proxy.async.shared::cta
// CHECK: bar.sync 0
// CHECK: wgmma.fence.sync.aligned
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{[{]}}%r{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 1;
// CHECK: wgmma.commit_group.sync.aligned
// CHECK: wgmma.wait_group.sync.aligned 0
// CHECK: max.{{.*}}f16
// CHECK: st.global.b16
// CHECK-NOT: mma.sync.aligned
// CHECK-NOT: fma.rn.f32
// CHECK-NOT: .extern

func.func @main(%a: tensor<1024x256xf16>, %b: tensor<256x2048xf16>, %bias: tensor<2048xf16>) -> tensor<1024x2048xf16> {
  %0 = dlg.matmul %a, %b : tensor<1024x256xf16>, tensor<256x2048xf16> -> tensor<1024x2048xf16>
  %1 = dlg.add %0, %bias : tensor<1024x2048xf16>, tensor<2048xf16> -> tensor<1024x2048xf16>
  %2 = dlg.relu %1 : tensor<1024x2048xf16>
  return %2 : tensor<1024x2048xf16>
}
