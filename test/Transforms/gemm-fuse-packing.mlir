// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(func.func(dlc-gemm-fuse-packing{prefetch=false max-run-bytes=129}))' %s | FileCheck %s
// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(func.func(dlc-gemm-fuse-packing{max-run-bytes=128}))' %s | FileCheck %s --check-prefix=KEEP
// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(func.func(dlc-gemm-fuse-packing{l2-bytes=512 l2-ways=2}))' %s | FileCheck %s --check-prefix=L2FIT
// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(func.func(dlc-gemm-fuse-packing{l2-bytes=256 l2-ways=2}))' %s | FileCheck %s --check-prefix=L2KEEP
// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(func.func(dlc-gemm-fuse-packing{prefetch-rows-ahead=2},cse))' %s | FileCheck %s --check-prefix=PF
// RUN: not dlc-opt --split-input-file --pass-pipeline='builtin.module(func.func(dlc-gemm-fuse-packing{prefetch-rows-ahead=-1}))' %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: dlc-gemm-fuse-packing: prefetch-rows-ahead must be 0 or more, got -1
// RUN: not dlc-opt --split-input-file --pass-pipeline='builtin.module(func.func(dlc-gemm-fuse-packing{l2-bytes=-1 l2-ways=8}))' %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADL2
// BADL2: error: dlc-gemm-fuse-packing: l2-bytes and l2-ways must be 0 or more, got -1 and 8
// RUN: dlc-opt --lower-to-llvm=target=avx512 --mlir-print-ir-after=dlc-gemm-fuse-packing %S/Inputs/gemm-fuse-packing-pipeline.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPE
// RUN: dlc-opt --lower-to-llvm=target=avx512 --mlir-print-ir-after=dlc-gemm-fuse-packing %S/Inputs/gemm-fuse-packing-wide.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=WIDE
// RUN: dlc-opt --lower-to-llvm=target=avx2 --mlir-print-ir-after=dlc-gemm-fuse-packing %S/Inputs/gemm-fuse-packing-wide.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=AVX2
// RUN: dlc-opt --lower-to-llvm=target=avx2 --mlir-print-ir-after=dlc-gemm-fuse-packing %S/Inputs/gemm-fuse-packing-pipeline.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPE2
// RUN: dlc-opt --lower-to-llvm=target=avx2 --mlir-print-ir-after=dlc-gemm-fuse-packing %S/Inputs/gemm-fuse-packing-rows.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=ROWS

// 197 rows run as Mc blocks of 102 and 95 rows, each over the panels in a
// loop of its own; the first packs, the second reads (@later_rows below):
// ROWS: IR Dump After dlc-gemm-fuse-packing
// ROWS: scf.forall
// ROWS: } {dlc.fused_packing}
// ROWS-NOT: dlc.fused_packing

// dlc-gemm-fuse-packing: the copy that packs a Kc block of B goes; the
// first MR-row block of each panel reads B in place and stores each vector
// into the packed buffer, the other row blocks read the buffer as before.

// The real pipeline, B an argument: a 64x512x256 GEMM runs 4 parallel
// tiles of 2 panels, each over 2 Kc blocks of 256; its one Kc loop is fused.
// Its first row block prefetches the B row 16 ahead of the one it reads
// with AVX-512, 4 with AVX2 (dlcGemmFusePackingRowsAhead), clamped to B's
// last row (511).
// PIPE: IR Dump After dlc-gemm-fuse-packing
// PIPE: scf.forall
// PIPE: memref.prefetch %{{.*}}, read, locality<3>, data : memref<512x2x32xf32
// PIPE: memref.subview %{{.*}}[%[[KK:.*]], %{{.*}}, 0] [1, 1, 32] [1, 1, 1] : memref<128x2x32xf32
// PIPE-NEXT: %[[AH:.*]] = arith.constant 16 : index
// PIPE-NEXT: %[[KA:.*]] = arith.addi %[[KK]], %[[AH]] : index
// PIPE-NEXT: %[[ROW:.*]] = arith.addi %{{.*}}, %[[KA]] : index
// PIPE-NEXT: %[[LAST:.*]] = arith.constant 511 : index
// PIPE-NEXT: arith.minui %[[ROW]], %[[LAST]] : index
// PIPE: } {dlc.fused_packing}
// PIPE-NOT: dlc.fused_packing
// PIPE2: IR Dump After dlc-gemm-fuse-packing
// PIPE2: memref.subview %{{.*}}[%[[KK:.*]], %{{.*}}, 0] [1, 1, 16] [1, 1, 1] : memref<256x4x16xf32
// PIPE2-NEXT: %[[AH:.*]] = arith.constant 4 : index
// PIPE2-NEXT: %[[KA:.*]] = arith.addi %[[KK]], %[[AH]] : index
// PIPE2-NEXT: %[[ROW:.*]] = arith.addi %{{.*}}, %[[KA]] : index
// PIPE2-NEXT: %[[LAST:.*]] = arith.constant 511 : index
// PIPE2-NEXT: arith.minui %[[ROW]], %[[LAST]] : index
// PIPE2: } {dlc.fused_packing}

