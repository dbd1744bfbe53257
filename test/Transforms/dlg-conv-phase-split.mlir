// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-conv-phase-split{vector-width=16}))' | FileCheck %s
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-conv-phase-split{vector-width=16},dlg-fold-constants))' | FileCheck %s --check-prefix=FOLD

// ResNet's stem: x padded by 3 columns a side (230 = 2 x 115), its two
// column phases as channels (c*2 + p), the 7 taps padded to 8 = 2 x 4;
// the vertical stride and padding stay on the conv.
// CHECK-LABEL: func.func @stem
// CHECK: %[[XP:.*]] = dlg.pad %arg0 {pads = array<i64: 0, 0, 0, 3, 0, 0, 0, 3>{{.*}}} : tensor<1x3x224x224xf32> -> tensor<1x3x224x230xf32>
// CHECK: %[[X5:.*]] = dlg.reshape %[[XP]] : tensor<1x3x224x230xf32> -> tensor<1x3x224x115x2xf32>
// CHECK: %[[XT:.*]] = dlg.transpose %[[X5]] perm = [0, 1, 4, 2, 3] : tensor<1x3x224x115x2xf32> -> tensor<1x3x2x224x115xf32>
// CHECK: %[[XQ:.*]] = dlg.reshape %[[XT]] : tensor<1x3x2x224x115xf32> -> tensor<1x6x224x115xf32>
// CHECK: %[[WP:.*]] = dlg.pad %arg1 {pads = array<i64: 0, 0, 0, 0, 0, 0, 0, 1>{{.*}}} : tensor<64x3x7x7xf32> -> tensor<64x3x7x8xf32>
// CHECK: %[[W5:.*]] = dlg.reshape %[[WP]] : tensor<64x3x7x8xf32> -> tensor<64x3x7x4x2xf32>
// CHECK: %[[WT:.*]] = dlg.transpose %[[W5]] perm = [0, 1, 4, 2, 3] : tensor<64x3x7x4x2xf32> -> tensor<64x3x2x7x4xf32>
// CHECK: %[[WQ:.*]] = dlg.reshape %[[WT]] : tensor<64x3x2x7x4xf32> -> tensor<64x6x7x4xf32>
// CHECK: %[[Y:.*]] = dlg.conv2d %[[XQ]], %[[WQ]], %arg2 {padding = array<i64: 3, 0, 3, 0>, strides = array<i64: 2, 1>} : (tensor<1x6x224x115xf32>, tensor<64x6x7x4xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf32>
// CHECK: dlg.relu %[[Y]]
func.func @stem(%x: tensor<1x3x224x224xf32>, %w: tensor<64x3x7x7xf32>, %b: tensor<64xf32>) -> tensor<1x64x112x112xf32> {
  %0 = dlg.conv2d %x, %w, %b {strides = array<i64: 2, 2>, padding = array<i64: 3, 3, 3, 3>} : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf32>
  %1 = dlg.relu %0 : tensor<1x64x112x112xf32>
  return %1 : tensor<1x64x112x112xf32>
}

