// A wgmma schedule (mma = [64, N, 16]) on a chip without wgmma.mma_async is
// an error at the kernel: sm_90 is not sm_90a (wgmma is an
// architecture-specific feature of sm_90a), and older chips have none.
// RUN: dlc-opt %s --verify-diagnostics --pass-pipeline='builtin.module(dlk-to-linalg{pack=false},func.func(linalg-generalize-named-ops),dlc-gpu-schedule{wgmma=false})' -o /dev/null
// RUN: dlc-opt %s --verify-diagnostics --lower-to-nvvm='chip=sm_90' -o /dev/null
// RUN: dlc-opt %s --verify-diagnostics --lower-to-nvvm='chip=sm_80' -o /dev/null
// The same kernel on sm_90a compiles:
// RUN: dlc-opt %s --lower-to-nvvm='chip=sm_90a stop-after=launch' | FileCheck %s
// CHECK: nvvm.wgmma.mma_async

func.func @wgmma_on_sm90(%a: tensor<256x64xf16>, %b: tensor<64x256xf16>) -> tensor<256x256xf16> {
  // expected-error @+1 {{#dlk.schedule mma = [64, 128, 16] (wgmma.mma_async) needs chip sm_90a; this target has no wgmma (mma = [16, 8, 16] is mma.sync)}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [64, 128, 0], thread = [64, 128, 0], stages = 2, mma = [64, 128, 16]> (%a, %b) : (tensor<256x64xf16>, tensor<64x256xf16>) -> tensor<256x256xf16> {
  ^bb0(%x: tensor<256x64xf16>, %y: tensor<64x256xf16>):
    %m = dlg.matmul %x, %y : tensor<256x64xf16>, tensor<64x256xf16> -> tensor<256x256xf16>
    dlk.yield %m : tensor<256x256xf16>
  }
  return %0 : tensor<256x256xf16>
}
