// A #dlk.schedule whose GPU fields do not fit the kernel, or name what the
// GPU strategy does not implement, is an error at the kernel's function.
// RUN: dlc-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(dlk-to-linalg{pack=false},dlc-gpu-schedule)' -o /dev/null

func.func @not_dividing(%a: tensor<30x16xf32>, %b: tensor<16x128xf32>) -> tensor<30x128xf32> {
  // expected-error @+1 {{#dlk.schedule does not fit loop 0 (extent 30): workgroup 16, thread 4 (tiles must divide; reduction loops stay untiled)}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [16, 64, 0], thread = [4, 4, 0]> (%a, %b) : (tensor<30x16xf32>, tensor<16x128xf32>) -> tensor<30x128xf32> {
  ^bb0(%x: tensor<30x16xf32>, %y: tensor<16x128xf32>):
    %m = dlg.matmul %x, %y : tensor<30x16xf32>, tensor<16x128xf32> -> tensor<30x128xf32>
    dlk.yield %m : tensor<30x128xf32>
  }
  return %0 : tensor<30x128xf32>
}

// -----

func.func @reduction_tiled(%a: tensor<32x16xf32>, %b: tensor<16x128xf32>) -> tensor<32x128xf32> {
  // expected-error @+1 {{#dlk.schedule does not fit loop 2 (extent 16, reduction): workgroup 8, thread 0}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [16, 64, 8], thread = [4, 4, 0]> (%a, %b) : (tensor<32x16xf32>, tensor<16x128xf32>) -> tensor<32x128xf32> {
  ^bb0(%x: tensor<32x16xf32>, %y: tensor<16x128xf32>):
    %m = dlg.matmul %x, %y : tensor<32x16xf32>, tensor<16x128xf32> -> tensor<32x128xf32>
    dlk.yield %m : tensor<32x128xf32>
  }
  return %0 : tensor<32x128xf32>
}

// -----

func.func @wrong_rank(%a: tensor<32x16xf32>, %b: tensor<16x128xf32>) -> tensor<32x128xf32> {
  // expected-error @+1 {{#dlk.schedule for the GPU needs one workgroup and one thread tile per loop of the kernel's root (3 loops); got 2 and 2}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [16, 64], thread = [4, 4]> (%a, %b) : (tensor<32x16xf32>, tensor<16x128xf32>) -> tensor<32x128xf32> {
  ^bb0(%x: tensor<32x16xf32>, %y: tensor<16x128xf32>):
    %m = dlg.matmul %x, %y : tensor<32x16xf32>, tensor<16x128xf32> -> tensor<32x128xf32>
    dlk.yield %m : tensor<32x128xf32>
  }
  return %0 : tensor<32x128xf32>
}

// -----

func.func @too_many_threads(%a: tensor<64x16xf32>, %b: tensor<16x128xf32>) -> tensor<64x128xf32> {
  // expected-error @+1 {{#dlk.schedule thread tiles give no thread or more than 1024 threads a block}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [64, 128, 0], thread = [1, 1, 0]> (%a, %b) : (tensor<64x16xf32>, tensor<16x128xf32>) -> tensor<64x128xf32> {
  ^bb0(%x: tensor<64x16xf32>, %y: tensor<16x128xf32>):
    %m = dlg.matmul %x, %y : tensor<64x16xf32>, tensor<16x128xf32> -> tensor<64x128xf32>
    dlk.yield %m : tensor<64x128xf32>
  }
  return %0 : tensor<64x128xf32>
}

// -----

func.func @stages(%a: tensor<32x16xf32>, %b: tensor<16x128xf32>) -> tensor<32x128xf32> {
  // expected-error @+1 {{#dlk.schedule stages > 1 (multi-stage shared-memory copies) is not implemented by the GPU strategy}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [16, 64, 0], thread = [4, 4, 0], stages = 3> (%a, %b) : (tensor<32x16xf32>, tensor<16x128xf32>) -> tensor<32x128xf32> {
  ^bb0(%x: tensor<32x16xf32>, %y: tensor<16x128xf32>):
    %m = dlg.matmul %x, %y : tensor<32x16xf32>, tensor<16x128xf32> -> tensor<32x128xf32>
    dlk.yield %m : tensor<32x128xf32>
  }
  return %0 : tensor<32x128xf32>
}

// -----

func.func @mma_f32_without_tf32(%a: tensor<32x16xf32>, %b: tensor<16x128xf32>) -> tensor<32x128xf32> {
  // expected-error @+1 {{#dlk.schedule mma = [16, 8, 8] does not apply to this kernel: f32 operands use tensor cores (TF32) only with allow-tf32}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [32, 64, 0], thread = [16, 32, 0], mma = [16, 8, 8]> (%a, %b) : (tensor<32x16xf32>, tensor<16x128xf32>) -> tensor<32x128xf32> {
  ^bb0(%x: tensor<32x16xf32>, %y: tensor<16x128xf32>):
    %m = dlg.matmul %x, %y : tensor<32x16xf32>, tensor<16x128xf32> -> tensor<32x128xf32>
    dlk.yield %m : tensor<32x128xf32>
  }
  return %0 : tensor<32x128xf32>
}

