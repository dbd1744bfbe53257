// GEMMs whose sizes have no convenient divisors keep whole register tiles
// (issue 15: "GEMM at every size"). The blocks were the largest divisors
// of M, K and N, so a prime extent gave blocks of one: 197 x 768 x 768 ran
// one-row register tiles, 128 x 389 x 512 a Kc of 1, 127 columns one lane,
// at 0.04-0.4x OpenBLAS. Now an Mc that divides M badly takes equal
// blocks of whole 6-row tiles and the shorter last one is split off; a Kc
// likewise leaves a shorter last Kc block (a dynamic slice); an N that is
// no whole number of panels (or, on the plain loops, of vectors) is padded
// with zero columns, sliced off after, except below 8 rows with B no
// constant, where B streams: it is read in place and each parallel tile's
// columns split into whole vectors and one partial vector. The fixed AVX2
// and AVX-512 models keep this independent of the machine.
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-fuse),dlk-to-linalg{vector-width=8 pack-a-bytes=2097152},func.func(linalg-fuse-elementwise-ops),canonicalize,cse,dlc-cpu-schedule{target=avx2},canonicalize,cse)' | FileCheck %s
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-fuse),dlk-to-linalg{vector-width=16 pack-a-bytes=2097148},func.func(linalg-fuse-elementwise-ops),canonicalize,cse,dlc-cpu-schedule{target=avx512},canonicalize,cse)' | FileCheck %s --check-prefix=AVX512

// M = 197 (ViT's tokens), prime: two blocks, 102 rows (17 six-row tiles)
// and 95 (15 six-row tiles and a 5-row one); no one-row tiles. AVX-512's
// L2 holds all 197 rows as one block (9 x 48 tiles, a 8-row remainder).
// CHECK-LABEL: func.func private @prime_m_kernel0
// CHECK-SAME: #dlk.schedule<tile = [6, 102, 0, 384], vector = 8, register = [6, 16], parallel = [0]>
// CHECK-DAG: tensor<102x384xf32>
// CHECK-DAG: tensor<95x384xf32> to tensor<90x384xf32>
// CHECK-DAG: vector.outerproduct {{.*}} : vector<6xf32>, vector<16xf32>
// CHECK-DAG: vector.outerproduct {{.*}} : vector<5xf32>, vector<16xf32>
// CHECK-NOT: vector.outerproduct {{.*}} : vector<1xf32>
// CHECK-LABEL: func.func private @prime_k_kernel0
// AVX512-LABEL: func.func private @prime_m_kernel0
// AVX512-SAME: #dlk.schedule<tile = [4, 0, 0, 96], vector = 16, register = [9, 48], parallel = [0]>
func.func @prime_m(%a: tensor<197x768xf32>, %b: tensor<768x768xf32>) -> tensor<197x768xf32> {
  %0 = dlg.matmul %a, %b : tensor<197x768xf32>, tensor<768x768xf32> -> tensor<197x768xf32>
  return %0 : tensor<197x768xf32>
}

// K = 389, prime: Kc 196, then a last block of 193 (a dynamic slice of A).
// CHECK-SAME: #dlk.schedule<tile = [8, 0, 0, 196], vector = 8, register = [6, 16], parallel = [0]>
// CHECK: tensor.extract_slice {{.*}} : tensor<128x?xf32> to tensor<128x?xf32>
// CHECK: vector.outerproduct {{.*}} : vector<6xf32>, vector<16xf32>
// AVX512-LABEL: func.func private @prime_k_kernel0
// AVX512-SAME: #dlk.schedule<tile = [4, 0, 0, 132], vector = 16, register = [8, 32], parallel = [0]>
func.func @prime_k(%a: tensor<128x389xf32>, %b: tensor<389x512xf32>) -> tensor<128x512xf32> {
  %0 = dlg.matmul %a, %b : tensor<128x389xf32>, tensor<389x512xf32> -> tensor<128x512xf32>
  return %0 : tensor<128x512xf32>
}

