// dlg.update_row becomes a tensor.insert_slice of the row at the clamped
// run-time index (a rank-reducing insert: the row is the slice less its unit
// dim 0). In a loop that carries the buffer first, bufferization then writes
// the row in place: no copy of the buffer per trip (the select it replaced,
// where(arange == i, row, buffer), read and wrote all of it).
// RUN: dlc-opt %s --split-input-file --dlk-to-linalg | FileCheck %s
// RUN: dlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(dlg-fuse),dlk-to-linalg,func.func(linalg-fuse-elementwise-ops),canonicalize,cse,inline,symbol-dce,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map allow-return-allocs-from-loops})' | FileCheck %s --check-prefix=BUF

// CHECK-LABEL: func.func @row
// CHECK: %[[I:.*]] = tensor.extract %arg2[] : tensor<i64>
// CHECK-NEXT: %[[X:.*]] = arith.index_cast %[[I]] : i64 to index
// CHECK-DAG: %[[LO:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[HI:.*]] = arith.constant 9 : index
// CHECK: %[[A:.*]] = arith.maxsi %[[X]], %[[LO]] : index
// CHECK-NEXT: %[[B:.*]] = arith.minsi %[[A]], %[[HI]] : index
// CHECK-NEXT: %[[R:.*]] = tensor.insert_slice %arg1 into %arg0[%[[B]], 0, 0] [1, 3, 2] [1, 1, 1] : tensor<3x2xf32> into tensor<10x3x2xf32>
// CHECK-NEXT: return %[[R]]
func.func @row(%b: tensor<10x3x2xf32>, %r: tensor<3x2xf32>, %i: tensor<i64>) -> tensor<10x3x2xf32> {
  %0 = dlg.update_row %b[%i], %r : tensor<10x3x2xf32>[tensor<i64>], tensor<3x2xf32>
  return %0 : tensor<10x3x2xf32>
}

// -----

// A loop as the ONNX importer builds it: (buffer, i, go) carried, the buffer
// first; row i := x * i while i < 10 and the row sums stay under 100. The
// body ignores go, so canonicalization drops it from the condition's
// operands: a buffer carried after it would shift and be copied each trip
// (one alloc and copy of 10x4 per trip); carried first, it passes through.
// BUF-LABEL: func.func @loop
// BUF: memref.alloc() {{.*}} : memref<10x4xf32>
// BUF: scf.while (%[[BB:[a-z0-9_]+]] = %{{.*}}) : (memref<10x4xf32>
// BUF-NOT: memref.alloc() {{.*}} : memref<10x4xf32>
// BUF: scf.condition(%{{.*}}) %[[BB]], %{{.*}} : memref<10x4xf32>, memref<i64>
// BUF-NOT: memref.alloc() {{.*}} : memref<10x4xf32>
// BUF: memref.subview %{{.*}}[%{{.*}}, 0] [1, 4] [1, 1] : memref<10x4xf32> to memref<4xf32, strided<[1], offset: ?>>
// BUF: memref.copy %{{.*}}, %{{.*}} : memref<4xf32> to memref<4xf32, strided<[1], offset: ?>>
// BUF-NOT: memref.alloc() {{.*}} : memref<10x4xf32>
// BUF: return
func.func @loop(%x: tensor<4xf32>, %c0: tensor<i1>) -> tensor<10x4xf32> {
  %z = dlg.constant dense<0.0> : tensor<10x4xf32>
  %i0 = dlg.constant dense<0> : tensor<i64>
  %n = dlg.constant dense<10> : tensor<i64>
  %one = dlg.constant dense<1> : tensor<i64>
  %r:3 = dlg.while (%z, %i0, %c0) : (tensor<10x4xf32>, tensor<i64>, tensor<i1>) -> (tensor<10x4xf32>, tensor<i64>, tensor<i1>) {
  ^bb0(%b: tensor<10x4xf32>, %i: tensor<i64>, %c: tensor<i1>):
    %l = dlg.less %i, %n : tensor<i64>, tensor<i64> -> tensor<i1>
    %go = dlg.where %c, %l, %c : tensor<i1>, tensor<i1>, tensor<i1> -> tensor<i1>
    dlg.condition(%go : tensor<i1>) %b, %i, %c : tensor<10x4xf32>, tensor<i64>, tensor<i1>
  } do {
  ^bb0(%b: tensor<10x4xf32>, %i: tensor<i64>, %c: tensor<i1>):
    %f = dlg.cast %i : tensor<i64> -> tensor<f32>
    %v = dlg.mul %x, %f : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
    %b2 = dlg.update_row %b[%i], %v : tensor<10x4xf32>[tensor<i64>], tensor<4xf32>
    %i2 = dlg.add %i, %one : tensor<i64>, tensor<i64> -> tensor<i64>
    %s = dlg.reduce_sum %v {axes = array<i64>} : tensor<4xf32> -> tensor<f32>
    %z0 = dlg.constant dense<100.0> : tensor<f32>
    %c2 = dlg.less %s, %z0 : tensor<f32>, tensor<f32> -> tensor<i1>
    dlg.yield %b2, %i2, %c2 : tensor<10x4xf32>, tensor<i64>, tensor<i1>
  }
  return %r#0 : tensor<10x4xf32>
}
