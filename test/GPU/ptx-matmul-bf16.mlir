// A bf16 GEMM on tensor cores. MLIR 22's convert-nvgpu-to-nvvm rejects
// nvgpu.mma.sync on bf16, so dlc-gpu-mma emits nvvm.mma.sync with each
// register of two bf16 packed into an i32 (docs/gpu.md).
// RUN: dlc-opt %s --lower-to-nvvm='stop-after=launch' | FileCheck %s --check-prefix=LAUNCH
// LAUNCH: vector.bitcast {{.*}} : vector<2xbf16> to vector<1xi32>
// LAUNCH: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {{.*}}multiplicandAPtxType = #nvvm.mma_type<bf16>{{.*}}shape = #nvvm.shape<m = 16, n = 8, k = 16>
// LAUNCH-NOT: nvgpu.mma.sync
// RUN: dlc-opt %s --lower-to-nvvm='format=isa' | FileCheck %s
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-NOT: .extern

func.func @main(%x: tensor<64x128xbf16>, %w: tensor<128x64xbf16>, %r: tensor<64x64xbf16>) -> tensor<64x64xbf16> {
  %0 = dlg.matmul %x, %w : tensor<64x128xbf16>, tensor<128x64xbf16> -> tensor<64x64xbf16>
  %1 = dlg.add %0, %r : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xbf16>
  return %1 : tensor<64x64xbf16>
}
