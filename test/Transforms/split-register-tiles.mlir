// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(func.func(dlc-split-register-tiles,canonicalize))' %s | FileCheck %s
// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(func.func(dlc-split-register-tiles{vector-width=8},canonicalize))' %s | FileCheck %s --check-prefix=VW8
// RUN: not dlc-opt --split-input-file --pass-pipeline='builtin.module(func.func(dlc-split-register-tiles{vector-width=0}))' %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: dlc-split-register-tiles: vector-width must be positive, got 0
// RUN: dlc-opt --lower-to-llvm=target=avx512 --mlir-print-ir-after=dlc-split-register-tiles %S/Inputs/split-register-tiles-gemm.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPE

// dlc-split-register-tiles: a register tile three vectors wide (2 x 48
// here, vector width 16) becomes one accumulator per vector: the C tile
// read as 2 x 3 vectors, the k loop carrying them, each k step's row of B
// read as 3 vectors, then per row of the tile one broadcast of A's element
// and 3 FMAs, the tile written back as 2 x 3 vectors.

// CHECK-LABEL: func.func @tile
// CHECK-SAME: (%[[A:.*]]: memref<2x4xf32>, %[[B:.*]]: memref<4x48xf32>, %[[C:.*]]: memref<2x48xf32>)
// CHECK-DAG:  %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG:  %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG:  %[[C1:.*]] = arith.constant 1 : index
// CHECK:      %[[C00:.*]] = vector.transfer_read %[[C]][%c0, %c0], %{{.*}} {in_bounds = [true]} : memref<2x48xf32>, vector<16xf32>
// CHECK:      %[[C01:.*]] = vector.transfer_read %[[C]][%c0, %[[C16]]]
// CHECK:      %[[C02:.*]] = vector.transfer_read %[[C]][%c0, %[[C32]]]
// CHECK:      %[[C10:.*]] = vector.transfer_read %[[C]][%[[C1]], %c0]
// CHECK:      %[[C11:.*]] = vector.transfer_read %[[C]][%[[C1]], %[[C16]]]
// CHECK:      %[[C12:.*]] = vector.transfer_read %[[C]][%[[C1]], %[[C32]]]
// CHECK:      %[[R:.*]]:6 = scf.for %[[K:.*]] = %c0 to %c4 step %c1
// CHECK-SAME:     iter_args(%[[X00:.*]] = %[[C00]], %[[X01:.*]] = %[[C01]], %[[X02:.*]] = %[[C02]], %[[X10:.*]] = %[[C10]], %[[X11:.*]] = %[[C11]], %[[X12:.*]] = %[[C12]])
// CHECK-SAME:     -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK:        %[[B0:.*]] = vector.transfer_read %[[B]][%[[K]], %c0], %{{.*}} {in_bounds = [true]} : memref<4x48xf32>, vector<16xf32>
// CHECK:        %[[B1:.*]] = vector.transfer_read %[[B]][%[[K]], %{{.*}}], %{{.*}} {in_bounds = [true]} : memref<4x48xf32>, vector<16xf32>
// CHECK:        %[[B2:.*]] = vector.transfer_read %[[B]][%[[K]], %{{.*}}], %{{.*}} {in_bounds = [true]} : memref<4x48xf32>, vector<16xf32>
// CHECK:        %[[COL:.*]] = vector.transfer_read %[[A]]
// CHECK:        %[[A0:.*]] = vector.extract %[[COL]][0] : f32 from vector<2xf32>
// CHECK-NEXT:   %[[S0:.*]] = vector.broadcast %[[A0]] : f32 to vector<16xf32>
// CHECK-NEXT:   %[[N00:.*]] = vector.fma %[[S0]], %[[B0]], %[[X00]] : vector<16xf32>
// CHECK-NEXT:   %[[N01:.*]] = vector.fma %[[S0]], %[[B1]], %[[X01]] : vector<16xf32>
// CHECK-NEXT:   %[[N02:.*]] = vector.fma %[[S0]], %[[B2]], %[[X02]] : vector<16xf32>
// CHECK-NEXT:   %[[A1:.*]] = vector.extract %[[COL]][1] : f32 from vector<2xf32>
// CHECK-NEXT:   %[[S1:.*]] = vector.broadcast %[[A1]] : f32 to vector<16xf32>
// CHECK-NEXT:   %[[N10:.*]] = vector.fma %[[S1]], %[[B0]], %[[X10]] : vector<16xf32>
// CHECK-NEXT:   %[[N11:.*]] = vector.fma %[[S1]], %[[B1]], %[[X11]] : vector<16xf32>
// CHECK-NEXT:   %[[N12:.*]] = vector.fma %[[S1]], %[[B2]], %[[X12]] : vector<16xf32>
// CHECK-NEXT:   scf.yield %[[N00]], %[[N01]], %[[N02]], %[[N10]], %[[N11]], %[[N12]]
// CHECK-NOT:  vector.outerproduct
// CHECK:      vector.transfer_write %[[R]]#0, %[[C]][%c0, %c0] {in_bounds = [true]} : vector<16xf32>, memref<2x48xf32>
// CHECK:      vector.transfer_write %[[R]]#1, %[[C]][%c0, %[[C16]]]
// CHECK:      vector.transfer_write %[[R]]#2, %[[C]][%c0, %[[C32]]]
// CHECK:      vector.transfer_write %[[R]]#3, %[[C]][%[[C1]], %c0]
// CHECK:      vector.transfer_write %[[R]]#4, %[[C]][%[[C1]], %[[C16]]]
// CHECK:      vector.transfer_write %[[R]]#5, %[[C]][%[[C1]], %[[C32]]]
// CHECK-NOT:  vector<2x48xf32>
// CHECK:      return
// With 8 lanes, 48 is 6 vectors, a power of two times three: split too.
// VW8-LABEL: func.func @tile
// VW8: scf.for {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// VW8-COUNT-12: vector.fma
// VW8-NOT: vector.outerproduct
func.func @tile(%a: memref<2x4xf32>, %b: memref<4x48xf32>, %c: memref<2x48xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %pad = arith.constant 0.0 : f32
  %init = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<2x48xf32>, vector<2x48xf32>
  %r = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (vector<2x48xf32>) {
    %row = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true]} : memref<4x48xf32>, vector<48xf32>
    %col = vector.transfer_read %a[%c0, %k], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<2x4xf32>, vector<2xf32>
    %o = vector.outerproduct %col, %row, %acc {kind = #vector.kind<add>} : vector<2xf32>, vector<48xf32>
    scf.yield %o : vector<2x48xf32>
  }
  vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<2x48xf32>, memref<2x48xf32>
  return
}

