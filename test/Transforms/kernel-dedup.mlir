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

// -----

// Nests that differ only in where their buffers sit (DenseNet's
// concatenations: the same copy into channels 0-1 and 2-3 of buffers with
// 4 and 6 channels) share one function whose differing layout parts (the
// offset, the outermost stride) are dynamic; the calls cast to it. A view
// inside the nest follows its source (its offset becomes dynamic). The
// unit innermost stride stays static.
// CHECK-LABEL: func.func @placed
// CHECK:         %[[V0:.*]] = memref.subview %arg1[0, 0, 0] [2, 2, 8] [1, 1, 1]
// CHECK-NEXT:    %[[C0:.*]] = memref.cast %[[V0]] : memref<2x2x8xf32, strided<[32, 8, 1]>> to memref<2x2x8xf32, strided<[?, 8, 1], offset: ?>>
// CHECK-NEXT:    call @placed_nest0(%[[C0]], %arg0) : (memref<2x2x8xf32, strided<[?, 8, 1], offset: ?>>, memref<2x2x8xf32>) -> ()
// CHECK-NEXT:    %[[V1:.*]] = memref.subview %arg1[0, 2, 0] [2, 2, 8] [1, 1, 1]
// CHECK-NEXT:    %[[C1:.*]] = memref.cast %[[V1]] : memref<2x2x8xf32, strided<[32, 8, 1], offset: 16>> to memref<2x2x8xf32, strided<[?, 8, 1], offset: ?>>
// CHECK-NEXT:    call @placed_nest0(%[[C1]], %arg0)
// CHECK-NEXT:    %[[V2:.*]] = memref.subview %arg2[0, 2, 0] [2, 2, 8] [1, 1, 1]
// CHECK-NEXT:    %[[C2:.*]] = memref.cast %[[V2]] : memref<2x2x8xf32, strided<[48, 8, 1], offset: 16>> to memref<2x2x8xf32, strided<[?, 8, 1], offset: ?>>
// CHECK-NEXT:    call @placed_nest0(%[[C2]], %arg0)
// CHECK:       func.func private @placed_nest0(%[[OUT:.*]]: memref<2x2x8xf32, strided<[?, 8, 1], offset: ?>>, %{{.*}}: memref<2x2x8xf32>)
// CHECK:         memref.subview %[[OUT]][%{{.*}}, 0, 0] [1, 2, 8] [1, 1, 1] : memref<2x2x8xf32, strided<[?, 8, 1], offset: ?>> to memref<1x2x8xf32, strided<[?, 8, 1], offset: ?>>
// CHECK-NOT:   func.func private @placed_nest1
func.func @placed(%x: memref<2x2x8xf32>, %buf4: memref<2x4x8xf32>, %buf6: memref<2x6x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %v0 = memref.subview %buf4[0, 0, 0] [2, 2, 8] [1, 1, 1] : memref<2x4x8xf32> to memref<2x2x8xf32, strided<[32, 8, 1]>>
  scf.for %n = %c0 to %c2 step %c1 {
    %row = memref.subview %v0[%n, 0, 0] [1, 2, 8] [1, 1, 1] : memref<2x2x8xf32, strided<[32, 8, 1]>> to memref<1x2x8xf32, strided<[32, 8, 1], offset: ?>>
    scf.for %c = %c0 to %c2 step %c1 {
      scf.for %w = %c0 to %c8 step %c1 {
        %e = memref.load %x[%n, %c, %w] : memref<2x2x8xf32>
        memref.store %e, %row[%c0, %c, %w] : memref<1x2x8xf32, strided<[32, 8, 1], offset: ?>>
      }
    }
  }
  %v1 = memref.subview %buf4[0, 2, 0] [2, 2, 8] [1, 1, 1] : memref<2x4x8xf32> to memref<2x2x8xf32, strided<[32, 8, 1], offset: 16>>
  scf.for %n = %c0 to %c2 step %c1 {
    %row = memref.subview %v1[%n, 0, 0] [1, 2, 8] [1, 1, 1] : memref<2x2x8xf32, strided<[32, 8, 1], offset: 16>> to memref<1x2x8xf32, strided<[32, 8, 1], offset: ?>>
    scf.for %c = %c0 to %c2 step %c1 {
      scf.for %w = %c0 to %c8 step %c1 {
        %e = memref.load %x[%n, %c, %w] : memref<2x2x8xf32>
        memref.store %e, %row[%c0, %c, %w] : memref<1x2x8xf32, strided<[32, 8, 1], offset: ?>>
      }
    }
  }
  %v2 = memref.subview %buf6[0, 2, 0] [2, 2, 8] [1, 1, 1] : memref<2x6x8xf32> to memref<2x2x8xf32, strided<[48, 8, 1], offset: 16>>
  scf.for %n = %c0 to %c2 step %c1 {
    %row = memref.subview %v2[%n, 0, 0] [1, 2, 8] [1, 1, 1] : memref<2x2x8xf32, strided<[48, 8, 1], offset: 16>> to memref<1x2x8xf32, strided<[48, 8, 1], offset: ?>>
    scf.for %c = %c0 to %c2 step %c1 {
      scf.for %w = %c0 to %c8 step %c1 {
        %e = memref.load %x[%n, %c, %w] : memref<2x2x8xf32>
        memref.store %e, %row[%c0, %c, %w] : memref<1x2x8xf32, strided<[48, 8, 1], offset: ?>>
      }
    }
  }
  return
}

