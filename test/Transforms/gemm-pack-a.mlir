// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(dlc-gemm-pack-a{target=avx512 min-bytes=1024})' %s | FileCheck %s
// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(dlc-gemm-pack-a{target=avx512 min-bytes=8192})' %s | FileCheck %s --check-prefix=SMALL
// AVX2's threshold (4 times its model's 512 KiB L2) leaves these small
// A in place:
// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(dlc-gemm-pack-a{target=avx2})' %s | FileCheck %s --check-prefix=SMALL
// AVX2's copy transposes 8-column tiles, of 6 rows here:
// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(dlc-gemm-pack-a{target=avx2 min-bytes=1024})' %s | FileCheck %s --check-prefix=AVX2
// RUN: not dlc-opt --pass-pipeline='builtin.module(dlc-gemm-pack-a{min-bytes=-1})' %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not dlc-opt --pass-pipeline='builtin.module(dlc-gemm-pack-a{target=avx3})' %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADTARGET

// BAD: error: dlc-gemm-pack-a: min-bytes must be 0 or more, got -1
// BADTARGET: error: dlc-gemm-pack-a: unknown target 'avx3' (host, avx2 or avx512)

// dlc-gemm-pack-a: the register tiles' reads of 8 rows of A's Mc x Kc
// block become loads from a copy packed in 8-row panels, Ap[Mc / 8][Kc * 8],
// made right after the block's view and freed at the end of its loop body.
// A is 64 x 32 floats here (8 KiB): above min-bytes 1024, not above 8192.

