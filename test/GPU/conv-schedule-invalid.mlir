// A given #dlk.schedule that does not fit the implicit-GEMM conv strategy
// is an error at the kernel's function.
// RUN: dlc-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(dlk-to-linalg{pack=false},func.func(linalg-generalize-named-ops),dlc-gpu-schedule)' -o /dev/null

func.func @wo_tiled(%x: tensor<1x8x16x16xf32>, %w: tensor<64x8x3x3xf32>) -> tensor<1x64x14x14xf32> {
  // expected-error @+1 {{#dlk.schedule of an implicit-GEMM conv: workgroup = [1, O tile, Ho tile, 0, 0, 0, 0] (a multiple of 16 dividing O = 64, a divisor of Ho = 14, Wo whole)}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [0, 32, 2, 0, 0, 0, 0], thread = [0, 16, 0, 16, 0, 0, 0]> (%x, %w) : (tensor<1x8x16x16xf32>, tensor<64x8x3x3xf32>) -> tensor<1x64x14x14xf32> {
  ^bb0(%a: tensor<1x8x16x16xf32>, %b: tensor<64x8x3x3xf32>):
    %c = dlg.conv2d %a, %b : (tensor<1x8x16x16xf32>, tensor<64x8x3x3xf32>) -> tensor<1x64x14x14xf32>
    dlk.yield %c : tensor<1x64x14x14xf32>
  }
  return %0 : tensor<1x64x14x14xf32>
}

// -----

func.func @warp_not_16(%x: tensor<1x8x16x16xf32>, %w: tensor<64x8x3x3xf32>) -> tensor<1x64x14x14xf32> {
  // expected-error @+1 {{thread = [0, warp's O tile, 0, warp's pixel tile, 0, 0, 0] (a multiple of 16 dividing the O tile; a multiple of 8; at most 64 16x8 tiles a warp)}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [1, 32, 2, 0, 0, 0, 0], thread = [0, 8, 0, 16, 0, 0, 0]> (%x, %w) : (tensor<1x8x16x16xf32>, tensor<64x8x3x3xf32>) -> tensor<1x64x14x14xf32> {
  ^bb0(%a: tensor<1x8x16x16xf32>, %b: tensor<64x8x3x3xf32>):
    %c = dlg.conv2d %a, %b : (tensor<1x8x16x16xf32>, tensor<64x8x3x3xf32>) -> tensor<1x64x14x14xf32>
    dlk.yield %c : tensor<1x64x14x14xf32>
  }
  return %0 : tensor<1x64x14x14xf32>
}

// -----

func.func @f32_mma(%x: tensor<1x8x16x16xf32>, %w: tensor<64x8x3x3xf32>) -> tensor<1x64x14x14xf32> {
  // expected-error @+1 {{#dlk.schedule mma = [16, 8, 16] does not apply to this conv: f32 convs run exact FFMA (tensor cores take f16 / bf16)}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [1, 32, 2, 0, 0, 0, 0], thread = [0, 16, 0, 16, 0, 0, 0], mma = [16, 8, 16]> (%x, %w) : (tensor<1x8x16x16xf32>, tensor<64x8x3x3xf32>) -> tensor<1x64x14x14xf32> {
  ^bb0(%a: tensor<1x8x16x16xf32>, %b: tensor<64x8x3x3xf32>):
    %c = dlg.conv2d %a, %b : (tensor<1x8x16x16xf32>, tensor<64x8x3x3xf32>) -> tensor<1x64x14x14xf32>
    dlk.yield %c : tensor<1x64x14x14xf32>
  }
  return %0 : tensor<1x64x14x14xf32>
}

// -----

func.func @f16_tf32_shape(%x: tensor<1x8x16x16xf16>, %w: tensor<64x8x3x3xf16>) -> tensor<1x64x14x14xf16> {
  // expected-error @+1 {{#dlk.schedule mma = [16, 8, 8] does not apply to this conv: f16 / bf16 take [16, 8, 16]}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [1, 32, 2, 0, 0, 0, 0], thread = [0, 16, 0, 16, 0, 0, 0], mma = [16, 8, 8]> (%x, %w) : (tensor<1x8x16x16xf16>, tensor<64x8x3x3xf16>) -> tensor<1x64x14x14xf16> {
  ^bb0(%a: tensor<1x8x16x16xf16>, %b: tensor<64x8x3x3xf16>):
    %c = dlg.conv2d %a, %b : (tensor<1x8x16x16xf16>, tensor<64x8x3x3xf16>) -> tensor<1x64x14x14xf16>
    dlk.yield %c : tensor<1x64x14x14xf16>
  }
  return %0 : tensor<1x64x14x14xf16>
}