// A feed-forward GEMM, 128x768x4096, B an argument, runs parallel tiles
// of 16 panels of 32 (the avx512 model's 1 MiB L2): each Kc row of the
// tile is one 2 KiB run of B, which the copy streams faster than the
// first row block reads it a panel at a time
// (dlcGemmFusePackingMaxRunBytes, 2 KiB with AVX-512), so the copy stays.
// (BERT-base's 128x768x3072 takes panels of 48, 8 to a tile with this
// model: runs of 1.5 KiB, fused; gemm-parallel-split.mlir.) With AVX2
// (16-float panels, no run limit) the copy stays too, for another reason:
// B's rows are 16 KiB apart, and the Kc = 384 rows the first row block
// would read in place map onto 4 sets of the avx2 model's 512 KiB 8-way
// L2, 32 lines, so they would evict each other before it got to them
// (dlcCacheLinesForRows; the same for N = 3072, 12 KiB: 128 lines).
// WIDE: IR Dump After dlc-gemm-fuse-packing
// WIDE: memref.alloc() {alignment = 64 : i64} : memref<16x192x32xf32>
// WIDE: vector.transfer_write
// WIDE-NOT: dlc.fused_packing
// WIDE-NOT: memref.prefetch
// AVX2: IR Dump After dlc-gemm-fuse-packing
// AVX2: memref.alloc() {alignment = 64 : i64} : memref<{{[0-9]+}}x384x16xf32>
// AVX2: vector.transfer_write
// AVX2-NOT: dlc.fused_packing
// AVX2-NOT: memref.prefetch

// The same rule on @fused: B's rows (%b, 8x2x16) are 128 bytes apart, two
// lines. A 512-byte 2-way cache has 4 sets, which the rows' first lines
// alternate over two of: 4 lines, as many as the Kc block's 4 rows, fused
// (L2FIT); with 256 bytes the rows all share one set's 2 lines, and the
// copy stays (L2KEEP).
// L2FIT-LABEL: func.func @fused
// L2FIT: dlc.fused_packing
// L2KEEP-LABEL: func.func @fused
// L2KEEP:       scf.for %{{.*}} = %c0 to %c4 step %c1 {
// L2KEEP-NEXT:    scf.for %{{.*}} = %c0 to %c2 step %c1 {
// L2KEEP-NOT:   dlc.fused_packing
// L2KEEP-LABEL: func.func @one_offset

// A run of max-run-bytes or more keeps the copy: @fused's Kc rows are
// runs of 2 panels x 16 floats, 128 bytes (fused above with 129).
// KEEP-LABEL: func.func @fused
// KEEP:       scf.for %{{.*}} = %c0 to %c4 step %c1 {
// KEEP-NEXT:    scf.for %{{.*}} = %c0 to %c2 step %c1 {
// KEEP-NOT:   dlc.fused_packing
// KEEP-NOT:   memref.prefetch
// KEEP-LABEL: func.func @one_offset

// CHECK-LABEL: func.func @fused
// CHECK:       scf.for %[[K:.*]] = %c0 to %c8 step %c4 {
// CHECK-NEXT:    %[[BLK:.*]] = memref.subview %{{.*}}[%[[K]], 0, 0] [4, 2, 16]
// CHECK-NEXT:    %[[BP:.*]] = memref.alloc()
// CHECK-NEXT:    scf.for %[[P:.*]] = %c0 to %c2 step %c1 {
// CHECK-NEXT:      %[[PANEL:.*]] = memref.subview %[[BP]][%[[P]], 0, 0] [1, 4, 16]
// CHECK-NEXT:      memref.subview
// CHECK-NEXT:      %[[MR:.*]] = arith.constant 2 : index
// The first row block: rows [0, MR), B read in place and stored into Bp.
// CHECK-NEXT:      scf.for %[[M:.*]] = %c0 to %[[MR]] step %c2 {
// CHECK:             scf.for %[[KK:.*]] = %c0 to %c4 step %c2
// CHECK-NEXT:          %[[D0:.*]] = memref.subview %[[PANEL]][0, %[[KK]], 0]
// CHECK-NEXT:          %[[S0:.*]] = memref.subview %[[BLK]][%[[KK]], %[[P]], 0] [1, 1, 16]
// CHECK-NEXT:          %[[V0:.*]] = vector.transfer_read %[[S0]]
// CHECK-NEXT:          vector.transfer_write %[[V0]], %[[D0]]
// CHECK:               vector.outerproduct %{{.*}}, %[[V0]]
// CHECK:               %[[KK1:.*]] = arith.addi %[[KK]], %c1
// CHECK-NEXT:          %[[D1:.*]] = memref.subview %[[PANEL]][0, %[[KK1]], 0]
// CHECK-NEXT:          %[[S1:.*]] = memref.subview %[[BLK]][%[[KK1]], %[[P]], 0] [1, 1, 16]
// CHECK-NEXT:          %[[V1:.*]] = vector.transfer_read %[[S1]]
// CHECK-NEXT:          vector.transfer_write %[[V1]], %[[D1]]
// The other row blocks read Bp.
// CHECK:           scf.for %{{.*}} = %[[MR]] to %c4 step %c2 {
// CHECK:             scf.for %[[KK2:.*]] = %c0 to %c4 step %c2
// CHECK-NEXT:          %[[R0:.*]] = memref.subview %[[PANEL]][0, %[[KK2]], 0]
// CHECK-NEXT:          vector.transfer_read %[[R0]]
// CHECK-NOT:           memref.subview %[[BLK]][
// CHECK:           memref.dealloc %[[BP]]
// CHECK-NEXT:    } {dlc.fused_packing}

