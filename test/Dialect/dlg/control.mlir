// Round trip of dlg's control flow (dlg.if, dlg.while and their
// terminators): custom form, then generic form re-parsed.
// RUN: dlc-opt %s | dlc-opt | FileCheck %s
// RUN: dlc-opt %s --mlir-print-op-generic | dlc-opt | FileCheck %s
// RUN: dlc-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func @if
// CHECK: %[[R:.*]]:2 = dlg.if %arg0 : tensor<i1> -> tensor<4xf32>, tensor<i64> {
// CHECK-NEXT: %[[Y:.*]] = dlg.relu %arg1 : tensor<4xf32>
// CHECK-NEXT: dlg.yield %[[Y]], %arg2 : tensor<4xf32>, tensor<i64>
// CHECK-NEXT: } else {
// CHECK-NEXT: dlg.yield %arg1, %arg2 : tensor<4xf32>, tensor<i64>
// CHECK-NEXT: }
// GENERIC-LABEL: sym_name = "if"
// GENERIC: "dlg.if"(%{{.*}}) ({
// GENERIC: "dlg.yield"
// GENERIC: }, {
// GENERIC: }) : (tensor<i1>) -> (tensor<4xf32>, tensor<i64>)
func.func @if(%c: tensor<i1>, %x: tensor<4xf32>, %n: tensor<i64>) -> (tensor<4xf32>, tensor<i64>) {
  %r:2 = dlg.if %c : tensor<i1> -> tensor<4xf32>, tensor<i64> {
    %y = dlg.relu %x : tensor<4xf32>
    dlg.yield %y, %n : tensor<4xf32>, tensor<i64>
  } else {
    dlg.yield %x, %n : tensor<4xf32>, tensor<i64>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<i64>
}

// A condition of shape [1] (ONNX allows any one-element tensor); no results.
// CHECK-LABEL: func @if_no_results
// CHECK: dlg.if %arg0 : tensor<1xi1> {
// CHECK-NEXT: dlg.yield
// CHECK-NEXT: } else {
func.func @if_no_results(%c: tensor<1xi1>) {
  dlg.if %c : tensor<1xi1> {
    dlg.yield
  } else {
    dlg.yield
  }
  return
}

// CHECK-LABEL: func @while
// CHECK: dlg.while(%arg0, %arg1) : (tensor<4xf32>, tensor<f32>) -> (tensor<4xf32>, tensor<f32>) {
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<4xf32>, %[[L:.*]]: tensor<f32>):
// CHECK: %[[C:.*]] = dlg.less
// CHECK-NEXT: dlg.condition(%[[C]] : tensor<i1>) %[[A]], %[[L]] : tensor<4xf32>, tensor<f32>
// CHECK-NEXT: } do {
// CHECK-NEXT: ^bb0(%[[B:.*]]: tensor<4xf32>, %[[M:.*]]: tensor<f32>):
// CHECK: dlg.yield %{{.*}}, %[[M]] : tensor<4xf32>, tensor<f32>
// GENERIC-LABEL: sym_name = "while"
// GENERIC: "dlg.while"(%{{.*}}, %{{.*}}) ({
// GENERIC: "dlg.condition"
// GENERIC: "dlg.yield"
func.func @while(%x: tensor<4xf32>, %limit: tensor<f32>) -> tensor<4xf32> {
  %r:2 = dlg.while (%x, %limit) : (tensor<4xf32>, tensor<f32>) -> (tensor<4xf32>, tensor<f32>) {
  ^bb0(%a: tensor<4xf32>, %l: tensor<f32>):
    %s = dlg.reduce_sum %a {axes = array<i64>} : tensor<4xf32> -> tensor<f32>
    %c = dlg.less %s, %l : tensor<f32>, tensor<f32> -> tensor<i1>
    dlg.condition(%c : tensor<i1>) %a, %l : tensor<4xf32>, tensor<f32>
  } do {
  ^bb0(%a: tensor<4xf32>, %l: tensor<f32>):
    %n = dlg.add %a, %a : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    dlg.yield %n, %l : tensor<4xf32>, tensor<f32>
  }
  return %r#0 : tensor<4xf32>
}
