// dlc-distinct-results: a value a public function returns more than once
// gets a copy per extra result, so each result has its own caller buffer
// (buffer-results-to-out-params crashed on `return %0, %0`).
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlc-distinct-results))' | FileCheck %s
// The whole CPU pipeline compiles it, and both results hold the value:
// RUN: dlc-opt %s --lower-to-llvm -o /dev/null
// RUN: dlc-run %s --entry twice --random-inputs | FileCheck %s --check-prefix=EXEC

// CHECK-LABEL: func.func @twice
// CHECK: %[[R:.*]] = dlg.relu
// CHECK: %[[C1:.*]] = bufferization.alloc_tensor() copy(%[[R]]) : tensor<4xf32>
// CHECK: %[[C2:.*]] = bufferization.alloc_tensor() copy(%[[R]]) : tensor<4xf32>
// CHECK: return %[[R]], %[[C1]], %[[C2]]
// EXEC: result 0: f32[4] [[V:\[.*\]]]
// EXEC-NEXT: result 1: f32[4] [[V]]
// EXEC-NEXT: result 2: f32[4] [[V]]
func.func @twice(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = dlg.relu %a : tensor<4xf32>
  return %0, %0, %0 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// An argument returned twice is copied too; the first stays as it is.
// CHECK-LABEL: func.func @arg
// CHECK: %[[C:.*]] = bufferization.alloc_tensor() copy(%arg0) : tensor<?x3xf32>
// CHECK: return %arg0, %[[C]]
func.func @arg(%a: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
  return %a, %a : tensor<?x3xf32>, tensor<?x3xf32>
}

// Private functions are called inside the module, not by the runtime:
// CHECK-LABEL: func.func private @inner
// CHECK-NOT: alloc_tensor
// CHECK: return %arg0, %arg0
func.func private @inner(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  return %a, %a : tensor<4xf32>, tensor<4xf32>
}
