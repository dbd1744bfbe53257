// RUN: dlc-opt %s --split-input-file --dlk-to-linalg | FileCheck %s

// Control flow: dlg.if becomes scf.if on the i1 read out of the condition
// tensor, dlg.while becomes scf.while over the same tensors; the regions'
// ops are lowered as anywhere else, kernels inside them outlined like any
// other kernel (numbered in post-order).

// CHECK-LABEL: func.func @if
// CHECK: %[[C:.*]] = tensor.extract %arg0[] : tensor<i1>
// CHECK-NEXT: %[[R:.*]] = scf.if %[[C]] -> (tensor<4xf32>) {
// CHECK-NEXT: %[[K:.*]] = func.call @if_kernel0(%arg1) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: scf.yield %[[K]] : tensor<4xf32>
// CHECK-NEXT: } else {
// CHECK: %[[E:.*]] = linalg.generic
// CHECK: math.absf
// CHECK: scf.yield %[[E]] : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]
// CHECK: func.func private @if_kernel0
// CHECK: math.exp
// CHECK-NOT: dlg.
func.func @if(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = dlg.if %c : tensor<i1> -> tensor<4xf32> {
    %k = dlk.kernel "elementwise"(%x) : (tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%a: tensor<4xf32>):
      %e = dlg.exp %a : tensor<4xf32>
      dlk.yield %e : tensor<4xf32>
    }
    dlg.yield %k : tensor<4xf32>
  } else {
    %n = dlg.abs %x : tensor<4xf32>
    dlg.yield %n : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// A condition of shape [1, 1]: one index per dim.
// CHECK-LABEL: func.func @if_rank2_condition
// CHECK: %[[Z:.*]] = arith.constant 0 : index
// CHECK: %[[C:.*]] = tensor.extract %arg0[%[[Z]], %[[Z]]] : tensor<1x1xi1>
// CHECK: scf.if %[[C]] -> (tensor<2xi64>, tensor<2xi64>)
func.func @if_rank2_condition(%c: tensor<1x1xi1>, %x: tensor<2xi64>) -> tensor<2xi64> {
  %r:2 = dlg.if %c : tensor<1x1xi1> -> tensor<2xi64>, tensor<2xi64> {
    dlg.yield %x, %x : tensor<2xi64>, tensor<2xi64>
  } else {
    %n = dlg.neg %x : tensor<2xi64>
    dlg.yield %n, %x : tensor<2xi64>, tensor<2xi64>
  }
  return %r#0 : tensor<2xi64>
}

// -----

// CHECK-LABEL: func.func @while
// CHECK: %[[W:.*]]:2 = scf.while (%[[A:.*]] = %arg0, %[[I:.*]] = %arg1) : (tensor<4xf32>, tensor<i64>) -> (tensor<4xf32>, tensor<i64>) {
// CHECK: %[[LT:.*]] = linalg.generic
// CHECK: arith.cmpi slt
// CHECK: %[[B:.*]] = tensor.extract %[[LT]][] : tensor<i1>
// CHECK-NEXT: scf.condition(%[[B]]) %[[A]], %[[I]] : tensor<4xf32>, tensor<i64>
// CHECK-NEXT: } do {
// CHECK-NEXT: ^bb0(%[[A2:.*]]: tensor<4xf32>, %[[I2:.*]]: tensor<i64>):
// CHECK: arith.addf
// CHECK: arith.addi
// CHECK: scf.yield %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<i64>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[W]]#0
func.func @while(%x: tensor<4xf32>, %i0: tensor<i64>, %n: tensor<i64>) -> tensor<4xf32> {
  %r:2 = dlg.while (%x, %i0) : (tensor<4xf32>, tensor<i64>) -> (tensor<4xf32>, tensor<i64>) {
  ^bb0(%a: tensor<4xf32>, %i: tensor<i64>):
    %c = dlg.less %i, %n : tensor<i64>, tensor<i64> -> tensor<i1>
    dlg.condition(%c : tensor<i1>) %a, %i : tensor<4xf32>, tensor<i64>
  } do {
  ^bb0(%a: tensor<4xf32>, %i: tensor<i64>):
    %one = dlg.constant dense<1> : tensor<i64>
    %d = dlg.add %a, %a : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %j = dlg.add %i, %one : tensor<i64>, tensor<i64> -> tensor<i64>
    dlg.yield %d, %j : tensor<4xf32>, tensor<i64>
  }
  return %r#0 : tensor<4xf32>
}
