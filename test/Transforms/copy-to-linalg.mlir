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

// With cpu (the CPU pipeline's option), rows contiguous on both sides and
// at most 128 elements long are copied one row-long vector per iteration
// (LLVM unrolled such short loops into scalar moves); longer rows and
// strided ones stay a linalg.copy.
// RUN: dlc-opt %s --dlc-copy-to-linalg=cpu=true --canonicalize | FileCheck %s --check-prefix=ROWS

// ROWS-LABEL: func @rows
// ROWS:       scf.for %[[I:.*]] = %c0 to %c2
// ROWS-NEXT:  scf.for %[[J:.*]] = %c0 to %c3
// ROWS-NEXT:  %[[S:.*]] = memref.subview %arg0[%[[I]], %[[J]], 0] [1, 1, 56] [1, 1, 1]
// ROWS-NEXT:  %[[D:.*]] = memref.subview %{{.*}}[%[[I]], %[[J]], 0] [1, 1, 56] [1, 1, 1]
// ROWS-NEXT:  %[[V:.*]] = vector.transfer_read %[[S]]{{.*}} {in_bounds = [true, true, true]} {{.*}}, vector<1x1x56xf32>
// ROWS-NEXT:  vector.transfer_write %[[V]], %[[D]]
// ROWS-NOT:   linalg.copy
func.func @rows(%b: memref<2x3x56xf32>, %a: memref<2x3x58xf32>) {
  %v = memref.subview %a[0, 0, 1] [2, 3, 56] [1, 1, 1] : memref<2x3x58xf32> to memref<2x3x56xf32, strided<[174, 58, 1], offset: 1>>
  memref.copy %b, %v : memref<2x3x56xf32> to memref<2x3x56xf32, strided<[174, 58, 1], offset: 1>>
  return
}

// One row: no loop.
// ROWS-LABEL: func @one_row
// ROWS-NOT:   scf.for
// ROWS:       %[[V:.*]] = vector.transfer_read %arg0{{.*}} vector<1x1x56xf32>
// ROWS-NEXT:  vector.transfer_write %[[V]]
func.func @one_row(%b: memref<1x1x56xf32>, %a: memref<1x1x58xf32>) {
  %v = memref.subview %a[0, 0, 1] [1, 1, 56] [1, 1, 1] : memref<1x1x58xf32> to memref<1x1x56xf32, strided<[58, 58, 1], offset: 1>>
  memref.copy %b, %v : memref<1x1x56xf32> to memref<1x1x56xf32, strided<[58, 58, 1], offset: 1>>
  return
}

// ROWS-LABEL: func @long_rows
// ROWS-NOT:   vector.transfer_read
// ROWS:       linalg.copy ins(%arg0 : memref<4x200xf32>)
func.func @long_rows(%b: memref<4x200xf32>, %a: memref<4x202xf32>) {
  %v = memref.subview %a[0, 1] [4, 200] [1, 1] : memref<4x202xf32> to memref<4x200xf32, strided<[202, 1], offset: 1>>
  memref.copy %b, %v : memref<4x200xf32> to memref<4x200xf32, strided<[202, 1], offset: 1>>
  return
}

// ROWS-LABEL: func @strided_rows
// ROWS-NOT:   vector.transfer_read
// ROWS:       linalg.copy ins(%arg0 : memref<4x8xf32>)
func.func @strided_rows(%b: memref<4x8xf32>, %a: memref<4x16xf32>) {
  %v = memref.subview %a[0, 0] [4, 8] [1, 2] : memref<4x16xf32> to memref<4x8xf32, strided<[16, 2]>>
  memref.copy %b, %v : memref<4x8xf32> to memref<4x8xf32, strided<[16, 2]>>
  return
}