// With prefetch (the default), the other row blocks prefetch the B rows
// the next first row block reads: the next panel of this Kc block (rows
// k.., panel p + 1), after the last panel the next block's first (rows
// k + Kc.., panel 0), after the last block the same panel again. Kc 4 rows
// of 16 floats are 2 lines each (offsets 0 and 15): 8 lines over 1 row
// block x 2 k steps, 4 per step, lines 4s .. 4s + 3 at step s.
// PF-LABEL: func.func @fused
// PF:       scf.for %[[K:.*]] = %c0 to %c8 step %c4 {
// PF:         scf.for %[[P:.*]] = %c0 to %c2 step %c1 {
// PF:           %[[P1:.*]] = arith.addi %[[P]], %c1
// PF-NEXT:      %[[KN:.*]] = arith.addi %[[K]], %c4
// PF-NEXT:      %[[HASK:.*]] = arith.cmpi ult, %[[KN]], %c8
// PF-NEXT:      %[[KL:.*]] = arith.select %[[HASK]], %[[KN]], %[[K]]
// PF-NEXT:      %[[PL:.*]] = arith.select %[[HASK]], %c0, %[[P]]
// PF-NEXT:      %[[HASP:.*]] = arith.cmpi ult, %[[P1]], %c2
// PF-NEXT:      %[[ROW0:.*]] = arith.select %[[HASP]], %[[K]], %[[KL]]
// PF-NEXT:      %[[PAN:.*]] = arith.select %[[HASP]], %[[P1]], %[[PL]]
// The first row block prefetches, with each row kk of B it reads, row
// k + kk + 2 (prefetch-rows-ahead=2), past B's last row (7) its last:
// PF:           scf.for %{{.*}} = %c0 to %c2 step %c2 {
// PF:             scf.for %[[KF:.*]] = %c0 to %c4 step %c2
// PF:               %[[A2:.*]] = arith.addi %[[KF]], %c2
// PF-NEXT:          %[[AK:.*]] = arith.addi %[[K]], %[[A2]]
// PF-NEXT:          %[[LAST:.*]] = arith.constant 7
// PF-NEXT:          %[[AR:.*]] = arith.minui %[[AK]], %[[LAST]]
// PF-NEXT:          memref.prefetch %arg1[%[[AR]], %[[P]], %c0], read, locality<3>, data
// PF-NEXT:          %[[C15A:.*]] = arith.constant 15
// PF-NEXT:          memref.prefetch %arg1[%[[AR]], %[[P]], %[[C15A]]], read, locality<3>, data
// PF-NEXT:          vector.transfer_read
// PF:           scf.for %[[M:.*]] = %c2 to %c4 step %c2 {
// PF-NEXT:        vector.transfer_read
// PF-NEXT:        %[[R:.*]] = arith.subi %[[M]], %c2
// PF-NEXT:        %[[RB:.*]] = arith.divui %[[R]], %c2
// PF-NEXT:        %[[BASE:.*]] = arith.muli %[[RB]], %c8
// PF-NEXT:        scf.for %[[KK:.*]] = %c0 to %c4 step %c2
// PF-NEXT:          %[[S:.*]] = arith.divui %[[KK]], %c2
// PF-NEXT:          %[[SQ:.*]] = arith.muli %[[S]], %c4
// PF-NEXT:          %[[T:.*]] = arith.addi %[[BASE]], %[[SQ]]
// PF-NEXT:          %[[T0:.*]] = arith.addi %[[T]], %c0
// PF-NEXT:          %[[C7:.*]] = arith.constant 7
// PF-NEXT:          %[[L0:.*]] = arith.minui %[[T0]], %[[C7]]
// PF-NEXT:          %[[ROW:.*]] = arith.divui %[[L0]], %c2
// PF-NEXT:          %[[LC:.*]] = arith.remui %[[L0]], %c2
// PF-NEXT:          %[[C16:.*]] = arith.constant 16
// PF-NEXT:          %[[COL16:.*]] = arith.muli %[[LC]], %[[C16]]
// PF-NEXT:          %[[C15:.*]] = arith.constant 15
// PF-NEXT:          %[[COL:.*]] = arith.minui %[[COL16]], %[[C15]]
// PF-NEXT:          %[[ROWK:.*]] = arith.addi %[[ROW0]], %[[ROW]]
// PF-NEXT:          memref.prefetch %arg1[%[[ROWK]], %[[PAN]], %[[COL]]], read, locality<3>, data
// PF-COUNT-3:       memref.prefetch %arg1[{{.*}}, %[[PAN]], {{.*}}], read, locality<3>, data
// PF-NOT:           memref.prefetch
// PF:               scf.yield
// PF:         memref.dealloc