// CHECK-LABEL: func.func @tile
// CHECK:       scf.for %[[KB:.*]] = %c0 to %c32 step %c16 {
// CHECK-NEXT:    %[[BLK:.*]] = memref.subview %{{.*}}[0, %[[KB]]] [64, 16] [1, 1]
// CHECK-NEXT:    %[[AP:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8x128xf32>
// CHECK-NEXT:    func.call @dlc_pack_a_0(%[[BLK]], %[[AP]]) : (memref<64x16xf32, strided<[32, 1], offset: ?>>, memref<8x128xf32>) -> ()
// CHECK:         scf.for %[[M:.*]] = %c0 to %c64 step %c8 {
// CHECK:           scf.for %[[K:.*]] = %c0 to %c16 step %c1 iter_args
// CHECK-NOT:         vector.transpose
// CHECK:             %[[G:.*]] = arith.divui %[[M]], %{{.*}} : index
// CHECK:             %[[C:.*]] = arith.muli %[[K]], %{{.*}} : index
// CHECK:             memref.load %[[AP]][%[[G]], %[[C]]] : memref<8x128xf32>
// CHECK-COUNT-7:     memref.load %[[AP]][%[[G]], %{{.*}}] : memref<8x128xf32>
// CHECK:             %[[V:.*]] = vector.from_elements {{.*}} : vector<8xf32>
// CHECK:             vector.outerproduct %[[V]], %{{.*}}, %{{.*}} {kind = #vector.kind<add>} : vector<8xf32>, vector<32xf32>
// CHECK:         memref.dealloc %[[AP]] : memref<8x128xf32>
// CHECK-NEXT:  }
// The copy: per 8 rows and 16 columns, 8 row vectors in (each with a
// prefetch of the next group's row, the block's last row past its end),
// three rounds of 8 shuffles (the x86 unpacks, pair shuffles and 128-bit
// lane shuffles of an 8 x 16 transpose), then 8 more that each store 2 k
// steps of 8 rows.
// CHECK-LABEL: func.func private @dlc_pack_a_0(%{{.*}}: memref<64x16xf32, strided<[32, 1], offset: ?>>, %{{.*}}: memref<8x128xf32>)
// CHECK:       %[[LAST:.*]] = arith.constant 63 : index
// CHECK-COUNT-8: arith.minui %{{.*}}, %[[LAST]] : index
// CHECK-COUNT-8: vector.load
// CHECK-SAME:  vector<16xf32>
// CHECK-NEXT:  memref.prefetch %{{.*}}, read, locality<3>, data
// CHECK-NEXT:  vector.shuffle %{{.*}}, %{{.*}} [0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12, 28, 13, 29]
// CHECK-NEXT:  vector.shuffle %{{.*}}, %{{.*}} [2, 18, 3, 19, 6, 22, 7, 23, 10, 26, 11, 27, 14, 30, 15, 31]
// CHECK-COUNT-6: vector.shuffle
// CHECK-NEXT:  vector.shuffle %{{.*}}, %{{.*}} [0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29]
// CHECK-COUNT-7: vector.shuffle
// CHECK-NEXT:  vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27]
// CHECK-COUNT-8: vector.store
// SMALL-LABEL: func.func @tile
// SMALL-NOT: dlc_pack_a
// SMALL: vector.transpose
func.func @tile(%a: memref<64x32xf32>, %bp: memref<32x32xf32>, %c: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %pad = ub.poison : f32
  scf.for %kb = %c0 to %c32 step %c16 {
    %blk = memref.subview %a[0, %kb] [64, 16] [1, 1] : memref<64x32xf32> to memref<64x16xf32, strided<[32, 1], offset: ?>>
    scf.for %m = %c0 to %c64 step %c8 {
      %acc = vector.transfer_read %c[%m, %c0], %pad {in_bounds = [true, true]} : memref<64x32xf32>, vector<8x32xf32>
      %r = scf.for %k = %c0 to %c16 step %c1 iter_args(%x = %acc) -> (vector<8x32xf32>) {
        %sv = memref.subview %blk[%m, %k] [8, 1] [1, 1] : memref<64x16xf32, strided<[32, 1], offset: ?>> to memref<8x1xf32, strided<[32, 1], offset: ?>>
        %a8 = vector.transfer_read %sv[%c0, %c0], %pad {in_bounds = [true, true]} : memref<8x1xf32, strided<[32, 1], offset: ?>>, vector<8x1xf32>
        %t = vector.transpose %a8, [1, 0] : vector<8x1xf32> to vector<1x8xf32>
        %e = vector.extract %t[0] : vector<8xf32> from vector<1x8xf32>
        %kk = arith.addi %kb, %k : index
        %b = vector.transfer_read %bp[%kk, %c0], %pad {in_bounds = [true]} : memref<32x32xf32>, vector<32xf32>
        %o = vector.outerproduct %e, %b, %x {kind = #vector.kind<add>} : vector<8xf32>, vector<32xf32>
        scf.yield %o : vector<8x32xf32>
      }
      vector.transfer_write %r, %c[%m, %c0] {in_bounds = [true, true]} : vector<8x32xf32>, memref<64x32xf32>
    }
  }
  return
}

// -----

// Row blocks 4 rows apart: a read's rows need not start an 8-row panel,
// so nothing is packed.
// CHECK-LABEL: func.func @unaligned
// CHECK-NOT: dlc_pack_a
// CHECK: vector.transpose
func.func @unaligned(%a: memref<64x32xf32>, %c: memref<64x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c56 = arith.constant 56 : index
  %pad = ub.poison : f32
  %blk = memref.subview %a[0, 0] [64, 16] [1, 1] : memref<64x32xf32> to memref<64x16xf32, strided<[32, 1]>>
  scf.for %m = %c0 to %c56 step %c4 {
    scf.for %k = %c0 to %c16 step %c1 {
      %sv = memref.subview %blk[%m, %k] [8, 1] [1, 1] : memref<64x16xf32, strided<[32, 1]>> to memref<8x1xf32, strided<[32, 1], offset: ?>>
      %a8 = vector.transfer_read %sv[%c0, %c0], %pad {in_bounds = [true, true]} : memref<8x1xf32, strided<[32, 1], offset: ?>>, vector<8x1xf32>
      %t = vector.transpose %a8, [1, 0] : vector<8x1xf32> to vector<1x8xf32>
      %e = vector.extract %t[0] : vector<8xf32> from vector<1x8xf32>
      vector.transfer_write %e, %c[%m, %c0] {in_bounds = [true]} : vector<8xf32>, memref<64x8xf32>
    }
  }
  return
}

// -----

// AVX2's 6 x 16 register tiles: an Mc of 26 rows is a block of 24 (four
// 6-row panels) and one of 2, both viewed inside the loop over B's
// panels. Each view moves out of that loop (it does not depend on it) and
// is packed there, once per Kc block: Ap[24 / 6][16 * 6] and Ap[1][16 * 2].
// AVX2-LABEL: func.func @six_rows
// AVX2:       scf.for %[[KB:.*]] = %c0 to %c32 step %c16 {
// AVX2-NEXT:    %[[BLK:.*]] = memref.subview %{{.*}}[0, %[[KB]]] [26, 16] [1, 1]
// AVX2-NEXT:    %[[MAIN:.*]] = memref.subview %[[BLK]][0, 0] [24, 16] [1, 1]
// AVX2-NEXT:    %[[AP:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4x96xf32>
// AVX2-NEXT:    func.call @dlc_pack_a_0(%[[MAIN]], %[[AP]])
// AVX2-NEXT:    %[[EDGE:.*]] = memref.subview %[[BLK]][24, 0] [2, 16] [1, 1]
// AVX2-NEXT:    %[[AE:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x32xf32>
// AVX2-NEXT:    func.call @dlc_pack_a_1(%[[EDGE]], %[[AE]])
// AVX2-NEXT:    scf.for %[[P:.*]] = %c0 to %c2 step %c1 {
// AVX2-NEXT:      scf.for %[[M:.*]] = %c0 to %c24 step %c6 {
// AVX2:             scf.for %[[K:.*]] = %c0 to %c16 step %c1 iter_args
// AVX2-NOT:           vector.transpose
// AVX2:               %[[G:.*]] = arith.divui %[[M]], %{{.*}} : index
// AVX2:               %[[C:.*]] = arith.muli %[[K]], %{{.*}} : index
// AVX2:               memref.load %[[AP]][%[[G]], %[[C]]] : memref<4x96xf32>
// AVX2-COUNT-5:       memref.load %[[AP]][%[[G]], %{{.*}}] : memref<4x96xf32>
// AVX2:               vector.from_elements {{.*}} : vector<6xf32>
// AVX2:           scf.for %{{.*}} = %c0 to %c16 step %c1 iter_args
// AVX2-COUNT-2:     memref.load %[[AE]][%{{.*}}, %{{.*}}] : memref<1x32xf32>
// AVX2:             vector.from_elements {{.*}} : vector<2xf32>
// AVX2:         memref.dealloc %[[AP]] : memref<4x96xf32>
// AVX2-NEXT:    memref.dealloc %[[AE]] : memref<1x32xf32>
// AVX2-NEXT:  }
// The 6-row copy: per 8 columns, 6 row vectors in (rows 6 and 7 of the
// 8 x 8 transpose repeat row 0, lanes never stored), three rounds of 8
// shuffles (unpacks, pair shuffles, 128-bit lane shuffles), then the 48
// floats in order: each of the 6 stored vectors merges the two columns it
// spans.
// AVX2-LABEL: func.func private @dlc_pack_a_0(%{{.*}}: memref<24x16xf32, strided<[32, 1], offset: ?>>, %{{.*}}: memref<4x96xf32>)
// AVX2-COUNT-6: vector.load {{.*}} vector<8xf32>
// AVX2-NEXT:  memref.prefetch
// AVX2-NEXT:  vector.shuffle %{{.*}}, %{{.*}} [0, 8, 1, 9, 4, 12, 5, 13] : vector<8xf32>, vector<8xf32>
// AVX2-NEXT:  vector.shuffle %{{.*}}, %{{.*}} [2, 10, 3, 11, 6, 14, 7, 15]
// AVX2-COUNT-6: vector.shuffle
// AVX2-NEXT:  vector.shuffle %{{.*}}, %{{.*}} [0, 1, 8, 9, 4, 5, 12, 13]
// AVX2-COUNT-7: vector.shuffle
// AVX2-NEXT:  vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3, 8, 9, 10, 11]
// AVX2-NEXT:  vector.shuffle %{{.*}}, %{{.*}} [4, 5, 6, 7, 12, 13, 14, 15]
// AVX2-COUNT-6: vector.shuffle
// AVX2-NEXT:  %[[W0:.*]] = vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3, 4, 5, 8, 9]
// AVX2:       vector.store %[[W0]], %{{.*}} : memref<4x96xf32>, vector<8xf32>
// AVX2-NEXT:  %[[W1:.*]] = vector.shuffle %{{.*}}, %{{.*}} [2, 3, 4, 5, 8, 9, 10, 11]
// AVX2:       vector.store %[[W1]]
// AVX2-NEXT:  %[[W2:.*]] = vector.shuffle %{{.*}}, %{{.*}} [4, 5, 8, 9, 10, 11, 12, 13]
// AVX2:       vector.store %[[W2]]
// AVX2-COUNT-3: vector.store
// AVX2-NOT:   vector.store
// AVX2:       return
// The 2-row copy: each stored vector spans 4 columns, merged in 3 shuffles.
// AVX2-LABEL: func.func private @dlc_pack_a_1(%{{.*}}: memref<2x16xf32, strided<[32, 1], offset: ?>>, %{{.*}}: memref<1x32xf32>)
// AVX2-COUNT-24: vector.shuffle
// AVX2-NEXT:  vector.shuffle %{{.*}}, %{{.*}} [0, 1, 8, 9, 4, 5, 6, 7]
// AVX2-NEXT:  vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3, 8, 9, 6, 7]
// AVX2-NEXT:  vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3, 4, 5, 8, 9]
// AVX2:       vector.store
// AVX2-COUNT-3: vector.shuffle
// AVX2:       vector.store
// AVX2-NOT:   vector.store
// SMALL-LABEL: func.func @six_rows
// SMALL-NOT: dlc_pack_a
func.func @six_rows(%a: memref<26x32xf32>, %bp: memref<2x32x16xf32>, %c: memref<2x26x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c6 = arith.constant 6 : index
  %c16 = arith.constant 16 : index
  %c24 = arith.constant 24 : index
  %c32 = arith.constant 32 : index
  %pad = ub.poison : f32
  scf.for %kb = %c0 to %c32 step %c16 {
    %blk = memref.subview %a[0, %kb] [26, 16] [1, 1] : memref<26x32xf32> to memref<26x16xf32, strided<[32, 1], offset: ?>>
    scf.for %p = %c0 to %c2 step %c1 {
      %main = memref.subview %blk[0, 0] [24, 16] [1, 1] : memref<26x16xf32, strided<[32, 1], offset: ?>> to memref<24x16xf32, strided<[32, 1], offset: ?>>
      scf.for %m = %c0 to %c24 step %c6 {
        %acc = vector.transfer_read %c[%p, %m, %c0], %pad {in_bounds = [true, true]} : memref<2x26x16xf32>, vector<6x16xf32>
        %r = scf.for %k = %c0 to %c16 step %c1 iter_args(%x = %acc) -> (vector<6x16xf32>) {
          %sv = memref.subview %main[%m, %k] [6, 1] [1, 1] : memref<24x16xf32, strided<[32, 1], offset: ?>> to memref<6x1xf32, strided<[32, 1], offset: ?>>
          %a6 = vector.transfer_read %sv[%c0, %c0], %pad {in_bounds = [true, true]} : memref<6x1xf32, strided<[32, 1], offset: ?>>, vector<6x1xf32>
          %t = vector.transpose %a6, [1, 0] : vector<6x1xf32> to vector<1x6xf32>
          %e = vector.extract %t[0] : vector<6xf32> from vector<1x6xf32>
          %kk = arith.addi %kb, %k : index
          %b = vector.transfer_read %bp[%p, %kk, %c0], %pad {in_bounds = [true]} : memref<2x32x16xf32>, vector<16xf32>
          %o = vector.outerproduct %e, %b, %x {kind = #vector.kind<add>} : vector<6xf32>, vector<16xf32>
          scf.yield %o : vector<6x16xf32>
        }
        vector.transfer_write %r, %c[%p, %m, %c0] {in_bounds = [true, true]} : vector<6x16xf32>, memref<2x26x16xf32>
      }
      %edge = memref.subview %blk[24, 0] [2, 16] [1, 1] : memref<26x16xf32, strided<[32, 1], offset: ?>> to memref<2x16xf32, strided<[32, 1], offset: ?>>
      %acc2 = vector.transfer_read %c[%p, %c24, %c0], %pad {in_bounds = [true, true]} : memref<2x26x16xf32>, vector<2x16xf32>
      %r2 = scf.for %k = %c0 to %c16 step %c1 iter_args(%x = %acc2) -> (vector<2x16xf32>) {
        %sv = memref.subview %edge[0, %k] [2, 1] [1, 1] : memref<2x16xf32, strided<[32, 1], offset: ?>> to memref<2x1xf32, strided<[32, 1], offset: ?>>
        %a2 = vector.transfer_read %sv[%c0, %c0], %pad {in_bounds = [true, true]} : memref<2x1xf32, strided<[32, 1], offset: ?>>, vector<2x1xf32>
        %t = vector.transpose %a2, [1, 0] : vector<2x1xf32> to vector<1x2xf32>
        %e = vector.extract %t[0] : vector<2xf32> from vector<1x2xf32>
        %kk = arith.addi %kb, %k : index
        %b = vector.transfer_read %bp[%p, %kk, %c0], %pad {in_bounds = [true]} : memref<2x32x16xf32>, vector<16xf32>
        %o = vector.outerproduct %e, %b, %x {kind = #vector.kind<add>} : vector<2xf32>, vector<16xf32>
        scf.yield %o : vector<2x16xf32>
      }
      vector.transfer_write %r2, %c[%p, %c24, %c0] {in_bounds = [true, true]} : vector<2x16xf32>, memref<2x26x16xf32>
    }
  }
  return
}
