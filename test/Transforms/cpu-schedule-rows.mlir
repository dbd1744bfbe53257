// Row kernels (a reduction over each row, then the row read again) on the
// AVX-512 target's fixed cache model (32 KiB L1): the parallel row tile
// keeps its rows in half of L1, the vector of partial sums stays in
// registers across the reduction loop, and its final horizontal sum may
// reassociate.
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-fuse),dlk-to-linalg{vector-width=16},func.func(linalg-fuse-elementwise-ops),canonicalize,cse,dlc-cpu-schedule{target=avx512},canonicalize,cse)' | FileCheck %s

// 16 KiB rows: one row per tile (not the 4 of 8 even chunks), so the
// second pass over the row reads it from L1:
// CHECK-LABEL: func.func private @rms_kernel0
// CHECK-SAME: #dlk.schedule<tile = [1, 0], vector = 64, parallel = [0]>
// CHECK: scf.forall (%{{.*}}) in (32)
// The sum of squares carries its partial sums as a vector (hoisted out of
// the loop, unrolled by four), not as a buffer stored every step:
// CHECK: scf.for %{{.*}} = %c0 to %c4096 step %c256 iter_args(%{{.*}} = %{{.*}}) -> (vector<64xf32>)
// CHECK-COUNT-4: arith.mulf %{{.*}} : vector<64xf32>
// CHECK: vector.reduction <add>, %{{.*}} fastmath<reassoc> : vector<64xf32> into f32
func.func @rms(%x: tensor<32x4096xf32>, %g: tensor<4096xf32>) -> tensor<32x4096xf32> {
  %0 = dlg.rms_norm %x gamma %g : (tensor<32x4096xf32>, tensor<4096xf32>) -> tensor<32x4096xf32>
  return %0 : tensor<32x4096xf32>
}

// 512-byte rows: the 8 chunks of 32 rows (16 KiB) already fit. The max
// needs no reassociation flag (its order does not change the result):
// CHECK-LABEL: func.func private @softmax_kernel0
// CHECK-SAME: #dlk.schedule<tile = [32, 0], vector = 64, parallel = [0]>
// CHECK: scf.forall (%{{.*}}) in (8)
// CHECK: iter_args(%{{.*}} = %{{.*}}) -> (vector<64xf32>)
// CHECK: vector.reduction <maximumf>, %{{.*}}, %{{.*}} : vector<64xf32> into f32
// CHECK: iter_args(%{{.*}} = %{{.*}}) -> (vector<64xf32>)
// CHECK: vector.reduction <add>, %{{.*}}, %{{.*}} fastmath<reassoc> : vector<64xf32> into f32
func.func @softmax(%x: tensor<256x128xf32>) -> tensor<256x128xf32> {
  %0 = dlg.softmax %x {axis = 1 : i64} : tensor<256x128xf32>
  return %0 : tensor<256x128xf32>
}
