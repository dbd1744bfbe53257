// The cost model on the AVX-512 target (its fixed cache model: 32 KiB
// 8-way L1, 1 MiB L2, so the choices do not depend on the machine that
// runs the test): B packed into panels as wide as the register tile, two
// zmm wide, and Kc/Mc/Nc from the caches.
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-fuse),dlk-to-linalg{vector-width=16 pack-a-bytes=2097148},func.func(linalg-fuse-elementwise-ops),canonicalize,cse,dlc-cpu-schedule{target=avx512},canonicalize,cse)' | FileCheck %s
// The AVX2 target keeps 16-column panels and 6 x 16 tiles:
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-fuse),dlk-to-linalg{vector-width=8 pack-a-bytes=2097152},func.func(linalg-fuse-elementwise-ops),canonicalize,cse,dlc-cpu-schedule{target=avx2},canonicalize,cse)' | FileCheck %s --check-prefix=AVX2
// A target it does not know is an error, not the host's model:
// RUN: not dlc-opt %s --pass-pipeline='builtin.module(dlc-cpu-schedule{target=avx3})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADTARGET
// BADTARGET: error: dlc-cpu-schedule: unknown target 'avx3' (host, avx2 or avx512)
// RUN: not dlc-opt %s --lower-to-llvm=target=avx3 -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADPIPE
// BADPIPE: lower-to-llvm: unknown target 'avx3' (host, avx2 or avx512)

// Two zmm wide register tiles; Kc = 3/4 of L1 over a 32-float row of the
// panel (192 -> 128 for K = 512), Mc = 3/8 of L2 over Kc x 4 bytes (512,
// all of M). A's rows, 2 KiB apart, fall into two L1 sets of 8 ways, so
// at most 12 rows (6 per set) rather than the 14 the registers allow; of
// the tiles that keep the FMA pipes as busy (5 to 12 rows), 8 divides the
// 512 rows, so no 8-row remainder tile (which 12 x 32 left):
// CHECK-LABEL: func.func private @square_kernel0
// CHECK-SAME: #dlk.schedule<tile = [4, 0, 0, 128], vector = 16, register = [8, 32], parallel = [0]>
// CHECK: tensor.empty() : tensor<16x512x32xf32>
// CHECK: scf.forall (%{{.*}}) in (4)
// CHECK: scf.for %{{.*}} iter_args(%{{.*}}) -> (vector<8x32xf32>)
// CHECK-COUNT-4: vector.outerproduct {{.*}} : vector<8xf32>, vector<32xf32>
// CHECK-NOT: vector.outerproduct {{.*}} : vector<{{[0-9]+}}xf32>, vector<32xf32>
// CHECK-LABEL: func.func private @strided_kernel0
// AVX2-LABEL: func.func private @square_kernel0
// AVX2-SAME: #dlk.schedule<tile = [8, 128, 0, 256], vector = 8, register = [6, 16], parallel = [0]>
// AVX2: tensor.empty() : tensor<32x512x16xf32>
func.func @square(%a: tensor<512x512xf32>, %b: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %0 = dlg.matmul %a, %b : tensor<512x512xf32>, tensor<512x512xf32> -> tensor<512x512xf32>
  return %0 : tensor<512x512xf32>
}

// A's rows 4 KiB apart all fall into one L1 set: at most 8 - 2 of them per
// register tile, or they evict each other every k step (neither 5 nor 6
// divides 256, so the larger). Their 6 lines leave the Kc x 32 panel of B
// 2 of that set's 8 ways: Kc 64 (a quarter of the ways), not the 128 of
// 3/4 of L1, whose panel would take 4 and evict A's rows. A constant A
// (a weight) is read where it lies:
// CHECK-SAME: #dlk.schedule<tile = [2, 0, 0, 64], vector = 16, register = [6, 32], parallel = [0]>
// CHECK: vector.outerproduct {{.*}} : vector<6xf32>, vector<32xf32>
func.func @strided(%b: tensor<1024x256xf32>) -> tensor<256x256xf32> {
  %a = arith.constant dense<0.5> : tensor<256x1024xf32>
  %0 = dlg.matmul %a, %b : tensor<256x1024xf32>, tensor<1024x256xf32> -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}

