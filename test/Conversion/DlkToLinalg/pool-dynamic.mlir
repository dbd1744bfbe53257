// RUN: dlc-opt %s --split-input-file --dlk-to-linalg | FileCheck %s

// A dynamic batch: the output takes it from the (padded) input.

// CHECK-LABEL: func.func @max_pool2d
// CHECK: %[[D:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x4x8x8xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?x4x4x4xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<?x4x4x4xf32>)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%arg0, %{{.*}} : tensor<?x4x8x8xf32>, tensor<2x2xf32>)
// CHECK: arith.maximumf
func.func @max_pool2d(%x: tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32> {
  %0 = dlg.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<?x4x8x8xf32> -> tensor<?x4x4x4xf32>
  return %0 : tensor<?x4x4x4xf32>
}

// -----

// CHECK-LABEL: func.func @avg_pool2d
// CHECK: %[[XP:.*]] = tensor.pad %arg0
// CHECK: %[[D:.*]] = tensor.dim %[[XP]], %{{.*}} : tensor<?x?x6x6xf32>
// CHECK: %[[C:.*]] = tensor.dim %[[XP]], %{{.*}} : tensor<?x?x6x6xf32>
// CHECK: tensor.empty(%[[D]], %[[C]]) : tensor<?x?x2x2xf32>
// CHECK: arith.addf
// CHECK: tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x?x2x2xf32>
// CHECK: arith.divf
func.func @avg_pool2d(%x: tensor<?x?x4x4xf32>) -> tensor<?x?x2x2xf32> {
  %0 = dlg.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : tensor<?x?x4x4xf32> -> tensor<?x?x2x2xf32>
  return %0 : tensor<?x?x2x2xf32>
}
