// RUN: dlc-opt %s --mlir-disable-threading --lower-to-llvm=target=avx512 --mlir-print-ir-after=dlc-cpu-schedule -o /dev/null 2>&1 | FileCheck %s --check-prefix=SCHED
// RUN: dlc-opt %s --mlir-disable-threading --lower-to-llvm=target=avx512 --mlir-print-ir-after=dlc-gemm-fuse-packing -o /dev/null 2>&1 | FileCheck %s --check-prefix=FUSED

// How the GEMMs of a BERT-base layer and of the MLP (B an argument) split
// over two threads, the shape that makes them scale from 1 to 2 threads
// (128x768x3072: 182 GFLOP/s at 1 thread, 377-390 at 2, dlc alone,
// loaded machine). A parallel tile is a group of whole B panels over all
// of M (parallel = [0], M's tile 0): each panel of B is packed once, by
// the one thread that owns it, inside its first row block
// (dlc.fused_packing, one per tile loop), or in its tile's copy loop where
// the tile's Kc rows are runs of 2 KiB or more (@wide's 16 panels of 32
// floats: dlcGemmFusePackingMaxRunBytes). Splitting M across threads would
// make both threads read and pack every panel. The tile counts are even,
// so the two threads of the runtime's static split get equal work: an odd
// count (3 or 5 tiles) leaves one thread a whole tile behind. BERT's N
// (768, 3072) take panels of 48 (dlcGemmWidePanel) and 8 x 48 register
// tiles; Kc 128 keeps a 128 x 48 panel in this model's 32 KiB L1.
// The fixed AVX-512 target (32 KiB 8-way L1, 1 MiB L2) keeps this
// independent of the machine running the test.

// SCHED-LABEL: func.func private @ffn1_kernel0
// SCHED-SAME: #dlk.schedule<tile = [8, 0, 0, 128], vector = 16, register = [8, 48], parallel = [0]>
// SCHED: scf.forall (%{{.*}}) in (8)
// FUSED-LABEL: func.func @ffn1
// FUSED: scf.forall (%{{.*}}) in (8)
// FUSED: memref.alloc() {alignment = 64 : i64} : memref<8x128x48xf32>
// FUSED: } {dlc.fused_packing}
// FUSED-NOT: dlc.fused_packing
// FUSED-LABEL: func.func @wide
func.func @ffn1(%a: tensor<128x768xf32>, %b: tensor<768x3072xf32>) -> tensor<128x3072xf32> {
  %0 = dlg.matmul %a, %b : tensor<128x768xf32>, tensor<768x3072xf32> -> tensor<128x3072xf32>
  return %0 : tensor<128x3072xf32>
}

// N = 4096, not a multiple of 48: panels of 32, 16 to a tile, so each Kc
// row of the tile is a 2 KiB run and the copy stays.
// SCHED-LABEL: func.func private @wide_kernel0
// SCHED-SAME: #dlk.schedule<tile = [16, 0, 0, 192], vector = 16, register = [8, 32], parallel = [0]>
// SCHED: scf.forall (%{{.*}}) in (8)
// FUSED: scf.forall (%{{.*}}) in (8)
// FUSED: memref.alloc() {alignment = 64 : i64} : memref<16x192x32xf32>
// FUSED-NOT: dlc.fused_packing
// FUSED-LABEL: func.func @ffn2
func.func @wide(%a: tensor<128x768xf32>, %b: tensor<768x4096xf32>) -> tensor<128x4096xf32> {
  %0 = dlg.matmul %a, %b : tensor<128x768xf32>, tensor<768x4096xf32> -> tensor<128x4096xf32>
  return %0 : tensor<128x4096xf32>
}

// K = 3072: A's rows, 12 KiB apart, would share one L1 set; copied one
// line longer (gemm_packing.h) they spread over the sets, so 8-row tiles
// and Kc 128 as above.
// SCHED-LABEL: func.func private @ffn2_kernel0
// SCHED-SAME: #dlk.schedule<tile = [4, 0, 0, 128], vector = 16, register = [8, 48], parallel = [0]>
// SCHED: scf.forall (%{{.*}}) in (4)
// FUSED: scf.forall (%{{.*}}) in (4)
// FUSED: } {dlc.fused_packing}
// FUSED-NOT: dlc.fused_packing
// FUSED-LABEL: func.func @proj
func.func @ffn2(%a: tensor<128x3072xf32>, %b: tensor<3072x768xf32>) -> tensor<128x768xf32> {
  %0 = dlg.matmul %a, %b : tensor<128x3072xf32>, tensor<3072x768xf32> -> tensor<128x768xf32>
  return %0 : tensor<128x768xf32>
}

// The Q, K, V and output projections.
// SCHED-LABEL: func.func private @proj_kernel0
// SCHED-SAME: #dlk.schedule<tile = [4, 0, 0, 128], vector = 16, register = [8, 48], parallel = [0]>
// SCHED: scf.forall (%{{.*}}) in (4)
// FUSED: scf.forall (%{{.*}}) in (4)
// FUSED: } {dlc.fused_packing}
// FUSED-NOT: dlc.fused_packing
// FUSED-LABEL: func.func @mlp
func.func @proj(%a: tensor<128x768xf32>, %b: tensor<768x768xf32>) -> tensor<128x768xf32> {
  %0 = dlg.matmul %a, %b : tensor<128x768xf32>, tensor<768x768xf32> -> tensor<128x768xf32>
  return %0 : tensor<128x768xf32>
}

// The MLP's first layer at b = 32 (the fewest rows that pack).
// SCHED-LABEL: func.func private @mlp_kernel0
// SCHED-SAME: #dlk.schedule<tile = [4, 0, 0, 112], vector = 16, register = [8, 32], parallel = [0]>
// SCHED: scf.forall (%{{.*}}) in (4)
// FUSED: scf.forall (%{{.*}}) in (4)
// FUSED: } {dlc.fused_packing}
// FUSED-NOT: dlc.fused_packing
func.func @mlp(%a: tensor<32x784xf32>, %b: tensor<784x512xf32>) -> tensor<32x512xf32> {
  %0 = dlg.matmul %a, %b : tensor<32x784xf32>, tensor<784x512xf32> -> tensor<32x512xf32>
  return %0 : tensor<32x512xf32>
}
