// RUN: dlc-opt %s --split-input-file --dlk-to-linalg | FileCheck %s

// Dynamic result dims take their size from the first operand with a dynamic
// dim at the same (trailing-aligned) position; broadcasting stays in the
// indexing maps.

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @add
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[D:.*]] = tensor.dim %arg0, %[[C0]] : tensor<?x8xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?x8xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<?x8xf32>, tensor<8xf32>) outs(%[[E]] : tensor<?x8xf32>)
// CHECK: arith.addf
func.func @add(%x: tensor<?x8xf32>, %b: tensor<8xf32>) -> tensor<?x8xf32> {
  %0 = dlg.add %x, %b : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// Each dynamic dim from the operand that has it: rows from %arg1, columns
// from %arg0.
// CHECK-LABEL: func.func @mul
// CHECK: %[[R:.*]] = tensor.dim %arg1, %{{.*}} : tensor<?x1xf32>
// CHECK: %[[C:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[R]], %[[C]]) : tensor<?x?xf32>
// CHECK: linalg.generic {{.*}}ins(%arg0, %arg1 : tensor<?xf32>, tensor<?x1xf32>) outs(%[[E]] : tensor<?x?xf32>)
// CHECK: arith.mulf
func.func @mul(%x: tensor<?xf32>, %y: tensor<?x1xf32>) -> tensor<?x?xf32> {
  %0 = dlg.mul %x, %y : tensor<?xf32>, tensor<?x1xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func.func @relu
// CHECK: %[[D:.*]] = tensor.dim %arg0, %{{.*}} : tensor<2x?xf32>
// CHECK: tensor.empty(%[[D]]) : tensor<2x?xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK: arith.maximumf
func.func @relu(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %0 = dlg.relu %x : tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}

// -----

// CHECK-LABEL: func.func @where
// CHECK: tensor.dim %arg0, %{{.*}} : tensor<?x1xi1>
// CHECK: tensor.empty(%{{.*}}) : tensor<?x8xf32>
// CHECK: arith.select
func.func @where(%m: tensor<?x1xi1>, %a: tensor<8xf32>, %b: tensor<f32>) -> tensor<?x8xf32> {
  %0 = dlg.where %m, %a, %b : tensor<?x1xi1>, tensor<8xf32>, tensor<f32> -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// CHECK-LABEL: func.func @less
// CHECK: tensor.empty(%{{.*}}) : tensor<?xi1>
// CHECK: arith.cmpf olt
func.func @less(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xi1> {
  %0 = dlg.less %x, %y : tensor<?xf32>, tensor<?xf32> -> tensor<?xi1>
  return %0 : tensor<?xi1>
}

// -----

// CHECK-LABEL: func.func @cast
// CHECK: tensor.empty(%{{.*}}) : tensor<?xi32>
// CHECK: arith.fptosi %{{.*}} : f32 to i32
func.func @cast(%x: tensor<?xf32>) -> tensor<?xi32> {
  %0 = dlg.cast %x : tensor<?xf32> -> tensor<?xi32>
  return %0 : tensor<?xi32>
}
