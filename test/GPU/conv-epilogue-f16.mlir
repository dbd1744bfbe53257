// The implicit-GEMM conv's epilogue with 16-byte stores (dlc-gpu-conv,
// gpu_build.h): the lanes regroup the mma.sync C fragments by two rounds
// of shuffles (lane ^ 1, then lane ^ 2 across a pair of 16 x 8 tiles),
// apply bias and relu once per element, and store 8 adjacent f16 pixels of
// an output channel each: st.global.v4.b32, no per-element store.
// RUN: %python %dlc_src/test/GPU/print_ptx.py %s | FileCheck %s
// CHECK: .visible .entry main_kernel
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// CHECK: max.{{.*}}f16
// CHECK-NOT: st.global.b16
// CHECK: st.global.v4.b32
// CHECK-NOT: st.global.b16
// CHECK-NOT: .local
//
// Before the NVVM lowering: the block's [1, O, rows, Wo] output tile seen
// as [O, rows x Wo] (its rows are adjacent), one vector<8xf16> store a run.
// RUN: dlc-opt %s --lower-to-nvvm='stop-after=launch' | FileCheck %s --check-prefix=LAUNCH
// LAUNCH: nvgpu.mma.sync
// LAUNCH: memref.collapse_shape {{.*}} {{\[\[}}0, 1], [2, 3]]
// LAUNCH: gpu.shuffle xor
// LAUNCH: arith.maximumf
// LAUNCH: vector.store {{.*}} vector<8xf16>
// LAUNCH-NOT: memref.store {{.*}}xf16, strided

func.func @main(%x: tensor<1x32x16x16xf16>, %w: tensor<64x32x3x3xf16>, %b: tensor<64xf16>) -> tensor<1x64x16x16xf16> {
  %0 = dlg.conv2d %x, %w, %b {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x16x16xf16>, tensor<64x32x3x3xf16>, tensor<64xf16>) -> tensor<1x64x16x16xf16>
  %1 = dlg.relu %0 : tensor<1x64x16x16xf16>
  return %1 : tensor<1x64x16x16xf16>
}
