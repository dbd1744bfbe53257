// An f16 GEMM with bias and relu fused, on tensor cores: A and B tiles
// staged in shared memory by a multi-stage cp.async pipeline, fragments
// read by ldmatrix, each warp's 16-row x 8-column tiles
// mma.sync.aligned.m16n8k16 with f32 accumulators, the epilogue applied to
// the accumulators in registers (no FFMA loop, no round trip of C through
// memory before the epilogue). Lanes regroup the accumulators by two
// rounds of shuffles (lane ^ 1, then lane ^ 2 across a pair of 16 x 8
// tiles) so that each lane stores 8 adjacent f16 of a row: one 128-bit
// st.global.v4.b32, no per-element store.
// RUN: %python %dlc_src/test/GPU/print_ptx.py %s | FileCheck %s
// CHECK: .visible .entry main_kernel(
// CHECK: .shared .align 16 .b8 __dlc_smem_{{[0-9]+}}[
// CHECK: cp.async.cg.shared.global
// CHECK: cp.async.commit_group
// CHECK: cp.async.wait_group 1
// CHECK: bar.sync 0
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-NOT: fma.rn.f32
// CHECK: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// CHECK: max.{{.*}}f16
// CHECK-NOT: st.global.b16
// CHECK: st.global.v4.b32
// CHECK-NOT: st.global.b16
// CHECK-NOT: .extern
//
// The schedule records the shape; the warp tile is the thread tile:
// RUN: dlc-opt %s --lower-to-nvvm='stop-after=schedule' | FileCheck %s --check-prefix=SCHED
// SCHED: stages = 3, mma = [16, 8, 16]
// SCHED: mapping = [#gpu.warp<y>, #gpu.warp<x>]
//
// After bufferisation dlc-gpu-mma rewrites the warp's tile:
// RUN: dlc-opt %s --lower-to-nvvm='stop-after=launch' | FileCheck %s --check-prefix=LAUNCH
// LAUNCH: memref.global "private" @__dlc_smem_{{[0-9]+}} : memref<3x{{[0-9]+}}x{{[0-9]+}}xf16, #gpu.address_space<workgroup>>
// LAUNCH: gpu.lane_id
// LAUNCH: nvgpu.device_async_copy
// LAUNCH: nvgpu.device_async_create_group
// LAUNCH: scf.for {{.*}} iter_args({{.*}}) -> (vector<2x2xf32>, vector<2x2xf32>
// LAUNCH: nvgpu.device_async_wait {{.*}} {numGroups = 1 : i32}
// LAUNCH: gpu.barrier
// LAUNCH: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false}
// LAUNCH: nvgpu.ldmatrix {{.*}} {numTiles = 2 : i32, transpose = true}
// LAUNCH: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// LAUNCH: vector.extract
// LAUNCH: gpu.shuffle xor {{.*}} : f32
// LAUNCH: gpu.shuffle xor {{.*}} : f32
// LAUNCH: arith.truncf
// LAUNCH: arith.addf
// LAUNCH: arith.maximumf
// LAUNCH-NOT: memref.store
// LAUNCH: vector.store {{.*}} : memref<{{.*}}xf16{{.*}}>, vector<8xf16>
// LAUNCH-NOT: memref.store
// LAUNCH-NOT: linalg.generic
//
// The whole pipeline is clean: the host's copies of the shared-memory
// globals are dropped after outlining (the host cannot lower them).
// RUN: dlc-opt %s --lower-to-nvvm='format=isa' 2>&1 | FileCheck %s --check-prefix=CLEAN
// CLEAN-NOT: error
// CLEAN: gpu.binary
// CLEAN-NOT: error
//
// In the NVVM dialect:
// RUN: dlc-opt %s --lower-to-nvvm='stop-after=nvvm' | FileCheck %s --check-prefix=NVVM
// NVVM: nvvm.cp.async.shared.global {{.*}}, 16, cache = {{ *}}cg
// NVVM: nvvm.cp.async.commit.group
// NVVM: nvvm.cp.async.wait.group 1
// NVVM: nvvm.barrier
// NVVM: nvvm.ldmatrix
// NVVM: nvvm.mma.sync
// NVVM: llvm.mlir.global private @__dlc_smem_{{[0-9]+}}() {addr_space = 3 : i32, alignment = 16 : i64}

func.func @main(%x: tensor<128x256xf16>, %w: tensor<256x512xf16>, %b: tensor<512xf16>) -> tensor<128x512xf16> {
  %0 = dlg.matmul %x, %w : tensor<128x256xf16>, tensor<256x512xf16> -> tensor<128x512xf16>
  %1 = dlg.add %0, %b : tensor<128x512xf16>, tensor<512xf16> -> tensor<128x512xf16>
  %2 = dlg.relu %1 : tensor<128x512xf16>
  return %2 : tensor<128x512xf16>
}