// N = 770: B padded with zero columns to 50 panels of 16 (49 would do,
// but an even count splits into tiles two threads share evenly: 10 tiles
// of 5, where 49 gave 49 tiles of one; within a sixteenth of N), with
// AVX-512 by 46 to 17 panels of 48 (18 would pad by more); the GEMM's
// padded C sliced back to 770 columns, and the epilogue (bias, relu) a
// loop of its own over those.
// CHECK-LABEL: func.func private @ragged_n_kernel0
// CHECK-SAME: tile = [5, 0, 0, 384], vector = 8, register = [6, 16]
// CHECK: tensor.pad %arg1 low[0, 0] high[0, 30]
// CHECK: scf.forall (%{{.*}}) in (10) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<128x50x16xf32>)
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [128, 770] [1, 1] : tensor<128x800xf32> to tensor<128x770xf32>
// CHECK: scf.forall {{.*}} -> (tensor<128x770xf32>)
// CHECK: arith.maximumf
// AVX512-LABEL: func.func private @ragged_n_kernel0
// AVX512: tensor.pad %arg1 low[0, 0] high[0, 46]
// AVX512: -> (tensor<128x17x48xf32>)
// AVX512: tensor<128x816xf32> to tensor<128x770xf32>
func.func @ragged_n(%a: tensor<128x768xf32>, %b: tensor<768x770xf32>, %bias: tensor<770xf32>) -> tensor<128x770xf32> {
  %0 = dlg.matmul %a, %b : tensor<128x768xf32>, tensor<768x770xf32> -> tensor<128x770xf32>
  %1 = dlg.add %0, %bias : tensor<128x770xf32>, tensor<770xf32> -> tensor<128x770xf32>
  %2 = dlg.relu %1 : tensor<128x770xf32>
  return %2 : tensor<128x770xf32>
}

// Too few rows for panels, so the plain loops: 127 columns padded to 128,
// whole-vector register tiles rather than one lane.
// CHECK-LABEL: func.func private @ragged_n_rows_kernel0
// CHECK-SAME: register = [6, 16]
// CHECK: tensor.pad %arg1 low[0, 0] high[0, 1]
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [8, 127] [1, 1] : tensor<8x128xf32> to tensor<8x127xf32>
// AVX512-LABEL: func.func private @ragged_n_rows_kernel0
// AVX512-SAME: register = [4, 64]
// AVX512: tensor.pad %arg1 low[0, 0] high[0, 1]
func.func @ragged_n_rows(%a: tensor<8x512xf32>, %b: tensor<512x127xf32>) -> tensor<8x127xf32> {
  %0 = dlg.matmul %a, %b : tensor<8x512xf32>, tensor<512x127xf32> -> tensor<8x127xf32>
  return %0 : tensor<8x127xf32>
}

// A classifier's 10 columns would pad by more than an eighth: they stay a
// partial vector of 5 (AVX2) or 10 lanes, unpadded.
// CHECK-LABEL: func.func private @narrow_kernel0
// CHECK-SAME: register = [12, 5]
// CHECK-NOT: tensor.pad
// CHECK: return
// AVX512-LABEL: func.func private @narrow_kernel0
// AVX512-SAME: register = [12, 10]
// AVX512-NOT: tensor.pad
// AVX512: return
func.func @narrow(%a: tensor<32x512xf32>, %b: tensor<512x10xf32>) -> tensor<32x10xf32> {
  %0 = dlg.matmul %a, %b : tensor<32x512xf32>, tensor<512x10xf32> -> tensor<32x10xf32>
  return %0 : tensor<32x10xf32>
}

// 17 columns: the plain loops (whole panels would pad by more than an
// eighth), padded to 24 (three 8-lane vectors; 32 with AVX-512) rather
// than 17 one-lane steps a row.
// CHECK-LABEL: func.func private @seventeen_kernel0
// CHECK: tensor.pad %arg1 low[0, 0] high[0, 7]
// CHECK: vector.outerproduct {{.*}}, vector<8xf32>
// CHECK: tensor<33x24xf32> to tensor<33x17xf32>
// AVX512-LABEL: func.func private @seventeen_kernel0
// AVX512: tensor.pad %arg1 low[0, 0] high[0, 15]
func.func @seventeen(%a: tensor<33x65xf32>, %b: tensor<65x17xf32>) -> tensor<33x17xf32> {
  %0 = dlg.matmul %a, %b : tensor<33x65xf32>, tensor<65x17xf32> -> tensor<33x17xf32>
  return %0 : tensor<33x17xf32>
}

