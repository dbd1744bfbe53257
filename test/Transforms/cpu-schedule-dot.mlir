// A GEMM whose two inputs are both contiguous along K (transpose_b with B
// no constant, as in a decoder's attention scores over its key cache) and
// that has fewer than 16 rows runs as dot products: MR x NR vectors of
// partial sums along K, summed across their lanes after the k loop, rather
// than a register tile that gathers NR floats of B 4*K bytes apart per k
// step (1 x 1024 by 1024 x 1024 ran at 1 GFLOP/s that way). cost_model.c's
// dlcScheduleDot; the numerics are in Python/gemm-dot.test.
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-fuse),dlk-to-linalg,func.func(linalg-fuse-elementwise-ops),canonicalize,cse,dlc-cpu-schedule{target=avx2},canonicalize,cse)' | FileCheck %s
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-fuse),dlk-to-linalg{vector-width=16},func.func(linalg-fuse-elementwise-ops),canonicalize,cse,dlc-cpu-schedule{target=avx512},canonicalize,cse)' | FileCheck %s --check-prefix=AVX512
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-fuse),dlk-to-linalg,func.func(linalg-fuse-elementwise-ops),canonicalize,cse,dlc-cpu-schedule{target=avx2 print-transform=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=SCRIPT
// RUN: dlc-opt %s --lower-to-llvm=target=avx2 -o /dev/null
// RUN: dlc-opt %s --lower-to-llvm=target=avx512 -o /dev/null

// A GEMV: one row of A by 8 rows of B (12 partial sums fit beside the
// loads; 8 divides the 128 columns of each of the 8 parallel tiles), 16
// rows with AVX-512's 32 registers.
// CHECK-LABEL: func.func private @gemv_kernel0
// CHECK-SAME: #dlk.schedule<tile = [0, 128, 0], vector = 8, register = [1, 8], parallel = [1]>
// CHECK: scf.forall
// CHECK: scf.for {{.*}} -> (vector<8x8xf32>)
// CHECK: arith.mulf {{.*}} fastmath<contract> : vector<8x8xf32>
// CHECK: arith.addf {{.*}} fastmath<contract> : vector<8x8xf32>
// CHECK-COUNT-8: vector.reduction <add>, {{.*}} : vector<8xf32> into f32
// AVX512-LABEL: func.func private @gemv_kernel0
// AVX512-SAME: register = [1, 16]
// AVX512: scf.for {{.*}} -> (vector<16x16xf32>)
// SCRIPT-LABEL: group {{[0-9]+}} of @gemv_kernel0: 2 ops, dot
// SCRIPT: tile_using_forall %h{{[0-9]+}} tile_sizes [0, 128, 0]
// SCRIPT: tile_using_for %h{{[0-9]+}} tile_sizes [1, 8, 0]
// SCRIPT-NEXT: tile_reduction_using_for %h{{[0-9]+}} by tile_sizes = [0, 0, 8]
func.func @gemv(%a: tensor<1x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1x1024xf32> {
  %0 = dlg.matmul %a, %b {transpose_b = true} : tensor<1x1024xf32>, tensor<1024x1024xf32> -> tensor<1x1024xf32>
  return %0 : tensor<1x1024xf32>
}

// Four rows (MR = 4), a bias + relu epilogue after the dot products; the
// multiply-adds are marked for LLVM to fuse into FMAs:
// CHECK-LABEL: func.func private @rows4_kernel0
// CHECK-SAME: register = [4, 3]
// CHECK: scf.for {{.*}} -> (vector<4x3x8xf32>)
// CHECK: arith.mulf {{.*}} fastmath<contract> : vector<4x3x8xf32>
// AVX512-LABEL: func.func private @rows4_kernel0
// AVX512-SAME: register = [4, 6]
// AVX512: scf.for {{.*}} -> (vector<4x6x16xf32>)
// SCRIPT-LABEL: group {{[0-9]+}} of @rows4_kernel0: {{[0-9]+}} ops, dot
func.func @rows4(%a: tensor<4x768xf32>, %b: tensor<3072x768xf32>, %c: tensor<3072xf32>) -> tensor<4x3072xf32> {
  %0 = dlg.matmul %a, %b {transpose_b = true} : tensor<4x768xf32>, tensor<3072x768xf32> -> tensor<4x3072xf32>
  %1 = dlg.add %0, %c : tensor<4x3072xf32>, tensor<3072xf32> -> tensor<4x3072xf32>
  %2 = dlg.relu %1 : tensor<4x3072xf32>
  return %2 : tensor<4x3072xf32>
}

// A decoder's scores: 12 heads of one query by 197 keys; the threads take
// the heads, and the last 197 - 192 keys, which 12 does not divide, get a
// tile of their own.
// CHECK-LABEL: func.func private @scores_kernel0
// CHECK-SAME: #dlk.schedule<tile = [2, 0, 0, 0], vector = 8, register = [1, 12], parallel = [0]>
// CHECK: scf.for {{.*}} -> (vector<12x8xf32>)
// CHECK: scf.for {{.*}} -> (vector<5x8xf32>)
// SCRIPT-LABEL: group {{[0-9]+}} of @scores_kernel0: 2 ops, dot
// SCRIPT: transform.structured.split
func.func @scores(%q: tensor<12x1x64xf32>, %k: tensor<12x197x64xf32>) -> tensor<12x1x197xf32> {
  %0 = dlg.matmul %q, %k {transpose_b = true} : tensor<12x1x64xf32>, tensor<12x197x64xf32> -> tensor<12x1x197xf32>
  return %0 : tensor<12x1x197xf32>
}

// B's rows without a divisor from 2 to 8 (a vocabulary of 50257 = 29 x
// 1733 words, here 1003 = 17 x 59): the threads split them in tiles of
// their largest proper divisor, not into one tile on one thread; the 59
// rows of a tile are 4 x 12 and a tile of 11. A prime count stays one
// tile (@prime_n).
// CHECK-LABEL: func.func private @vocab_kernel0
// CHECK-SAME: #dlk.schedule<tile = [0, 59, 0], vector = 8, register = [1, 12], parallel = [1]>
// CHECK: scf.forall (%{{.*}}) in (17)
// CHECK-LABEL: func.func private @prime_n_kernel0
// CHECK-SAME: #dlk.schedule<tile = [0, 0, 0], vector = 8, register = [1, 12]>
// CHECK-NOT: scf.forall
// CHECK: return
// AVX512-LABEL: func.func private @vocab_kernel0
// AVX512-SAME: tile = [0, 59, 0], vector = 16
func.func @vocab(%a: tensor<1x256xf32>, %b: tensor<1003x256xf32>) -> tensor<1x1003xf32> {
  %0 = dlg.matmul %a, %b {transpose_b = true} : tensor<1x256xf32>, tensor<1003x256xf32> -> tensor<1x1003xf32>
  return %0 : tensor<1x1003xf32>
}

func.func @prime_n(%a: tensor<1x256xf32>, %b: tensor<1009x256xf32>) -> tensor<1x1009xf32> {
  %0 = dlg.matmul %a, %b {transpose_b = true} : tensor<1x256xf32>, tensor<1009x256xf32> -> tensor<1x1009xf32>
  return %0 : tensor<1x1009xf32>
}

// 16 rows: B is copied into K x N order (normalize.c) and read by the
// GEMM's register tile.
// SCRIPT-LABEL: group {{[0-9]+}} of @rows16_kernel0: 3 ops, gemm
func.func @rows16(%a: tensor<16x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<16x1024xf32> {
  %0 = dlg.matmul %a, %b {transpose_b = true} : tensor<16x1024xf32>, tensor<1024x1024xf32> -> tensor<16x1024xf32>
  return %0 : tensor<16x1024xf32>
}

// B as K x N: the GEMM's tile reads its rows contiguously.
// SCRIPT-LABEL: group {{[0-9]+}} of @plain_kernel0: 2 ops, gemm
func.func @plain(%a: tensor<1x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1x1024xf32> {
  %0 = dlg.matmul %a, %b : tensor<1x1024xf32>, tensor<1024x1024xf32> -> tensor<1x1024xf32>
  return %0 : tensor<1x1024xf32>
}

// A schedule given in the IR takes the place of the cost model's (MR 2,
// NR 4 where the model would take 4 x 3):
// CHECK-LABEL: func.func private @given_kernel0
// CHECK: scf.for {{.*}} -> (vector<2x4x8xf32>)
// SCRIPT-LABEL: group {{[0-9]+}} of @given_kernel0: {{[0-9]+}} ops, dot
// SCRIPT: tile_using_for %h{{[0-9]+}} tile_sizes [2, 4, 0]
func.func @given(%a: tensor<4x64xf32>, %b: tensor<128x64xf32>) -> tensor<4x128xf32> {
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<tile = [0, 0, 0], vector = 8, register = [2, 4]> (%a, %b) : (tensor<4x64xf32>, tensor<128x64xf32>) -> tensor<4x128xf32> {
  ^bb0(%x: tensor<4x64xf32>, %y: tensor<128x64xf32>):
    %m = dlg.matmul %x, %y {transpose_b = true} : tensor<4x64xf32>, tensor<128x64xf32> -> tensor<4x128xf32>
    dlk.yield %m : tensor<4x128xf32>
  }
  return %0 : tensor<4x128xf32>
}

// A given tile of N outside the forall (no `parallel`) tiles nothing: the
// register tiles cover all 21 columns, 5 of 4 and one of 1 (read as a
// tile of 7, the last 3 columns were a tile of 3 over 17, dynamic, and the
// GEMM did not compile):
// SCRIPT-LABEL: group {{[0-9]+}} of @tile_not_forall_kernel0: 2 ops, dot
// SCRIPT: transform.structured.split %h{{[0-9]+}} after 20 { dimension = 1 }
// SCRIPT: tile_using_for %h{{[0-9]+}} tile_sizes [1, 4, 0]
// SCRIPT: tile_using_for %h{{[0-9]+}} tile_sizes [1, 1, 0]
func.func @tile_not_forall(%a: tensor<1x64xf32>, %b: tensor<21x64xf32>) -> tensor<1x21xf32> {
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<tile = [0, 7, 0], vector = 8, register = [1, 4]> (%a, %b) : (tensor<1x64xf32>, tensor<21x64xf32>) -> tensor<1x21xf32> {
  ^bb0(%x: tensor<1x64xf32>, %y: tensor<21x64xf32>):
    %m = dlg.matmul %x, %y {transpose_b = true} : tensor<1x64xf32>, tensor<21x64xf32> -> tensor<1x21xf32>
    dlk.yield %m : tensor<1x21xf32>
  }
  return %0 : tensor<1x21xf32>
}

// A given schedule without a register tile gets the model's rule for its
// own tiles (NR 4 in tiles of 4 columns, not the 8 of the model's):
// SCRIPT-LABEL: group {{[0-9]+}} of @no_register_kernel0: 2 ops, dot
// SCRIPT: tile_using_forall %h{{[0-9]+}} tile_sizes [0, 4, 0]
// SCRIPT: tile_using_for %h{{[0-9]+}} tile_sizes [1, 4, 0]
func.func @no_register(%a: tensor<1x64xf32>, %b: tensor<128x64xf32>) -> tensor<1x128xf32> {
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<tile = [0, 4, 0], vector = 8, parallel = [1]> (%a, %b) : (tensor<1x64xf32>, tensor<128x64xf32>) -> tensor<1x128xf32> {
  ^bb0(%x: tensor<1x64xf32>, %y: tensor<128x64xf32>):
    %m = dlg.matmul %x, %y {transpose_b = true} : tensor<1x64xf32>, tensor<128x64xf32> -> tensor<1x128xf32>
    dlk.yield %m : tensor<1x128xf32>
  }
  return %0 : tensor<1x128xf32>
}

// A batched constant B stays [N, K] (only a 2-d one is transposed at
// compile time), so it runs as dot products too, and its 17 columns are
// not padded to 24 for vectors along N:
// CHECK-LABEL: func.func private @batched_const_kernel0
// CHECK-NOT: tensor.pad
// CHECK: return
// SCRIPT-LABEL: group {{[0-9]+}} of @batched_const_kernel0: 2 ops, dot
func.func @batched_const(%a: tensor<2x4x64xf32>) -> tensor<2x4x17xf32> {
  %b = arith.constant dense<0.5> : tensor<2x17x64xf32>
  %0 = dlg.matmul %a, %b {transpose_b = true} : tensor<2x4x64xf32>, tensor<2x17x64xf32> -> tensor<2x4x17xf32>
  return %0 : tensor<2x4x17xf32>
}

// K = 1031 has no factor 4: partial sums of one lane would lose to the
// GEMM tile, which keeps it.
// SCRIPT-LABEL: group {{[0-9]+}} of @prime_k_kernel0: 2 ops, gemm
func.func @prime_k(%a: tensor<1x1031xf32>, %b: tensor<1024x1031xf32>) -> tensor<1x1024xf32> {
  %0 = dlg.matmul %a, %b {transpose_b = true} : tensor<1x1031xf32>, tensor<1024x1031xf32> -> tensor<1x1024xf32>
  return %0 : tensor<1x1024xf32>
}