// -----

func.func @stages_f16(%x: tensor<1x8x16x16xf16>, %w: tensor<64x8x3x3xf16>) -> tensor<1x64x14x14xf16> {
  // expected-error @+1 {{#dlk.schedule stages = 2: the im2col gather of 16-bit elements has no cp.async (it copies 4, 8 or 16 bytes), so this conv stages one k tile (stages = 1)}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [1, 32, 2, 0, 0, 0, 0], thread = [0, 16, 0, 16, 0, 0, 0], mma = [16, 8, 16], stages = 2> (%x, %w) : (tensor<1x8x16x16xf16>, tensor<64x8x3x3xf16>) -> tensor<1x64x14x14xf16> {
  ^bb0(%a: tensor<1x8x16x16xf16>, %b: tensor<64x8x3x3xf16>):
    %c = dlg.conv2d %a, %b : (tensor<1x8x16x16xf16>, tensor<64x8x3x3xf16>) -> tensor<1x64x14x14xf16>
    dlk.yield %c : tensor<1x64x14x14xf16>
  }
  return %0 : tensor<1x64x14x14xf16>
}

// -----

func.func @stages_range(%x: tensor<1x8x16x16xf32>, %w: tensor<64x8x3x3xf32>) -> tensor<1x64x14x14xf32> {
  // expected-error @+1 {{#dlk.schedule stages = 5: an implicit-GEMM conv takes 1 to 4 stages}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [1, 32, 2, 0, 0, 0, 0], thread = [0, 16, 0, 16, 0, 0, 0], stages = 5> (%x, %w) : (tensor<1x8x16x16xf32>, tensor<64x8x3x3xf32>) -> tensor<1x64x14x14xf32> {
  ^bb0(%a: tensor<1x8x16x16xf32>, %b: tensor<64x8x3x3xf32>):
    %c = dlg.conv2d %a, %b : (tensor<1x8x16x16xf32>, tensor<64x8x3x3xf32>) -> tensor<1x64x14x14xf32>
    dlk.yield %c : tensor<1x64x14x14xf32>
  }
  return %0 : tensor<1x64x14x14xf32>
}

// -----

// Three stages of the tiles do not fit in 48 KiB (two would).
func.func @stages_smem(%x: tensor<1x8x16x16xf32>, %w: tensor<64x8x3x3xf32>) -> tensor<1x64x14x14xf32> {
  // expected-error @+1 {{#dlk.schedule of an implicit-GEMM conv: 14 warps (196 pixels a block, padded to 224) and 59136 bytes of shared memory (stages = 3); at most 32 warps and 49152 bytes}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [1, 64, 14, 0, 0, 0, 0], thread = [0, 32, 0, 32, 0, 0, 0], stages = 3> (%x, %w) : (tensor<1x8x16x16xf32>, tensor<64x8x3x3xf32>) -> tensor<1x64x14x14xf32> {
  ^bb0(%a: tensor<1x8x16x16xf32>, %b: tensor<64x8x3x3xf32>):
    %c = dlg.conv2d %a, %b : (tensor<1x8x16x16xf32>, tensor<64x8x3x3xf32>) -> tensor<1x64x14x14xf32>
    dlk.yield %c : tensor<1x64x14x14xf32>
  }
  return %0 : tensor<1x64x14x14xf32>
}

// -----

func.func @too_many_warps(%x: tensor<1x8x16x16xf32>, %w: tensor<64x8x3x3xf32>) -> tensor<1x64x14x14xf32> {
  // expected-error @+1 {{#dlk.schedule of an implicit-GEMM conv: 100 warps (196 pixels a block, padded to 200) and 18176 bytes of shared memory (stages = 1); at most 32 warps and 49152 bytes}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [1, 64, 14, 0, 0, 0, 0], thread = [0, 16, 0, 8, 0, 0, 0]> (%x, %w) : (tensor<1x8x16x16xf32>, tensor<64x8x3x3xf32>) -> tensor<1x64x14x14xf32> {
  ^bb0(%a: tensor<1x8x16x16xf32>, %b: tensor<64x8x3x3xf32>):
    %c = dlg.conv2d %a, %b : (tensor<1x8x16x16xf32>, tensor<64x8x3x3xf32>) -> tensor<1x64x14x14xf32>
    dlk.yield %c : tensor<1x64x14x14xf32>
  }
  return %0 : tensor<1x64x14x14xf32>
}
