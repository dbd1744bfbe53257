// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(func.func(dlc-conv-prefetch-weights))' %s | FileCheck %s
// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(func.func(dlc-conv-prefetch-weights{max-panel-bytes=512 locality=3}))' %s | FileCheck %s --check-prefix=SMALL
// RUN: not dlc-opt --pass-pipeline='builtin.module(func.func(dlc-conv-prefetch-weights{locality=4}))' %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADLOC
// BADLOC: error: dlc-conv-prefetch-weights: locality must be 0 to 3, got 4
// RUN: not dlc-opt --pass-pipeline='builtin.module(func.func(dlc-conv-prefetch-weights{max-panel-bytes=-1}))' %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADMAX
// BADMAX: error: dlc-conv-prefetch-weights: max-panel-bytes must not be negative, got -1
// RUN: dlc-opt --mlir-disable-threading --lower-to-llvm=target=avx512 --mlir-print-ir-after=dlc-conv-prefetch-weights %S/Inputs/conv-prefetch-weights-pipeline.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPE

// dlc-conv-prefetch-weights: a direct conv on weights packed at compile
// time, Wp [O/NR, C, kH, kW, NR], reads each channel block of a panel from
// a view of them; every channel block of every row prefetches a share of
// the next panel into L2.

// The real pipeline: a 3x3 conv with constant weights prefetches the next
// panel, into L2; with the weights an argument (packed per call) it does
// not.
// PIPE-LABEL: IR Dump After dlc-conv-prefetch-weights
// PIPE: func.func @constant_w
// PIPE: memref.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3, 4]] : memref<2x32x3x3x32xf32> into memref<2x9216xf32>
// PIPE: memref.prefetch %{{.*}}, read, locality<2>, data : memref<2x9216xf32>
// PIPE-LABEL: IR Dump After dlc-conv-prefetch-weights
// PIPE: func.func @argument_w
// PIPE-NOT: memref.prefetch

// @panels: a tile of P = 2 of NP = 4 panels of NR = 16 floats, C = 8
// channels of a 1x1 kernel: a panel is 128 floats, 8 lines. 2 rows x 2
// channel blocks of 4 are 4 slots: q = 2 lines each, at the top of the
// channel-block loop; slot t = 2 row + block takes lines 2t and 2t + 1 of
// panel min(first + p + 1, 3).
// CHECK-LABEL: func.func @panels
// CHECK:       %[[W:.*]] = memref.get_global @w4 : memref<4x8x1x1x16xf32>
// CHECK-NEXT:  %[[FLAT:.*]] = memref.collapse_shape %[[W]] {{\[}}[0], [1, 2, 3, 4]] : memref<4x8x1x1x16xf32> into memref<4x128xf32>
// CHECK:       %[[FIRST:.*]] = arith.muli
// CHECK:       scf.for %[[P:.*]] = %c0 to %c2 step %c1 {
// CHECK:         scf.for %[[R:.*]] = %c0 to %c2 step %c1 {
// CHECK:           scf.for %[[C:.*]] = %c0 to %c8 step %c4 {
// CHECK-NEXT:        %[[G:.*]] = arith.addi %[[FIRST]], %[[P]] : index
// CHECK:             %[[G1:.*]] = arith.addi %[[G]], %c1{{.*}} : index
// CHECK:             %[[NEXT:.*]] = arith.minui %[[G1]], %c3 : index
// CHECK:             %[[CB:.*]] = arith.divui %[[C]], %c4{{.*}} : index
// CHECK:             %[[RT:.*]] = arith.muli %[[R]], %c2{{.*}} : index
// CHECK-NEXT:        %[[T:.*]] = arith.addi %[[CB]], %[[RT]] : index
// CHECK:             %[[TQ:.*]] = arith.muli %[[T]], %c2{{.*}} : index
// CHECK:             %[[L:.*]] = arith.minui %[[TQ]], %c6 : index
// CHECK:             %[[F:.*]] = arith.muli %[[L]], %c16 : index
// CHECK-NEXT:        memref.prefetch %[[FLAT]][%[[NEXT]], %[[F]]], read, locality<2>, data : memref<4x128xf32>
// CHECK:             %[[F1:.*]] = arith.addi %[[F]], %c16{{.*}} : index
// CHECK-NEXT:        memref.prefetch %[[FLAT]][%[[NEXT]], %[[F1]]], read, locality<2>, data : memref<4x128xf32>
// CHECK-NEXT:        memref.subview
// CHECK-NOT:         memref.prefetch
// CHECK:       return
// SMALL-LABEL: func.func @panels
// SMALL:       memref.prefetch {{.*}} locality<3>
memref.global "private" constant @w4 : memref<4x8x1x1x16xf32> = dense<1.0> {alignment = 64 : i64}
func.func @panels(%out: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %w = memref.get_global @w4 : memref<4x8x1x1x16xf32>
  scf.forall (%t) in (2) {
    %first = arith.muli %t, %c2 : index
    %tile = memref.subview %w[%first, 0, 0, 0, 0] [2, 8, 1, 1, 16] [1, 1, 1, 1, 1] : memref<4x8x1x1x16xf32> to memref<2x8x1x1x16xf32, strided<[128, 16, 16, 16, 1], offset: ?>>
    scf.for %p = %c0 to %c2 step %c1 {
      scf.for %r = %c0 to %c2 step %c1 {
        scf.for %c = %c0 to %c8 step %c4 {
          %blk = memref.subview %tile[%p, %c, 0, 0, 0] [1, 4, 1, 1, 16] [1, 1, 1, 1, 1] : memref<2x8x1x1x16xf32, strided<[128, 16, 16, 16, 1], offset: ?>> to memref<1x4x1x1x16xf32, strided<[128, 16, 16, 16, 1], offset: ?>>
          %v = memref.load %blk[%c0, %c0, %c0, %c0, %c0] : memref<1x4x1x1x16xf32, strided<[128, 16, 16, 16, 1], offset: ?>>
          memref.store %v, %out[%c0] : memref<1xf32>
        }
      }
    }
  }
  return
}