// -----

// Two unrolled k steps: the pieces chain through both, B's second row read
// at k + 1; the loop keeps its attributes.
// CHECK-LABEL: func.func @unrolled
// VW8-LABEL: func.func @unrolled
// CHECK: scf.for %[[K:.*]] = %c0 to %c8 step %c2 iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: %[[K1:.*]] = arith.addi %[[K]], %c1
// CHECK-COUNT-3: vector.transfer_read %arg1[%[[K]], %{{[a-z0-9]*}}], %{{.*}} : memref<8x48xf32>, vector<16xf32>
// CHECK-COUNT-3: vector.fma
// CHECK-COUNT-3: vector.transfer_read %arg1[%[[K1]], %{{[a-z0-9]*}}], %{{.*}} : memref<8x48xf32>, vector<16xf32>
// CHECK-COUNT-3: vector.fma
// CHECK: scf.yield
// CHECK-NEXT: } {dlc.kept}
// CHECK-NOT: vector.outerproduct
func.func @unrolled(%a: memref<1x8xf32>, %b: memref<8x48xf32>, %c: memref<1x48xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %pad = arith.constant 0.0 : f32
  %init = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x48xf32>, vector<1x48xf32>
  %r = scf.for %k = %c0 to %c8 step %c2 iter_args(%acc = %init) -> (vector<1x48xf32>) {
    %k1 = arith.addi %k, %c1 : index
    %row0 = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true]} : memref<8x48xf32>, vector<48xf32>
    %col0 = vector.transfer_read %a[%c0, %k], %pad {in_bounds = [true]} : memref<1x8xf32>, vector<1xf32>
    %o0 = vector.outerproduct %col0, %row0, %acc {kind = #vector.kind<add>} : vector<1xf32>, vector<48xf32>
    %row1 = vector.transfer_read %b[%k1, %c0], %pad {in_bounds = [true]} : memref<8x48xf32>, vector<48xf32>
    %col1 = vector.transfer_read %a[%c0, %k1], %pad {in_bounds = [true]} : memref<1x8xf32>, vector<1xf32>
    %o1 = vector.outerproduct %col1, %row1, %o0 {kind = #vector.kind<add>} : vector<1xf32>, vector<48xf32>
    scf.yield %o1 : vector<1x48xf32>
  } {dlc.kept}
  vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<1x48xf32>, memref<1x48xf32>
  return
}

// -----

// The tile's pieces are read where it was read: a write to C between that
// read and the loop comes after them.
// CHECK-LABEL: func.func @write_between
// CHECK-COUNT-3: vector.transfer_read %arg2{{.*}} : memref<1x48xf32>, vector<16xf32>
// CHECK: vector.transfer_write %{{.*}}, %arg2[%c0, %c0] {in_bounds = [true, true]} : vector<1x48xf32>, memref<1x48xf32>
// CHECK: scf.for
func.func @write_between(%a: memref<1x4xf32>, %b: memref<4x48xf32>, %c: memref<1x48xf32>, %z: vector<1x48xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %pad = arith.constant 0.0 : f32
  %init = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x48xf32>, vector<1x48xf32>
  vector.transfer_write %z, %c[%c0, %c0] {in_bounds = [true, true]} : vector<1x48xf32>, memref<1x48xf32>
  %r = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (vector<1x48xf32>) {
    %row = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true]} : memref<4x48xf32>, vector<48xf32>
    %col = vector.transfer_read %a[%c0, %k], %pad {in_bounds = [true]} : memref<1x4xf32>, vector<1xf32>
    %o = vector.outerproduct %col, %row, %acc {kind = #vector.kind<add>} : vector<1xf32>, vector<48xf32>
    scf.yield %o : vector<1x48xf32>
  }
  vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<1x48xf32>, memref<1x48xf32>
  return
}

