// --dlc-copy-to-linalg: strided memref.copy becomes linalg.copy; a padding
// fill that only the copied subview could read is erased.
// RUN: dlc-opt %s --split-input-file --dlc-copy-to-linalg | FileCheck %s

// CHECK:       memref.global "private" @__dlc_scratch_0 : memref<64x80xf32> = uninitialized {alignment = 64 : i64}
// CHECK-LABEL: func @padded_rows
// CHECK-NOT:   linalg.map
// CHECK:       %[[G:.*]] = memref.get_global @__dlc_scratch_0 : memref<64x80xf32>
// CHECK:       %[[V:.*]] = memref.subview %[[G]]
// CHECK-NEXT:  linalg.copy ins(%arg0 : memref<64x64xf32>) outs(%[[V]] : memref<64x64xf32, strided<[80, 1]>>)
// CHECK-NOT:   memref.copy
// CHECK-NOT:   memref.dealloc
func.func @padded_rows(%b: memref<64x64xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<64x80xf32>
  linalg.map outs(%a : memref<64x80xf32>) (%init: f32) { linalg.yield %z : f32 }
  %v = memref.subview %a[0, 0] [64, 64] [1, 1] : memref<64x80xf32> to memref<64x64xf32, strided<[80, 1]>>
  memref.copy %b, %v : memref<64x64xf32> to memref<64x64xf32, strided<[80, 1]>>
  %x = memref.load %v[%c0, %c0] : memref<64x64xf32, strided<[80, 1]>>
  memref.dealloc %a : memref<64x80xf32>
  return %x : f32
}

// -----

// The padding is read through the whole buffer: the fill stays. A
// contiguous copy stays a memref.copy (it becomes a memcpy).
// CHECK-LABEL: func @padding_read
// CHECK:       linalg.map
// CHECK:       linalg.copy
// CHECK:       memref.copy %arg0, %{{.*}} : memref<64x64xf32> to memref<64x64xf32>
func.func @padding_read(%b: memref<64x64xf32>) -> f32 {
  %c70 = arith.constant 70 : index
  %z = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<64x80xf32>
  linalg.map outs(%a : memref<64x80xf32>) (%init: f32) { linalg.yield %z : f32 }
  %v = memref.subview %a[0, 0] [64, 64] [1, 1] : memref<64x80xf32> to memref<64x64xf32, strided<[80, 1]>>
  memref.copy %b, %v : memref<64x64xf32> to memref<64x64xf32, strided<[80, 1]>>
  %x = memref.load %a[%c70, %c70] : memref<64x80xf32>
  %d = memref.alloc() : memref<64x64xf32>
  memref.copy %b, %d : memref<64x64xf32> to memref<64x64xf32>
  return %x : f32
}
