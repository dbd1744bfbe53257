// The transposed B of a GEMM (attention's K^T, a matmul's transpose_b),
// and a standalone transpose, is copied in square vw x vw blocks: contiguous rows and one
// vector.transpose in registers, not 1-D strided vectors (which lower to a
// spill and reload of the whole vector per element; the BERT layer's score
// GEMM spent most of its time there). Extents no block of 4 or more
// divides keep the plain vector tile. schedule/transpose_tile.h.
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-fuse),dlk-to-linalg{vector-width=16},func.func(linalg-fuse-elementwise-ops),canonicalize,cse,dlc-cpu-schedule{target=avx512},canonicalize,cse)' | FileCheck %s
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-fuse),dlk-to-linalg,func.func(linalg-fuse-elementwise-ops),canonicalize,cse,dlc-cpu-schedule{target=avx2},canonicalize,cse)' | FileCheck %s --check-prefix=AVX2
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-fuse),dlk-to-linalg{vector-width=16},func.func(linalg-fuse-elementwise-ops),canonicalize,cse,dlc-cpu-schedule{target=avx512 print-transform=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=SCRIPT

// BERT-base's scores: K^T[h][d][j] = K[j][h*64 + d], 16 x 16 blocks (8 x 8
// on AVX2):
// CHECK-LABEL: func.func private @scores_kernel0
// CHECK: vector.transfer_read {{.*}} : tensor<16x16xf32>, vector<16x16xf32>
// CHECK-NEXT: vector.transpose %{{.*}}, [1, 0] : vector<16x16xf32> to vector<16x16xf32>
// AVX2-LABEL: func.func private @scores_kernel0
// AVX2: vector.transfer_read {{.*}} : tensor<8x8xf32>, vector<8x8xf32>
// AVX2-NEXT: vector.transpose %{{.*}}, [1, 0] : vector<8x8xf32> to vector<8x8xf32>
// SCRIPT-LABEL: group {{[0-9]+}} of @scores_kernel0
// SCRIPT: tile_using_for %h{{[0-9]+}} tile_sizes [0, 16, 16]
// SCRIPT-NEXT: transform.apply_patterns to
// SCRIPT-NEXT: fold_unit_extent_dims_via_slices
func.func @scores(%a: tensor<128x768xf32>, %b: tensor<128x768xf32>) -> tensor<12x128x128xf32> {
  %q2 = dlg.reshape %a : tensor<128x768xf32> -> tensor<128x12x64xf32>
  %q = dlg.transpose %q2 perm = [1, 0, 2] : tensor<128x12x64xf32> -> tensor<12x128x64xf32>
  %k2 = dlg.reshape %b : tensor<128x768xf32> -> tensor<128x12x64xf32>
  %k = dlg.transpose %k2 perm = [1, 2, 0] : tensor<128x12x64xf32> -> tensor<12x64x128xf32>
  %s = dlg.matmul %q, %k : tensor<12x128x64xf32>, tensor<12x64x128xf32> -> tensor<12x128x128xf32>
  return %s : tensor<12x128x128xf32>
}

// 100 keys: 16 x 10 blocks (10 is the largest divisor of 100 up to 16).
// The product pads K^T with zero columns to 112, whole vectors (see
// @rows134), so the copy is a group of its own, ahead of that pad.
// CHECK-LABEL: func.func private @rows100_kernel0
// CHECK: vector.transpose %{{.*}}, [1, 0] : vector<10x16xf32> to vector<16x10xf32>
// CHECK: tensor.pad %{{.*}} low[0, 0, 0] high[0, 0, 12]
// SCRIPT-LABEL: group {{[0-9]+}} of @rows100_kernel0
// SCRIPT: tile_using_forall %h{{[0-9]+}} tile_sizes [1, 50, 112, 0]
// SCRIPT: tile_using_for %h{{[0-9]+}} tile_sizes [1, 16, 10]
func.func @rows100(%a: tensor<100x128xf32>, %b: tensor<100x128xf32>) -> tensor<2x100x100xf32> {
  %q2 = dlg.reshape %a : tensor<100x128xf32> -> tensor<100x2x64xf32>
  %q = dlg.transpose %q2 perm = [1, 0, 2] : tensor<100x2x64xf32> -> tensor<2x100x64xf32>
  %k2 = dlg.reshape %b : tensor<100x128xf32> -> tensor<100x2x64xf32>
  %k = dlg.transpose %k2 perm = [1, 2, 0] : tensor<100x2x64xf32> -> tensor<2x64x100xf32>
  %s = dlg.matmul %q, %k : tensor<2x100x64xf32>, tensor<2x64x100xf32> -> tensor<2x100x100xf32>
  return %s : tensor<2x100x100xf32>
}

// 134 = 2 x 67 keys: no block of 4 or more divides it, so the copy keeps
// the plain tile (a row at a time, vectors along the keys). The product's
// rows would be 2-lane vectors (one-row register tiles): its B is padded
// with zero columns to 144 (whole vectors; 136 with AVX2) and the padded
// scores sliced off in a copy of their own. 12 heads of 134 x 64 by
// 64 x 134 on AVX2 (Zen 3, dlc-run --bench 300, 1 thread): 5.8 -> 0.67 ms;
// with 100 keys, 0.50 -> 0.37 ms.
// CHECK-LABEL: func.func private @rows134_kernel0
// CHECK: tensor.pad %{{.*}} low[0, 0, 0] high[0, 0, 10]
// CHECK: vector.outerproduct {{.*}} : vector<16xf32>, vector<16xf32>
// CHECK: return
// SCRIPT-LABEL: group {{[0-9]+}} of @rows134_kernel0
// SCRIPT: tile_using_forall %h{{[0-9]+}} tile_sizes [1, 67, 144, 0]
// SCRIPT: tile_using_for %h{{[0-9]+}} tile_sizes [0, 1, 2]
// SCRIPT-NOT: fold_unit_extent_dims_via_slices
func.func @rows134(%a: tensor<134x128xf32>, %b: tensor<134x128xf32>) -> tensor<2x134x134xf32> {
  %q2 = dlg.reshape %a : tensor<134x128xf32> -> tensor<134x2x64xf32>
  %q = dlg.transpose %q2 perm = [1, 0, 2] : tensor<134x2x64xf32> -> tensor<2x134x64xf32>
  %k2 = dlg.reshape %b : tensor<134x128xf32> -> tensor<134x2x64xf32>
  %k = dlg.transpose %k2 perm = [1, 2, 0] : tensor<134x2x64xf32> -> tensor<2x64x134xf32>
  %s = dlg.matmul %q, %k : tensor<2x134x64xf32>, tensor<2x64x134xf32> -> tensor<2x134x134xf32>
  return %s : tensor<2x134x134xf32>
}

// A matmul's transpose_b: B packed from [n][k] into [panel][k][48] (96
// columns: two panels of 48, one to a parallel tile) in 16 x 16 blocks.
// CHECK-LABEL: func.func private @tb_kernel0
// CHECK: vector.transpose %{{.*}}, [1, 0] : vector<16x16xf32> to vector<16x16xf32>
// SCRIPT-LABEL: group {{[0-9]+}} of @tb_kernel0
// SCRIPT: tile_using_for %h{{[0-9]+}} tile_sizes [0, 16, 16]
func.func @tb(%a: tensor<100x64xf32>, %b: tensor<96x64xf32>) -> tensor<100x96xf32> {
  %0 = dlg.matmul %a, %b {transpose_b = true} : tensor<100x64xf32>, tensor<96x64xf32> -> tensor<100x96xf32>
  return %0 : tensor<100x96xf32>
}

// The copy runs once per Kc block, so its blocks divide Kc, not K: at
// K = 784 (Kc 196 with AVX2, 112 with AVX-512) 8 x 8 blocks over 196 rows
// left a partial one and the GEMM failed to compile ("Attempted to
// vectorize"); 196 takes 7 x 8 blocks. Where K is no whole number of Kc
// blocks (1604 in blocks of 324 or 180), the last block is dynamic and the
// copy goes a row of the panel at a time.
// CHECK-LABEL: func.func private @tb_kc_kernel0
// CHECK: vector.transpose %{{.*}}, [1, 0] : vector<16x16xf32> to vector<16x16xf32>
// CHECK-LABEL: func.func private @tb_kc_ragged_kernel0
// CHECK-NOT: vector<16x16xf32>
// CHECK: vector.outerproduct
// AVX2-LABEL: func.func private @tb_kc_kernel0
// AVX2: vector.transpose %{{.*}}, [1, 0] : vector<8x7xf32> to vector<7x8xf32>
// AVX2-LABEL: func.func private @tb_kc_ragged_kernel0
// AVX2-NOT: vector<8x8xf32>
// AVX2: vector.outerproduct
// SCRIPT-LABEL: group {{[0-9]+}} of @tb_kc_kernel0
// SCRIPT: tile_using_for %h{{[0-9]+}} tile_sizes [0, 0, 0, 112]
// SCRIPT: tile_using_for %h{{[0-9]+}} tile_sizes [1, 16, 16]
// SCRIPT-LABEL: group {{[0-9]+}} of @tb_kc_ragged_kernel0
// SCRIPT: tile_using_for %h{{[0-9]+}} tile_sizes [0, 0, 0, 180]
// SCRIPT: tile_using_for %h{{[0-9]+}} tile_sizes [1, 1, 0]
func.func @tb_kc(%a: tensor<32x784xf32>, %b: tensor<512x784xf32>) -> tensor<32x512xf32> {
  %0 = dlg.matmul %a, %b {transpose_b = true} : tensor<32x784xf32>, tensor<512x784xf32> -> tensor<32x512xf32>
  return %0 : tensor<32x512xf32>
}
func.func @tb_kc_ragged(%a: tensor<32x1604xf32>, %b: tensor<512x1604xf32>) -> tensor<32x512xf32> {
  %0 = dlg.matmul %a, %b {transpose_b = true} : tensor<32x1604xf32>, tensor<512x1604xf32> -> tensor<32x512xf32>
  return %0 : tensor<32x512xf32>
}

// A standalone transpose (a loops group) gets the same blocks:
// CHECK-LABEL: func.func private @standalone_kernel0
// CHECK: vector.transfer_read {{.*}} : tensor<16x16xf32>, vector<16x16xf32>
// CHECK-NEXT: vector.transpose %{{.*}}, [1, 0] : vector<16x16xf32> to vector<16x16xf32>
// AVX2-LABEL: func.func private @standalone_kernel0
// AVX2: vector.transpose %{{.*}}, [1, 0] : vector<8x8xf32> to vector<8x8xf32>
// SCRIPT-LABEL: group {{[0-9]+}} of @standalone_kernel0
// SCRIPT: tile_using_for %h{{[0-9]+}} tile_sizes [{{[01]}}, 16, 16]
func.func @standalone(%k: tensor<128x12x64xf32>) -> tensor<12x64x128xf32> {
  %t = dlg.transpose %k perm = [1, 2, 0] : tensor<128x12x64xf32> -> tensor<12x64x128xf32>
  return %t : tensor<12x64x128xf32>
}