// -----

// A packed-panel copy row (B's packing, or the first row block's store of
// the panel it packs) three vectors wide: three reads, three writes.
// CHECK-LABEL: func.func @copy
// CHECK-COUNT-3: vector.transfer_read %{{.*}} : memref<4x48xf32>, vector<16xf32>
// CHECK-COUNT-3: vector.transfer_write %{{.*}} : vector<16xf32>, memref<4x48xf32>
// CHECK-NOT: vector<48xf32>
func.func @copy(%src: memref<4x48xf32>, %dst: memref<4x48xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %src[%i, %c0], %pad {in_bounds = [true]} : memref<4x48xf32>, vector<48xf32>
  vector.transfer_write %v, %dst[%i, %c0] {in_bounds = [true]} : vector<48xf32>, memref<4x48xf32>
  return
}

// -----

// Left alone: a tile two vectors wide (LLVM splits it itself), a tile
// whose accumulator has another use, a read that may leave its memref
// (not in bounds), and a copy whose value has another use.
// CHECK-LABEL: func.func @pow2
// CHECK: vector.outerproduct {{.*}} : vector<2xf32>, vector<32xf32>
func.func @pow2(%a: memref<2x4xf32>, %b: memref<4x32xf32>, %c: memref<2x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %pad = arith.constant 0.0 : f32
  %init = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<2x32xf32>, vector<2x32xf32>
  %r = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (vector<2x32xf32>) {
    %row = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true]} : memref<4x32xf32>, vector<32xf32>
    %col = vector.transfer_read %a[%c0, %k], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<2x4xf32>, vector<2xf32>
    %o = vector.outerproduct %col, %row, %acc {kind = #vector.kind<add>} : vector<2xf32>, vector<32xf32>
    scf.yield %o : vector<2x32xf32>
  }
  vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<2x32xf32>, memref<2x32xf32>
  return
}

// CHECK-LABEL: func.func @other_use
// CHECK: vector.outerproduct {{.*}} : vector<2xf32>, vector<48xf32>
func.func @other_use(%a: memref<2x4xf32>, %b: memref<4x48xf32>, %c: memref<2x48xf32>, %d: memref<2x48xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %pad = arith.constant 0.0 : f32
  %init = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<2x48xf32>, vector<2x48xf32>
  %r = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (vector<2x48xf32>) {
    vector.transfer_write %acc, %d[%c0, %c0] {in_bounds = [true, true]} : vector<2x48xf32>, memref<2x48xf32>
    %row = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true]} : memref<4x48xf32>, vector<48xf32>
    %col = vector.transfer_read %a[%c0, %k], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<2x4xf32>, vector<2xf32>
    %o = vector.outerproduct %col, %row, %acc {kind = #vector.kind<add>} : vector<2xf32>, vector<48xf32>
    scf.yield %o : vector<2x48xf32>
  }
  vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<2x48xf32>, memref<2x48xf32>
  return
}

// CHECK-LABEL: func.func @out_of_bounds
// CHECK: vector.outerproduct {{.*}} : vector<2xf32>, vector<48xf32>
func.func @out_of_bounds(%a: memref<2x4xf32>, %b: memref<4x40xf32>, %c: memref<2x48xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %pad = arith.constant 0.0 : f32
  %init = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<2x48xf32>, vector<2x48xf32>
  %r = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (vector<2x48xf32>) {
    %row = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [false]} : memref<4x40xf32>, vector<48xf32>
    %col = vector.transfer_read %a[%c0, %k], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<2x4xf32>, vector<2xf32>
    %o = vector.outerproduct %col, %row, %acc {kind = #vector.kind<add>} : vector<2xf32>, vector<48xf32>
    scf.yield %o : vector<2x48xf32>
  }
  vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<2x48xf32>, memref<2x48xf32>
  return
}

// CHECK-LABEL: func.func @copy_other_use
// CHECK: vector.transfer_read {{.*}} : memref<4x48xf32>, vector<48xf32>
func.func @copy_other_use(%src: memref<4x48xf32>, %dst: memref<4x48xf32>, %i: index) -> vector<48xf32> {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %src[%i, %c0], %pad {in_bounds = [true]} : memref<4x48xf32>, vector<48xf32>
  vector.transfer_write %v, %dst[%i, %c0] {in_bounds = [true]} : vector<48xf32>, memref<4x48xf32>
  return %v : vector<48xf32>
}

// -----

// The pipeline: BERT's 128x768x768 (B an argument) in 8 x 48 tiles, its
// packing fused into the first row block; after the pass no vector of 48
// lanes is left for LLVM.
// PIPE: IR Dump After {{.*}}dlc-split-register-tiles
// PIPE-NOT: vector<48xf32>
// PIPE-NOT: x48xf32>, vector
// PIPE: -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// PIPE-NOT: vector<48xf32>
// PIPE-NOT: x48xf32>, vector