// -----

func.func @mma_wrong_k(%a: tensor<32x16xf16>, %b: tensor<16x128xf16>) -> tensor<32x128xf16> {
  // expected-error @+1 {{#dlk.schedule mma = [16, 8, 8] is not the shape of this kernel's operand types: [16, 8, 16]}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [32, 64, 0], thread = [16, 32, 0], mma = [16, 8, 8]> (%a, %b) : (tensor<32x16xf16>, tensor<16x128xf16>) -> tensor<32x128xf16> {
  ^bb0(%x: tensor<32x16xf16>, %y: tensor<16x128xf16>):
    %m = dlg.matmul %x, %y : tensor<32x16xf16>, tensor<16x128xf16> -> tensor<32x128xf16>
    dlk.yield %m : tensor<32x128xf16>
  }
  return %0 : tensor<32x128xf16>
}

// -----

func.func @mma_warp_tile(%a: tensor<32x16xf16>, %b: tensor<16x128xf16>) -> tensor<32x128xf16> {
  // expected-error @+1 {{#dlk.schedule with mma: the thread tile is the warp's [m, n] tile, a multiple of [16, 8] dividing the workgroup tile, at most 64 mma tiles a warp, batch loops tiled by one, at most 32 warps a block; got warp tile 4 x 4 in block tile 32 x 64}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [32, 64, 0], thread = [4, 4, 0], mma = [16, 8, 16]> (%a, %b) : (tensor<32x16xf16>, tensor<16x128xf16>) -> tensor<32x128xf16> {
  ^bb0(%x: tensor<32x16xf16>, %y: tensor<16x128xf16>):
    %m = dlg.matmul %x, %y : tensor<32x16xf16>, tensor<16x128xf16> -> tensor<32x128xf16>
    dlk.yield %m : tensor<32x128xf16>
  }
  return %0 : tensor<32x128xf16>
}

// -----

func.func @mma_not_multiple(%a: tensor<32x24xf16>, %b: tensor<24x128xf16>) -> tensor<32x128xf16> {
  // expected-error @+1 {{#dlk.schedule mma = [16, 8, 16] does not apply to this kernel: m, n, k not multiples of the mma shape}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [32, 64, 0], thread = [16, 32, 0], mma = [16, 8, 16]> (%a, %b) : (tensor<32x24xf16>, tensor<24x128xf16>) -> tensor<32x128xf16> {
  ^bb0(%x: tensor<32x24xf16>, %y: tensor<24x128xf16>):
    %m = dlg.matmul %x, %y : tensor<32x24xf16>, tensor<24x128xf16> -> tensor<32x128xf16>
    dlk.yield %m : tensor<32x128xf16>
  }
  return %0 : tensor<32x128xf16>
}

// -----

func.func @mma_i32(%a: tensor<32x16xi32>, %b: tensor<16x128xi32>) -> tensor<32x128xi32> {
  // expected-error @+1 {{#dlk.schedule mma = [16, 8, 16] does not apply to this kernel: element types other than f16, bf16 (or f32 with allow-tf32)}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [32, 64, 0], thread = [16, 32, 0], mma = [16, 8, 16]> (%a, %b) : (tensor<32x16xi32>, tensor<16x128xi32>) -> tensor<32x128xi32> {
  ^bb0(%x: tensor<32x16xi32>, %y: tensor<16x128xi32>):
    %m = dlg.matmul %x, %y : tensor<32x16xi32>, tensor<16x128xi32> -> tensor<32x128xi32>
    dlk.yield %m : tensor<32x128xi32>
  }
  return %0 : tensor<32x128xi32>
}

// -----

func.func @mma_stages_too_deep(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>) -> tensor<128x128xf16> {
  // expected-error @+1 {{#dlk.schedule stages = 3: the staged A and B tiles (128 x 32 and 32 x 128 a stage) need 56832 bytes of shared memory, more than 49152}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [128, 128, 0], thread = [32, 32, 0], stages = 3, mma = [16, 8, 16]> (%a, %b) : (tensor<128x64xf16>, tensor<64x128xf16>) -> tensor<128x128xf16> {
  ^bb0(%x: tensor<128x64xf16>, %y: tensor<64x128xf16>):
    %m = dlg.matmul %x, %y : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf16>
    dlk.yield %m : tensor<128x128xf16>
  }
  return %0 : tensor<128x128xf16>
}
