// A reduction to a scalar (no block forall) runs as one block of 256
// threads (dlc-gpu-spread): a strided partial per thread, shfl.sync.bfly
// within each warp, the 8 warps' values through shared memory after a
// barrier; the output's initial value is written by a one-thread fill
// launch before it.
// RUN: %python %dlc_src/test/GPU/print_ptx.py %s | FileCheck %s
// CHECK: // gpu.binary @main_kernel
// CHECK: .maxntid 1, 1, 1
// CHECK: // gpu.binary @main_kernel_0
// CHECK: .maxntid 256, 1, 1
// CHECK: .shared .align 4 .b8 [[SLOTS:.*]][32];
// CHECK: mov.u32 {{.*}}%tid.x;
// CHECK: max.NaN.f32
// CHECK: shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 8, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 4, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK: st.shared.b32
// CHECK: bar.sync 0;
// CHECK: ld.shared

func.func @main(%a: tensor<37x53xf32>) -> tensor<f32> {
  %r = dlg.reduce_max %a {axes = array<i64>, keepdims = false} : tensor<37x53xf32> -> tensor<f32>
  return %r : tensor<f32>
}
