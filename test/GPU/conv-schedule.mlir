// The implicit-GEMM conv schedule: a given #dlk.schedule overrides the cost
// model's tiles (`workgroup` = [1, out-channel tile, rows of Ho, 0 (Wo
// whole), 0, 0, 0]; `thread` = the warp's [0, out channels, 0, flattened
// pixels of the block, 0, 0, 0]); the block's threads follow from it.
// RUN: dlc-opt %s --split-input-file --pass-pipeline='builtin.module(dlk-to-linalg{pack=false},func.func(linalg-generalize-named-ops),dlc-gpu-schedule)' | FileCheck %s --check-prefix=SCHED
// RUN: dlc-opt %s --split-input-file --lower-to-nvvm='stop-after=launch' | FileCheck %s

// 32 channels x (3 rows x 15 pixels = 45, padded to 48) a block, warps of
// 16 x 16: 2 x 3 warps; K = 8 x 2 x 2 = 32, two k tiles.
// SCHED-LABEL: func.func private @given_kernel
// SCHED-SAME: #dlk.schedule<workgroup = [1, 32, 3, 0, 0, 0, 0], thread = [0, 16, 0, 16, 0, 0, 0]>
// SCHED: dlc.block_dims = array<i64: 96, 2, 1>, dlc.conv = array<i64: 16, 16, 0, 1, 1, 1, 1, 48, 1>
// CHECK-LABEL: func.func @given
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c5, {{.*}} = %c2, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c96, {{.*}} = %c2, {{.*}} = %c1)
// CHECK: scf.for {{.*}} = %c0 to %c2 step %c1 iter_args(
// CHECK-COUNT-16: arith.mulf {{.*}} fastmath<contract>
func.func @given(%x: tensor<1x8x16x16xf32>, %w: tensor<64x8x2x2xf32>) -> tensor<1x64x15x15xf32> {
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [1, 32, 3, 0, 0, 0, 0], thread = [0, 16, 0, 16, 0, 0, 0]> (%x, %w) : (tensor<1x8x16x16xf32>, tensor<64x8x2x2xf32>) -> tensor<1x64x15x15xf32> {
  ^bb0(%a: tensor<1x8x16x16xf32>, %b: tensor<64x8x2x2xf32>):
    %c = dlg.conv2d %a, %b : (tensor<1x8x16x16xf32>, tensor<64x8x2x2xf32>) -> tensor<1x64x15x15xf32>
    dlk.yield %c : tensor<1x64x15x15xf32>
  }
  return %0 : tensor<1x64x15x15xf32>
}

// -----

// Out channels not a multiple of 16: no implicit-GEMM tiling, the direct
// strategy (one output element a thread), no conv block.
// SCHED-LABEL: func.func private @direct_kernel
// SCHED-NOT: dlc.conv
// SCHED: mapping = [#gpu.thread
// CHECK-LABEL: func.func @direct
// CHECK-NOT: __dlc_conv_smem
// CHECK: return
func.func @direct(%x: tensor<1x8x16x16xf32>, %w: tensor<24x8x3x3xf32>) -> tensor<1x24x14x14xf32> {
  %0 = dlk.kernel "contraction" (%x, %w) : (tensor<1x8x16x16xf32>, tensor<24x8x3x3xf32>) -> tensor<1x24x14x14xf32> {
  ^bb0(%a: tensor<1x8x16x16xf32>, %b: tensor<24x8x3x3xf32>):
    %c = dlg.conv2d %a, %b : (tensor<1x8x16x16xf32>, tensor<24x8x3x3xf32>) -> tensor<1x24x14x14xf32>
    dlk.yield %c : tensor<1x24x14x14xf32>
  }
  return %0 : tensor<1x24x14x14xf32>
}

// -----

// A producer of the conv's input fused into the kernel (here a relu): not
// the init + conv + epilogue group that dlc-gpu-conv rewrites, so the
// direct strategy.
// SCHED-LABEL: func.func private @prologue_kernel
// SCHED-NOT: dlc.conv
// SCHED: mapping = [#gpu.thread
// CHECK-LABEL: func.func @prologue
// CHECK-NOT: __dlc_conv_smem
// CHECK: return
func.func @prologue(%x: tensor<1x8x16x16xf32>, %w: tensor<32x8x3x3xf32>) -> tensor<1x32x14x14xf32> {
  %0 = dlk.kernel "contraction" (%x, %w) : (tensor<1x8x16x16xf32>, tensor<32x8x3x3xf32>) -> tensor<1x32x14x14xf32> {
  ^bb0(%a: tensor<1x8x16x16xf32>, %b: tensor<32x8x3x3xf32>):
    %r = dlg.relu %a : tensor<1x8x16x16xf32>
    %c = dlg.conv2d %r, %b : (tensor<1x8x16x16xf32>, tensor<32x8x3x3xf32>) -> tensor<1x32x14x14xf32>
    dlk.yield %c : tensor<1x32x14x14xf32>
  }
  return %0 : tensor<1x32x14x14xf32>
}