// Batched (the plain loops), 197 rows: Mc 112 does not divide them, so M is
// no forall dimension (the batch and N are) and the 85-row last block is
// split off inside; 197 keys pad to 200 columns.
// CHECK-LABEL: func.func private @batched_prime_m_kernel0
// CHECK-SAME: tile = [1, 112, 200, 64], vector = 8, register = [14, 8], parallel = [0, 2]
// CHECK: tensor.pad %arg1 low[0, 0, 0] high[0, 0, 3]
// CHECK-DAG: vector.outerproduct {{.*}} : vector<14xf32>, vector<8xf32>
// CHECK-DAG: tensor<1x85x64xf32>
// CHECK-NOT: vector.outerproduct {{.*}} : vector<1xf32>
// CHECK: return
// AVX512-LABEL: func.func private @batched_prime_m_kernel0
// AVX512-NOT: register = [1,
func.func @batched_prime_m(%a: tensor<2x197x64xf32>, %b: tensor<2x64x197xf32>) -> tensor<2x197x197xf32> {
  %0 = dlg.matmul %a, %b : tensor<2x197x64xf32>, tensor<2x64x197xf32> -> tensor<2x197x197xf32>
  return %0 : tensor<2x197x197xf32>
}

// A vocabulary projection of one row, B an argument (1 x 768 by 768 x
// 50257 in miniature, N = 1003 = 17 x 59): B was padded to 1008 columns
// by a copy before the GEMM, on one thread. Now it is read in place: 17
// parallel tiles of 59 columns, each as 32 + 3 x 8 + 3 lanes; with
// AVX-512 59 columns are less than a register tile's 64, so one tile of
// 1003: 15 x 64, 32 and 11 lanes.
// CHECK-LABEL: func.func private @vocab_kernel0
// CHECK-SAME: tile = [1, 59, 16], vector = 8, register = [1, 32]
// CHECK-NOT: tensor.pad
// CHECK: scf.forall (%{{.*}}) in (17)
// CHECK: vector.outerproduct {{.*}} : vector<32xf32>, f32
// CHECK: scf.for %{{.*}} = %c0 to %c24 step %c8
// CHECK: vector.outerproduct {{.*}} : vector<8xf32>, f32
// CHECK: vector.outerproduct {{.*}} : vector<3xf32>, f32
// CHECK-NOT: tensor.extract_slice {{.*}} to tensor<1x1003xf32>
// CHECK: return
// AVX512-LABEL: func.func private @vocab_kernel0
// AVX512-SAME: tile = [1, 1003, 16], vector = 16, register = [1, 64]
// AVX512-NOT: tensor.pad
// AVX512: scf.for %{{.*}} = %c0 to %c960 step %c64
// AVX512: vector.outerproduct {{.*}} : vector<64xf32>, f32
// AVX512: vector.outerproduct {{.*}} : vector<32xf32>, f32
// AVX512: vector.outerproduct {{.*}} : vector<11xf32>, f32
func.func @vocab(%a: tensor<1x64xf32>, %b: tensor<64x1003xf32>) -> tensor<1x1003xf32> {
  %0 = dlg.matmul %a, %b : tensor<1x64xf32>, tensor<64x1003xf32> -> tensor<1x1003xf32>
  return %0 : tensor<1x1003xf32>
}

// Three rows, a prime N and an epilogue: one tile of all 5003 columns (no
// divisor to share among threads), 4992 of them in 2 x 32 tiles and a row
// of its own, then 3 x 8 and 3 x 3; the bias and relu after, on the
// unpadded columns.
// CHECK-LABEL: func.func private @prime_n_rows_kernel0
// CHECK-SAME: tile = [3, 5003, 16], vector = 8, register = [2, 32]
// CHECK-NOT: tensor.pad
// CHECK: scf.for %{{.*}} = %c0 to %c4992 step %c32
// CHECK: vector.outerproduct {{.*}} : vector<2xf32>, vector<32xf32>
// CHECK: vector.outerproduct {{.*}} : vector<32xf32>, f32
// CHECK: vector.outerproduct {{.*}} : vector<3xf32>, vector<8xf32>
// CHECK: vector.outerproduct {{.*}} : vector<3xf32>, f32
// CHECK: arith.maximumf
// AVX512-LABEL: func.func private @prime_n_rows_kernel0
// AVX512-SAME: tile = [3, 5003, 16], vector = 16, register = [3, 64]
// AVX512-NOT: tensor.pad
// AVX512: vector.outerproduct {{.*}} : vector<3xf32>, vector<64xf32>
// AVX512: vector.outerproduct {{.*}} : vector<3xf32>, vector<11xf32>
// AVX512: arith.maximumf
func.func @prime_n_rows(%a: tensor<3x96xf32>, %b: tensor<96x5003xf32>, %bias: tensor<5003xf32>) -> tensor<3x5003xf32> {
  %0 = dlg.matmul %a, %b : tensor<3x96xf32>, tensor<96x5003xf32> -> tensor<3x5003xf32>
  %1 = dlg.add %0, %bias : tensor<3x5003xf32>, tensor<5003xf32> -> tensor<3x5003xf32>
  %2 = dlg.relu %1 : tensor<3x5003xf32>
  return %2 : tensor<3x5003xf32>
}

