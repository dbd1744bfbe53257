// dlc-cpu-schedule: the cost model's #dlk.schedule on each kernel, a
// parallel forall over output tiles with the fill, contraction and
// epilogue fused in, a register tile whose accumulators stay in vector
// registers across the reduction loop, and vector code everywhere.
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-fuse),dlk-to-linalg,func.func(linalg-fuse-elementwise-ops),canonicalize,cse,dlc-cpu-schedule{vector-width=8},canonicalize,cse)' | FileCheck %s
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-fuse),dlk-to-linalg,func.func(linalg-fuse-elementwise-ops),canonicalize,cse,dlc-cpu-schedule{vector-width=8 print-transform})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=SCRIPT
// The schedules printed in the IR read back (a row of 100 takes 25 lanes):
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-fuse),dlk-to-linalg,func.func(linalg-fuse-elementwise-ops),canonicalize,cse,dlc-cpu-schedule{vector-width=8})' | dlc-opt | FileCheck %s --check-prefix=READBACK
// READBACK: @row100_kernel0({{.*}}dlk.schedule = #dlk.schedule<tile = [50, 0], vector = 25, parallel = [0]>

// CHECK-LABEL: func.func private @mlp_kernel0
// CHECK-SAME: dlk.schedule = #dlk.schedule<tile = [8, 0, 0, 196], vector = 8, register = [6, 16], parallel = [0]>
// Eight 16-column panels of W per parallel tile (128 columns):
// CHECK: scf.forall (%{{.*}}) in (4)
// The fill, vectorised:
// CHECK: vector.transfer_write %{{.*}} : vector<16xf32>, tensor<1x1x16xf32>
// Per Kc block, its panels packed, reading W's rows 128 columns at a time:
// CHECK: scf.for %{{.*}} step %c196
// CHECK: scf.for %{{.*}} = %c0 to %c196 step %c1 {{.*}} -> (tensor<8x196x16xf32>)
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c1 {{.*}} -> (tensor<8x196x16xf32>)
// CHECK: vector.transfer_read {{.*}} : tensor<1x1x16xf32>, vector<16xf32>
// Then per panel, 6-row register tiles over 60 rows; the 6x16 accumulator
// is read once ...
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c1
// CHECK: scf.for %{{.*}} = %c0 to %c60 step %c6
// CHECK: %[[ACC:.*]] = vector.transfer_read {{.*}} vector<6x16xf32>
// ... carried in registers through the reduction loop, unrolled by four ...
// CHECK: scf.for %{{.*}} step %c4 iter_args(%{{.*}} = %[[ACC]]) -> (vector<6x16xf32>)
// CHECK-COUNT-4: vector.outerproduct {{.*}} : vector<6xf32>, vector<16xf32>
// ... and written once after it; the last 4 rows get a 4x16 tile.
// CHECK: vector.transfer_write {{.*}} : vector<6x16xf32>
// CHECK: scf.for %{{.*}} iter_args(%{{.*}}) -> (vector<4x16xf32>)
// CHECK: vector.outerproduct {{.*}} : vector<4xf32>, vector<16xf32>
// The bias + relu epilogue, fused into the copy from panels back to rows,
// in the same parallel tile while its panels are in cache:
// CHECK-NOT: scf.forall
// CHECK: arith.maximumf {{.*}} : vector<16xf32>
// CHECK: scf.forall.in_parallel
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<64x32x16xf32> into tensor<64x512xf32>
// CHECK-NOT: linalg.generic
func.func @mlp(%x: tensor<64x784xf32>, %w: tensor<784x512xf32>, %b: tensor<512xf32>) -> tensor<64x512xf32> {
  %0 = dlg.matmul %x, %w : tensor<64x784xf32>, tensor<784x512xf32> -> tensor<64x512xf32>
  %1 = dlg.add %0, %b : tensor<64x512xf32>, tensor<512xf32> -> tensor<64x512xf32>
  %2 = dlg.relu %1 : tensor<64x512xf32>
  return %2 : tensor<64x512xf32>
}

