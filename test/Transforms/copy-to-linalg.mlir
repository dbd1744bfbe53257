// --dlc-copy-to-linalg: strided memref.copy becomes linalg.copy (a loop
// nest LLVM vectorises); a contiguous copy stays a memref.copy (a memcpy).
// RUN: dlc-opt %s --dlc-copy-to-linalg | FileCheck %s

// CHECK-LABEL: func @strided
// CHECK:       %[[V:.*]] = memref.subview
// CHECK-NEXT:  linalg.copy ins(%arg0 : memref<64x64xf32>) outs(%[[V]] : memref<64x64xf32, strided<[80, 1]>>)
// CHECK:       memref.copy %arg0, %{{.*}} : memref<64x64xf32> to memref<64x64xf32>
func.func @strided(%b: memref<64x64xf32>, %a: memref<64x80xf32>, %d: memref<64x64xf32>) {
  %v = memref.subview %a[0, 0] [64, 64] [1, 1] : memref<64x80xf32> to memref<64x64xf32, strided<[80, 1]>>
  memref.copy %b, %v : memref<64x64xf32> to memref<64x64xf32, strided<[80, 1]>>
  memref.copy %b, %d : memref<64x64xf32> to memref<64x64xf32>
  return
}
