// A wgmma schedule (mma = [64, N, 16], sm_90a) that the kernel cannot run
// is an error at the kernel: block or warpgroup tiles other than [64, N],
// operand types other than f16 / bf16, extents the tiles do not divide,
// fewer than 2 stages or more than the shared memory holds. (On a chip
// without wgmma: wgmma-sm90.mlir.)
// RUN: dlc-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(dlk-to-linalg{pack=false},func.func(linalg-generalize-named-ops),dlc-gpu-schedule{wgmma=true})' -o /dev/null

func.func @wgmma_tiles(%a: tensor<256x64xf16>, %b: tensor<64x256xf16>) -> tensor<256x256xf16> {
  // expected-error @+1 {{#dlk.schedule mma = [64, 128, 16] (wgmma.mma_async): a block is one warpgroup, so the workgroup and thread tiles of [m, n] must both be [64, 128] (batch loops tiled by one), dividing m x n = 256 x 256, and k (64) a multiple of 16}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [64, 64, 0], thread = [64, 64, 0], stages = 2, mma = [64, 128, 16]> (%a, %b) : (tensor<256x64xf16>, tensor<64x256xf16>) -> tensor<256x256xf16> {
  ^bb0(%x: tensor<256x64xf16>, %y: tensor<64x256xf16>):
    %m = dlg.matmul %x, %y : tensor<256x64xf16>, tensor<64x256xf16> -> tensor<256x256xf16>
    dlk.yield %m : tensor<256x256xf16>
  }
  return %0 : tensor<256x256xf16>
}

// -----

func.func @wgmma_m_not_64(%a: tensor<96x64xf16>, %b: tensor<64x256xf16>) -> tensor<96x256xf16> {
  // expected-error @+1 {{#dlk.schedule mma = [64, 128, 16] (wgmma.mma_async): a block is one warpgroup, so the workgroup and thread tiles of [m, n] must both be [64, 128] (batch loops tiled by one), dividing m x n = 96 x 256, and k (64) a multiple of 16}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [64, 128, 0], thread = [64, 128, 0], stages = 2, mma = [64, 128, 16]> (%a, %b) : (tensor<96x64xf16>, tensor<64x256xf16>) -> tensor<96x256xf16> {
  ^bb0(%x: tensor<96x64xf16>, %y: tensor<64x256xf16>):
    %m = dlg.matmul %x, %y : tensor<96x64xf16>, tensor<64x256xf16> -> tensor<96x256xf16>
    dlk.yield %m : tensor<96x256xf16>
  }
  return %0 : tensor<96x256xf16>
}

// -----

func.func @wgmma_f32(%a: tensor<256x64xf32>, %b: tensor<64x256xf32>) -> tensor<256x256xf32> {
  // expected-error @+1 {{#dlk.schedule mma = [64, 128, 16] (wgmma.mma_async) applies to f16 or bf16 [batch.., m, n, k] contractions only}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [64, 128, 0], thread = [64, 128, 0], stages = 2, mma = [64, 128, 16]> (%a, %b) : (tensor<256x64xf32>, tensor<64x256xf32>) -> tensor<256x256xf32> {
  ^bb0(%x: tensor<256x64xf32>, %y: tensor<64x256xf32>):
    %m = dlg.matmul %x, %y : tensor<256x64xf32>, tensor<64x256xf32> -> tensor<256x256xf32>
    dlk.yield %m : tensor<256x256xf32>
  }
  return %0 : tensor<256x256xf32>
}

// -----

func.func @wgmma_one_stage(%a: tensor<256x64xf16>, %b: tensor<64x256xf16>) -> tensor<256x256xf16> {
  // expected-error @+1 {{#dlk.schedule stages = 1 with mma = [64, 128, 16]: wgmma reads A and B from shared memory, so stages must be at least 2, and the staged tiles (64 x 64 and 64 x 128 a stage) need 24576 bytes, at most 49152}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [64, 128, 0], thread = [64, 128, 0], mma = [64, 128, 16]> (%a, %b) : (tensor<256x64xf16>, tensor<64x256xf16>) -> tensor<256x256xf16> {
  ^bb0(%x: tensor<256x64xf16>, %y: tensor<64x256xf16>):
    %m = dlg.matmul %x, %y : tensor<256x64xf16>, tensor<64x256xf16> -> tensor<256x256xf16>
    dlk.yield %m : tensor<256x256xf16>
  }
  return %0 : tensor<256x256xf16>
}

// -----

func.func @wgmma_stages_too_deep(%a: tensor<256x64xf16>, %b: tensor<64x256xf16>) -> tensor<256x256xf16> {
  // expected-error @+1 {{#dlk.schedule stages = 3 with mma = [64, 128, 16]: wgmma reads A and B from shared memory, so stages must be at least 2, and the staged tiles (64 x 64 and 64 x 128 a stage) need 73728 bytes, at most 49152}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [64, 128, 0], thread = [64, 128, 0], stages = 3, mma = [64, 128, 16]> (%a, %b) : (tensor<256x64xf16>, tensor<64x256xf16>) -> tensor<256x256xf16> {
  ^bb0(%x: tensor<256x64xf16>, %y: tensor<64x256xf16>):
    %m = dlg.matmul %x, %y : tensor<256x64xf16>, tensor<64x256xf16> -> tensor<256x256xf16>
    dlk.yield %m : tensor<256x256xf16>
  }
  return %0 : tensor<256x256xf16>
}

// -----

func.func @wgmma_fused_producer(%a: tensor<256x64xf16>, %b: tensor<256x64xf16>) -> tensor<256x256xf16> {
  // expected-error @+1 {{#dlk.schedule mma = [64, N, 16] (wgmma.mma_async): an operand of the contraction is computed in the kernel (a fused producer); wgmma reads A and B from shared memory, staged only from loaded tiles}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [64, 128, 0], thread = [64, 128, 0], stages = 2, mma = [64, 128, 16]> (%a, %b) : (tensor<256x64xf16>, tensor<256x64xf16>) -> tensor<256x256xf16> {
  ^bb0(%x: tensor<256x64xf16>, %y: tensor<256x64xf16>):
    %t = dlg.transpose %y perm = [1, 0] : tensor<256x64xf16> -> tensor<64x256xf16>
    %m = dlg.matmul %x, %t : tensor<256x64xf16>, tensor<64x256xf16> -> tensor<256x256xf16>
    dlk.yield %m : tensor<256x256xf16>
  }
  return %0 : tensor<256x256xf16>
}
