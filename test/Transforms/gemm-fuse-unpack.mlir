// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(func.func(dlc-gemm-fuse-unpack{prefetch=false}))' %s | FileCheck %s
// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(func.func(dlc-gemm-fuse-unpack,canonicalize))' %s | FileCheck %s --check-prefix=PF
// RUN: dlc-opt --lower-to-llvm='target=avx512 fuse-unpack=true' --mlir-print-ir-after=dlc-gemm-fuse-unpack %S/Inputs/gemm-fuse-packing-pipeline.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPE
// RUN: dlc-opt --lower-to-llvm=target=avx512 --mlir-print-ir-after-all %S/Inputs/gemm-fuse-packing-pipeline.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEFAULT

// dlc-gemm-fuse-unpack: the packed C's fill loop and its unpacking loop
// (the epilogue's) go; each register tile reads the fill value in the
// first Kc block and unpacks its rows right after the last.

// The CPU pipeline runs the pass only when asked (fuse-unpack=true; its
// header says why):
// DEFAULT-NOT: dlc-gemm-fuse-unpack
// DEFAULT-NOT: dlc.fused_unpack

// The real pipeline: the 64x512x256 GEMM (+ bias) of the fuse-packing test.
// PIPE: IR Dump After dlc-gemm-fuse-unpack
// PIPE: scf.forall
// PIPE: memref.alloc() {{.*}} : memref<2x64x32xf32>
// PIPE-NOT: vector.transfer_write %cst
// PIPE: scf.if
// PIPE: } {dlc.fused_packing, dlc.fused_unpack}
// PIPE-NOT: memref.subview %alloc[%{{.*}}, %{{.*}}, 0] [1, 1, 32]
// PIPE: memref.dealloc

// Cp [2 panels, 4 rows, 16], two Kc blocks of 4, register tiles of 2 rows.
// CHECK-LABEL: func.func @fused
// CHECK:       scf.forall
// CHECK-NEXT:    %[[CP:.*]] = memref.alloc()
// The unpack's views move above the Kc loop.
// CHECK-NEXT:    %[[BV:.*]] = memref.subview %{{.*}}[0, 0] [2, 16]
// CHECK-NEXT:    scf.for %[[K:.*]] = %c0 to %c8 step %c4 {
// CHECK-NEXT:      scf.for %[[P:.*]] = %c0 to %c2 step %c1 {
// CHECK-NEXT:        scf.for %[[M:.*]] = %c0 to %c4 step %c2 {
// CHECK-NEXT:          %[[T:.*]] = memref.subview %[[CP]][%[[P]], %[[M]], 0] [1, 2, 16]
// CHECK-NEXT:          %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<2x16xf32>
// CHECK-NEXT:          %[[K0:.*]] = arith.constant 0 : index
// CHECK-NEXT:          %[[FIRST:.*]] = arith.cmpi eq, %[[K]], %[[K0]]
// CHECK-NEXT:          %[[INIT:.*]] = scf.if %[[FIRST]] -> (vector<2x16xf32>) {
// CHECK-NEXT:            scf.yield %[[Z]]
// CHECK-NEXT:          } else {
// CHECK-NEXT:            %[[R:.*]] = vector.transfer_read %[[T]]
// CHECK-NEXT:            scf.yield %[[R]]
// CHECK-NEXT:          }
// CHECK-NEXT:          %[[ACC:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[INIT]])
// CHECK:               vector.transfer_write %[[ACC]], %[[T]]
// CHECK-NEXT:          %[[K1:.*]] = arith.constant 4 : index
// CHECK-NEXT:          %[[LAST:.*]] = arith.cmpi eq, %[[K]], %[[K1]]
// CHECK-NEXT:          scf.if %[[LAST]] {
// The tile's rows [m, m + 2) of panel p, unpacked as the loop did.
// CHECK:                 %[[P1:.*]] = arith.addi %[[P]], %{{.*}}
// CHECK:                 %[[M1:.*]] = arith.addi %[[M]], %{{.*}}
// CHECK-NEXT:            scf.for %[[MM:.*]] = %[[M]] to %[[M1]] step %c1 {
// CHECK-NEXT:              scf.for %[[PP:.*]] = %[[P]] to %[[P1]] step %c1 {
// CHECK-NEXT:                %[[E:.*]] = memref.subview %[[CP]][%[[PP]], %[[MM]], 0] [1, 1, 16]
// CHECK-NEXT:                %[[B:.*]] = memref.subview %[[BV]][%[[PP]], 0] [1, 16]
// CHECK-NEXT:                %[[O:.*]] = memref.subview %{{.*}}[%[[MM]], %[[PP]], 0] [1, 1, 16]
// CHECK-NEXT:                %[[V:.*]] = vector.transfer_read %[[E]]
// CHECK-NEXT:                %[[VB:.*]] = vector.transfer_read %[[B]]
// CHECK-NEXT:                %[[S:.*]] = arith.addf %[[V]], %[[VB]]
// CHECK-NEXT:                vector.transfer_write %[[S]], %[[O]]
// CHECK:         } {dlc.fused_unpack}
// CHECK-NEXT:    memref.dealloc %[[CP]]
// CHECK-NEXT:  }

