// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(func.func(dlc-gemm-prefetch-panels,cse))' %s | FileCheck %s
// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(func.func(dlc-gemm-prefetch-panels{locality=1}))' %s | FileCheck %s --check-prefix=LOC
// RUN: not dlc-opt --pass-pipeline='builtin.module(func.func(dlc-gemm-prefetch-panels{locality=4}))' %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: dlc-gemm-prefetch-panels: locality must be 0 to 3, got 4
// RUN: dlc-opt --mlir-disable-threading --lower-to-llvm=target=avx512 --mlir-print-ir-after=dlc-gemm-prefetch-panels %S/Inputs/gemm-prefetch-panels-pipeline.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPE

// dlc-gemm-prefetch-panels: a GEMM whose B was packed at compile time,
// Bp [P, K, NR], reads each panel's Kc block straight from it; every
// register tile's k loop prefetches a share of the next panel's block.

// The real pipeline: 64x512x256 with B a constant (packed by
// dlc-prepack-weights) prefetches from its panels; with B an argument
// (packed per call, dlc-gemm-fuse-packing prefetches those) it does not.
// PIPE-LABEL: IR Dump After dlc-gemm-prefetch-panels
// PIPE: func.func @constant_b
// Its tiles are one panel each (no panel loop): each prefetches its own
// panel's next Kc block.
// PIPE: memref.prefetch %{{.*}}, read, locality<3>, data : memref<1x512x32xf32
// PIPE-LABEL: IR Dump After dlc-gemm-prefetch-panels
// PIPE: func.func @argument_b
// PIPE-NOT: memref.prefetch