// An A computed or passed in is copied with rows one line longer
// (gemm_packing.h), which the schedule reads through the slice: its rows
// spread over the sets, so the tile and Kc are those of unaliased rows:
// CHECK-LABEL: func.func private @strided_padded_kernel0
// CHECK-SAME: #dlk.schedule<tile = [2, 0, 0, 128], vector = 16, register = [8, 32], parallel = [0]>
// CHECK: tensor.pad
// CHECK: vector.outerproduct {{.*}} : vector<8xf32>, vector<32xf32>
func.func @strided_padded(%a: tensor<256x1024xf32>, %b: tensor<1024x256xf32>) -> tensor<256x256xf32> {
  %0 = dlg.matmul %a, %b : tensor<256x1024xf32>, tensor<1024x256xf32> -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}

// N a multiple of 16 but not of 32: one-zmm panels:
// CHECK-LABEL: func.func private @narrow_kernel0
// CHECK-SAME: #dlk.schedule<tile = [3, 0, 0, 128], vector = 16, register = [16, 16], parallel = [0]>
// CHECK: tensor.empty() : tensor<3x256x16xf32>
func.func @narrow(%a: tensor<64x256xf32>, %b: tensor<256x48xf32>) -> tensor<64x48xf32> {
  %0 = dlg.matmul %a, %b : tensor<64x256xf32>, tensor<256x48xf32> -> tensor<64x48xf32>
  return %0 : tensor<64x48xf32>
}

// Nc with A in place (1 MiB, less than twice L2): the Kc x Nc block of
// B, the Mc x Kc block of A and the Mc x Nc block of C share 3/4 of L2
// (Kc 128 and 8-row tiles, A's padded rows spread over the sets as above;
// Mc all 256 rows: 8 panels, 256 columns; counting B alone gave more, whose
// block and C's evict each other):
// CHECK-LABEL: func.func private @wide_kernel0
// CHECK-SAME: #dlk.schedule<tile = [8, 0, 0, 128], vector = 16, register = [8, 32], parallel = [0]>
func.func @wide(%a: tensor<256x1024xf32>, %b: tensor<1024x2048xf32>) -> tensor<256x2048xf32> {
  %0 = dlg.matmul %a, %b : tensor<256x1024xf32>, tensor<1024x2048xf32> -> tensor<256x2048xf32>
  return %0 : tensor<256x2048xf32>
}

// M split (1024 rows, more than Mc's 512), A in place (1 MiB): the Mc x Kc
// block of A, its Mc x Nc rows of packed C and the Kc x Nc block of B get
// half of L2 (Nc taken as Kc): Mc 256, not 512; with the smaller blocks of
// A and C, the tile takes 8 panels rather than 4:
// CHECK-LABEL: func.func private @split_rows_kernel0
// CHECK-SAME: #dlk.schedule<tile = [8, 256, 0, 128], vector = 16, register = [8, 32], parallel = [0]>
func.func @split_rows(%a: tensor<1024x256xf32>, %b: tensor<256x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = dlg.matmul %a, %b : tensor<1024x256xf32>, tensor<256x1024xf32> -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}

// A of 16 MiB, more than twice L2: dlc-gemm-pack-a packs its Mc x Kc
// blocks in 8-row panels (no row padding; 8-row register tiles), and a
// tile takes as many panels as half of L2 holds of packed B (Kc 128: 32
// panels, 1024 columns), one tile per core. With AVX2, A is more than
// four times its 512 KiB L2 and packed too, in 6-row panels: Kc 256 and
// as many panels as all of L2 holds of packed B (32, 512 columns; B's
// block streams through L2 as BLIS's does), so each packed block of A
// serves 32 panels:
// CHECK-LABEL: func.func private @big_kernel0
// CHECK-SAME: #dlk.schedule<tile = [32, 512, 0, 128], vector = 16, register = [8, 32], parallel = [0]>
// CHECK: scf.forall (%{{.*}}) in (2)
// AVX2-LABEL: func.func private @big_kernel0
// AVX2-SAME: #dlk.schedule<tile = [32, 128, 0, 256], vector = 8, register = [6, 16], parallel = [0]>
// AVX2: scf.forall (%{{.*}}) in (4)
func.func @big(%a: tensor<2048x2048xf32>, %b: tensor<2048x2048xf32>) -> tensor<2048x2048xf32> {
  %0 = dlg.matmul %a, %b : tensor<2048x2048xf32>, tensor<2048x2048xf32> -> tensor<2048x2048xf32>
  return %0 : tensor<2048x2048xf32>
}

