// The depthwise conv schedule's producers (cpu_schedule.c): the input's
// tensor.pad is fused into the channel forall (each chunk pads its own
// channels, in cache, on its own thread; outside, it was a serial copy of
// the whole input before the parallel loop), and the bias fill starts
// from an empty of its own, not from a slice of the forall's output
// (which the clamp writes too: bufferisation then copied that slice, every
// chunk, into a temporary for the fill).
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-fuse),dlk-to-linalg{vector-width=16},func.func(linalg-fuse-elementwise-ops),canonicalize,cse,dlc-cpu-schedule{target=avx512},canonicalize,cse)' | FileCheck %s
// RUN: dlc-opt %s --lower-to-llvm='target=avx512 parallel=false' --mlir-print-ir-after=convert-linalg-to-loops 2>&1 | FileCheck %s --check-prefix=BUF
// The schedule straight after dlk-to-linalg (no elementwise fusion or
// canonicalisation between them): the pad's value is defined outside its
// region (dlcEmitPad), where a constant inside it crashed linalg's unit-dim
// folding of the pad fused into a tile.
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-fuse),dlk-to-linalg{vector-width=16},dlc-cpu-schedule{target=avx512})' | FileCheck %s --check-prefix=BARE
// BARE-LABEL: func.func private @dw_bias_clamp_kernel0
// BARE-SAME: #dlk.schedule<tile = [1, 1, 0, 0, 0, 0], vector = 16, parallel = [0, 1]>
// BARE: scf.forall

// CHECK-LABEL: func.func private @dw_bias_clamp_kernel0
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x144x56x56xf32>
// CHECK-NOT: tensor.pad
// CHECK: scf.forall (%[[C:.*]]) in (144) shared_outs(%[[OUT:.*]] = %[[E]])
// CHECK: %[[X:.*]] = tensor.extract_slice %arg0[0, %[[C]], 0, 0] [1, 1, 56, 56]
// CHECK: tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// the bias fill's rows go to a slice of the empty, not of %[[OUT]]
// CHECK: %[[F:.*]] = tensor.extract_slice %[[E]][0, %[[C]], 0, 0] [1, 1, 56, 56]
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[F]])
// CHECK: tensor.parallel_insert_slice

// Bufferised, a chunk allocates the padded plane and the fill's plane and
// copies only the input into the padded one: no load from the result.
// BUF-LABEL: func.func @dw_bias_clamp(
// BUF: scf.forall
// BUF: %[[IN:.*]] = memref.subview %arg0[0, %{{.*}}, 0, 0] [1, 1, 56, 56]
// BUF: memref.load %[[IN]]
// BUF-NOT: memref.load
// BUF: return
func.func @dw_bias_clamp(%x: tensor<1x144x56x56xf32>, %w: tensor<144x1x3x3xf32>, %b: tensor<144xf32>) -> tensor<1x144x56x56xf32> {
  %0 = dlg.conv2d %x, %w, %b {padding = array<i64: 1, 1, 1, 1>, groups = 144 : i64} : (tensor<1x144x56x56xf32>, tensor<144x1x3x3xf32>, tensor<144xf32>) -> tensor<1x144x56x56xf32>
  %1 = dlg.clamp %0 {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x144x56x56xf32>
  return %1 : tensor<1x144x56x56xf32>
}

// Without padding there is no pad to fuse; the schedule is unchanged.
// CHECK-LABEL: func.func private @dw_valid_kernel0
// CHECK-NOT: tensor.pad
// CHECK: scf.forall
func.func @dw_valid(%x: tensor<1x32x18x18xf32>, %w: tensor<32x1x3x3xf32>) -> tensor<1x32x16x16xf32> {
  %0 = dlg.conv2d %x, %w {groups = 32 : i64} : (tensor<1x32x18x18xf32>, tensor<32x1x3x3xf32>) -> tensor<1x32x16x16xf32>
  return %0 : tensor<1x32x16x16xf32>
}

// A horizontal stride (MobileNetV2's downsampling depthwise convs) keeps
// the conv as plain loops over chunks of 18 channels; its pad is fused all
// the same, padding only what the chunk reads (57 of 58 rows and columns),
// and its bias fill starts from its own empty.
// CHECK-LABEL: func.func private @dw_stride2_kernel0
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x144x28x28xf32>
// CHECK-NOT: tensor.pad
// CHECK: scf.forall (%{{.*}}) in (8) shared_outs(%{{.*}} = %[[E]])
// CHECK: %[[X:.*]] = tensor.extract_slice %arg0[0, %[[C:.*]], 0, 0] [1, 18, 56, 56]
// CHECK: tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 0, 0]
// CHECK: tensor.extract_slice %[[E]][0, %[[C]], 0, 0] [1, 18, 28, 28]
// CHECK: tensor.parallel_insert_slice
func.func @dw_stride2(%x: tensor<1x144x56x56xf32>, %w: tensor<144x1x3x3xf32>, %b: tensor<144xf32>) -> tensor<1x144x28x28xf32> {
  %0 = dlg.conv2d %x, %w, %b {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, groups = 144 : i64} : (tensor<1x144x56x56xf32>, tensor<144x1x3x3xf32>, tensor<144xf32>) -> tensor<1x144x28x28xf32>
  %1 = dlg.clamp %0 {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x144x28x28xf32>
  return %1 : tensor<1x144x28x28xf32>
}

// Rows at once: at Wo = 7 the pieces are 4, 2 and 1 lanes, each tap one
// FMA; all 7 rows together make 7 independent chains per piece (with one
// row, 9 dependent FMAs each); the 1-lane piece is a column of 7 rows.
// CHECK-LABEL: func.func private @dw_rows_kernel0
// CHECK-COUNT-9: arith.addf {{.*}} fastmath<contract> : vector<7x4xf32>
// CHECK-COUNT-9: arith.addf {{.*}} fastmath<contract> : vector<7x2xf32>
// CHECK-COUNT-9: arith.addf {{.*}} fastmath<contract> : vector<7xf32>
func.func @dw_rows(%x: tensor<1x64x7x7xf32>, %w: tensor<64x1x3x3xf32>) -> tensor<1x64x7x7xf32> {
  %0 = dlg.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, groups = 64 : i64} : (tensor<1x64x7x7xf32>, tensor<64x1x3x3xf32>) -> tensor<1x64x7x7xf32>
  return %0 : tensor<1x64x7x7xf32>
}

// A vertical stride of 2 keeps one row at a time: two rows would read
// input rows two apart as one vector.
// CHECK-LABEL: func.func private @dw_rows_vstride_kernel0
// CHECK-NOT: vector<2x
// CHECK-COUNT-9: arith.addf {{.*}} fastmath<contract> : vector<16xf32>
// CHECK-NOT: vector<2x
// CHECK: return
func.func @dw_rows_vstride(%x: tensor<1x32x16x16xf32>, %w: tensor<32x1x3x3xf32>) -> tensor<1x32x8x16xf32> {
  %0 = dlg.conv2d %x, %w {strides = array<i64: 2, 1>, padding = array<i64: 1, 1, 1, 1>, groups = 32 : i64} : (tensor<1x32x16x16xf32>, tensor<32x1x3x3xf32>) -> tensor<1x32x8x16xf32>
  return %0 : tensor<1x32x8x16xf32>
}
