// Without tensor cores (a chip below sm_80) a given conv mma is an error,
// and the cost model's conv schedule has no mma: f16 convs run FFMA in f32.
// RUN: dlc-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(dlk-to-linalg{pack=false},func.func(linalg-generalize-named-ops),dlc-gpu-schedule{tensor-cores=false})' -o /dev/null
// The first case is the error above (exit 1); the second's schedule:
// RUN: not dlc-opt %s --lower-to-nvvm='chip=sm_75 stop-after=schedule' --split-input-file 2>/dev/null | FileCheck %s

func.func @no_tensor_cores(%x: tensor<1x8x16x16xf16>, %w: tensor<64x8x3x3xf16>) -> tensor<1x64x14x14xf16> {
  // expected-error @+1 {{#dlk.schedule mma = [16, 8, 16] does not apply to this conv: the target chip has no mma.sync (sm_80 and newer)}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [1, 32, 2, 0, 0, 0, 0], thread = [0, 16, 0, 16, 0, 0, 0], mma = [16, 8, 16]> (%x, %w) : (tensor<1x8x16x16xf16>, tensor<64x8x3x3xf16>) -> tensor<1x64x14x14xf16> {
  ^bb0(%a: tensor<1x8x16x16xf16>, %b: tensor<64x8x3x3xf16>):
    %c = dlg.conv2d %a, %b : (tensor<1x8x16x16xf16>, tensor<64x8x3x3xf16>) -> tensor<1x64x14x14xf16>
    dlk.yield %c : tensor<1x64x14x14xf16>
  }
  return %0 : tensor<1x64x14x14xf16>
}

// -----

// cp.async (the conv's multi-stage pipeline) is sm_80 and newer too.
func.func @no_cp_async(%x: tensor<1x8x16x16xf32>, %w: tensor<64x8x3x3xf32>) -> tensor<1x64x14x14xf32> {
  // expected-error @+1 {{#dlk.schedule stages = 2: the target chip has no cp.async (sm_80 and newer), so this conv stages one k tile (stages = 1)}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [1, 32, 2, 0, 0, 0, 0], thread = [0, 16, 0, 16, 0, 0, 0], stages = 2> (%x, %w) : (tensor<1x8x16x16xf32>, tensor<64x8x3x3xf32>) -> tensor<1x64x14x14xf32> {
  ^bb0(%a: tensor<1x8x16x16xf32>, %b: tensor<64x8x3x3xf32>):
    %c = dlg.conv2d %a, %b : (tensor<1x8x16x16xf32>, tensor<64x8x3x3xf32>) -> tensor<1x64x14x14xf32>
    dlk.yield %c : tensor<1x64x14x14xf32>
  }
  return %0 : tensor<1x64x14x14xf32>
}

// -----

// CHECK-LABEL: func.func private @cost_model_kernel
// CHECK-SAME: thread = [0, 16, 0, {{[0-9]+}}, 0, 0, 0]>
// CHECK-NOT: mma =
// CHECK-NOT: stages =
// CHECK: dlc.conv = array<i64: 16, {{[0-9]+}}, 0, 1, 1, 1, 1, {{[0-9]+}}, 1>
func.func @cost_model(%x: tensor<1x8x16x16xf16>, %w: tensor<64x8x3x3xf16>) -> tensor<1x64x14x14xf16> {
  %0 = dlg.conv2d %x, %w : (tensor<1x8x16x16xf16>, tensor<64x8x3x3xf16>) -> tensor<1x64x14x14xf16>
  return %0 : tensor<1x64x14x14xf16>
}