// A matmul with fewer than 32 rows reads B in place, unpacked: packing B
// costs K * N moves that 16 rows do not repay (gemm_packing.c), while a
// conv-as-GEMM still packs from 16 rows. Three loops (m, n, k), no panels:
// CHECK-LABEL: func.func private @few_rows_kernel0
// CHECK-SAME: #dlk.schedule<tile = [16, 192, 192], vector = 16, register = [4, 64], parallel = [0, 1]>
// CHECK-NOT: x16xf32>
// CHECK-NOT: x32xf32>
// CHECK: vector.outerproduct {{.*}} : vector<4xf32>, vector<64xf32>
// AVX2-LABEL: func.func private @few_rows_kernel0
// AVX2-SAME: #dlk.schedule<tile = [16, 128, 384], vector = 8, register = [6, 16], parallel = [0, 1]>
func.func @few_rows(%a: tensor<16x768xf32>, %b: tensor<768x768xf32>) -> tensor<16x768xf32> {
  %m = dlg.matmul %a, %b : tensor<16x768xf32>, tensor<768x768xf32> -> tensor<16x768xf32>
  return %m : tensor<16x768xf32>
}

// ... unless B's rows are a multiple of 4 KiB apart (N = 1024): the
// unpacked tile would read one line per row of B, every one on the same
// L1 set, so 16 rows already pack B into panels (gemm_packing.c; 16 x
// 1024 x 1024 ran 1.2x faster packed on Zen 3):
// CHECK-LABEL: func.func private @few_rows_aliasing_kernel0
// CHECK-SAME: #dlk.schedule<tile = [8, 0, 0, 128], vector = 16, register = [8, 32], parallel = [0]>
// CHECK: tensor.empty() : tensor<32x1024x32xf32>
// AVX2-LABEL: func.func private @few_rows_aliasing_kernel0
// AVX2-SAME: #dlk.schedule<tile = [16, 0, 0, 256], vector = 8, register = [6, 16], parallel = [0]>
// AVX2: tensor.empty() : tensor<64x1024x16xf32>
// Fewer rows still read B in place (three loops, m n k; 12 x 1024 x 1024
// ran 0.93x packed):
// CHECK-LABEL: func.func private @fewer_rows_aliasing_kernel0
// CHECK-SAME: #dlk.schedule<tile = [12, 256, 128], vector = 16, register = [6, 64], parallel = [0, 1]>
// AVX2-LABEL: func.func private @fewer_rows_aliasing_kernel0
// AVX2-SAME: #dlk.schedule<tile = [12, 256, 256], vector = 8, register = [6, 16], parallel = [0, 1]>
func.func @few_rows_aliasing(%a: tensor<16x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<16x1024xf32> {
  %m = dlg.matmul %a, %b : tensor<16x1024xf32>, tensor<1024x1024xf32> -> tensor<16x1024xf32>
  return %m : tensor<16x1024xf32>
}
func.func @fewer_rows_aliasing(%a: tensor<12x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<12x1024xf32> {
  %m = dlg.matmul %a, %b : tensor<12x1024xf32>, tensor<1024x1024xf32> -> tensor<12x1024xf32>
  return %m : tensor<12x1024xf32>
}

// A classifier's 10 columns are one partial vector (10 lanes; 5 with AVX2,
// the largest divisor of 10 within 8), and still take rows: one
// accumulator alone waits an FMA latency per k step (MLP's 32x512 * 512x10
// ran at 5 GFLOP/s as 1 x 10). A's rows, 2 KiB apart, cap them at 12.
// CHECK-LABEL: func.func private @classifier_kernel0
// CHECK-SAME: register = [12, 10]
// CHECK: scf.for {{.*}} -> (vector<12x10xf32>)
// CHECK: vector.outerproduct {{.*}} : vector<12xf32>, vector<10xf32>
// AVX2-LABEL: func.func private @classifier_kernel0
// AVX2-SAME: register = [12, 5]
// AVX2: vector.outerproduct {{.*}} : vector<12xf32>, vector<5xf32>
func.func @classifier(%a: tensor<32x512xf32>, %b: tensor<512x10xf32>) -> tensor<32x10xf32> {
  %0 = dlg.matmul %a, %b : tensor<32x512xf32>, tensor<512x10xf32> -> tensor<32x10xf32>
  return %0 : tensor<32x10xf32>
}

// A classifier's one row (a GEMV): each element of B is read once, so the
// k loop walks 16 rows of B at a time, streams the prefetchers follow, not
// the 128-256 of maxKc. With AVX-512 no vector divides 1000 columns: each
// parallel tile's 250 columns run as 3 x 64, 48 and a partial vector of
// 10 lanes (they were 25 partial vectors of 10); with AVX2, whole vectors
// of 8. (B given as [N, K] and no constant runs as dot products instead:
// cpu-schedule-dot.mlir; more such N in cpu-schedule-ragged.mlir.)
// CHECK-LABEL: func.func private @gemv_kernel0
// CHECK-SAME: tile = [1, 250, 16], vector = 16, register = [1, 64]
// CHECK-NOT: tensor.pad
// CHECK: vector.outerproduct {{.*}} : vector<64xf32>, f32
// CHECK: vector.outerproduct {{.*}} : vector<48xf32>, f32
// CHECK: vector.outerproduct {{.*}} : vector<10xf32>, f32
// AVX2-LABEL: func.func private @gemv_kernel0
// AVX2-SAME: tile = [1, 200, 16], vector = 8, register = [1, 8]
func.func @gemv(%x: tensor<1x2048xf32>, %w: tensor<2048x1000xf32>) -> tensor<1x1000xf32> {
  %0 = dlg.matmul %x, %w : tensor<1x2048xf32>, tensor<2048x1000xf32> -> tensor<1x1000xf32>
  return %0 : tensor<1x1000xf32>
}

// A schedule given for 32-wide panels where the model packs 48 (N = 768):
// the panels follow the given register tile, so the schedule that fitted
// 24 panels of 32 still fits, kept as given (without this it was an error:
// the root's loops [16, 128, 48, 768] against its 4 tiles of 6 panels).
// CHECK-LABEL: func.func private @given32_kernel0
// CHECK-SAME: #dlk.schedule<tile = [6, 0, 0, 256], vector = 16, register = [8, 32], parallel = [0]>
// CHECK: tensor.empty() : tensor<24x768x32xf32>
// CHECK: scf.forall (%{{.*}}) in (4)
// CHECK: vector.outerproduct {{.*}} : vector<8xf32>, vector<32xf32>
func.func @given32(%a: tensor<128x768xf32>, %b: tensor<768x768xf32>) -> tensor<128x768xf32> {
  %y = dlk.kernel "contraction" schedule #dlk.schedule<tile = [6, 0, 0, 256], vector = 16, register = [8, 32], parallel = [0]> (%a, %b) : (tensor<128x768xf32>, tensor<768x768xf32>) -> tensor<128x768xf32> {
  ^bb0(%x: tensor<128x768xf32>, %w: tensor<768x768xf32>):
    %0 = dlg.matmul %x, %w : tensor<128x768xf32>, tensor<768x768xf32> -> tensor<128x768xf32>
    dlk.yield %0 : tensor<128x768xf32>
  }
  return %y : tensor<128x768xf32>
}