// A pad: the fill of the whole buffer just before the copy into its
// interior is cut down to the slabs around the interior (below and above
// it along H, then left and right of it along W within the interior rows),
// so the interior is written once.
// ROWS-LABEL: func @pad
// ROWS-NOT:   linalg.fill ins(%{{.*}}) outs(%arg1 :
// ROWS:       %[[T:.*]] = memref.subview %arg1[0, 0, 0] [2, 1, 10] [1, 1, 1] : memref<2x6x10xf32> to memref<2x1x10xf32, strided<[60, 10, 1]>>
// ROWS-NEXT:  linalg.fill ins(%{{.*}} : f32) outs(%[[T]] :
// ROWS-NEXT:  %[[B:.*]] = memref.subview %arg1[0, 5, 0] [2, 1, 10] [1, 1, 1] : memref<2x6x10xf32> to memref<2x1x10xf32, strided<[60, 10, 1], offset: 50>>
// ROWS-NEXT:  linalg.fill ins(%{{.*}} : f32) outs(%[[B]] :
// ROWS-NEXT:  %[[L:.*]] = memref.subview %arg1[0, 1, 0] [2, 4, 2] [1, 1, 1] : memref<2x6x10xf32> to memref<2x4x2xf32, strided<[60, 10, 1], offset: 10>>
// ROWS-NEXT:  linalg.fill ins(%{{.*}} : f32) outs(%[[L]] :
// ROWS-NEXT:  %[[R:.*]] = memref.subview %arg1[0, 1, 8] [2, 4, 2] [1, 1, 1] : memref<2x6x10xf32> to memref<2x4x2xf32, strided<[60, 10, 1], offset: 18>>
// ROWS-NEXT:  linalg.fill ins(%{{.*}} : f32) outs(%[[R]] :
// ROWS:       vector.transfer_read %{{.*}} vector<1x1x6xf32>
func.func @pad(%x: memref<2x4x6xf32>, %p: memref<2x6x10xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%p : memref<2x6x10xf32>)
  %v = memref.subview %p[0, 1, 2] [2, 4, 6] [1, 1, 1] : memref<2x6x10xf32> to memref<2x4x6xf32, strided<[60, 10, 1], offset: 12>>
  memref.copy %x, %v : memref<2x4x6xf32> to memref<2x4x6xf32, strided<[60, 10, 1], offset: 12>>
  return
}

// Something between the fill and the copy (here a read of the buffer):
// the fill stays whole.
// ROWS-LABEL: func @pad_read_between
// ROWS:       linalg.fill ins(%{{.*}} : f32) outs(%arg1 : memref<2x6x10xf32>)
func.func @pad_read_between(%x: memref<2x4x6xf32>, %p: memref<2x6x10xf32>, %i: index) -> f32 {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%p : memref<2x6x10xf32>)
  %r = memref.load %p[%i, %i, %i] : memref<2x6x10xf32>
  %v = memref.subview %p[0, 1, 2] [2, 4, 6] [1, 1, 1] : memref<2x6x10xf32> to memref<2x4x6xf32, strided<[60, 10, 1], offset: 12>>
  memref.copy %x, %v : memref<2x4x6xf32> to memref<2x4x6xf32, strided<[60, 10, 1], offset: 12>>
  return %r : f32
}

// A copy of 256 KiB or more is split among threads first: an scf.forall
// over 8 blocks of its first dim longer than one (here 8 of the 64
// channels each), the rows inside as above.
// ROWS-LABEL: func @parallel_rows
// ROWS:       scf.forall (%{{.*}}) in (8)
// ROWS:       memref.subview %arg0[0, %{{.*}}, 0, 0] [1, 8, 56, 56]
// ROWS:       scf.for %{{.*}} = %c0 to %c8
// ROWS-NEXT:  scf.for %{{.*}} = %c0 to %c56
// ROWS:       vector.transfer_read {{.*}} vector<1x1x1x56xf32>
func.func @parallel_rows(%x: memref<1x64x56x56xf32>, %p: memref<1x64x58x58xf32>) {
  %v = memref.subview %p[0, 0, 1, 1] [1, 64, 56, 56] [1, 1, 1, 1] : memref<1x64x58x58xf32> to memref<1x64x56x56xf32, strided<[215296, 3364, 58, 1], offset: 59>>
  memref.copy %x, %v : memref<1x64x56x56xf32> to memref<1x64x56x56xf32, strided<[215296, 3364, 58, 1], offset: 59>>
  return
}