// A constant weight's split folds into a constant: per (o, c, kh), phase
// 0 holds taps 0 and 2, phase 1 tap 1 and a zero (0.5 is 0x3F000000).
// FOLD-LABEL: func.func @stem_constant
// FOLD-NOT: dlg.pad
// FOLD: %[[W:.*]] = dlg.constant dense<"0x0000003F0000003F0000003F0000003F0000003F0000003F0000003F000000000000003F000000000000003F00000000{{.*}}"> : tensor<16x6x3x2xf32>
// FOLD: dlg.conv2d %{{.*}}, %[[W]] {strides = array<i64: 2, 1>} : (tensor<1x6x8x4xf32>, tensor<16x6x3x2xf32>) -> tensor<1x16x3x3xf32>
func.func @stem_constant(%x: tensor<1x3x8x8xf32>) -> tensor<1x16x3x3xf32> {
  %w = dlg.constant dense<0.5> : tensor<16x3x3x3xf32>
  %0 = dlg.conv2d %x, %w {strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x3x3xf32>
  return %0 : tensor<1x16x3x3xf32>
}

// The last column (x's 11th) no output reads: cropped before the phases
// (2 x 5 = 10 columns), no padding.
// CHECK-LABEL: func.func @crop
// CHECK: dlg.slice %arg0 {ends = array<i64: 2, 2, 9, 10>, starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : tensor<2x2x9x11xf32> -> tensor<2x2x9x10xf32>
// CHECK-NOT: dlg.pad %arg0
// CHECK: dlg.conv2d %{{.*}}, %{{.*}} : (tensor<2x4x9x5xf32>, tensor<16x4x3x2xf32>) -> tensor<2x16x7x4xf32>
func.func @crop(%x: tensor<2x2x9x11xf32>, %w: tensor<16x2x3x4xf32>) -> tensor<2x16x7x4xf32> {
  %0 = dlg.conv2d %x, %w {strides = array<i64: 1, 2>} : (tensor<2x2x9x11xf32>, tensor<16x2x3x4xf32>) -> tensor<2x16x7x4xf32>
  return %0 : tensor<2x16x7x4xf32>
}

// Left as they are: many channels (C * s > 8), a horizontal stride of 1,
// fewer taps than the stride (a 1x1 stride-2 conv: one phase is a strided
// slice, which im2col already is), grouped, dilated, f16, output channels
// no panel divides (12, with 8-lane panels at least), dynamic shapes, and
// a conv inside a kernel the user formed.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: dlg.transpose
// CHECK-NOT: dlg.reshape
// CHECK: return
func.func @kept(%x16: tensor<1x16x14x14xf32>, %w16: tensor<32x16x3x3xf32>,
                %x: tensor<1x3x16x16xf32>, %w: tensor<32x3x3x3xf32>, %w1: tensor<32x3x1x1xf32>,
                %wg: tensor<3x1x3x3xf32>, %xh: tensor<1x3x16x16xf16>, %wh: tensor<32x3x3x3xf16>,
                %w12: tensor<12x3x3x3xf32>, %xd: tensor<?x3x16x16xf32>)
    -> (tensor<1x32x7x7xf32>, tensor<1x32x14x14xf32>, tensor<1x32x8x8xf32>, tensor<1x3x7x7xf32>,
        tensor<1x32x6x6xf32>, tensor<1x32x7x7xf16>, tensor<1x12x7x7xf32>, tensor<?x32x7x7xf32>,
        tensor<1x32x7x7xf32>) {
  %0 = dlg.conv2d %x16, %w16 {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x16x14x14xf32>, tensor<32x16x3x3xf32>) -> tensor<1x32x7x7xf32>
  %1 = dlg.conv2d %x, %w {strides = array<i64: 1, 1>} : (tensor<1x3x16x16xf32>, tensor<32x3x3x3xf32>) -> tensor<1x32x14x14xf32>
  %2 = dlg.conv2d %x, %w1 {strides = array<i64: 2, 2>} : (tensor<1x3x16x16xf32>, tensor<32x3x1x1xf32>) -> tensor<1x32x8x8xf32>
  %3 = dlg.conv2d %x, %wg {strides = array<i64: 2, 2>, groups = 3 : i64} : (tensor<1x3x16x16xf32>, tensor<3x1x3x3xf32>) -> tensor<1x3x7x7xf32>
  %4 = dlg.conv2d %x, %w {strides = array<i64: 2, 2>, dilations = array<i64: 2, 2>} : (tensor<1x3x16x16xf32>, tensor<32x3x3x3xf32>) -> tensor<1x32x6x6xf32>
  %5 = dlg.conv2d %xh, %wh {strides = array<i64: 2, 2>} : (tensor<1x3x16x16xf16>, tensor<32x3x3x3xf16>) -> tensor<1x32x7x7xf16>
  %6 = dlg.conv2d %x, %w12 {strides = array<i64: 2, 2>} : (tensor<1x3x16x16xf32>, tensor<12x3x3x3xf32>) -> tensor<1x12x7x7xf32>
  %7 = dlg.conv2d %xd, %w {strides = array<i64: 2, 2>} : (tensor<?x3x16x16xf32>, tensor<32x3x3x3xf32>) -> tensor<?x32x7x7xf32>
  %8 = dlk.kernel "contraction"(%x, %w) : (tensor<1x3x16x16xf32>, tensor<32x3x3x3xf32>) -> tensor<1x32x7x7xf32> {
  ^bb0(%a: tensor<1x3x16x16xf32>, %b: tensor<32x3x3x3xf32>):
    %c = dlg.conv2d %a, %b {strides = array<i64: 2, 2>} : (tensor<1x3x16x16xf32>, tensor<32x3x3x3xf32>) -> tensor<1x32x7x7xf32>
    dlk.yield %c : tensor<1x32x7x7xf32>
  }
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<1x32x7x7xf32>, tensor<1x32x14x14xf32>, tensor<1x32x8x8xf32>, tensor<1x3x7x7xf32>, tensor<1x32x6x6xf32>, tensor<1x32x7x7xf16>, tensor<1x12x7x7xf32>, tensor<?x32x7x7xf32>, tensor<1x32x7x7xf32>
}