// A given schedule whose NR does not divide the N tile of the plain loops
// (the cost model's own for a ragged N are such): the columns left over
// get tiles of their own, here 50 = 32 + 16 + 2 (the last two columns a
// row at a time, as narrower than half a vector). On packed panels NR
// must still divide the tile (cpu-schedule-invalid.mlir).
// CHECK-LABEL: func.func private @given_ragged_kernel0
// CHECK-SAME: tile = [2, 50, 16], vector = 8, register = [2, 32]
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK: vector.outerproduct {{.*}} : vector<2xf32>, vector<32xf32>
// CHECK: vector.outerproduct {{.*}} : vector<2xf32>, vector<16xf32>
// CHECK: vector.outerproduct {{.*}} : vector<2xf32>, f32
// AVX512-LABEL: func.func private @given_ragged_kernel0
// AVX512: vector.outerproduct {{.*}} : vector<2xf32>, f32
func.func @given_ragged(%a: tensor<2x64xf32>, %b: tensor<64x100xf32>) -> tensor<2x100xf32> {
  %y = dlk.kernel "contraction" schedule #dlk.schedule<tile = [2, 50, 16], vector = 8, register = [2, 32], parallel = [0, 1]> (%a, %b) : (tensor<2x64xf32>, tensor<64x100xf32>) -> tensor<2x100xf32> {
  ^bb0(%x: tensor<2x64xf32>, %w: tensor<64x100xf32>):
    %0 = dlg.matmul %x, %w : tensor<2x64xf32>, tensor<64x100xf32> -> tensor<2x100xf32>
    dlk.yield %0 : tensor<2x100xf32>
  }
  return %y : tensor<2x100xf32>
}

// Ten columns of one row: the register tile is sized for N's whole
// vectors (1 x 8, not the 1 x 32 of a long row), so the printed schedule
// fits when given back; 8 lanes and 2.
// CHECK-LABEL: func.func private @narrow_row_kernel0
// CHECK-SAME: tile = [1, 10, 16], vector = 8, register = [1, 8]
// CHECK: vector.outerproduct {{.*}} : vector<8xf32>, f32
// CHECK: vector.outerproduct {{.*}} : vector<2xf32>, f32
// AVX512-LABEL: func.func private @narrow_row_kernel0
// AVX512-SAME: tile = [1, 10, 16], vector = 16, register = [1, 10]
func.func @narrow_row(%a: tensor<1x128xf32>, %b: tensor<128x10xf32>) -> tensor<1x10xf32> {
  %0 = dlg.matmul %a, %b : tensor<1x128xf32>, tensor<128x10xf32> -> tensor<1x10xf32>
  return %0 : tensor<1x10xf32>
}

// N = 2 x 1009: no divisor gives four tiles of 4 vectors or more, so two
// of 1009 columns (31 x 32 + 16 + 1), not one tile on one thread.
// CHECK-LABEL: func.func private @two_primes_kernel0
// CHECK-SAME: tile = [1, 1009, 16], vector = 8, register = [1, 32]
// CHECK: scf.forall (%{{.*}}) in (2)
// AVX512-LABEL: func.func private @two_primes_kernel0
// AVX512-SAME: tile = [1, 1009, 16], vector = 16, register = [1, 64]
func.func @two_primes(%a: tensor<1x64xf32>, %b: tensor<64x2018xf32>) -> tensor<1x2018xf32> {
  %0 = dlg.matmul %a, %b : tensor<1x64xf32>, tensor<64x2018xf32> -> tensor<1x2018xf32>
  return %0 : tensor<1x2018xf32>
}
