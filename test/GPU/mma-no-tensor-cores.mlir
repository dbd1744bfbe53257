// A given mma schedule on a chip without mma.sync / cp.async (below sm_80,
// dlc-gpu-schedule{tensor-cores=false}) is an error at the kernel.
// RUN: dlc-opt %s --verify-diagnostics --pass-pipeline='builtin.module(dlk-to-linalg{pack=false},func.func(linalg-generalize-named-ops),dlc-gpu-schedule{tensor-cores=false})' -o /dev/null

func.func @mma_sm75(%a: tensor<32x16xf16>, %b: tensor<16x128xf16>) -> tensor<32x128xf16> {
  // expected-error @+1 {{#dlk.schedule mma: the target chip has no mma.sync / cp.async (sm_80 and newer)}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [32, 64, 0], thread = [16, 32, 0], mma = [16, 8, 16]> (%a, %b) : (tensor<32x16xf16>, tensor<16x128xf16>) -> tensor<32x128xf16> {
  ^bb0(%x: tensor<32x16xf16>, %y: tensor<16x128xf16>):
    %m = dlg.matmul %x, %y : tensor<32x16xf16>, tensor<16x128xf16> -> tensor<32x128xf16>
    dlk.yield %m : tensor<32x128xf16>
  }
  return %0 : tensor<32x128xf16>
}
