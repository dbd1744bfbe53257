// RUN: dlc-opt %s --split-input-file --dlk-to-linalg | FileCheck %s

// Pools: one generic over (n, c, oh, ow | kh, kw) on the padded input, the
// window's extent given by an empty [kH, kW] operand; average pooling then
// divides by a constant of each window's element count.

// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>
// CHECK-DAG: #[[K:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-DAG: #[[O:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @max_pool2d
// CHECK-NOT: tensor.pad
// CHECK: %[[WIN:.*]] = tensor.empty() : tensor<2x2xf32>
// CHECK: %[[LOW:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[ACC:.*]] = linalg.fill ins(%[[LOW]] : f32) outs(%{{.*}} : tensor<1x4x4x4xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[X]], #[[K]], #[[O]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%arg0, %[[WIN]] : tensor<1x4x8x8xf32>, tensor<2x2xf32>) outs(%[[ACC]] : tensor<1x4x4x4xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32, %[[OUT:.*]]: f32):
// CHECK: arith.maximumf %[[OUT]], %[[IN]] : f32
func.func @max_pool2d(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  %0 = dlg.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// Padding 1: windows at the border hold 4 or 6 of 9 real elements
// (count_include_pad false).
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[HW:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-LABEL: func.func @avg_pool2d
// CHECK: %[[XP:.*]] = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[X]], #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[XP]], %{{.*}} : tensor<1x4x6x6xf32>, tensor<3x3xf32>)
// CHECK: arith.addf
// CHECK: %[[N:.*]] = arith.constant dense<{{\[}}[4.000000e+00, 6.000000e+00], [6.000000e+00, 9.000000e+00]]> : tensor<2x2xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[HW]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[SUM]], %[[N]] : tensor<1x4x2x2xf32>, tensor<2x2xf32>)
// CHECK: arith.divf
func.func @avg_pool2d(%x: tensor<1x4x4x4xf32>) -> tensor<1x4x2x2xf32> {
  %0 = dlg.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : tensor<1x4x4x4xf32> -> tensor<1x4x2x2xf32>
  return %0 : tensor<1x4x2x2xf32>
}

// -----

// count_include_pad: every window counts 9.
// CHECK-LABEL: func.func @avg_pool2d_include_pad
// CHECK: arith.constant dense<9.000000e+00> : tensor<2x2xf32>
func.func @avg_pool2d_include_pad(%x: tensor<1x4x4x4xf32>) -> tensor<1x4x2x2xf32> {
  %0 = dlg.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, count_include_pad = true} : tensor<1x4x4x4xf32> -> tensor<1x4x2x2xf32>
  return %0 : tensor<1x4x2x2xf32>
}
