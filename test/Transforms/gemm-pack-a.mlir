// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(dlc-gemm-pack-a{min-bytes=1024})' %s | FileCheck %s
// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(dlc-gemm-pack-a{min-bytes=8192})' %s | FileCheck %s --check-prefix=SMALL
// AVX2's register tiles are not 8 rows high: its threshold is "never".
// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(dlc-gemm-pack-a{target=avx2})' %s | FileCheck %s --check-prefix=SMALL
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
// The copy: per 8 rows and 16 columns, 8 row vectors in, three rounds of
// 8 shuffles (the x86 unpacks, pair shuffles and 128-bit lane shuffles of
// an 8 x 16 transpose), then 8 more that each store 2 k steps of 8 rows.
// CHECK-LABEL: func.func private @dlc_pack_a_0(%{{.*}}: memref<64x16xf32, strided<[32, 1], offset: ?>>, %{{.*}}: memref<8x128xf32>)
// CHECK-COUNT-8: vector.load
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
