// RUN: dlc-opt %s --split-input-file --dlk-to-linalg | FileCheck %s

// Dynamic dims: the plain contraction (no packing), M and the batch from
// A, N from B.

// CHECK-LABEL: func.func @matmul
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[M:.*]] = tensor.dim %arg0, %[[C0]] : tensor<?x8xf32>
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[N:.*]] = tensor.dim %arg1, %[[C1]] : tensor<8x?xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[M]], %[[N]]) : tensor<?x?xf32>
// CHECK: %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<?x?xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<?x8xf32>, tensor<8x?xf32>) outs(%[[ACC]] : tensor<?x?xf32>)
func.func @matmul(%a: tensor<?x8xf32>, %b: tensor<8x?xf32>) -> tensor<?x?xf32> {
  %0 = dlg.matmul %a, %b : tensor<?x8xf32>, tensor<8x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// transpose_a: M is A's last dim.
// CHECK-LABEL: func.func @matmul_batched
// CHECK: %[[B:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x8x4xf32>
// CHECK: tensor.empty(%[[B]]) : tensor<?x4x16xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
func.func @matmul_batched(%a: tensor<?x8x4xf32>, %b: tensor<8x16xf32>) -> tensor<?x4x16xf32> {
  %0 = dlg.matmul %a, %b {transpose_a = true} : tensor<?x8x4xf32>, tensor<8x16xf32> -> tensor<?x4x16xf32>
  return %0 : tensor<?x4x16xf32>
}

// -----

// A dynamic batch: the direct convolution, the batch from the padded input.
// CHECK-LABEL: func.func @conv2d
// CHECK: %[[XP:.*]] = tensor.pad %arg0
// CHECK: %[[D:.*]] = tensor.dim %[[XP]], %{{.*}} : tensor<?x8x10x10xf32>
// CHECK: tensor.empty(%[[D]]) : tensor<?x16x8x8xf32>
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[XP]], %arg1 : tensor<?x8x10x10xf32>, tensor<16x8x3x3xf32>)
func.func @conv2d(%x: tensor<?x8x8x8xf32>, %w: tensor<16x8x3x3xf32>) -> tensor<?x16x8x8xf32> {
  %0 = dlg.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>}
      : (tensor<?x8x8x8xf32>, tensor<16x8x3x3xf32>) -> tensor<?x16x8x8xf32>
  return %0 : tensor<?x16x8x8xf32>
}

// -----

// The batch only B has, and dynamic: its size from B (A has no batch dim).
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-LABEL: func.func @matmul_batch_of_b
// CHECK: %[[D:.*]] = tensor.dim %arg1, %{{.*}} : tensor<?x8x5xf32>
// CHECK: tensor.empty(%[[D]]) : tensor<?x4x5xf32>
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
func.func @matmul_batch_of_b(%a: tensor<4x8xf32>, %b: tensor<?x8x5xf32>) -> tensor<?x4x5xf32> {
  %0 = dlg.matmul %a, %b : tensor<4x8xf32>, tensor<?x8x5xf32> -> tensor<?x4x5xf32>
  return %0 : tensor<?x4x5xf32>
}
