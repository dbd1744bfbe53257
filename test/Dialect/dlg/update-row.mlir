// dlg.update_row parses, prints and verifies: the buffer's type is the
// result's, the row is the buffer's type without dim 0, the index a 0-d i64.
// RUN: dlc-opt %s | dlc-opt | FileCheck %s

// CHECK-LABEL: func.func @rows
// CHECK: %[[A:.*]] = dlg.update_row %arg0[%arg2], %arg1 : tensor<10x3xf32>[tensor<i64>], tensor<3xf32>
// CHECK: %[[B:.*]] = dlg.update_row %arg3[%arg2], %arg4 : tensor<5xi64>[tensor<i64>], tensor<i64>
// CHECK: return %[[A]], %[[B]]
func.func @rows(%b: tensor<10x3xf32>, %r: tensor<3xf32>, %i: tensor<i64>, %c: tensor<5xi64>,
                %s: tensor<i64>) -> (tensor<10x3xf32>, tensor<5xi64>) {
  %0 = dlg.update_row %b[%i], %r : tensor<10x3xf32>[tensor<i64>], tensor<3xf32>
  %1 = dlg.update_row %c[%i], %s : tensor<5xi64>[tensor<i64>], tensor<i64>
  return %0, %1 : tensor<10x3xf32>, tensor<5xi64>
}
