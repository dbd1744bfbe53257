// Hopper (chip=sm_90a): a large f16 GEMM with bias and relu fused runs on
// wgmma.mma_async m64nNk16, one warpgroup (128 threads) a 64 x 128 block
// tile, A and B staged in shared memory by a TMA pipeline (mbarriers,
// swizzled boxes), read by the tensor cores through swizzled matrix
// descriptors; the epilogue applied to the accumulators in registers.
// (wgmma-cp-async.mlir: the cp.async fallback.)
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
// A and B are row-major host buffers, so TMA loads them (BK 32: two stages
// fit 47 KiB, the 48 KiB left 1 KiB for alignment and the mbarriers): per
// operand a tensor map made on the host (nvgpu.tma.create.descriptor, i.e.
// mgpuTensorMapEncodeTiledMemref, before the launch), passed in as an i64;
// A's box [64][32] with the 64B swizzle (rows of 64 bytes), B's [32][64]
// with the 128B swizzle, two boxes a stage (N = 128). Buffers
// A [stage][64][32] and B [stage][n / 64][32][64], 1024-byte aligned.
// Descriptor constants: LBO >> 4 << 16 | SBO >> 4 << 32 | layout << 62:
// A: LBO 16 (unused), SBO 512, 64B (2) = -9223371899415756800;
// B: LBO 4096 (next 64 columns), SBO 1024, 128B (1) = 4611686293322072064.
// (test/GPU/tma-layout.test checks these pair with the TMA boxes.)
// RUN: dlc-opt %s --lower-to-nvvm='chip=sm_90a stop-after=launch' | FileCheck %s --check-prefix=LAUNCH
// LAUNCH-DAG: memref.global "private" @__dlc_smem_{{[0-9]+}} : memref<2x64x32xf16, #gpu.address_space<workgroup>> {alignment = 1024 : i64}
// LAUNCH-DAG: memref.global "private" @__dlc_smem_{{[0-9]+}} : memref<2x2x32x64xf16, #gpu.address_space<workgroup>> {alignment = 1024 : i64}
// LAUNCH-DAG: arith.constant -9223371899415756800 : i64
// LAUNCH-DAG: arith.constant 4611686293322072064 : i64
// LAUNCH: nvgpu.tma.create.descriptor %{{.*}} box[%c64, %c32] : memref<*xf16> -> <tensor = memref<64x32xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_64b, l2promo = none, oob = zero, interleave = none>
// LAUNCH: llvm.ptrtoint
// LAUNCH: nvgpu.tma.create.descriptor %{{.*}} box[%c32, %c64] : memref<*xf16> -> <tensor = memref<32x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
// LAUNCH: llvm.ptrtoint
// LAUNCH: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c128, {{.*}} = %c1, {{.*}} = %c1)
// LAUNCH-NOT: scf.forall
// LAUNCH: llvm.inttoptr
// LAUNCH: nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
// LAUNCH: scf.if
// LAUNCH: nvgpu.mbarrier.init %{{.*}}[%c0], %c1
// LAUNCH: nvgpu.mbarrier.init %{{.*}}[%c1], %c1
// LAUNCH: nvvm.fence.mbarrier.init
// Prologue: tile 0 into stage 0, 4096 + 8192 bytes expected.
// LAUNCH: nvgpu.mbarrier.arrive.expect_tx %{{.*}}[%c0], %c12288
// LAUNCH: nvgpu.tma.async.load {{.*}}[%c0]
// LAUNCH: nvgpu.tma.async.load {{.*}}[%c0]
// LAUNCH: nvgpu.tma.async.load {{.*}}[%c0]
// LAUNCH: gpu.barrier
// LAUNCH: scf.for {{.*}} iter_args({{.*}}) -> (!llvm.struct<(f32, f32
// LAUNCH: nvgpu.mbarrier.try_wait.parity
// LAUNCH: gpu.barrier
// LAUNCH: scf.if
// LAUNCH: nvgpu.mbarrier.arrive.expect_tx
// LAUNCH-COUNT-3: nvgpu.tma.async.load
// LAUNCH: nvvm.wgmma.fence.aligned
// LAUNCH-COUNT-2: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// LAUNCH: nvvm.wgmma.commit.group.sync.aligned
// LAUNCH: nvvm.wgmma.wait.group.sync.aligned 0
// LAUNCH: scf.yield
// LAUNCH: llvm.extractvalue
// LAUNCH: arith.maximumf
// LAUNCH-NOT: nvgpu.mma.sync
// LAUNCH-NOT: nvgpu.device_async_copy
//
// The PTX: imm-trans-a 0 (A K-major), imm-trans-b 1 (B N-major); the tensor
// maps arrive as .u64 kernel parameters (generic addresses of the maps the
// runtime copied to device memory); one thread issues the TMA loads.
// RUN: dlc-opt %s --lower-to-nvvm='chip=sm_90a format=isa' | %python %dlc_src/test/GPU/ptx_text.py | FileCheck %s
// CHECK: .target sm_90a
// CHECK: .visible .entry main_kernel(
// CHECK: .maxntid 128, 1, 1
// CHECK-DAG: .shared .align 8 .b8 __mbarrier[16];
// CHECK-DAG: .shared .align 1024 .b8 __dlc_smem_{{[0-9]+}}[8192];
// CHECK-DAG: .shared .align 1024 .b8 __dlc_smem_{{[0-9]+}}[16384];
// CHECK: mbarrier.init.shared.b64
// CHECK: fence.mbarrier_init.release.cluster
// CHECK: mbarrier.arrive.expect_tx.shared.b64
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK: bar.sync 0
// CHECK-DAG: mbarrier.try_wait.parity.shared.b64
// CHECK-DAG: wgmma.fence.sync.aligned
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{[{]}}%r{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 1;
// CHECK-DAG: wgmma.commit_group.sync.aligned
// CHECK-DAG: wgmma.wait_group.sync.aligned 0
// CHECK: max.{{.*}}f16
// CHECK: st.global.b16
// CHECK-NOT: mma.sync.aligned
// CHECK-NOT: cp.async.cg
// CHECK-NOT: fma.rn.f32
// CHECK-NOT: .extern
//
// The host calls the runtime once per tensor map per launch (f16 = data
// type 6, no interleave, swizzle 64B = 2 and 128B = 3, L2 promotion none,
// zero fill), before the kernel launch.
// RUN: dlc-opt %s --lower-to-nvvm='chip=sm_90a format=isa' | FileCheck %s --check-prefix=HOST
// HOST-DAG: %[[F16:.*]] = llvm.mlir.constant(6 : i32) : i64
// HOST-DAG: %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i64
// HOST-DAG: %[[S64:.*]] = llvm.mlir.constant(2 : i32) : i64
// HOST-DAG: %[[S128:.*]] = llvm.mlir.constant(3 : i32) : i64
// HOST: llvm.call @mgpuTensorMapEncodeTiledMemref(%{{.*}}, %{{.*}}, %[[F16]], %[[Z]], %[[S64]], %[[Z]], %[[Z]], %{{.*}})
// HOST: llvm.call @mgpuTensorMapEncodeTiledMemref(%{{.*}}, %{{.*}}, %[[F16]], %[[Z]], %[[S128]], %[[Z]], %[[Z]], %{{.*}})
// HOST: gpu.launch_func

func.func @main(%a: tensor<1024x256xf16>, %b: tensor<256x2048xf16>, %bias: tensor<2048xf16>) -> tensor<1024x2048xf16> {
  %0 = dlg.matmul %a, %b : tensor<1024x256xf16>, tensor<256x2048xf16> -> tensor<1024x2048xf16>
  %1 = dlg.add %0, %bias : tensor<1024x2048xf16>, tensor<2048xf16> -> tensor<1024x2048xf16>
  %2 = dlg.relu %1 : tensor<1024x2048xf16>
  return %2 : tensor<1024x2048xf16>
}
