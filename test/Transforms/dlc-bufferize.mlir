// RUN: dlc-opt --dlc-bufferize %s | FileCheck %s
// RUN: dlc-opt --pass-pipeline='builtin.module(dlc-bufferize)' %s | FileCheck %s

// The bufferisation stage both backends run, as one registered pipeline
// (tests that emulate a backend build on it): results become caller
// buffers, a tensor returned twice gets one buffer per result (the second
// a copy, dlc-distinct-results), public arguments are only read, and
// constants become globals named in first-use order (dlc-order-globals).

// CHECK: memref.global "private" constant @__constant_4xf32 : memref<4xf32> = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]>
// CHECK: memref.global "private" constant @__constant_4xf32_0 : memref<4xf32> = dense<5.000000e+00>
// CHECK-LABEL: func.func @twice(
// CHECK-SAME: %[[A:.*]]: memref<4xf32>, %[[R0:.*]]: memref<4xf32>, %[[R1:.*]]: memref<4xf32>) {
// CHECK: %[[C:.*]] = memref.get_global @__constant_4xf32 : memref<4xf32>
// CHECK: linalg.add ins(%[[A]], %[[C]] : {{.*}}) outs(%[[R0]] : memref<4xf32>)
// CHECK: memref.copy %[[R0]], %[[R1]]
// CHECK-NEXT: return
func.func @twice(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %s = linalg.add ins(%a, %c : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %s, %s : tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @second(
// CHECK: memref.get_global @__constant_4xf32_0
func.func @second(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant dense<5.0> : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %s = linalg.mul ins(%a, %c : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}
