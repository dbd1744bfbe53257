// dlg.non_zero: round trip (custom and generic form) and the result types
// its shape rule infers: [rank, elements] padded indices, dynamic where a
// dim is, and a 0-d count.
// RUN: dlc-opt %s | dlc-opt | FileCheck %s
// RUN: dlc-opt %s --mlir-print-op-generic | dlc-opt | FileCheck %s

// CHECK-LABEL: func.func @matrix
// CHECK: dlg.non_zero %{{.*}} : tensor<2x3xf32> -> tensor<2x6xi64>, tensor<i64>
func.func @matrix(%x: tensor<2x3xf32>) -> (tensor<2x6xi64>, tensor<i64>) {
  %i, %n = dlg.non_zero %x : tensor<2x3xf32> -> tensor<2x6xi64>, tensor<i64>
  return %i, %n : tensor<2x6xi64>, tensor<i64>
}

// Any element type dlg has; rank 1 gives one row.
// CHECK-LABEL: func.func @types
// CHECK: dlg.non_zero %{{.*}} : tensor<5xi1> -> tensor<1x5xi64>, tensor<i64>
// CHECK: dlg.non_zero %{{.*}} : tensor<2x2x2xi8> -> tensor<3x8xi64>, tensor<i64>
// CHECK: dlg.non_zero %{{.*}} : tensor<4xbf16> -> tensor<1x4xi64>, tensor<i64>
func.func @types(%a: tensor<5xi1>, %b: tensor<2x2x2xi8>, %c: tensor<4xbf16>) -> (tensor<1x5xi64>, tensor<3x8xi64>, tensor<1x4xi64>) {
  %i, %n = dlg.non_zero %a : tensor<5xi1> -> tensor<1x5xi64>, tensor<i64>
  %j, %m = dlg.non_zero %b : tensor<2x2x2xi8> -> tensor<3x8xi64>, tensor<i64>
  %k, %o = dlg.non_zero %c : tensor<4xbf16> -> tensor<1x4xi64>, tensor<i64>
  return %i, %j, %k : tensor<1x5xi64>, tensor<3x8xi64>, tensor<1x4xi64>
}

// A dynamic dim makes the element count dynamic; a zero dim makes it 0.
// CHECK-LABEL: func.func @dynamic
// CHECK: dlg.non_zero %{{.*}} : tensor<?x3xi64> -> tensor<2x?xi64>, tensor<i64>
// CHECK: dlg.non_zero %{{.*}} : tensor<0x3xi32> -> tensor<2x0xi64>, tensor<i64>
func.func @dynamic(%x: tensor<?x3xi64>, %y: tensor<0x3xi32>) -> (tensor<2x?xi64>, tensor<2x0xi64>) {
  %i, %n = dlg.non_zero %x : tensor<?x3xi64> -> tensor<2x?xi64>, tensor<i64>
  %j, %m = dlg.non_zero %y : tensor<0x3xi32> -> tensor<2x0xi64>, tensor<i64>
  return %i, %j : tensor<2x?xi64>, tensor<2x0xi64>
}
