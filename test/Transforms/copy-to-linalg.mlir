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

// With cpu (the CPU pipeline's option), copies of 64 KiB or more whose
// rows are contiguous on both sides and at most 128 elements long are
// copied one row-long vector per iteration (LLVM unrolled such short loops
// into scalar moves); longer rows, strided ones and small copies stay a
// linalg.copy. The row loops are marked never to be unrolled: LLVM
// unrolled them whole, and its instruction scheduling is quadratic in the
// memory operations of the blocks that made (0.85 s of ResNet-50's llc).
// RUN: dlc-opt %s --dlc-copy-to-linalg=cpu=true --canonicalize | FileCheck %s --check-prefix=ROWS
// The mark reaches the LLVM IR as llvm.loop metadata on the back edges.
// RUN: dlc-opt %s --dlc-copy-to-linalg=cpu=true --convert-linalg-to-loops --scf-forall-to-parallel --convert-vector-to-scf="full-unroll=true target-rank=1" --lower-affine --convert-scf-to-cf --convert-vector-to-llvm --expand-strided-metadata --lower-affine --finalize-memref-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN:   | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVM

// ROWS-DAG:   #[[UNROLL:.*]] = #llvm.loop_unroll<disable = true>
// ROWS-DAG:   #[[ROLLED:.*]] = #llvm.loop_annotation<unroll = #[[UNROLL]]>
// LLVM-LABEL: define void @rows
// LLVM:       br label %{{.*}}, !llvm.loop ![[ROLLED:[0-9]+]]
// LLVM:       br label %{{.*}}, !llvm.loop ![[ROLLED]]
// LLVM-LABEL: define void @small
// LLVM-NOT:   !llvm.loop
// LLVM-LABEL: define void @long_rows
// LLVM:       ![[ROLLED]] = distinct !{![[ROLLED]], ![[DISABLE:[0-9]+]]}
// LLVM:       ![[DISABLE]] = !{!"llvm.loop.unroll.disable"}

// ROWS-LABEL: func @rows
// ROWS:       scf.for %[[I:.*]] = %c0 to %c8
// ROWS-NEXT:  scf.for %[[J:.*]] = %c0 to %c64
// ROWS-NEXT:  %[[S:.*]] = memref.subview %arg0[%[[I]], %[[J]], 0] [1, 1, 56] [1, 1, 1]
// ROWS-NEXT:  %[[D:.*]] = memref.subview %{{.*}}[%[[I]], %[[J]], 0] [1, 1, 56] [1, 1, 1]
// ROWS-NEXT:  %[[V:.*]] = vector.transfer_read %[[S]]{{.*}} {in_bounds = [true, true, true]} {{.*}}, vector<1x1x56xf32>
// ROWS-NEXT:  vector.transfer_write %[[V]], %[[D]]
// ROWS-NEXT:  } {loop_annotation = #[[ROLLED]]}
// ROWS-NEXT:  } {loop_annotation = #[[ROLLED]]}
// ROWS-NOT:   linalg.copy
func.func @rows(%b: memref<8x64x56xf32>, %a: memref<8x64x58xf32>) {
  %v = memref.subview %a[0, 0, 1] [8, 64, 56] [1, 1, 1] : memref<8x64x58xf32> to memref<8x64x56xf32, strided<[3712, 58, 1], offset: 1>>
  memref.copy %b, %v : memref<8x64x56xf32> to memref<8x64x56xf32, strided<[3712, 58, 1], offset: 1>>
  return
}

// A direct conv's tile pads the slice of its input it reads, whose rows
// at the image's edges are fewer: a dynamic outer dim. Each row is still
// one static, contiguous vector; the copy is as large as the buffer it
// fills (64x9x58 floats, 133 KiB), well above the floor.
// ROWS-LABEL: func @tile_rows
// ROWS:       scf.for %[[C:.*]] = %c0 to %c64
// ROWS-NEXT:  scf.for %[[H:.*]] = %c0 to %arg2
// ROWS-NEXT:  %[[S:.*]] = memref.subview %{{.*}}[0, %[[C]], %[[H]], 0] [1, 1, 1, 56] [1, 1, 1, 1]
// ROWS-NEXT:  %[[D:.*]] = memref.subview %{{.*}}[0, %[[C]], %[[H]], 0] [1, 1, 1, 56] [1, 1, 1, 1]
// ROWS-NEXT:  %[[V:.*]] = vector.transfer_read %[[S]]{{.*}} vector<1x1x1x56xf32>
// ROWS-NEXT:  vector.transfer_write %[[V]], %[[D]]
// ROWS-NOT:   linalg.copy
func.func @tile_rows(%x: memref<1x64x56x56xf32>, %p: memref<1x64x9x58xf32>, %h: index, %lo: index, %at: index) {
  %s = memref.subview %x[0, 0, %at, 0] [1, 64, %h, 56] [1, 1, 1, 1] : memref<1x64x56x56xf32> to memref<1x64x?x56xf32, strided<[200704, 3136, 56, 1], offset: ?>>
  %v = memref.subview %p[0, 0, %lo, 1] [1, 64, %h, 56] [1, 1, 1, 1] : memref<1x64x9x58xf32> to memref<1x64x?x56xf32, strided<[33408, 522, 58, 1], offset: ?>>
  memref.copy %s, %v : memref<1x64x?x56xf32, strided<[200704, 3136, 56, 1], offset: ?>> to memref<1x64x?x56xf32, strided<[33408, 522, 58, 1], offset: ?>>
  return
}