// @prepacked: P = 4 panels of NR = 16, K = 8 in Kc blocks of 4, M = 4 in
// row blocks of MR = 2, k steps of 2. A Kc block of a panel is 4 rows of
// 2 lines (floats 0 and 15): 8 lines over 2 row blocks x 2 steps, q = 2
// per slot: row block r at step s prefetches lines t and t + 1, t =
// 4 r + 2 s.
// CHECK-LABEL: func.func @prepacked
// CHECK:       scf.for %[[K:.*]] = %c0 to %c8 step %c4 {
// CHECK:         scf.for %[[P:.*]] = %c0 to %c4 step %c1 {
// The next panel, else the next Kc block's first, else this one:
// CHECK:           %[[P1:.*]] = arith.addi %[[P]], %c1
// CHECK-NEXT:      %[[KN:.*]] = arith.addi %[[K]], %c4
// CHECK-NEXT:      %[[HASK:.*]] = arith.cmpi ult, %[[KN]], %c8
// CHECK-NEXT:      %[[KSEL:.*]] = arith.select %[[HASK]], %[[KN]], %[[K]]
// CHECK-NEXT:      %[[PSEL:.*]] = arith.select %[[HASK]], %c0, %[[P]]
// CHECK-NEXT:      %[[HASP:.*]] = arith.cmpi ult, %[[P1]], %c4
// CHECK-NEXT:      %[[ROW0:.*]] = arith.select %[[HASP]], %[[K]], %[[KSEL]]
// CHECK-NEXT:      %[[PAN:.*]] = arith.select %[[HASP]], %[[P1]], %[[PSEL]]
// The slot of row block m / 2 and step kk / 2:
// CHECK:           scf.for %[[M:.*]] = %c0 to %c4 step %c2 {
// CHECK:             %[[RB:.*]] = arith.divui %[[M]], %c2
// CHECK-NEXT:        %[[BASE:.*]] = arith.muli %[[RB]], %c4
// CHECK:             scf.for %[[KK:.*]] = %c0 to %c4 step %c2 iter_args
// CHECK-NEXT:          %[[S:.*]] = arith.divui %[[KK]], %c2
// CHECK-NEXT:          %[[SQ:.*]] = arith.muli %[[S]], %c2
// CHECK-NEXT:          %[[T:.*]] = arith.addi %[[BASE]], %[[SQ]]
// Line t: row t / 2 of the block, float 16 (t % 2) clamped to 15.
// CHECK-NEXT:          %[[T0:.*]] = arith.addi %[[T]], %c0
// CHECK:               %[[L0:.*]] = arith.minui %[[T0]], %c7
// CHECK-NEXT:          %[[R0:.*]] = arith.divui %[[L0]], %c2
// CHECK-NEXT:          %[[M0:.*]] = arith.remui %[[L0]], %c2
// CHECK:               %[[F0:.*]] = arith.muli %[[M0]], %c16
// CHECK:               %[[C0:.*]] = arith.minui %[[F0]], %c15
// CHECK-NEXT:          %[[ROW:.*]] = arith.addi %[[ROW0]], %[[R0]]
// CHECK-NEXT:          memref.prefetch %arg1[%[[PAN]], %[[ROW]], %[[C0]]], read, locality<3>, data : memref<4x8x16xf32>
// Line t + 1:
// CHECK-NEXT:          %[[T1:.*]] = arith.addi %[[T]], %c1
// CHECK-NEXT:          arith.minui %[[T1]], %{{.*}}
// CHECK:               memref.prefetch %arg1[%[[PAN]], %{{.*}}, %{{.*}}], read, locality<3>, data
// CHECK-NOT:           memref.prefetch
// CHECK:               vector.outerproduct
// LOC-LABEL: func.func @prepacked
// LOC-COUNT-2: memref.prefetch {{.*}} locality<1>
// LOC-LABEL: func.func @copied
// LOC-NOT: memref.prefetch
// LOC-LABEL: func.func @one_panel
func.func @prepacked(%a: memref<4x8xf32>, %bp: memref<4x8x16xf32>, %c: memref<4x4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %pad = ub.poison : f32
  scf.for %k = %c0 to %c8 step %c4 {
    %blk = memref.subview %bp[0, %k, 0] [4, 4, 16] [1, 1, 1] : memref<4x8x16xf32> to memref<4x4x16xf32, strided<[128, 16, 1], offset: ?>>
    scf.for %p = %c0 to %c4 step %c1 {
      %panel = memref.subview %blk[%p, 0, 0] [1, 4, 16] [1, 1, 1] : memref<4x4x16xf32, strided<[128, 16, 1], offset: ?>> to memref<1x4x16xf32, strided<[128, 16, 1], offset: ?>>
      %cp = memref.subview %c[%p, 0, 0] [1, 4, 16] [1, 1, 1] : memref<4x4x16xf32> to memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>
      scf.for %m = %c0 to %c4 step %c2 {
        %acc0 = vector.transfer_read %cp[%c0, %m, %c0], %pad {in_bounds = [true, true]} : memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>, vector<2x16xf32>
        %acc = scf.for %kk = %c0 to %c4 step %c2 iter_args(%s = %acc0) -> (vector<2x16xf32>) {
          %r0 = memref.subview %panel[0, %kk, 0] [1, 1, 16] [1, 1, 1] : memref<1x4x16xf32, strided<[128, 16, 1], offset: ?>> to memref<1x1x16xf32, strided<[128, 16, 1], offset: ?>>
          %b0 = vector.transfer_read %r0[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[128, 16, 1], offset: ?>>, vector<16xf32>
          %ka = arith.addi %k, %kk : index
          %a0 = vector.transfer_read %a[%m, %ka], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<4x8xf32>, vector<2xf32>
          %s1 = vector.outerproduct %a0, %b0, %s {kind = #vector.kind<add>} : vector<2xf32>, vector<16xf32>
          %kk1 = arith.addi %kk, %c1 : index
          %r1 = memref.subview %panel[0, %kk1, 0] [1, 1, 16] [1, 1, 1] : memref<1x4x16xf32, strided<[128, 16, 1], offset: ?>> to memref<1x1x16xf32, strided<[128, 16, 1], offset: ?>>
          %b1 = vector.transfer_read %r1[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[128, 16, 1], offset: ?>>, vector<16xf32>
          %ka1 = arith.addi %ka, %c1 : index
          %a1 = vector.transfer_read %a[%m, %ka1], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<4x8xf32>, vector<2xf32>
          %s2 = vector.outerproduct %a1, %b1, %s1 {kind = #vector.kind<add>} : vector<2xf32>, vector<16xf32>
          scf.yield %s2 : vector<2x16xf32>
        }
        vector.transfer_write %acc, %cp[%c0, %m, %c0] {in_bounds = [true, true]} : vector<2x16xf32>, memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>
      }
    }
  }
  return
}

// -----

// B packed per call into a buffer of one Kc block (the copy that
// dlc-gemm-fuse-packing fuses or keeps): not a prepacked panel, no change.
// CHECK-LABEL: func.func @copied
// CHECK-NOT: memref.prefetch
func.func @copied(%a: memref<4x8xf32>, %b: memref<8x4x16xf32>, %c: memref<4x4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %pad = ub.poison : f32
  scf.for %k = %c0 to %c8 step %c4 {
    %bp = memref.alloc() {alignment = 64 : i64} : memref<4x4x16xf32>
    scf.for %p = %c0 to %c4 step %c1 {
      %panel = memref.subview %bp[%p, 0, 0] [1, 4, 16] [1, 1, 1] : memref<4x4x16xf32> to memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>
      %cp = memref.subview %c[%p, 0, 0] [1, 4, 16] [1, 1, 1] : memref<4x4x16xf32> to memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>
      scf.for %m = %c0 to %c4 step %c2 {
        %acc0 = vector.transfer_read %cp[%c0, %m, %c0], %pad {in_bounds = [true, true]} : memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>, vector<2x16xf32>
        %acc = scf.for %kk = %c0 to %c4 step %c1 iter_args(%s = %acc0) -> (vector<2x16xf32>) {
          %r0 = memref.subview %panel[0, %kk, 0] [1, 1, 16] [1, 1, 1] : memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
          %b0 = vector.transfer_read %r0[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>, vector<16xf32>
          %ka = arith.addi %k, %kk : index
          %a0 = vector.transfer_read %a[%m, %ka], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<4x8xf32>, vector<2xf32>
          %s1 = vector.outerproduct %a0, %b0, %s {kind = #vector.kind<add>} : vector<2xf32>, vector<16xf32>
          scf.yield %s1 : vector<2x16xf32>
        }
        vector.transfer_write %acc, %cp[%c0, %m, %c0] {in_bounds = [true, true]} : vector<2x16xf32>, memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>
      }
    }
    memref.dealloc %bp : memref<4x4x16xf32>
  }
  return
}

// -----

// A tile of one panel: no panel loop, the Kc block a view [1, Kc, NR] of
// Bp [1, K, NR]; the next block is the same panel's next Kc rows (k + 4,
// or k itself after the last block).
// CHECK-LABEL: func.func @one_panel
// CHECK:       scf.for %[[K:.*]] = %c0 to %c8 step %c4 {
// CHECK-NEXT:    %[[BLK:.*]] = memref.subview %arg1[0, %[[K]], 0] [1, 4, 16]
// CHECK-NEXT:    %[[KN:.*]] = arith.addi %[[K]], %c4
// CHECK-NEXT:    %[[HASK:.*]] = arith.cmpi ult, %[[KN]], %c8
// CHECK-NEXT:    %[[ROW0:.*]] = arith.select %[[HASK]], %[[KN]], %[[K]]
// CHECK:         scf.for %[[KK:.*]] = %c0 to %c4 step %c2 iter_args
// CHECK:           %[[ROW:.*]] = arith.addi %[[ROW0]], %{{.*}}
// CHECK-NEXT:      memref.prefetch %arg1[%c0, %[[ROW]], %{{.*}}], read, locality<3>, data : memref<1x8x16xf32>
func.func @one_panel(%a: memref<4x8xf32>, %bp: memref<1x8x16xf32>, %c: memref<1x4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %pad = ub.poison : f32
  scf.for %k = %c0 to %c8 step %c4 {
    %panel = memref.subview %bp[0, %k, 0] [1, 4, 16] [1, 1, 1] : memref<1x8x16xf32> to memref<1x4x16xf32, strided<[128, 16, 1], offset: ?>>
    scf.for %m = %c0 to %c4 step %c2 {
      %acc0 = vector.transfer_read %c[%c0, %m, %c0], %pad {in_bounds = [true, true]} : memref<1x4x16xf32>, vector<2x16xf32>
      %acc = scf.for %kk = %c0 to %c4 step %c2 iter_args(%s = %acc0) -> (vector<2x16xf32>) {
        %r0 = memref.subview %panel[0, %kk, 0] [1, 1, 16] [1, 1, 1] : memref<1x4x16xf32, strided<[128, 16, 1], offset: ?>> to memref<1x1x16xf32, strided<[128, 16, 1], offset: ?>>
        %b0 = vector.transfer_read %r0[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[128, 16, 1], offset: ?>>, vector<16xf32>
        %ka = arith.addi %k, %kk : index
        %a0 = vector.transfer_read %a[%m, %ka], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<4x8xf32>, vector<2xf32>
        %s1 = vector.outerproduct %a0, %b0, %s {kind = #vector.kind<add>} : vector<2xf32>, vector<16xf32>
        scf.yield %s1 : vector<2x16xf32>
      }
      vector.transfer_write %acc, %c[%c0, %m, %c0] {in_bounds = [true, true]} : vector<2x16xf32>, memref<1x4x16xf32>
    }
  }
  return
}
