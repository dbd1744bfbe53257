// On sm_90a the cost model keeps mma.sync where wgmma does not apply:
// a GEMM whose B is a fused producer (here the transpose of attention's
// K: wgmma reads operands only from shared memory filled from loaded
// tiles), and a GEMM too small for a grid of 64 x N warpgroup tiles to
// fill half the SMs. A large plain GEMM gets wgmma (ptx-matmul-wgmma.mlir).
// RUN: dlc-opt %s --dlg-fuse --lower-to-nvvm='chip=sm_90a stop-after=schedule' | FileCheck %s
// CHECK-LABEL: func.func private @main_kernel0
// CHECK-SAME: mma = [16, 8, 16]>
// CHECK-LABEL: func.func private @small_kernel0
// CHECK-SAME: mma = [16, 8, 16]>
// RUN: dlc-opt %s --dlg-fuse --lower-to-nvvm='chip=sm_90a stop-after=launch' | FileCheck %s --check-prefix=LAUNCH
// LAUNCH-NOT: wgmma
// LAUNCH: nvgpu.mma.sync
// LAUNCH-NOT: wgmma

func.func @main(%q: tensor<16x512x64xf16>, %k: tensor<16x512x64xf16>) -> tensor<16x512x512xf16> {
  %kt = dlg.transpose %k perm = [0, 2, 1] : tensor<16x512x64xf16> -> tensor<16x64x512xf16>
  %0 = dlg.matmul %q, %kt : tensor<16x512x64xf16>, tensor<16x64x512xf16> -> tensor<16x512x512xf16>
  return %0 : tensor<16x512x512xf16>
}

func.func @small(%a: tensor<128x256xf16>, %b: tensor<256x256xf16>) -> tensor<128x256xf16> {
  %0 = dlg.matmul %a, %b : tensor<128x256xf16>, tensor<256x256xf16> -> tensor<128x256xf16>
  return %0 : tensor<128x256xf16>
}
