// RUN: dlc-opt %s --split-input-file --dlc-order-globals | FileCheck %s

// The whole CPU pipeline gives the same output on every run (before this
// pass, six runs on this input gave four different outputs):
// RUN: dlc-opt %S/Inputs/order-globals-model.mlir --lower-to-llvm > %t.1
// RUN: dlc-opt %S/Inputs/order-globals-model.mlir --lower-to-llvm > %t.2
// RUN: dlc-opt %S/Inputs/order-globals-model.mlir --lower-to-llvm > %t.3
// RUN: dlc-opt %S/Inputs/order-globals-model.mlir --lower-to-llvm > %t.4
// RUN: diff %t.1 %t.2
// RUN: diff %t.1 %t.3
// RUN: diff %t.1 %t.4

// Bufferization's constants in first-use order, renamed in that order:
// the first of each type keeps the plain name, the next ones _0, _1.
// CHECK-LABEL: module
// CHECK:      memref.global "private" constant @__constant_2xf32 : memref<2xf32> = dense<[3.000000e+00, 4.000000e+00]>
// CHECK-NEXT: memref.global "private" constant @__constant_4xi32 : memref<4xi32> = dense<7>
// CHECK-NEXT: memref.global "private" constant @__constant_2xf32_0 : memref<2xf32> = dense<[1.000000e+00, 2.000000e+00]>
// CHECK-NEXT: memref.global "private" constant @__constant_2xf32_1 : memref<2xf32> = dense<5.000000e+00>
// CHECK-NEXT: memref.global "private" @keep : memref<2xf32>
// CHECK-LABEL: func.func @first
// CHECK:      memref.get_global @__constant_2xf32 :
// CHECK-NEXT: memref.get_global @__constant_4xi32 :
// CHECK-NEXT: memref.get_global @__constant_2xf32 :
// CHECK-LABEL: func.func @second
// CHECK:      memref.get_global @__constant_2xf32_0 :
// CHECK-NEXT: memref.get_global @keep :
// CHECK-NOT:  __constant_2xf32_1
module {
  memref.global "private" constant @__constant_2xf32_0 : memref<2xf32> = dense<5.0>
  memref.global "private" constant @__constant_2xf32 : memref<2xf32> = dense<[1.0, 2.0]>
  memref.global "private" constant @__constant_4xi32_3 : memref<4xi32> = dense<7>
  memref.global "private" constant @__constant_2xf32_1 : memref<2xf32> = dense<[3.0, 4.0]>
  memref.global "private" @keep : memref<2xf32>
  func.func @first() -> (memref<2xf32>, memref<4xi32>, memref<2xf32>) {
    %a = memref.get_global @__constant_2xf32_1 : memref<2xf32>
    %b = memref.get_global @__constant_4xi32_3 : memref<4xi32>
    %c = memref.get_global @__constant_2xf32_1 : memref<2xf32>
    return %a, %b, %c : memref<2xf32>, memref<4xi32>, memref<2xf32>
  }
  func.func @second() -> (memref<2xf32>, memref<2xf32>) {
    %a = memref.get_global @__constant_2xf32 : memref<2xf32>
    %k = memref.get_global @keep : memref<2xf32>
    return %a, %k : memref<2xf32>, memref<2xf32>
  }
}

// -----

// One constant: nothing to order, left as it is.
// CHECK-LABEL: module
// CHECK: memref.global "private" constant @__constant_2xf32_4
module {
  memref.global "private" constant @__constant_2xf32_4 : memref<2xf32> = dense<5.0>
  func.func @f() -> memref<2xf32> {
    %a = memref.get_global @__constant_2xf32_4 : memref<2xf32>
    return %a : memref<2xf32>
  }
}
