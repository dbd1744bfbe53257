// RUN: dlc-opt %s --split-input-file --dlk-to-linalg | FileCheck %s

// Dynamic kept dims take their size from the input (tensor.dim); the loop
// nest is the same as for static shapes.

// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[MID:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @reduce_max
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[D:.*]] = tensor.dim %arg0, %[[C1]] : tensor<4x?x8xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?xf32>
// CHECK: %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<?xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[X]], #[[MID]]], iterator_types = ["reduction", "parallel", "reduction"]} ins(%arg0 : tensor<4x?x8xf32>) outs(%[[ACC]] : tensor<?xf32>)
// CHECK: arith.maximumf
func.func @reduce_max(%x: tensor<4x?x8xf32>) -> tensor<?xf32> {
  %0 = dlg.reduce_max %x {axes = array<i64: 0, 2>} : tensor<4x?x8xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_sum
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[D:.*]] = tensor.dim %arg0, %[[C0]] : tensor<?x8xf32>
// CHECK: tensor.empty(%[[D]]) : tensor<?xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.addf
func.func @reduce_sum(%x: tensor<?x8xf32>) -> tensor<?xf32> {
  %0 = dlg.reduce_sum %x {axes = array<i64: 1>} : tensor<?x8xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// reduce_mean over static dims of a dynamic input: 1/8 per kept row.
// CHECK-LABEL: func.func @reduce_mean
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.addf
// CHECK: %[[D:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?xf32>
// CHECK: tensor.empty(%[[D]]) : tensor<?xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel"]
// CHECK: arith.constant 1.250000e-01 : f32
// CHECK: arith.mulf
func.func @reduce_mean(%x: tensor<?x8xf32>) -> tensor<?xf32> {
  %0 = dlg.reduce_mean %x {axes = array<i64: 1>} : tensor<?x8xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_min
// CHECK: tensor.dim %arg0
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
// CHECK: arith.minimumf
func.func @reduce_min(%x: tensor<8x?xf32>) -> tensor<?xf32> {
  %0 = dlg.reduce_min %x {axes = array<i64: 0>} : tensor<8x?xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