// The same tile's pad: its interior starts at a dynamic row (%lo, where
// the tile overlaps the image's top) and has %h rows. The slabs above and
// below it are dynamic too ([0, %lo) and [%lo + %h, 9)), empty at run time
// where the interior reaches that side; left and right columns within the
// interior rows. Each cloned fill is a linalg.map here, as bufferization
// writes a pad's fill.
// ROWS-LABEL: func @tile_pad
// ROWS-SAME:  (%[[X:.*]]: memref<1x64x56x56xf32>, %[[P:.*]]: memref<1x64x9x58xf32>, %[[H:.*]]: index, %[[LO:.*]]: index, %[[AT:.*]]: index)
// ROWS-NOT:   linalg.map outs(%[[P]]
// ROWS-DAG:   %[[END:.*]] = arith.addi %[[LO]], %[[H]] : index
// ROWS-DAG:   %[[REST:.*]] = arith.subi %c9, %[[END]] : index
// ROWS:       %[[T:.*]] = memref.subview %[[P]][0, 0, 0, 0] [1, 64, %[[LO]], 58] [1, 1, 1, 1] : memref<1x64x9x58xf32> to memref<1x64x?x58xf32, strided<[33408, 522, 58, 1]>>
// ROWS-NEXT:  linalg.map outs(%[[T]] :
// ROWS:       %[[B:.*]] = memref.subview %[[P]][0, 0, %[[END]], 0] [1, 64, %[[REST]], 58] [1, 1, 1, 1] : memref<1x64x9x58xf32> to memref<1x64x?x58xf32, strided<[33408, 522, 58, 1], offset: ?>>
// ROWS-NEXT:  linalg.map outs(%[[B]] :
// ROWS:       %[[L:.*]] = memref.subview %[[P]][0, 0, %[[LO]], 0] [1, 64, %[[H]], 1] [1, 1, 1, 1]
// ROWS-NEXT:  linalg.map outs(%[[L]] :
// ROWS:       %[[R:.*]] = memref.subview %[[P]][0, 0, %[[LO]], 57] [1, 64, %[[H]], 1] [1, 1, 1, 1]
// ROWS-NEXT:  linalg.map outs(%[[R]] :
// ROWS:       vector.transfer_read %{{.*}} vector<1x1x1x56xf32>
func.func @tile_pad(%x: memref<1x64x56x56xf32>, %p: memref<1x64x9x58xf32>, %h: index, %lo: index, %at: index) {
  %zero = arith.constant 0.0 : f32
  %s = memref.subview %x[0, 0, %at, 0] [1, 64, %h, 56] [1, 1, 1, 1] : memref<1x64x56x56xf32> to memref<1x64x?x56xf32, strided<[200704, 3136, 56, 1], offset: ?>>
  linalg.map outs(%p : memref<1x64x9x58xf32>)
    (%init: f32) {
      linalg.yield %zero : f32
    }
  %v = memref.subview %p[0, 0, %lo, 1] [1, 64, %h, 56] [1, 1, 1, 1] : memref<1x64x9x58xf32> to memref<1x64x?x56xf32, strided<[33408, 522, 58, 1], offset: ?>>
  memref.copy %s, %v : memref<1x64x?x56xf32, strided<[200704, 3136, 56, 1], offset: ?>> to memref<1x64x?x56xf32, strided<[33408, 522, 58, 1], offset: ?>>
  return
}

// ROWS-LABEL: func @small
// ROWS-NOT:   vector.transfer_read
// ROWS:       linalg.copy ins(%arg0 : memref<2x3x56xf32>)
func.func @small(%b: memref<2x3x56xf32>, %a: memref<2x3x58xf32>) {
  %v = memref.subview %a[0, 0, 1] [2, 3, 56] [1, 1, 1] : memref<2x3x58xf32> to memref<2x3x56xf32, strided<[174, 58, 1], offset: 1>>
  memref.copy %b, %v : memref<2x3x56xf32> to memref<2x3x56xf32, strided<[174, 58, 1], offset: 1>>
  return
}