func.func @fused(%a: memref<4x8xf32>, %b: memref<8x2x16xf32>, %c: memref<2x4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %pad = ub.poison : f32
  scf.for %k = %c0 to %c8 step %c4 {
    %blk = memref.subview %b[%k, 0, 0] [4, 2, 16] [1, 1, 1] : memref<8x2x16xf32> to memref<4x2x16xf32, strided<[32, 16, 1], offset: ?>>
    %bp = memref.alloc() {alignment = 64 : i64} : memref<2x4x16xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c2 step %c1 {
        %e = memref.subview %blk[%i, %j, 0] [1, 1, 16] [1, 1, 1] : memref<4x2x16xf32, strided<[32, 16, 1], offset: ?>> to memref<1x1x16xf32, strided<[32, 16, 1], offset: ?>>
        %d = memref.subview %bp[%j, %i, 0] [1, 1, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
        %v = vector.transfer_read %e[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[32, 16, 1], offset: ?>>, vector<16xf32>
        vector.transfer_write %v, %d[%c0, %c0, %c0] {in_bounds = [true]} : vector<16xf32>, memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
      }
    }
    scf.for %p = %c0 to %c2 step %c1 {
      %panel = memref.subview %bp[%p, 0, 0] [1, 4, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>
      %cp = memref.subview %c[%p, 0, 0] [1, 4, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>
      scf.for %m = %c0 to %c4 step %c2 {
        %acc0 = vector.transfer_read %cp[%c0, %m, %c0], %pad {in_bounds = [true, true]} : memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>, vector<2x16xf32>
        %acc = scf.for %kk = %c0 to %c4 step %c2 iter_args(%s = %acc0) -> (vector<2x16xf32>) {
          %r0 = memref.subview %panel[0, %kk, 0] [1, 1, 16] [1, 1, 1] : memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
          %b0 = vector.transfer_read %r0[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>, vector<16xf32>
          %ka = arith.addi %k, %kk : index
          %a0 = vector.transfer_read %a[%m, %ka], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<4x8xf32>, vector<2xf32>
          %s1 = vector.outerproduct %a0, %b0, %s {kind = #vector.kind<add>} : vector<2xf32>, vector<16xf32>
          %kk1 = arith.addi %kk, %c1 : index
          %r1 = memref.subview %panel[0, %kk1, 0] [1, 1, 16] [1, 1, 1] : memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
          %b1 = vector.transfer_read %r1[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>, vector<16xf32>
          %ka1 = arith.addi %ka, %c1 : index
          %a1 = vector.transfer_read %a[%m, %ka1], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<4x8xf32>, vector<2xf32>
          %s2 = vector.outerproduct %a1, %b1, %s1 {kind = #vector.kind<add>} : vector<2xf32>, vector<16xf32>
          scf.yield %s2 : vector<2x16xf32>
        }
        vector.transfer_write %acc, %cp[%c0, %m, %c0] {in_bounds = [true, true]} : vector<2x16xf32>, memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>
      }
    }
    memref.dealloc %bp : memref<2x4x16xf32>
  }
  return
}

// -----

// CHECK-LABEL: func.func @one_offset
// CHECK:       scf.for %[[I:.*]] = %c0 to %c4 step %c1 {
// CHECK-NEXT:    scf.for %[[J:.*]] = %c0 to %c2 step %c1 {
// CHECK-NOT:   dlc.fused_packing
// CHECK:       return

// The k loop steps by 2 but reads only offset 0 of each step (twice): that
// the reads cover the Kc block cannot be shown, so it is left alone.
func.func @one_offset(%a: memref<4x8xf32>, %b: memref<8x2x16xf32>, %c: memref<2x4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %pad = ub.poison : f32
  scf.for %k = %c0 to %c8 step %c4 {
    %blk = memref.subview %b[%k, 0, 0] [4, 2, 16] [1, 1, 1] : memref<8x2x16xf32> to memref<4x2x16xf32, strided<[32, 16, 1], offset: ?>>
    %bp = memref.alloc() {alignment = 64 : i64} : memref<2x4x16xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c2 step %c1 {
        %e = memref.subview %blk[%i, %j, 0] [1, 1, 16] [1, 1, 1] : memref<4x2x16xf32, strided<[32, 16, 1], offset: ?>> to memref<1x1x16xf32, strided<[32, 16, 1], offset: ?>>
        %d = memref.subview %bp[%j, %i, 0] [1, 1, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
        %v = vector.transfer_read %e[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[32, 16, 1], offset: ?>>, vector<16xf32>
        vector.transfer_write %v, %d[%c0, %c0, %c0] {in_bounds = [true]} : vector<16xf32>, memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
      }
    }
    scf.for %p = %c0 to %c2 step %c1 {
      %panel = memref.subview %bp[%p, 0, 0] [1, 4, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>
      %cp = memref.subview %c[%p, 0, 0] [1, 4, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>
      scf.for %m = %c0 to %c4 step %c2 {
        %acc0 = vector.transfer_read %cp[%c0, %m, %c0], %pad {in_bounds = [true, true]} : memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>, vector<2x16xf32>
        %acc = scf.for %kk = %c0 to %c4 step %c2 iter_args(%s = %acc0) -> (vector<2x16xf32>) {
          %r0 = memref.subview %panel[0, %kk, 0] [1, 1, 16] [1, 1, 1] : memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
          %b0 = vector.transfer_read %r0[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>, vector<16xf32>
          %ka = arith.addi %k, %kk : index
          %a0 = vector.transfer_read %a[%m, %ka], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<4x8xf32>, vector<2xf32>
          %s1 = vector.outerproduct %a0, %b0, %s {kind = #vector.kind<add>} : vector<2xf32>, vector<16xf32>
          %kk1 = arith.addi %kk, %c1 : index
          %r1 = memref.subview %panel[0, %kk1, 0] [1, 1, 16] [1, 1, 1] : memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
          %b1 = vector.transfer_read %r0[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>, vector<16xf32>
          %ka1 = arith.addi %ka, %c1 : index
          %a1 = vector.transfer_read %a[%m, %ka1], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<4x8xf32>, vector<2xf32>
          %s2 = vector.outerproduct %a1, %b1, %s1 {kind = #vector.kind<add>} : vector<2xf32>, vector<16xf32>
          scf.yield %s2 : vector<2x16xf32>
        }
        vector.transfer_write %acc, %cp[%c0, %m, %c0] {in_bounds = [true, true]} : vector<2x16xf32>, memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>
      }
    }
    memref.dealloc %bp : memref<2x4x16xf32>
  }
  return
}

// -----

// CHECK-LABEL: func.func @read_before_rows
// CHECK:       scf.for %[[I:.*]] = %c0 to %c4 step %c1 {
// CHECK-NEXT:    scf.for %[[J:.*]] = %c0 to %c2 step %c1 {
// CHECK-NOT:   dlc.fused_packing
// CHECK:       return

// A read of Bp in the panel loop before the row loop would see it unpacked.
// Left alone.
func.func @read_before_rows(%a: memref<4x8xf32>, %b: memref<8x2x16xf32>, %c: memref<2x4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %pad = ub.poison : f32
  scf.for %k = %c0 to %c8 step %c4 {
    %blk = memref.subview %b[%k, 0, 0] [4, 2, 16] [1, 1, 1] : memref<8x2x16xf32> to memref<4x2x16xf32, strided<[32, 16, 1], offset: ?>>
    %bp = memref.alloc() {alignment = 64 : i64} : memref<2x4x16xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c2 step %c1 {
        %e = memref.subview %blk[%i, %j, 0] [1, 1, 16] [1, 1, 1] : memref<4x2x16xf32, strided<[32, 16, 1], offset: ?>> to memref<1x1x16xf32, strided<[32, 16, 1], offset: ?>>
        %d = memref.subview %bp[%j, %i, 0] [1, 1, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
        %v = vector.transfer_read %e[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[32, 16, 1], offset: ?>>, vector<16xf32>
        vector.transfer_write %v, %d[%c0, %c0, %c0] {in_bounds = [true]} : vector<16xf32>, memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
      }
    }
    scf.for %p = %c0 to %c2 step %c1 {
      %panel = memref.subview %bp[%p, 0, 0] [1, 4, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>
      %cp = memref.subview %c[%p, 0, 0] [1, 4, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>
      %early = vector.transfer_read %panel[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>, vector<16xf32>
      vector.transfer_write %early, %cp[%c0, %c0, %c0] {in_bounds = [true]} : vector<16xf32>, memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>
      scf.for %m = %c0 to %c4 step %c2 {
        %acc0 = vector.transfer_read %cp[%c0, %m, %c0], %pad {in_bounds = [true, true]} : memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>, vector<2x16xf32>
        %acc = scf.for %kk = %c0 to %c4 step %c2 iter_args(%s = %acc0) -> (vector<2x16xf32>) {
          %r0 = memref.subview %panel[0, %kk, 0] [1, 1, 16] [1, 1, 1] : memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
          %b0 = vector.transfer_read %r0[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>, vector<16xf32>
          %ka = arith.addi %k, %kk : index
          %a0 = vector.transfer_read %a[%m, %ka], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<4x8xf32>, vector<2xf32>
          %s1 = vector.outerproduct %a0, %b0, %s {kind = #vector.kind<add>} : vector<2xf32>, vector<16xf32>
          %kk1 = arith.addi %kk, %c1 : index
          %r1 = memref.subview %panel[0, %kk1, 0] [1, 1, 16] [1, 1, 1] : memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
          %b1 = vector.transfer_read %r1[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>, vector<16xf32>
          %ka1 = arith.addi %ka, %c1 : index
          %a1 = vector.transfer_read %a[%m, %ka1], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<4x8xf32>, vector<2xf32>
          %s2 = vector.outerproduct %a1, %b1, %s1 {kind = #vector.kind<add>} : vector<2xf32>, vector<16xf32>
          scf.yield %s2 : vector<2x16xf32>
        }
        vector.transfer_write %acc, %cp[%c0, %m, %c0] {in_bounds = [true, true]} : vector<2x16xf32>, memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>
      }
    }
    memref.dealloc %bp : memref<2x4x16xf32>
  }
  return
}

// -----

// CHECK-LABEL: func.func @later_rows
// CHECK-NOT:   scf.for %{{.*}} = %c0 to %c4 step %c1 {
// CHECK:       scf.for %{{.*}} = %c0 to %c2 step %c1 {
// CHECK:         scf.for %{{.*}} = %c0 to %c2_{{[0-9]+}} step %c2 {
// CHECK:       scf.for %[[P2:.*]] = %c0 to %c2 step %c1 {
// CHECK-NEXT:    memref.subview %{{.*}}[%[[P2]], 0, 0] [1, 4, 16]
// CHECK:       } {dlc.fused_packing}
// CHECK:       return

// Rows split off into a block of their own (a prime M: cpu_schedule.c
// splits the shorter last Mc block off) walk the panels in a second loop
// that only reads Bp, after the first has packed all of it: the first loop
// fuses the packing, the second reads the packed panels.
func.func @later_rows(%a: memref<4x8xf32>, %b: memref<8x2x16xf32>, %c: memref<2x4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %pad = ub.poison : f32
  scf.for %k = %c0 to %c8 step %c4 {
    %blk = memref.subview %b[%k, 0, 0] [4, 2, 16] [1, 1, 1] : memref<8x2x16xf32> to memref<4x2x16xf32, strided<[32, 16, 1], offset: ?>>
    %bp = memref.alloc() {alignment = 64 : i64} : memref<2x4x16xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c2 step %c1 {
        %e = memref.subview %blk[%i, %j, 0] [1, 1, 16] [1, 1, 1] : memref<4x2x16xf32, strided<[32, 16, 1], offset: ?>> to memref<1x1x16xf32, strided<[32, 16, 1], offset: ?>>
        %d = memref.subview %bp[%j, %i, 0] [1, 1, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
        %v = vector.transfer_read %e[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[32, 16, 1], offset: ?>>, vector<16xf32>
        vector.transfer_write %v, %d[%c0, %c0, %c0] {in_bounds = [true]} : vector<16xf32>, memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
      }
    }
    scf.for %p = %c0 to %c2 step %c1 {
      %panel = memref.subview %bp[%p, 0, 0] [1, 4, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>
      %cp = memref.subview %c[%p, 0, 0] [1, 4, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>
      scf.for %m = %c0 to %c4 step %c2 {
        %acc0 = vector.transfer_read %cp[%c0, %m, %c0], %pad {in_bounds = [true, true]} : memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>, vector<2x16xf32>
        %acc = scf.for %kk = %c0 to %c4 step %c2 iter_args(%s = %acc0) -> (vector<2x16xf32>) {
          %r0 = memref.subview %panel[0, %kk, 0] [1, 1, 16] [1, 1, 1] : memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
          %b0 = vector.transfer_read %r0[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>, vector<16xf32>
          %ka = arith.addi %k, %kk : index
          %a0 = vector.transfer_read %a[%m, %ka], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<4x8xf32>, vector<2xf32>
          %s1 = vector.outerproduct %a0, %b0, %s {kind = #vector.kind<add>} : vector<2xf32>, vector<16xf32>
          %kk1 = arith.addi %kk, %c1 : index
          %r1 = memref.subview %panel[0, %kk1, 0] [1, 1, 16] [1, 1, 1] : memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
          %b1 = vector.transfer_read %r1[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>, vector<16xf32>
          %ka1 = arith.addi %ka, %c1 : index
          %a1 = vector.transfer_read %a[%m, %ka1], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<4x8xf32>, vector<2xf32>
          %s2 = vector.outerproduct %a1, %b1, %s1 {kind = #vector.kind<add>} : vector<2xf32>, vector<16xf32>
          scf.yield %s2 : vector<2x16xf32>
        }
        vector.transfer_write %acc, %cp[%c0, %m, %c0] {in_bounds = [true, true]} : vector<2x16xf32>, memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>
      }
    }
    scf.for %p2 = %c0 to %c2 step %c1 {
      %panel2 = memref.subview %bp[%p2, 0, 0] [1, 4, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>
      %cp2 = memref.subview %c[%p2, 0, 0] [1, 4, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>
      %r2 = memref.subview %panel2[0, 3, 0] [1, 1, 16] [1, 1, 1] : memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
      %b2 = vector.transfer_read %r2[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>, vector<16xf32>
      vector.transfer_write %b2, %cp2[%c0, %c0, %c0] {in_bounds = [true]} : vector<16xf32>, memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>
    }
    memref.dealloc %bp : memref<2x4x16xf32>
  }
  return
}

// -----

// CHECK-LABEL: func.func @later_write
// CHECK:       scf.for %[[I:.*]] = %c0 to %c4 step %c1 {
// CHECK-NEXT:    scf.for %[[J:.*]] = %c0 to %c2 step %c1 {
// CHECK-NOT:   dlc.fused_packing
// CHECK:       return

// The second panel loop writes Bp. Left alone.
func.func @later_write(%a: memref<4x8xf32>, %b: memref<8x2x16xf32>, %c: memref<2x4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %pad = ub.poison : f32
  scf.for %k = %c0 to %c8 step %c4 {
    %blk = memref.subview %b[%k, 0, 0] [4, 2, 16] [1, 1, 1] : memref<8x2x16xf32> to memref<4x2x16xf32, strided<[32, 16, 1], offset: ?>>
    %bp = memref.alloc() {alignment = 64 : i64} : memref<2x4x16xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c2 step %c1 {
        %e = memref.subview %blk[%i, %j, 0] [1, 1, 16] [1, 1, 1] : memref<4x2x16xf32, strided<[32, 16, 1], offset: ?>> to memref<1x1x16xf32, strided<[32, 16, 1], offset: ?>>
        %d = memref.subview %bp[%j, %i, 0] [1, 1, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
        %v = vector.transfer_read %e[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[32, 16, 1], offset: ?>>, vector<16xf32>
        vector.transfer_write %v, %d[%c0, %c0, %c0] {in_bounds = [true]} : vector<16xf32>, memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
      }
    }
    scf.for %p = %c0 to %c2 step %c1 {
      %panel = memref.subview %bp[%p, 0, 0] [1, 4, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>
      %cp = memref.subview %c[%p, 0, 0] [1, 4, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>
      scf.for %m = %c0 to %c4 step %c2 {
        %acc0 = vector.transfer_read %cp[%c0, %m, %c0], %pad {in_bounds = [true, true]} : memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>, vector<2x16xf32>
        %acc = scf.for %kk = %c0 to %c4 step %c2 iter_args(%s = %acc0) -> (vector<2x16xf32>) {
          %r0 = memref.subview %panel[0, %kk, 0] [1, 1, 16] [1, 1, 1] : memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
          %b0 = vector.transfer_read %r0[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>, vector<16xf32>
          %ka = arith.addi %k, %kk : index
          %a0 = vector.transfer_read %a[%m, %ka], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<4x8xf32>, vector<2xf32>
          %s1 = vector.outerproduct %a0, %b0, %s {kind = #vector.kind<add>} : vector<2xf32>, vector<16xf32>
          %kk1 = arith.addi %kk, %c1 : index
          %r1 = memref.subview %panel[0, %kk1, 0] [1, 1, 16] [1, 1, 1] : memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
          %b1 = vector.transfer_read %r1[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>, vector<16xf32>
          %ka1 = arith.addi %ka, %c1 : index
          %a1 = vector.transfer_read %a[%m, %ka1], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<4x8xf32>, vector<2xf32>
          %s2 = vector.outerproduct %a1, %b1, %s1 {kind = #vector.kind<add>} : vector<2xf32>, vector<16xf32>
          scf.yield %s2 : vector<2x16xf32>
        }
        vector.transfer_write %acc, %cp[%c0, %m, %c0] {in_bounds = [true, true]} : vector<2x16xf32>, memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>
      }
    }
    scf.for %p2 = %c0 to %c2 step %c1 {
      %panel2 = memref.subview %bp[%p2, 0, 0] [1, 4, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>
      %cp2 = memref.subview %c[%p2, 0, 0] [1, 4, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>
      %r2 = memref.subview %panel2[0, 3, 0] [1, 1, 16] [1, 1, 1] : memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
      %b2 = vector.transfer_read %r2[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>, vector<16xf32>
      vector.transfer_write %b2, %panel2[%c0, %c0, %c0] {in_bounds = [true]} : vector<16xf32>, memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>
    }
    memref.dealloc %bp : memref<2x4x16xf32>
  }
  return
}

// -----

// CHECK-LABEL: func.func @other_use
// CHECK:       scf.for %[[I:.*]] = %c0 to %c4 step %c1 {
// CHECK-NEXT:    scf.for %[[J:.*]] = %c0 to %c2 step %c1 {
// CHECK-NOT:   dlc.fused_packing
// CHECK:       return

// Bp has a user besides the copy and the compute. Left alone.
func.func @other_use(%a: memref<4x8xf32>, %b: memref<8x2x16xf32>, %c: memref<2x4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %pad = ub.poison : f32
  scf.for %k = %c0 to %c8 step %c4 {
    %blk = memref.subview %b[%k, 0, 0] [4, 2, 16] [1, 1, 1] : memref<8x2x16xf32> to memref<4x2x16xf32, strided<[32, 16, 1], offset: ?>>
    %bp = memref.alloc() {alignment = 64 : i64} : memref<2x4x16xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c2 step %c1 {
        %e = memref.subview %blk[%i, %j, 0] [1, 1, 16] [1, 1, 1] : memref<4x2x16xf32, strided<[32, 16, 1], offset: ?>> to memref<1x1x16xf32, strided<[32, 16, 1], offset: ?>>
        %d = memref.subview %bp[%j, %i, 0] [1, 1, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
        %v = vector.transfer_read %e[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[32, 16, 1], offset: ?>>, vector<16xf32>
        vector.transfer_write %v, %d[%c0, %c0, %c0] {in_bounds = [true]} : vector<16xf32>, memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
      }
    }
    scf.for %p = %c0 to %c2 step %c1 {
      %panel = memref.subview %bp[%p, 0, 0] [1, 4, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>
      %cp = memref.subview %c[%p, 0, 0] [1, 4, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>
      scf.for %m = %c0 to %c4 step %c2 {
        %acc0 = vector.transfer_read %cp[%c0, %m, %c0], %pad {in_bounds = [true, true]} : memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>, vector<2x16xf32>
        %acc = scf.for %kk = %c0 to %c4 step %c2 iter_args(%s = %acc0) -> (vector<2x16xf32>) {
          %r0 = memref.subview %panel[0, %kk, 0] [1, 1, 16] [1, 1, 1] : memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
          %b0 = vector.transfer_read %r0[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>, vector<16xf32>
          %ka = arith.addi %k, %kk : index
          %a0 = vector.transfer_read %a[%m, %ka], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<4x8xf32>, vector<2xf32>
          %s1 = vector.outerproduct %a0, %b0, %s {kind = #vector.kind<add>} : vector<2xf32>, vector<16xf32>
          %kk1 = arith.addi %kk, %c1 : index
          %r1 = memref.subview %panel[0, %kk1, 0] [1, 1, 16] [1, 1, 1] : memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
          %b1 = vector.transfer_read %r1[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>, vector<16xf32>
          %ka1 = arith.addi %ka, %c1 : index
          %a1 = vector.transfer_read %a[%m, %ka1], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<4x8xf32>, vector<2xf32>
          %s2 = vector.outerproduct %a1, %b1, %s1 {kind = #vector.kind<add>} : vector<2xf32>, vector<16xf32>
          scf.yield %s2 : vector<2x16xf32>
        }
        vector.transfer_write %acc, %cp[%c0, %m, %c0] {in_bounds = [true, true]} : vector<2x16xf32>, memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>
      }
    }
    memref.copy %bp, %bp : memref<2x4x16xf32> to memref<2x4x16xf32>
    memref.dealloc %bp : memref<2x4x16xf32>
  }
  return
}

// -----

// CHECK-LABEL: func.func @write_between
// CHECK:       scf.for %[[I:.*]] = %c0 to %c4 step %c1 {
// CHECK-NEXT:    scf.for %[[J:.*]] = %c0 to %c2 step %c1 {
// CHECK-NOT:   dlc.fused_packing
// CHECK:       return

// B is written between the copy and the compute: reading it later, in the
// first row block, would see the new value. Left alone.
func.func @write_between(%a: memref<4x8xf32>, %b: memref<8x2x16xf32>, %c: memref<2x4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %pad = ub.poison : f32
  scf.for %k = %c0 to %c8 step %c4 {
    %blk = memref.subview %b[%k, 0, 0] [4, 2, 16] [1, 1, 1] : memref<8x2x16xf32> to memref<4x2x16xf32, strided<[32, 16, 1], offset: ?>>
    %bp = memref.alloc() {alignment = 64 : i64} : memref<2x4x16xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c2 step %c1 {
        %e = memref.subview %blk[%i, %j, 0] [1, 1, 16] [1, 1, 1] : memref<4x2x16xf32, strided<[32, 16, 1], offset: ?>> to memref<1x1x16xf32, strided<[32, 16, 1], offset: ?>>
        %d = memref.subview %bp[%j, %i, 0] [1, 1, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
        %v = vector.transfer_read %e[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[32, 16, 1], offset: ?>>, vector<16xf32>
        vector.transfer_write %v, %d[%c0, %c0, %c0] {in_bounds = [true]} : vector<16xf32>, memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
      }
    }
    %zero = arith.constant 0.0 : f32
    memref.store %zero, %b[%k, %c0, %c0] : memref<8x2x16xf32>
    scf.for %p = %c0 to %c2 step %c1 {
      %panel = memref.subview %bp[%p, 0, 0] [1, 4, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>
      %cp = memref.subview %c[%p, 0, 0] [1, 4, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>
      scf.for %m = %c0 to %c4 step %c2 {
        %acc0 = vector.transfer_read %cp[%c0, %m, %c0], %pad {in_bounds = [true, true]} : memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>, vector<2x16xf32>
        %acc = scf.for %kk = %c0 to %c4 step %c2 iter_args(%s = %acc0) -> (vector<2x16xf32>) {
          %r0 = memref.subview %panel[0, %kk, 0] [1, 1, 16] [1, 1, 1] : memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
          %b0 = vector.transfer_read %r0[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>, vector<16xf32>
          %ka = arith.addi %k, %kk : index
          %a0 = vector.transfer_read %a[%m, %ka], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<4x8xf32>, vector<2xf32>
          %s1 = vector.outerproduct %a0, %b0, %s {kind = #vector.kind<add>} : vector<2xf32>, vector<16xf32>
          %kk1 = arith.addi %kk, %c1 : index
          %r1 = memref.subview %panel[0, %kk1, 0] [1, 1, 16] [1, 1, 1] : memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
          %b1 = vector.transfer_read %r1[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>, vector<16xf32>
          %ka1 = arith.addi %ka, %c1 : index
          %a1 = vector.transfer_read %a[%m, %ka1], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<4x8xf32>, vector<2xf32>
          %s2 = vector.outerproduct %a1, %b1, %s1 {kind = #vector.kind<add>} : vector<2xf32>, vector<16xf32>
          scf.yield %s2 : vector<2x16xf32>
        }
        vector.transfer_write %acc, %cp[%c0, %m, %c0] {in_bounds = [true, true]} : vector<2x16xf32>, memref<1x4x16xf32, strided<[64, 16, 1], offset: ?>>
      }
    }
    memref.dealloc %bp : memref<2x4x16xf32>
  }
  return
}
