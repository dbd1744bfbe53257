// conv2d as an implicit GEMM (dlc-gpu-schedule's conv strategy, then
// dlc-gpu-conv): an f16 3x3 conv with bias and relu on tensor cores. Each k
// tile of the weights and of the input, gathered by the im2col index
// arithmetic, is stored to shared memory by every thread of the block,
// fragments are read by ldmatrix and multiplied by mma.sync m16n8k16; the
// bias and relu are applied to the accumulators before the one store.
// RUN: %python %dlc_src/test/GPU/print_ptx.py %s | FileCheck %s
// CHECK: .visible .entry main_kernel
// CHECK: .shared .align 16 .b8 __dlc_conv_smem_{{[0-9]+}}[
// CHECK: bar.sync 0
// CHECK: ld.global.b16
// CHECK: st.shared.b16
// CHECK: bar.sync 0
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-NOT: fma.rn.f32
// CHECK: max.{{.*}}f16
// 8 bytes a store (st.global.v2.b32): the warp has one 16 x 8 tile, and 8
// adjacent f16 take a pair (conv-epilogue-f16.mlir)
// CHECK-NOT: st.global.b16
// CHECK: st.global.v2.b32
// CHECK-NOT: st.global.b16
// CHECK-NOT: .extern
//
// The schedule: blocks of [1 image, an out-channel tile, rows of Ho, Wo
// whole], warp tiles of out channels x flattened pixels, recorded on the
// kernel (64 blocks of one warp here: the cost model takes the tiling with
// most blocks while the grid has fewer blocks than SMs):
// RUN: dlc-opt %s --lower-to-nvvm='stop-after=schedule' | FileCheck %s --check-prefix=SCHED
// SCHED: dlk.schedule = #dlk.schedule<workgroup = [1, {{[0-9]+}}, {{[0-9]+}}, 0, 0, 0, 0], thread = [0, {{[0-9]+}}, 0, {{[0-9]+}}, 0, 0, 0], mma = [16, 8, 16]>
// SCHED: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// SCHED: dlc.block_dims = array<i64: {{[0-9]+}}, {{[0-9]+}}, 1>, dlc.conv = array<i64: {{[0-9]+}}, {{[0-9]+}}, 16, 1, 1, 1, 1, {{[0-9]+}}, 1>, mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]
//
// After bufferisation dlc-gpu-conv rewrites the block: the k loop carries
// the accumulators, two barriers around the tile loads, no linalg left:
// RUN: dlc-opt %s --lower-to-nvvm='stop-after=launch' | FileCheck %s --check-prefix=LAUNCH
// LAUNCH-DAG: memref.global "private" @__dlc_conv_smem_{{[0-9]+}} : memref<{{[0-9]+}}x24xf16, #gpu.address_space<workgroup>>
// LAUNCH-DAG: memref.global "private" @__dlc_conv_smem_{{[0-9]+}} : memref<16x{{[0-9]+}}xf16, #gpu.address_space<workgroup>>
// The padding is read in the gather (the unpadded input, masked outside
// it): no padded copy, one launch.
// LAUNCH-NOT: gpu.alloc
// LAUNCH: gpu.launch
// LAUNCH: scf.for {{.*}} = %c0 to %c18 step %c1 iter_args(
// LAUNCH: gpu.barrier
// LAUNCH: arith.subi
// LAUNCH: arith.cmpi ult
// LAUNCH: memref.load %arg0
// LAUNCH: arith.select
// LAUNCH: memref.store {{.*}} #gpu.address_space<workgroup>>
// LAUNCH: gpu.barrier
// LAUNCH: nvgpu.ldmatrix
// LAUNCH: nvgpu.mma.sync
// LAUNCH: scf.yield
// LAUNCH: arith.maximumf
// LAUNCH-NOT: linalg.generic
// LAUNCH: gpu.terminator
// LAUNCH-NOT: gpu.launch
func.func @main(%x: tensor<1x32x16x8xf16>, %w: tensor<64x32x3x3xf16>, %b: tensor<64xf16>) -> tensor<1x64x16x8xf16> {
  %0 = dlg.conv2d %x, %w, %b {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x16x8xf16>, tensor<64x32x3x3xf16>, tensor<64xf16>) -> tensor<1x64x16x8xf16>
  %1 = dlg.relu %0 : tensor<1x64x16x8xf16>
  return %1 : tensor<1x64x16x8xf16>
}