// ROWS-LABEL: func @long_rows
// ROWS-NOT:   vector.transfer_read
// ROWS:       linalg.copy ins(%arg0 : memref<128x200xf32>)
func.func @long_rows(%b: memref<128x200xf32>, %a: memref<128x202xf32>) {
  %v = memref.subview %a[0, 1] [128, 200] [1, 1] : memref<128x202xf32> to memref<128x200xf32, strided<[202, 1], offset: 1>>
  memref.copy %b, %v : memref<128x200xf32> to memref<128x200xf32, strided<[202, 1], offset: 1>>
  return
}

// ROWS-LABEL: func @strided_rows
// ROWS-NOT:   vector.transfer_read
// ROWS:       linalg.copy ins(%arg0 : memref<256x64xf32>)
func.func @strided_rows(%b: memref<256x64xf32>, %a: memref<256x128xf32>) {
  %v = memref.subview %a[0, 0] [256, 64] [1, 2] : memref<256x128xf32> to memref<256x64xf32, strided<[128, 2]>>
  memref.copy %b, %v : memref<256x64xf32> to memref<256x64xf32, strided<[128, 2]>>
  return
}

// A pad: the fill of the whole buffer just before the copy into its
// interior is cut down to the slabs around the interior (below and above
// it along H, then left and right of it along W within the interior rows),
// so the interior is written once.
// ROWS-LABEL: func @pad
// ROWS-NOT:   linalg.fill ins(%{{.*}}) outs(%arg1 :
// ROWS:       %[[T:.*]] = memref.subview %arg1[0, 0, 0] [16, 1, 34] [1, 1, 1] : memref<16x34x34xf32> to memref<16x1x34xf32, strided<[1156, 34, 1]>>
// ROWS-NEXT:  linalg.fill ins(%{{.*}} : f32) outs(%[[T]] :
// ROWS-NEXT:  %[[B:.*]] = memref.subview %arg1[0, 33, 0] [16, 1, 34] [1, 1, 1] : memref<16x34x34xf32> to memref<16x1x34xf32, strided<[1156, 34, 1], offset: 1122>>
// ROWS-NEXT:  linalg.fill ins(%{{.*}} : f32) outs(%[[B]] :
// ROWS-NEXT:  %[[L:.*]] = memref.subview %arg1[0, 1, 0] [16, 32, 1] [1, 1, 1] : memref<16x34x34xf32> to memref<16x32x1xf32, strided<[1156, 34, 1], offset: 34>>
// ROWS-NEXT:  linalg.fill ins(%{{.*}} : f32) outs(%[[L]] :
// ROWS-NEXT:  %[[R:.*]] = memref.subview %arg1[0, 1, 33] [16, 32, 1] [1, 1, 1] : memref<16x34x34xf32> to memref<16x32x1xf32, strided<[1156, 34, 1], offset: 67>>
// ROWS-NEXT:  linalg.fill ins(%{{.*}} : f32) outs(%[[R]] :
// ROWS:       vector.transfer_read %{{.*}} vector<1x1x32xf32>
func.func @pad(%x: memref<16x32x32xf32>, %p: memref<16x34x34xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%p : memref<16x34x34xf32>)
  %v = memref.subview %p[0, 1, 1] [16, 32, 32] [1, 1, 1] : memref<16x34x34xf32> to memref<16x32x32xf32, strided<[1156, 34, 1], offset: 35>>
  memref.copy %x, %v : memref<16x32x32xf32> to memref<16x32x32xf32, strided<[1156, 34, 1], offset: 35>>
  return
}

// Something between the fill and the copy (here a read of the buffer):
// the fill stays whole.
// ROWS-LABEL: func @pad_read_between
// ROWS:       linalg.fill ins(%{{.*}} : f32) outs(%arg1 : memref<16x34x34xf32>)
func.func @pad_read_between(%x: memref<16x32x32xf32>, %p: memref<16x34x34xf32>, %i: index) -> f32 {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%p : memref<16x34x34xf32>)
  %r = memref.load %p[%i, %i, %i] : memref<16x34x34xf32>
  %v = memref.subview %p[0, 1, 1] [16, 32, 32] [1, 1, 1] : memref<16x34x34xf32> to memref<16x32x32xf32, strided<[1156, 34, 1], offset: 35>>
  memref.copy %x, %v : memref<16x32x32xf32> to memref<16x32x32xf32, strided<[1156, 34, 1], offset: 35>>
  return %r : f32
}

// A small pad's fill (under 64 KiB) stays whole.
// ROWS-LABEL: func @small_pad
// ROWS:       linalg.fill ins(%{{.*}} : f32) outs(%arg1 : memref<2x6x10xf32>)
func.func @small_pad(%x: memref<2x4x6xf32>, %p: memref<2x6x10xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%p : memref<2x6x10xf32>)
  %v = memref.subview %p[0, 1, 2] [2, 4, 6] [1, 1, 1] : memref<2x6x10xf32> to memref<2x4x6xf32, strided<[60, 10, 1], offset: 12>>
  memref.copy %x, %v : memref<2x4x6xf32> to memref<2x4x6xf32, strided<[60, 10, 1], offset: 12>>
  return
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
