// RUN: dlc-opt %s --split-input-file --dlk-to-linalg | FileCheck %s

// Dynamic dims of copies come from the input dim they copy.

// Result dim 2 is input dim 1.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2) -> (d1, d2, d0)>
// CHECK-LABEL: func.func @transpose
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[D:.*]] = tensor.dim %arg0, %[[C1]] : tensor<2x?x4xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<4x2x?xf32>
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<2x?x4xf32>) outs(%[[E]] : tensor<4x2x?xf32>)
func.func @transpose(%x: tensor<2x?x4xf32>) -> tensor<4x2x?xf32> {
  %0 = dlg.transpose %x perm = [2, 0, 1] : tensor<2x?x4xf32> -> tensor<4x2x?xf32>
  return %0 : tensor<4x2x?xf32>
}

// -----

// CHECK-LABEL: func.func @gather
// CHECK: %[[D:.*]] = tensor.dim %arg0, %{{.*}} : tensor<100x?xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<4x?xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<4xi64>) outs(%[[E]] : tensor<4x?xf32>)
// CHECK: %[[COL:.*]] = linalg.index 1 : index
// CHECK: tensor.extract %arg0[%{{.*}}, %[[COL]]] : tensor<100x?xf32>
func.func @gather(%e: tensor<100x?xf32>, %ids: tensor<4xi64>) -> tensor<4x?xf32> {
  %0 = dlg.gather %e[%ids] : (tensor<100x?xf32>, tensor<4xi64>) -> tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// -----

// CHECK-LABEL: func.func @pad
// CHECK: %[[V:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: tensor.pad %arg0 low[0, 1] high[0, 1]
// CHECK: tensor.yield %[[V]] : f32
// CHECK: tensor<?x3xf32> to tensor<?x5xf32>
func.func @pad(%x: tensor<?x3xf32>) -> tensor<?x5xf32> {
  %0 = dlg.pad %x {pads = array<i64: 0, 1, 0, 1>} : tensor<?x3xf32> -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}

// -----

// Result dims by gather's shape rule: the indices' dims, then data's after
// the axis.
// CHECK-LABEL: func.func @gather_dynamic_indices
// CHECK: %[[N:.*]] = tensor.dim %arg1, %{{.*}} : tensor<?xi64>
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x16xf32>
// CHECK: linalg.generic {{.*}}ins(%arg1 : tensor<?xi64>) outs(%[[E]] : tensor<?x16xf32>)
func.func @gather_dynamic_indices(%e: tensor<100x16xf32>, %ids: tensor<?xi64>) -> tensor<?x16xf32> {
  %0 = dlg.gather %e[%ids] : (tensor<100x16xf32>, tensor<?xi64>) -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}

// -----

// Ids of rank 2 in the middle: dims 1 and 2 are the indices'.
// CHECK-LABEL: func.func @gather_axis1
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[D:.*]] = tensor.dim %arg1, %[[C1]] : tensor<3x?xi64>
// CHECK: tensor.empty(%[[D]]) : tensor<2x3x?x5xf32>
func.func @gather_axis1(%e: tensor<2x10x5xf32>, %ids: tensor<3x?xi64>) -> tensor<2x3x?x5xf32> {
  %0 = dlg.gather %e[%ids] {axis = 1} : (tensor<2x10x5xf32>, tensor<3x?xi64>) -> tensor<2x3x?x5xf32>
  return %0 : tensor<2x3x?x5xf32>
}