// -----

// What stays apart: an innermost stride that differs (a unit stride is
// what vector loads need), and a view the generalisation does not follow
// (memref.expand_shape of a moved buffer). Identical nests among them
// still share.
// CHECK-LABEL: func.func @apart
// CHECK:         call @apart_nest0(
// CHECK:         call @apart_nest1(
// CHECK:         call @apart_nest2(
// CHECK:         call @apart_nest3(
// CHECK:         call @apart_nest2(
// CHECK-NOT:     memref.cast
// CHECK:       func.func private @apart_nest3(%{{.*}}: memref<4xf32, strided<[1], offset: 8>>)
// CHECK:       func.func private @apart_nest2(%{{.*}}: memref<4xf32, strided<[1], offset: 4>>)
// CHECK:       func.func private @apart_nest1(%{{.*}}: memref<4xf32, strided<[2], offset: 1>>)
// CHECK:       func.func private @apart_nest0(%{{.*}}: memref<4xf32, strided<[1], offset: 1>>)
func.func @apart(%buf: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f32
  %a = memref.subview %buf[1] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: 1>>
  scf.for %i = %c0 to %c4 step %c1 {
    memref.store %one, %a[%i] : memref<4xf32, strided<[1], offset: 1>>
  }
  %b = memref.subview %buf[1] [4] [2] : memref<16xf32> to memref<4xf32, strided<[2], offset: 1>>
  scf.for %i = %c0 to %c4 step %c1 {
    memref.store %one, %b[%i] : memref<4xf32, strided<[2], offset: 1>>
  }
  %c = memref.subview %buf[4] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: 4>>
  scf.for %i = %c0 to %c4 step %c1 {
    %r = memref.expand_shape %c [[0, 1]] output_shape [2, 2] : memref<4xf32, strided<[1], offset: 4>> into memref<2x2xf32, strided<[2, 1], offset: 4>>
    memref.store %one, %r[%c0, %c0] : memref<2x2xf32, strided<[2, 1], offset: 4>>
  }
  %d = memref.subview %buf[8] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: 8>>
  scf.for %i = %c0 to %c4 step %c1 {
    %r = memref.expand_shape %d [[0, 1]] output_shape [2, 2] : memref<4xf32, strided<[1], offset: 8>> into memref<2x2xf32, strided<[2, 1], offset: 8>>
    memref.store %one, %r[%c0, %c0] : memref<2x2xf32, strided<[2, 1], offset: 8>>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %r = memref.expand_shape %c [[0, 1]] output_shape [2, 2] : memref<4xf32, strided<[1], offset: 4>> into memref<2x2xf32, strided<[2, 1], offset: 4>>
    memref.store %one, %r[%c0, %c0] : memref<2x2xf32, strided<[2, 1], offset: 4>>
  }
  return
}
