// RUN: dlc-opt %s --split-input-file --dlk-to-linalg | FileCheck %s

// A reduction is one linalg.generic over the input's dims, the reduced ones
// "reduction" loops, into a tensor of the kept dims filled with the
// reduction's identity; keepdims reshapes it afterwards.

// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[KEPT:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @reduce_sum
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[X]], #[[KEPT]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%arg0 : tensor<4x6x8xf32>) outs(%[[ACC]] : tensor<4x8xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK: arith.addf %[[OUT]], %[[IN]] : f32
// CHECK: tensor.collapse_shape %[[R]]
// CHECK: tensor.expand_shape {{.*}} into tensor<4x1x8xf32>
func.func @reduce_sum(%x: tensor<4x6x8xf32>) -> tensor<4x1x8xf32> {
  %0 = dlg.reduce_sum %x {axes = array<i64: -2>, keepdims = true} : tensor<4x6x8xf32> -> tensor<4x1x8xf32>
  return %0 : tensor<4x1x8xf32>
}

// -----

// No axes: every dim reduced; the mean multiplies by 1/n (1/192) after.
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[ALL:.*]] = affine_map<(d0, d1, d2) -> ()>
// CHECK-DAG: #[[S:.*]] = affine_map<() -> ()>
// CHECK-LABEL: func.func @reduce_mean
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[X]], #[[ALL]]], iterator_types = ["reduction", "reduction", "reduction"]} ins(%arg0 : tensor<4x6x8xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK: arith.addf
// CHECK: linalg.generic {indexing_maps = [#[[S]], #[[S]]], iterator_types = []} ins(%[[SUM]] : tensor<f32>)
// CHECK: %[[INV:.*]] = arith.constant 0.00520833349 : f32
// CHECK: arith.mulf %{{.*}}, %[[INV]] : f32
func.func @reduce_mean(%x: tensor<4x6x8xf32>) -> tensor<f32> {
  %0 = dlg.reduce_mean %x : tensor<4x6x8xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[MID:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @reduce_max
// CHECK: %[[LOW:.*]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.fill ins(%[[LOW]] : f32) outs(%{{.*}} : tensor<6xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[X]], #[[MID]]], iterator_types = ["reduction", "parallel", "reduction"]}
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : f32
func.func @reduce_max(%x: tensor<4x6x8xf32>) -> tensor<6xf32> {
  %0 = dlg.reduce_max %x {axes = array<i64: 0, 2>} : tensor<4x6x8xf32> -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

// Integers: the signed min, from the type's highest value.
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[FIRST:.*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-LABEL: func.func @reduce_min
// CHECK: %[[HIGH:.*]] = arith.constant 2147483647 : i32
// CHECK: linalg.fill ins(%[[HIGH]] : i32) outs(%{{.*}} : tensor<4xi32>)
// CHECK: linalg.generic {indexing_maps = [#[[X]], #[[FIRST]]], iterator_types = ["parallel", "reduction", "reduction"]}
// CHECK: arith.minsi %{{.*}}, %{{.*}} : i32
func.func @reduce_min(%x: tensor<4x6x8xi32>) -> tensor<4xi32> {
  %0 = dlg.reduce_min %x {axes = array<i64: 1, 2>} : tensor<4x6x8xi32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