// -----

// @one_panel: a tile of one panel (no panel loop; the block's panel offset
// is 0), C = 8 channels of a 3x1 kernel: a panel is 384 floats, 24 lines.
// The 2 channel blocks alone would take 12 lines a slot, so the slots are
// also split over the tap loop inside (3 trips): 6 slots of 4 lines, at
// the top of the tap loop, slot t = 3 block + kh. The next panel is the
// next tile's, %t + 1, clamped to the last (1).
// CHECK-LABEL: func.func @one_panel
// CHECK:       %[[FLAT:.*]] = memref.collapse_shape %{{.*}} : memref<2x8x3x1x16xf32> into memref<2x384xf32>
// CHECK:       scf.forall (%[[T:.*]]) in (2) {
// CHECK:         scf.for %[[C:.*]] = %c0 to %c8 step %c4 {
// CHECK-NOT:       memref.prefetch
// CHECK:           scf.for %[[KH:.*]] = %c0 to %c3 step %c1 {
// CHECK:             %[[T1:.*]] = arith.addi %[[T]], %c1{{.*}} : index
// CHECK:             %[[NEXT:.*]] = arith.minui %[[T1]], %c1{{.*}} : index
// CHECK:             %[[CB:.*]] = arith.divui %[[C]], %c4{{.*}} : index
// CHECK:             %[[CT:.*]] = arith.muli %[[CB]], %c3{{.*}} : index
// CHECK-NEXT:        %[[S:.*]] = arith.addi %[[KH]], %[[CT]] : index
// CHECK:             %[[SQ:.*]] = arith.muli %[[S]], %c4{{.*}} : index
// CHECK:             %[[L:.*]] = arith.minui %[[SQ]], %c20 : index
// CHECK-COUNT-4:     memref.prefetch %[[FLAT]][%[[NEXT]], %{{.*}}], read, locality<2>, data : memref<2x384xf32>
// CHECK-NOT:         memref.prefetch
// CHECK:       return
// A panel of 1536 bytes is more than 512: SMALL leaves it.
// SMALL-LABEL: func.func @one_panel
// SMALL-NOT:   memref.prefetch
memref.global "private" constant @w2 : memref<2x8x3x1x16xf32> = dense<1.0> {alignment = 64 : i64}
func.func @one_panel(%out: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %w = memref.get_global @w2 : memref<2x8x3x1x16xf32>
  scf.forall (%t) in (2) {
    %tile = memref.subview %w[%t, 0, 0, 0, 0] [1, 8, 3, 1, 16] [1, 1, 1, 1, 1] : memref<2x8x3x1x16xf32> to memref<1x8x3x1x16xf32, strided<[384, 48, 16, 16, 1], offset: ?>>
    scf.for %c = %c0 to %c8 step %c4 {
      %blk = memref.subview %tile[0, %c, 0, 0, 0] [1, 4, 3, 1, 16] [1, 1, 1, 1, 1] : memref<1x8x3x1x16xf32, strided<[384, 48, 16, 16, 1], offset: ?>> to memref<1x4x3x1x16xf32, strided<[384, 48, 16, 16, 1], offset: ?>>
      scf.for %kh = %c0 to %c3 step %c1 {
        %v = memref.load %blk[%c0, %c0, %kh, %c0, %c0] : memref<1x4x3x1x16xf32, strided<[384, 48, 16, 16, 1], offset: ?>>
        memref.store %v, %out[%c0] : memref<1xf32>
      }
    }
  }
  return
}

// -----

// Weights that are an argument (packed per call) and a block loop that
// does not start at 0: no prefetch.
// CHECK-LABEL: func.func @not_constant
// CHECK-NOT:   memref.prefetch
// CHECK-LABEL: func.func @offset_blocks
// CHECK-NOT:   memref.prefetch
func.func @not_constant(%w: memref<2x8x1x1x16xf32>, %out: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.for %c = %c0 to %c8 step %c4 {
    %blk = memref.subview %w[0, %c, 0, 0, 0] [1, 4, 1, 1, 16] [1, 1, 1, 1, 1] : memref<2x8x1x1x16xf32> to memref<1x4x1x1x16xf32, strided<[128, 16, 16, 16, 1], offset: ?>>
    %v = memref.load %blk[%c0, %c0, %c0, %c0, %c0] : memref<1x4x1x1x16xf32, strided<[128, 16, 16, 16, 1], offset: ?>>
    memref.store %v, %out[%c0] : memref<1xf32>
  }
  return
}
memref.global "private" constant @w1 : memref<1x8x1x1x16xf32> = dense<1.0> {alignment = 64 : i64}
func.func @offset_blocks(%out: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %w = memref.get_global @w1 : memref<1x8x1x1x16xf32>
  scf.for %c = %c4 to %c8 step %c4 {
    %blk = memref.subview %w[0, %c, 0, 0, 0] [1, 4, 1, 1, 16] [1, 1, 1, 1, 1] : memref<1x8x1x1x16xf32> to memref<1x4x1x1x16xf32, strided<[128, 16, 16, 16, 1], offset: ?>>
    %v = memref.load %blk[%c0, %c0, %c0, %c0, %c0] : memref<1x4x1x1x16xf32, strided<[128, 16, 16, 16, 1], offset: ?>>
    memref.store %v, %out[%c0] : memref<1xf32>
  }
  return
}