// With prefetch (the default), before the last block's k loop each row of
// C the tile unpacks is prefetched for writing: 16 floats, offsets 0 and 15.
// PF-LABEL: func.func @fused
// PF:         scf.if
// PF:           scf.for %[[MM:.*]] = %{{.*}} to %{{.*}} step %c1 {
// PF-NEXT:        scf.for %[[PP:.*]] = %{{.*}} to %{{.*}} step %c1 {
// PF-NEXT:          %[[O:.*]] = memref.subview %{{.*}}[%[[MM]], %[[PP]], 0] [1, 1, 16]
// PF-NEXT:          memref.prefetch %[[O]][%c0, %c0, %c0], write, locality<3>, data
// PF-NEXT:          memref.prefetch %[[O]][%c0, %c0, %c15], write, locality<3>, data
// PF-NEXT:        }
// PF-NEXT:      }
// PF:         scf.for {{.*}} iter_args
// PF:         vector.transfer_write
// PF:         scf.if
// PF:           vector.transfer_read
// PF:           arith.addf
// PF:           vector.transfer_write
func.func @fused(%a: memref<4x8xf32>, %b: memref<8x2x16xf32>, %bias: memref<2x16xf32>,
                 %out: memref<4x2x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %pad = ub.poison : f32
  scf.forall (%t) in (1) {
    %cp = memref.alloc() {alignment = 64 : i64} : memref<2x4x16xf32>
    scf.for %i = %c0 to %c2 step %c1 {
      scf.for %j = %c0 to %c4 step %c1 {
        %e = memref.subview %cp[%i, %j, 0] [1, 1, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
        vector.transfer_write %zero, %e[%c0, %c0, %c0] {in_bounds = [true]} : vector<16xf32>, memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
      }
    }
    scf.for %k = %c0 to %c8 step %c4 {
      scf.for %p = %c0 to %c2 step %c1 {
        scf.for %m = %c0 to %c4 step %c2 {
          %tile = memref.subview %cp[%p, %m, 0] [1, 2, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x2x16xf32, strided<[64, 16, 1], offset: ?>>
          %acc0 = vector.transfer_read %tile[%c0, %c0, %c0], %pad {in_bounds = [true, true]} : memref<1x2x16xf32, strided<[64, 16, 1], offset: ?>>, vector<2x16xf32>
          %acc = scf.for %kk = %c0 to %c4 step %c1 iter_args(%x = %acc0) -> (vector<2x16xf32>) {
            %ka = arith.addi %k, %kk : index
            %bv = vector.transfer_read %b[%ka, %p, %c0], %pad {in_bounds = [true]} : memref<8x2x16xf32>, vector<16xf32>
            %bb = vector.broadcast %bv : vector<16xf32> to vector<2x16xf32>
            %y = arith.addf %x, %bb : vector<2x16xf32>
            scf.yield %y : vector<2x16xf32>
          }
          vector.transfer_write %acc, %tile[%c0, %c0, %c0] {in_bounds = [true, true]} : vector<2x16xf32>, memref<1x2x16xf32, strided<[64, 16, 1], offset: ?>>
        }
      }
    }
    %bview = memref.subview %bias[0, 0] [2, 16] [1, 1] : memref<2x16xf32> to memref<2x16xf32, strided<[16, 1]>>
    scf.for %m = %c0 to %c4 step %c1 {
      scf.for %p = %c0 to %c2 step %c1 {
        %e = memref.subview %cp[%p, %m, 0] [1, 1, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
        %bs = memref.subview %bview[%p, 0] [1, 16] [1, 1] : memref<2x16xf32, strided<[16, 1]>> to memref<1x16xf32, strided<[16, 1], offset: ?>>
        %o = memref.subview %out[%m, %p, 0] [1, 1, 16] [1, 1, 1] : memref<4x2x16xf32> to memref<1x1x16xf32, strided<[32, 16, 1], offset: ?>>
        %v = vector.transfer_read %e[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>, vector<16xf32>
        %vb = vector.transfer_read %bs[%c0, %c0], %pad {in_bounds = [true]} : memref<1x16xf32, strided<[16, 1], offset: ?>>, vector<16xf32>
        %s = arith.addf %v, %vb : vector<16xf32>
        vector.transfer_write %s, %o[%c0, %c0, %c0] {in_bounds = [true]} : vector<16xf32>, memref<1x1x16xf32, strided<[32, 16, 1], offset: ?>>
      }
    }
    memref.dealloc %cp : memref<2x4x16xf32>
  }
  return
}

// -----

// K one block (no Kc loop): the tiles start from the fill value and
// unpack unconditionally.
// CHECK-LABEL: func.func @one_block
// CHECK:       scf.for %[[P:.*]] = %c0 to %c2 step %c1 {
// CHECK-NEXT:    scf.for %[[M:.*]] = %c0 to %c4 step %c2 {
// CHECK-NEXT:      %[[T:.*]] = memref.subview
// CHECK-NEXT:      %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<2x16xf32>
// CHECK-NEXT:      %[[ACC:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[Z]])
// CHECK:           vector.transfer_write %[[ACC]], %[[T]]
// CHECK-NOT:       scf.if
// CHECK:           scf.for
// CHECK-NEXT:        scf.for
// CHECK:               arith.addf
// CHECK:         } {dlc.fused_unpack}
// CHECK-NEXT:    memref.dealloc
func.func @one_block(%a: memref<4x8xf32>, %b: memref<8x2x16xf32>, %bias: memref<2x16xf32>,
                 %out: memref<4x2x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %pad = ub.poison : f32
  scf.forall (%t) in (1) {
    %cp = memref.alloc() {alignment = 64 : i64} : memref<2x4x16xf32>
    scf.for %i = %c0 to %c2 step %c1 {
      scf.for %j = %c0 to %c4 step %c1 {
        %e = memref.subview %cp[%i, %j, 0] [1, 1, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
        vector.transfer_write %zero, %e[%c0, %c0, %c0] {in_bounds = [true]} : vector<16xf32>, memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
      }
    }
      scf.for %p = %c0 to %c2 step %c1 {
        scf.for %m = %c0 to %c4 step %c2 {
          %tile = memref.subview %cp[%p, %m, 0] [1, 2, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x2x16xf32, strided<[64, 16, 1], offset: ?>>
          %acc0 = vector.transfer_read %tile[%c0, %c0, %c0], %pad {in_bounds = [true, true]} : memref<1x2x16xf32, strided<[64, 16, 1], offset: ?>>, vector<2x16xf32>
          %acc = scf.for %kk = %c0 to %c4 step %c1 iter_args(%x = %acc0) -> (vector<2x16xf32>) {
            %ka = arith.addi %c0, %kk : index
            %bv = vector.transfer_read %b[%ka, %p, %c0], %pad {in_bounds = [true]} : memref<8x2x16xf32>, vector<16xf32>
            %bb = vector.broadcast %bv : vector<16xf32> to vector<2x16xf32>
            %y = arith.addf %x, %bb : vector<2x16xf32>
            scf.yield %y : vector<2x16xf32>
          }
          vector.transfer_write %acc, %tile[%c0, %c0, %c0] {in_bounds = [true, true]} : vector<2x16xf32>, memref<1x2x16xf32, strided<[64, 16, 1], offset: ?>>
        }
      }
    %bview = memref.subview %bias[0, 0] [2, 16] [1, 1] : memref<2x16xf32> to memref<2x16xf32, strided<[16, 1]>>
    scf.for %m = %c0 to %c4 step %c1 {
      scf.for %p = %c0 to %c2 step %c1 {
        %e = memref.subview %cp[%p, %m, 0] [1, 1, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
        %bs = memref.subview %bview[%p, 0] [1, 16] [1, 1] : memref<2x16xf32, strided<[16, 1]>> to memref<1x16xf32, strided<[16, 1], offset: ?>>
        %o = memref.subview %out[%m, %p, 0] [1, 1, 16] [1, 1, 1] : memref<4x2x16xf32> to memref<1x1x16xf32, strided<[32, 16, 1], offset: ?>>
        %v = vector.transfer_read %e[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>, vector<16xf32>
        %vb = vector.transfer_read %bs[%c0, %c0], %pad {in_bounds = [true]} : memref<1x16xf32, strided<[16, 1], offset: ?>>, vector<16xf32>
        %s = arith.addf %v, %vb : vector<16xf32>
        vector.transfer_write %s, %o[%c0, %c0, %c0] {in_bounds = [true]} : vector<16xf32>, memref<1x1x16xf32, strided<[32, 16, 1], offset: ?>>
      }
    }
    memref.dealloc %cp : memref<2x4x16xf32>
  }
  return
}

// -----

// Tiles that cover only rows [0, 2) of Cp: left alone.
// CHECK-LABEL: func.func @half_covered
// CHECK-NOT:   dlc.fused_unpack
// CHECK:       vector.transfer_write %cst
// CHECK-NOT:   dlc.fused_unpack
// CHECK:       return
func.func @half_covered(%a: memref<4x8xf32>, %b: memref<8x2x16xf32>, %bias: memref<2x16xf32>,
                 %out: memref<4x2x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %pad = ub.poison : f32
  scf.forall (%t) in (1) {
    %cp = memref.alloc() {alignment = 64 : i64} : memref<2x4x16xf32>
    scf.for %i = %c0 to %c2 step %c1 {
      scf.for %j = %c0 to %c4 step %c1 {
        %e = memref.subview %cp[%i, %j, 0] [1, 1, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
        vector.transfer_write %zero, %e[%c0, %c0, %c0] {in_bounds = [true]} : vector<16xf32>, memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
      }
    }
    scf.for %k = %c0 to %c8 step %c4 {
      scf.for %p = %c0 to %c2 step %c1 {
        scf.for %m = %c0 to %c2 step %c2 {
          %tile = memref.subview %cp[%p, %m, 0] [1, 2, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x2x16xf32, strided<[64, 16, 1], offset: ?>>
          %acc0 = vector.transfer_read %tile[%c0, %c0, %c0], %pad {in_bounds = [true, true]} : memref<1x2x16xf32, strided<[64, 16, 1], offset: ?>>, vector<2x16xf32>
          %acc = scf.for %kk = %c0 to %c4 step %c1 iter_args(%x = %acc0) -> (vector<2x16xf32>) {
            %ka = arith.addi %k, %kk : index
            %bv = vector.transfer_read %b[%ka, %p, %c0], %pad {in_bounds = [true]} : memref<8x2x16xf32>, vector<16xf32>
            %bb = vector.broadcast %bv : vector<16xf32> to vector<2x16xf32>
            %y = arith.addf %x, %bb : vector<2x16xf32>
            scf.yield %y : vector<2x16xf32>
          }
          vector.transfer_write %acc, %tile[%c0, %c0, %c0] {in_bounds = [true, true]} : vector<2x16xf32>, memref<1x2x16xf32, strided<[64, 16, 1], offset: ?>>
        }
      }
    }
    %bview = memref.subview %bias[0, 0] [2, 16] [1, 1] : memref<2x16xf32> to memref<2x16xf32, strided<[16, 1]>>
    scf.for %m = %c0 to %c4 step %c1 {
      scf.for %p = %c0 to %c2 step %c1 {
        %e = memref.subview %cp[%p, %m, 0] [1, 1, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
        %bs = memref.subview %bview[%p, 0] [1, 16] [1, 1] : memref<2x16xf32, strided<[16, 1]>> to memref<1x16xf32, strided<[16, 1], offset: ?>>
        %o = memref.subview %out[%m, %p, 0] [1, 1, 16] [1, 1, 1] : memref<4x2x16xf32> to memref<1x1x16xf32, strided<[32, 16, 1], offset: ?>>
        %v = vector.transfer_read %e[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>, vector<16xf32>
        %vb = vector.transfer_read %bs[%c0, %c0], %pad {in_bounds = [true]} : memref<1x16xf32, strided<[16, 1], offset: ?>>, vector<16xf32>
        %s = arith.addf %v, %vb : vector<16xf32>
        vector.transfer_write %s, %o[%c0, %c0, %c0] {in_bounds = [true]} : vector<16xf32>, memref<1x1x16xf32, strided<[32, 16, 1], offset: ?>>
      }
    }
    memref.dealloc %cp : memref<2x4x16xf32>
  }
  return
}

// -----

// Cp in a function's body, not a parallel tile's: the memory plan may
// overlap C with what the Kc loop reads; left alone.
// CHECK-LABEL: func.func @function_level
// CHECK-NOT:   dlc.fused_unpack
// CHECK:       vector.transfer_write %cst
// CHECK-NOT:   dlc.fused_unpack
// CHECK:       return
func.func @function_level(%a: memref<4x8xf32>, %b: memref<8x2x16xf32>, %bias: memref<2x16xf32>,
                 %out: memref<4x2x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %pad = ub.poison : f32
    %cp = memref.alloc() {alignment = 64 : i64} : memref<2x4x16xf32>
    scf.for %i = %c0 to %c2 step %c1 {
      scf.for %j = %c0 to %c4 step %c1 {
        %e = memref.subview %cp[%i, %j, 0] [1, 1, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
        vector.transfer_write %zero, %e[%c0, %c0, %c0] {in_bounds = [true]} : vector<16xf32>, memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
      }
    }
    scf.for %k = %c0 to %c8 step %c4 {
      scf.for %p = %c0 to %c2 step %c1 {
        scf.for %m = %c0 to %c4 step %c2 {
          %tile = memref.subview %cp[%p, %m, 0] [1, 2, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x2x16xf32, strided<[64, 16, 1], offset: ?>>
          %acc0 = vector.transfer_read %tile[%c0, %c0, %c0], %pad {in_bounds = [true, true]} : memref<1x2x16xf32, strided<[64, 16, 1], offset: ?>>, vector<2x16xf32>
          %acc = scf.for %kk = %c0 to %c4 step %c1 iter_args(%x = %acc0) -> (vector<2x16xf32>) {
            %ka = arith.addi %k, %kk : index
            %bv = vector.transfer_read %b[%ka, %p, %c0], %pad {in_bounds = [true]} : memref<8x2x16xf32>, vector<16xf32>
            %bb = vector.broadcast %bv : vector<16xf32> to vector<2x16xf32>
            %y = arith.addf %x, %bb : vector<2x16xf32>
            scf.yield %y : vector<2x16xf32>
          }
          vector.transfer_write %acc, %tile[%c0, %c0, %c0] {in_bounds = [true, true]} : vector<2x16xf32>, memref<1x2x16xf32, strided<[64, 16, 1], offset: ?>>
        }
      }
    }
    %bview = memref.subview %bias[0, 0] [2, 16] [1, 1] : memref<2x16xf32> to memref<2x16xf32, strided<[16, 1]>>
    scf.for %m = %c0 to %c4 step %c1 {
      scf.for %p = %c0 to %c2 step %c1 {
        %e = memref.subview %cp[%p, %m, 0] [1, 1, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
        %bs = memref.subview %bview[%p, 0] [1, 16] [1, 1] : memref<2x16xf32, strided<[16, 1]>> to memref<1x16xf32, strided<[16, 1], offset: ?>>
        %o = memref.subview %out[%m, %p, 0] [1, 1, 16] [1, 1, 1] : memref<4x2x16xf32> to memref<1x1x16xf32, strided<[32, 16, 1], offset: ?>>
        %v = vector.transfer_read %e[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>, vector<16xf32>
        %vb = vector.transfer_read %bs[%c0, %c0], %pad {in_bounds = [true]} : memref<1x16xf32, strided<[16, 1], offset: ?>>, vector<16xf32>
        %s = arith.addf %v, %vb : vector<16xf32>
        vector.transfer_write %s, %o[%c0, %c0, %c0] {in_bounds = [true]} : vector<16xf32>, memref<1x1x16xf32, strided<[32, 16, 1], offset: ?>>
      }
    }
    memref.dealloc %cp : memref<2x4x16xf32>
  return
}

// -----

// The unpack reads a buffer the Kc loop writes: left alone.
// CHECK-LABEL: func.func @unpack_reads_written
// CHECK-NOT:   dlc.fused_unpack
// CHECK:       return
func.func @unpack_reads_written(%a: memref<4x8xf32>, %b: memref<8x2x16xf32>, %bias: memref<2x16xf32>,
                 %out: memref<4x2x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %pad = ub.poison : f32
  scf.forall (%t) in (1) {
    %cp = memref.alloc() {alignment = 64 : i64} : memref<2x4x16xf32>
    %side = memref.alloc() : memref<2x16xf32>
    scf.for %i = %c0 to %c2 step %c1 {
      scf.for %j = %c0 to %c4 step %c1 {
        %e = memref.subview %cp[%i, %j, 0] [1, 1, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
        vector.transfer_write %zero, %e[%c0, %c0, %c0] {in_bounds = [true]} : vector<16xf32>, memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
      }
    }
    scf.for %k = %c0 to %c8 step %c4 {
      scf.for %p = %c0 to %c2 step %c1 {
        scf.for %m = %c0 to %c4 step %c2 {
          %tile = memref.subview %cp[%p, %m, 0] [1, 2, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x2x16xf32, strided<[64, 16, 1], offset: ?>>
          %acc0 = vector.transfer_read %tile[%c0, %c0, %c0], %pad {in_bounds = [true, true]} : memref<1x2x16xf32, strided<[64, 16, 1], offset: ?>>, vector<2x16xf32>
          %acc = scf.for %kk = %c0 to %c4 step %c1 iter_args(%x = %acc0) -> (vector<2x16xf32>) {
            %ka = arith.addi %k, %kk : index
            %bv = vector.transfer_read %b[%ka, %p, %c0], %pad {in_bounds = [true]} : memref<8x2x16xf32>, vector<16xf32>
            %bb = vector.broadcast %bv : vector<16xf32> to vector<2x16xf32>
            %y = arith.addf %x, %bb : vector<2x16xf32>
            vector.transfer_write %bv, %side[%p, %c0] {in_bounds = [true]} : vector<16xf32>, memref<2x16xf32>
            scf.yield %y : vector<2x16xf32>
          }
          vector.transfer_write %acc, %tile[%c0, %c0, %c0] {in_bounds = [true, true]} : vector<2x16xf32>, memref<1x2x16xf32, strided<[64, 16, 1], offset: ?>>
        }
      }
    }
    %bview = memref.subview %side[0, 0] [2, 16] [1, 1] : memref<2x16xf32> to memref<2x16xf32, strided<[16, 1]>>
    scf.for %m = %c0 to %c4 step %c1 {
      scf.for %p = %c0 to %c2 step %c1 {
        %e = memref.subview %cp[%p, %m, 0] [1, 1, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
        %bs = memref.subview %bview[%p, 0] [1, 16] [1, 1] : memref<2x16xf32, strided<[16, 1]>> to memref<1x16xf32, strided<[16, 1], offset: ?>>
        %o = memref.subview %out[%m, %p, 0] [1, 1, 16] [1, 1, 1] : memref<4x2x16xf32> to memref<1x1x16xf32, strided<[32, 16, 1], offset: ?>>
        %v = vector.transfer_read %e[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>, vector<16xf32>
        %vb = vector.transfer_read %bs[%c0, %c0], %pad {in_bounds = [true]} : memref<1x16xf32, strided<[16, 1], offset: ?>>, vector<16xf32>
        %s = arith.addf %v, %vb : vector<16xf32>
        vector.transfer_write %s, %o[%c0, %c0, %c0] {in_bounds = [true]} : vector<16xf32>, memref<1x1x16xf32, strided<[32, 16, 1], offset: ?>>
      }
    }
    memref.dealloc %cp : memref<2x4x16xf32>
  }
  return
}

// -----

// C and A in one workspace (A 128 bytes at 0): C at 512 fuses, C at 64
// overlaps A's last rows and does not.
// CHECK-LABEL: func.func @workspace_disjoint
// CHECK:       dlc.fused_unpack
// CHECK-LABEL: func.func @workspace_overlap
// CHECK-NOT:   dlc.fused_unpack
// CHECK:       return
func.func @workspace_disjoint(%ws: memref<1024xi8>, %b: memref<8x2x16xf32>, %bias: memref<2x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %pad = ub.poison : f32
  %aoff = arith.constant 0 : index
  %ooff = arith.constant 512 : index
  %a = memref.view %ws[%aoff][] : memref<1024xi8> to memref<4x8xf32>
  %out = memref.view %ws[%ooff][] : memref<1024xi8> to memref<4x2x16xf32>
  scf.forall (%t) in (1) {
    %cp = memref.alloc() {alignment = 64 : i64} : memref<2x4x16xf32>
    scf.for %i = %c0 to %c2 step %c1 {
      scf.for %j = %c0 to %c4 step %c1 {
        %e = memref.subview %cp[%i, %j, 0] [1, 1, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
        vector.transfer_write %zero, %e[%c0, %c0, %c0] {in_bounds = [true]} : vector<16xf32>, memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
      }
    }
    scf.for %k = %c0 to %c8 step %c4 {
      scf.for %p = %c0 to %c2 step %c1 {
        scf.for %m = %c0 to %c4 step %c2 {
          %tile = memref.subview %cp[%p, %m, 0] [1, 2, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x2x16xf32, strided<[64, 16, 1], offset: ?>>
          %acc0 = vector.transfer_read %tile[%c0, %c0, %c0], %pad {in_bounds = [true, true]} : memref<1x2x16xf32, strided<[64, 16, 1], offset: ?>>, vector<2x16xf32>
          %acc = scf.for %kk = %c0 to %c4 step %c1 iter_args(%x = %acc0) -> (vector<2x16xf32>) {
            %ka = arith.addi %k, %kk : index
            %bv = vector.transfer_read %b[%ka, %p, %c0], %pad {in_bounds = [true]} : memref<8x2x16xf32>, vector<16xf32>
            %bb = vector.broadcast %bv : vector<16xf32> to vector<2x16xf32>
            %av = vector.transfer_read %a[%m, %ka], %pad {in_bounds = [true]} : memref<4x8xf32>, vector<4xf32>
            %a0 = vector.extract %av[0] : f32 from vector<4xf32>
            %ab = vector.broadcast %a0 : f32 to vector<2x16xf32>
            %y0 = arith.addf %x, %bb : vector<2x16xf32>
            %y = arith.addf %y0, %ab : vector<2x16xf32>
            scf.yield %y : vector<2x16xf32>
          }
          vector.transfer_write %acc, %tile[%c0, %c0, %c0] {in_bounds = [true, true]} : vector<2x16xf32>, memref<1x2x16xf32, strided<[64, 16, 1], offset: ?>>
        }
      }
    }
    %bview = memref.subview %bias[0, 0] [2, 16] [1, 1] : memref<2x16xf32> to memref<2x16xf32, strided<[16, 1]>>
    scf.for %m = %c0 to %c4 step %c1 {
      scf.for %p = %c0 to %c2 step %c1 {
        %e = memref.subview %cp[%p, %m, 0] [1, 1, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
        %bs = memref.subview %bview[%p, 0] [1, 16] [1, 1] : memref<2x16xf32, strided<[16, 1]>> to memref<1x16xf32, strided<[16, 1], offset: ?>>
        %o = memref.subview %out[%m, %p, 0] [1, 1, 16] [1, 1, 1] : memref<4x2x16xf32> to memref<1x1x16xf32, strided<[32, 16, 1], offset: ?>>
        %v = vector.transfer_read %e[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>, vector<16xf32>
        %vb = vector.transfer_read %bs[%c0, %c0], %pad {in_bounds = [true]} : memref<1x16xf32, strided<[16, 1], offset: ?>>, vector<16xf32>
        %s = arith.addf %v, %vb : vector<16xf32>
        vector.transfer_write %s, %o[%c0, %c0, %c0] {in_bounds = [true]} : vector<16xf32>, memref<1x1x16xf32, strided<[32, 16, 1], offset: ?>>
      }
    }
    memref.dealloc %cp : memref<2x4x16xf32>
  }
  return
}

func.func @workspace_overlap(%ws: memref<1024xi8>, %b: memref<8x2x16xf32>, %bias: memref<2x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %pad = ub.poison : f32
  %aoff = arith.constant 0 : index
  %ooff = arith.constant 64 : index
  %a = memref.view %ws[%aoff][] : memref<1024xi8> to memref<4x8xf32>
  %out = memref.view %ws[%ooff][] : memref<1024xi8> to memref<4x2x16xf32>
  scf.forall (%t) in (1) {
    %cp = memref.alloc() {alignment = 64 : i64} : memref<2x4x16xf32>
    scf.for %i = %c0 to %c2 step %c1 {
      scf.for %j = %c0 to %c4 step %c1 {
        %e = memref.subview %cp[%i, %j, 0] [1, 1, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
        vector.transfer_write %zero, %e[%c0, %c0, %c0] {in_bounds = [true]} : vector<16xf32>, memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
      }
    }
    scf.for %k = %c0 to %c8 step %c4 {
      scf.for %p = %c0 to %c2 step %c1 {
        scf.for %m = %c0 to %c4 step %c2 {
          %tile = memref.subview %cp[%p, %m, 0] [1, 2, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x2x16xf32, strided<[64, 16, 1], offset: ?>>
          %acc0 = vector.transfer_read %tile[%c0, %c0, %c0], %pad {in_bounds = [true, true]} : memref<1x2x16xf32, strided<[64, 16, 1], offset: ?>>, vector<2x16xf32>
          %acc = scf.for %kk = %c0 to %c4 step %c1 iter_args(%x = %acc0) -> (vector<2x16xf32>) {
            %ka = arith.addi %k, %kk : index
            %bv = vector.transfer_read %b[%ka, %p, %c0], %pad {in_bounds = [true]} : memref<8x2x16xf32>, vector<16xf32>
            %bb = vector.broadcast %bv : vector<16xf32> to vector<2x16xf32>
            %av = vector.transfer_read %a[%m, %ka], %pad {in_bounds = [true]} : memref<4x8xf32>, vector<4xf32>
            %a0 = vector.extract %av[0] : f32 from vector<4xf32>
            %ab = vector.broadcast %a0 : f32 to vector<2x16xf32>
            %y0 = arith.addf %x, %bb : vector<2x16xf32>
            %y = arith.addf %y0, %ab : vector<2x16xf32>
            scf.yield %y : vector<2x16xf32>
          }
          vector.transfer_write %acc, %tile[%c0, %c0, %c0] {in_bounds = [true, true]} : vector<2x16xf32>, memref<1x2x16xf32, strided<[64, 16, 1], offset: ?>>
        }
      }
    }
    %bview = memref.subview %bias[0, 0] [2, 16] [1, 1] : memref<2x16xf32> to memref<2x16xf32, strided<[16, 1]>>
    scf.for %m = %c0 to %c4 step %c1 {
      scf.for %p = %c0 to %c2 step %c1 {
        %e = memref.subview %cp[%p, %m, 0] [1, 1, 16] [1, 1, 1] : memref<2x4x16xf32> to memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>
        %bs = memref.subview %bview[%p, 0] [1, 16] [1, 1] : memref<2x16xf32, strided<[16, 1]>> to memref<1x16xf32, strided<[16, 1], offset: ?>>
        %o = memref.subview %out[%m, %p, 0] [1, 1, 16] [1, 1, 1] : memref<4x2x16xf32> to memref<1x1x16xf32, strided<[32, 16, 1], offset: ?>>
        %v = vector.transfer_read %e[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x16xf32, strided<[64, 16, 1], offset: ?>>, vector<16xf32>
        %vb = vector.transfer_read %bs[%c0, %c0], %pad {in_bounds = [true]} : memref<1x16xf32, strided<[16, 1], offset: ?>>, vector<16xf32>
        %s = arith.addf %v, %vb : vector<16xf32>
        vector.transfer_write %s, %o[%c0, %c0, %c0] {in_bounds = [true]} : vector<16xf32>, memref<1x1x16xf32, strided<[32, 16, 1], offset: ?>>
      }
    }
    memref.dealloc %cp : memref<2x4x16xf32>
  }
  return
}
