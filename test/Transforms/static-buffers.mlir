// --dlc-static-buffers: a result copied out of a temporary is computed in
// the out-parameter (the other temporaries go to the workspace arena of
// --dlc-memory-plan: test/Transforms/memory-plan.mlir).
// RUN: dlc-opt %s --split-input-file --dlc-static-buffers | FileCheck %s

// The kernels wrote C in panels [4][64][16]; the copy of its reshape into
// the out-parameter goes, and the panels are a view of the out-parameter.
// CHECK-LABEL: func @elide
// CHECK-NEXT:  %[[V:.*]] = memref.expand_shape %arg1 {{\[}}[0], [1, 2]] output_shape [4, 64, 16] : memref<4x1024xf32> into memref<4x64x16xf32>
// CHECK-NEXT:  linalg.fill ins(%{{.*}}) outs(%[[V]] : memref<4x64x16xf32>)
// CHECK-NOT:   memref.alloc
// CHECK-NOT:   memref.copy
// CHECK-NOT:   memref.dealloc
func.func @elide(%x: f32, %out: memref<4x1024xf32>) {
  %t = memref.alloc() : memref<4x64x16xf32>
  linalg.fill ins(%x : f32) outs(%t : memref<4x64x16xf32>)
  %v = memref.collapse_shape %t [[0], [1, 2]] : memref<4x64x16xf32> into memref<4x1024xf32>
  memref.copy %v, %out : memref<4x1024xf32> to memref<4x1024xf32>
  memref.dealloc %t : memref<4x64x16xf32>
  return
}

// -----

// The temporary is written after the copy: the copy stays, and so do the
// allocs (no module globals: the compiled code keeps no mutable state).
// CHECK-NOT:   memref.global
// CHECK-LABEL: func @keep
// CHECK:       %[[T:.*]] = memref.alloc() : memref<256x256xf32>
// CHECK:       memref.alloc() : memref<32x32xf32>
// CHECK:       memref.copy %[[T]], %arg1
// CHECK:       linalg.fill ins(%{{.*}}) outs(%[[T]]
// CHECK:       memref.dealloc %[[T]]
func.func @keep(%x: f32, %out: memref<256x256xf32>) {
  %t = memref.alloc() : memref<256x256xf32>
  %s = memref.alloc() : memref<32x32xf32>
  linalg.fill ins(%x : f32) outs(%t : memref<256x256xf32>)
  memref.copy %t, %out : memref<256x256xf32> to memref<256x256xf32>
  linalg.fill ins(%x : f32) outs(%t : memref<256x256xf32>)
  memref.dealloc %t : memref<256x256xf32>
  memref.dealloc %s : memref<32x32xf32>
  return
}

// -----

// The out-parameter is also read: the copy stays.
// CHECK-LABEL: func @out_read
// CHECK:       memref.copy
func.func @out_read(%x: f32, %out: memref<8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %t = memref.alloc() : memref<8xf32>
  linalg.fill ins(%x : f32) outs(%t : memref<8xf32>)
  %r = memref.load %out[%c0] : memref<8xf32>
  memref.copy %t, %out : memref<8xf32> to memref<8xf32>
  memref.dealloc %t : memref<8xf32>
  return %r : f32
}