// A row reduction keeps vector-wide partial sums (tile_reduction_using_for),
// in registers across the loop (unrolled by four), summed by a reassociating
// horizontal reduction:
// CHECK-LABEL: func.func private @rows_kernel0
// CHECK-SAME: #dlk.schedule<tile = [8, 0], vector = 32, parallel = [0]>
// CHECK: scf.forall
// CHECK: scf.for {{.*}} step %c128 iter_args({{.*}}) -> (vector<32xf32>)
// CHECK: arith.addf {{.*}} : vector<32xf32>
// CHECK: vector.reduction <add>, {{.*}} fastmath<reassoc>
func.func @rows(%x: tensor<64x4096xf32>) -> tensor<64xf32> {
  %0 = dlg.reduce_sum %x {axes = array<i64: 1>} : tensor<64x4096xf32> -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// A kernel's own #dlk.schedule overrides the model:
// CHECK-LABEL: func.func private @given_kernel0
// CHECK-SAME: #dlk.schedule<tile = [16, 64, 0], vector = 8, register = [4, 8], parallel = [0, 1]>
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (2, 2)
// CHECK: vector.outerproduct {{.*}} : vector<4xf32>, vector<8xf32>
func.func @given(%a: tensor<32x16xf32>, %b: tensor<16x128xf32>) -> tensor<32x128xf32> {
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<tile = [16, 64, 0], vector = 8, register = [4, 8], parallel = [0, 1]> (%a, %b) : (tensor<32x16xf32>, tensor<16x128xf32>) -> tensor<32x128xf32> {
  ^bb0(%x: tensor<32x16xf32>, %y: tensor<16x128xf32>):
    %m = dlg.matmul %x, %y : tensor<32x16xf32>, tensor<16x128xf32> -> tensor<32x128xf32>
    dlk.yield %m : tensor<32x128xf32>
  }
  return %0 : tensor<32x128xf32>
}

// A schedule naming the packed GEMM's loops (panel, m, n, k) gets them:
// CHECK-LABEL: func.func private @given_packed_kernel0
// CHECK-SAME: #dlk.schedule<tile = [2, 0, 0, 32], vector = 8, register = [4, 16], parallel = [0]>
// CHECK: scf.forall (%{{.*}}) in (4)
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c32
// CHECK: vector.outerproduct {{.*}} : vector<4xf32>, vector<16xf32>
func.func @given_packed(%a: tensor<64x64xf32>, %b: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<tile = [2, 0, 0, 32], vector = 8, register = [4, 16], parallel = [0]> (%a, %b) : (tensor<64x64xf32>, tensor<64x128xf32>) -> tensor<64x128xf32> {
  ^bb0(%x: tensor<64x64xf32>, %y: tensor<64x128xf32>):
    %m = dlg.matmul %x, %y : tensor<64x64xf32>, tensor<64x128xf32> -> tensor<64x128xf32>
    dlk.yield %m : tensor<64x128xf32>
  }
  return %0 : tensor<64x128xf32>
}

// Attention's output projection, reshape(transpose(ctx)) x W: the reshape
// propagated into the contraction splits K into (head, d); the schedule
// copies ctx into [s, head, d] order, collapses K back into one loop and
// keeps the register tile's outer products (two unit reduction dims would
// lower to scalar code). W's packing, split the same way, merges back:
// CHECK-LABEL: func.func private @heads_kernel0
// CHECK-SAME: #dlk.schedule<tile = [1, 0, 0, 64], vector = 8, register = [6, 16], parallel = [0]>
// CHECK: tensor.insert_slice {{.*}} : tensor<1x1x16xf32> into tensor<64x4x16xf32>
// CHECK: %[[A:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<64x4x16xf32> into tensor<64x64xf32>
// W's packing stays a [panel, K, NR] copy, made panel by panel in the tile
// (not a [panel, head, d, NR] copy of all of W before it):
// CHECK: %[[W:.*]] = tensor.expand_shape %arg1 {{\[}}[0], [1, 2]] output_shape [64, 4, 16]
// CHECK-NOT: linalg.generic
// CHECK: scf.forall
// CHECK: tensor.extract_slice %[[W]][0, %{{.*}}, 0] [64, 1, 16]
// CHECK: tensor.extract_slice %[[A]]
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c4 iter_args(%{{.*}}) -> (vector<6x16xf32>)
// CHECK: vector.outerproduct {{.*}} : vector<6xf32>, vector<16xf32>
// CHECK-NOT: vector.extract {{.*}} : f32 from vector<6x16xf32>
// CHECK: scf.forall.in_parallel
func.func @heads(%c: tensor<4x64x16xf32>, %w: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %t = dlg.transpose %c perm = [1, 0, 2] : tensor<4x64x16xf32> -> tensor<64x4x16xf32>
  %r = dlg.reshape %t : tensor<64x4x16xf32> -> tensor<64x64xf32>
  %m = dlg.matmul %r, %w : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}

// Attention scores q x k^T with both transposes absorbed: q is read by
// heads and k^T column-wise. Each head's q and k^T are copied (inside the
// head's parallel tile) into [head, s, d] and [head, d, s] order, so the
// register tile reads contiguous rows of k^T and no unit dims:
// CHECK-LABEL: func.func private @scores_kernel0
// CHECK-SAME: #dlk.schedule<tile = [1, 32, 32, 16], vector = 8, register = [6, 16], parallel = [0, 1, 2]>
// CHECK: scf.forall (%{{.*}}) in (4)
// CHECK: scf.for {{.*}} -> (tensor<1x32x16xf32>)
// CHECK: scf.for {{.*}} -> (tensor<1x16x32xf32>)
// CHECK: scf.for %{{.*}} = %c0 to %c16 step %c4 iter_args(%{{.*}}) -> (vector<6x16xf32>)
// CHECK: vector.outerproduct {{.*}} : vector<6xf32>, vector<16xf32>
func.func @scores(%q: tensor<32x64xf32>, %k: tensor<32x64xf32>) -> tensor<4x32x32xf32> {
  %q1 = dlg.reshape %q : tensor<32x64xf32> -> tensor<32x4x16xf32>
  %q2 = dlg.transpose %q1 perm = [1, 0, 2] : tensor<32x4x16xf32> -> tensor<4x32x16xf32>
  %k1 = dlg.reshape %k : tensor<32x64xf32> -> tensor<32x4x16xf32>
  %k2 = dlg.transpose %k1 perm = [1, 2, 0] : tensor<32x4x16xf32> -> tensor<4x16x32xf32>
  %s = dlg.matmul %q2, %k2 : tensor<4x32x16xf32>, tensor<4x16x32xf32> -> tensor<4x32x32xf32>
  return %s : tensor<4x32x32xf32>
}

// More rows than Mc: the parallel tiles are panels of B only; inside each,
// the Kc block is packed once and serves both 128-row Mc blocks. 6-row
// tiles leave 2 rows of each (4 accumulators, fewer than the FMA latency):
// those and the last full tile run as two 4-row tiles (dlcGemmTailRows).
// CHECK-LABEL: func.func private @tall_kernel0
// CHECK-SAME: #dlk.schedule<tile = [4, 128, 0, 256], vector = 8, register = [6, 16], parallel = [0]>
// CHECK: scf.forall (%{{.*}}) in (4)
// CHECK: scf.for %{{.*}} = %c0 to %c512 step %c256
// CHECK: scf.for %{{.*}} -> (tensor<4x256x16xf32>)
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c128
// CHECK: scf.for %{{.*}} = %c0 to %c120 step %c6
// CHECK: vector.outerproduct {{.*}} : vector<6xf32>, vector<16xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c4
// CHECK: vector.outerproduct {{.*}} : vector<4xf32>, vector<16xf32>
// CHECK-NOT: vector.outerproduct {{.*}} : vector<2xf32>
func.func @tall(%a: tensor<256x512xf32>, %b: tensor<512x256xf32>) -> tensor<256x256xf32> {
  %0 = dlg.matmul %a, %b : tensor<256x512xf32>, tensor<512x256xf32> -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}

// SCRIPT: transform.named_sequence @__transform_main
// SCRIPT: transform.structured.tile_using_forall
// SCRIPT: transform.structured.fuse_into_containing_op
// SCRIPT: transform.structured.tile_reduction_using_for
// SCRIPT: transform.loop.hoist_loop_invariant_subsets

// A row of 100 floats: 25-lane vectors (no power of two; cpu-schedule's
// READBACK run parses the printed schedule again).
func.func @row100(%a: tensor<300x100xf32>, %b: tensor<300x100xf32>) -> tensor<300x100xf32> {
  %0 = dlg.add %a, %b : tensor<300x100xf32>, tensor<300x100xf32> -> tensor<300x100xf32>
  %1 = dlg.relu %0 : tensor<300x100xf32>
  return %1 : tensor<300x100xf32>
}
