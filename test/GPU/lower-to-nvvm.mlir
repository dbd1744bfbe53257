// --lower-to-nvvm, stage by stage, on a GEMM with a fused epilogue and a
// softmax (docs/gpu.md). The flag and --pass-pipeline spellings agree.
// RUN: dlc-opt %s --lower-to-nvvm='stop-after=schedule' | FileCheck %s --check-prefix=SCHED
// RUN: dlc-opt %s --lower-to-nvvm='stop-after=launch' | FileCheck %s --check-prefix=LAUNCH
// RUN: dlc-opt %s --lower-to-nvvm='stop-after=outline' | FileCheck %s --check-prefix=OUTLINE
// RUN: dlc-opt %s --lower-to-nvvm='stop-after=nvvm' | FileCheck %s --check-prefix=NVVM
// RUN: dlc-opt %s --lower-to-nvvm='format=isa' | FileCheck %s --check-prefix=ISA
// RUN: dlc-opt %s --pass-pipeline='builtin.module(lower-to-nvvm{format=isa})' | FileCheck %s --check-prefix=ISA
// RUN: dlc-opt %s --dlg-fuse --lower-to-nvvm='format=isa' | FileCheck %s --check-prefix=ISA

func.func @main(%x: tensor<128x256xf32>, %w: tensor<256x512xf32>, %b: tensor<512xf32>) -> tensor<128x512xf32> {
  %0 = dlg.matmul %x, %w : tensor<128x256xf32>, tensor<256x512xf32> -> tensor<128x512xf32>
  %1 = dlg.add %0, %b : tensor<128x512xf32>, tensor<512xf32> -> tensor<128x512xf32>
  %2 = dlg.relu %1 : tensor<128x512xf32>
  %3 = dlg.softmax %2 : tensor<128x512xf32>
  return %3 : tensor<128x512xf32>
}

// The softmax: a warp a row (512 / 32 = 16 elements a lane: the thread
// tile of the row loop), a row a block; the thread forall holds the row,
// dlc-gpu-rows spreads it over the 32 lanes (test/GPU/gpu-rows.mlir).
// SCHED-LABEL: func.func private @main_kernel1
// SCHED-SAME: dlk.schedule = #dlk.schedule<vector = 4, workgroup = [1, 0], thread = [1, 16]>
// SCHED: vector.reduction <maximumf>
// SCHED: {dlc.block_dims = array<i64: 1, 1, 1>, dlc.row_lanes = array<i64: 32, 512>, mapping = [#gpu.block<x>]}
// The GEMM kernel: 32 x 32 block tiles (64 blocks of 64 threads: the
// largest tile with two warps a block), 4 x 4 per thread, the contraction an outer product per k step, the bias and relu
// fused into the thread's tile.
// SCHED-LABEL: func.func private @main_kernel0
// SCHED-SAME: dlk.schedule = #dlk.schedule<vector = 4, workgroup = [32, 32, 0], thread = [4, 4, 0]>
// SCHED: scf.forall ({{.*}}) in (4, 16)
// SCHED: scf.forall ({{.*}}) in (8, 8)
// SCHED: scf.for
// SCHED: vector.outerproduct {{.*}} : vector<4xf32>, vector<4xf32>
// SCHED: arith.maximumf {{.*}} : vector<4xf32>
// SCHED: {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// SCHED: {dlc.block_dims = array<i64: 8, 8, 1>, mapping = [#gpu.block<y>, #gpu.block<x>]}

// LAUNCH: gpu.alloc
// LAUNCH: gpu.launch blocks({{.*}}) in ({{.*}} = %c16{{.*}}, {{.*}} = %c4{{.*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c8{{.*}}, {{.*}} = %c8{{.*}}
// LAUNCH: gpu.launch
// LAUNCH: gpu.dealloc
// LAUNCH-NOT: linalg.

// OUTLINE: gpu.launch_func async [{{.*}}] @main_kernel::@main_kernel blocks in (%c16, %c4, %c1) threads in (%c8, %c8, %c1)
// OUTLINE: gpu.launch_func async [{{.*}}] @main_kernel_0::@main_kernel blocks in (%c128, %c1, %c1) threads in (%c32{{[_0-9]*}}, %c1, %c1)
// OUTLINE: gpu.module @main_kernel
// OUTLINE: gpu.func @main_kernel({{.*}}) kernel attributes {known_block_size = array<i32: 8, 8, 1>, known_grid_size = array<i32: 16, 4, 1>}

// NVVM: gpu.module @main_kernel [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80", link = ["{{.*}}libdevice.10.bc"]>]
// NVVM: llvm.func @main_kernel({{.*}}llvm.align = 16
// NVVM: nvvm.read.ptx.sreg.tid.x

// ISA: gpu.binary @main_kernel [#gpu.object<#nvvm.target
// ISA-SAME: .target sm_90
// ISA-SAME: fma.rn.f32
// ISA-SAME: ld.global.v4
// ISA: gpu.binary @main_kernel_0
// ISA-NOT: .extern .func __nv_
