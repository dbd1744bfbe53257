// --dlc-kernel-dedup: each loop nest at the top of a function becomes a
// private internal noinline function taking the values it uses from outside
// (constants cloned in), and nests that are the same share one function.
// RUN: dlc-opt %s --split-input-file --dlc-kernel-dedup | FileCheck %s

// The same nest on two pairs of buffers: one function, called twice with
// each pair; the loop bounds and the scale are cloned in as constants.
// CHECK-LABEL: func.func @same
// CHECK-NEXT:    arith.constant
// CHECK-NEXT:    arith.constant
// CHECK-NEXT:    arith.constant
// CHECK-NEXT:    arith.constant
// CHECK-NEXT:    call @same_nest0(%arg0, %arg1) : (memref<64xf32>, memref<64xf32>) -> ()
// CHECK-NEXT:    call @same_nest0(%arg2, %arg3) : (memref<64xf32>, memref<64xf32>) -> ()
// CHECK-NEXT:    return
// CHECK:       func.func private @same_nest0(%[[A:.*]]: memref<64xf32>, %[[B:.*]]: memref<64xf32>)
// CHECK-SAME:    attributes {llvm.linkage = #llvm.linkage<internal>, passthrough = ["noinline"]}
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK:         scf.for %[[I:.*]] = %[[C0]] to %[[C64]] step %[[C1]] {
// CHECK-NEXT:      %[[X:.*]] = memref.load %[[A]][%[[I]]]
// CHECK-NEXT:      %[[Y:.*]] = arith.mulf %[[X]], %[[TWO]]
// CHECK-NEXT:      memref.store %[[Y]], %[[B]][%[[I]]]
// CHECK:         return
// CHECK-NOT:   func.func private @same_nest1
func.func @same(%a: memref<64xf32>, %b: memref<64xf32>, %c: memref<64xf32>, %d: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  scf.for %i = %c0 to %c64 step %c1 {
    %x = memref.load %a[%i] : memref<64xf32>
    %y = arith.mulf %x, %two : f32
    memref.store %y, %b[%i] : memref<64xf32>
  }
  scf.for %i = %c0 to %c64 step %c1 {
    %x = memref.load %c[%i] : memref<64xf32>
    %y = arith.mulf %x, %two : f32
    memref.store %y, %d[%i] : memref<64xf32>
  }
  return
}

// -----

// Nests that differ are kept apart: another constant (3.0), and the same
// buffer read and written (in place) where the first nest has two; the
// in-place nest takes one argument.
// CHECK-LABEL: func.func @different
// CHECK:         call @different_nest0(%arg0, %arg1)
// CHECK-NEXT:    call @different_nest1(%arg0, %arg1)
// CHECK-NEXT:    call @different_nest2(%arg0) : (memref<64xf32>) -> ()
// CHECK:       func.func private @different_nest2(%{{.*}}: memref<64xf32>)
// CHECK:         arith.constant 2.000000e+00 : f32
// CHECK:       func.func private @different_nest1(
// CHECK:         arith.constant 3.000000e+00 : f32
// CHECK:       func.func private @different_nest0(
// CHECK:         arith.constant 2.000000e+00 : f32
func.func @different(%a: memref<64xf32>, %b: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  %three = arith.constant 3.0 : f32
  scf.for %i = %c0 to %c64 step %c1 {
    %x = memref.load %a[%i] : memref<64xf32>
    %y = arith.mulf %x, %two : f32
    memref.store %y, %b[%i] : memref<64xf32>
  }
  scf.for %i = %c0 to %c64 step %c1 {
    %x = memref.load %a[%i] : memref<64xf32>
    %y = arith.mulf %x, %three : f32
    memref.store %y, %b[%i] : memref<64xf32>
  }
  scf.for %i = %c0 to %c64 step %c1 {
    %x = memref.load %a[%i] : memref<64xf32>
    %y = arith.mulf %x, %two : f32
    memref.store %y, %a[%i] : memref<64xf32>
  }
  return
}

// -----

// Values computed outside the nest (a dynamic size) are arguments; a nest
// with results (a reduction carried out of scf.for) and ops without regions
// stay where they are; declarations are left alone.
// CHECK:       func.func private @external(memref<?xf32>)
// CHECK-LABEL: func.func @dynamic
// CHECK:         %[[N:.*]] = memref.dim %arg0
// CHECK:         call @dynamic_nest0(%[[N]], %arg0) : (index, memref<?xf32>) -> ()
// CHECK:         %[[S:.*]] = scf.for
// CHECK:         memref.store %[[S]]
// CHECK:       func.func private @dynamic_nest0(%[[M:.*]]: index, %{{.*}}: memref<?xf32>)
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[M]] step
func.func private @external(memref<?xf32>)
func.func @dynamic(%a: memref<?xf32>, %out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %a, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    memref.store %zero, %a[%i] : memref<?xf32>
  }
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
    %x = memref.load %a[%i] : memref<?xf32>
    %y = arith.addf %acc, %x : f32
    scf.yield %y : f32
  }
  memref.store %s, %out[] : memref<f32>
  call @external(%a) : (memref<?xf32>) -> ()
  return
}
