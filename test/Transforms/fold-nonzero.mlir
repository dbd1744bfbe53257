// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-fold-constants))' | FileCheck %s

// dlg.non_zero on a constant folds to its two constants (the C kernel
// fold/nonzero.c): the indices of the nonzero elements in row-major
// order, one row per dim, then the padding columns, -1. NaN counts as
// nonzero, -0.0 does not.
// CHECK-LABEL: func.func @floats
// CHECK-DAG: dlg.constant dense<{{\[\[}}0, 1, 1, -1, -1, -1], [1, 0, 2, -1, -1, -1]]> : tensor<2x6xi64>
// CHECK-DAG: dlg.constant dense<3> : tensor<i64>
// CHECK-NOT: dlg.non_zero
func.func @floats() -> (tensor<2x6xi64>, tensor<i64>) {
  %x = dlg.constant dense<[[0.0, 2.5, -0.0], [0x7FC00000, 0.0, -1.0]]> : tensor<2x3xf32>
  %i, %n = dlg.non_zero %x : tensor<2x3xf32> -> tensor<2x6xi64>, tensor<i64>
  return %i, %n : tensor<2x6xi64>, tensor<i64>
}

// Booleans, rank 1; all false: every column is padding, the count 0.
// CHECK-LABEL: func.func @bools
// CHECK-DAG: dlg.constant dense<{{\[\[}}1, 3, -1, -1]]> : tensor<1x4xi64>
// CHECK-DAG: dlg.constant dense<-1> : tensor<1x3xi64>
// CHECK-DAG: dlg.constant dense<2> : tensor<i64>
// CHECK-DAG: dlg.constant dense<0> : tensor<i64>
func.func @bools() -> (tensor<1x4xi64>, tensor<i64>, tensor<1x3xi64>, tensor<i64>) {
  %x = dlg.constant dense<[false, true, false, true]> : tensor<4xi1>
  %i, %n = dlg.non_zero %x : tensor<4xi1> -> tensor<1x4xi64>, tensor<i64>
  %z = dlg.constant dense<false> : tensor<3xi1>
  %j, %m = dlg.non_zero %z : tensor<3xi1> -> tensor<1x3xi64>, tensor<i64>
  return %i, %n, %j, %m : tensor<1x4xi64>, tensor<i64>, tensor<1x3xi64>, tensor<i64>
}
