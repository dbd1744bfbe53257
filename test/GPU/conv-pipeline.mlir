// The f32 implicit-GEMM conv's k tiles through a cp.async pipeline
// (dlc-gpu-conv with the staging builders of the mma.sync GEMMs,
// gpu_build.h): the cost model picks 3 stages (they fit in 48 KiB); a
// prologue copies tiles 0 and 1, a group each; each k step waits for tile
// kt (wait_group 1), one barrier, copies tile kt + 2 into the stage tile
// kt - 1 used, then computes tile kt. Every element is a 4-byte
// cp.async.ca; masked ones (k past K, padded pixels, the zero padding) read
// 0 bytes and are zero-filled. No synchronous st.shared is left.
// RUN: %python %dlc_src/test/GPU/print_ptx.py %s | FileCheck %s
// CHECK: .visible .entry main_kernel
// CHECK: .shared .align 16 .b8 __dlc_conv_smem_{{[0-9]+}}[3840]
// CHECK-NOT: st.shared
// CHECK: cp.async.ca.shared.global [{{.*}}], [{{.*}}], 4, %r{{[0-9]+}};
// CHECK: cp.async.commit_group;
// CHECK: cp.async.commit_group;
// CHECK: cp.async.wait_group {{.*}}1;
// CHECK-NEXT: bar.sync 0;
// CHECK: cp.async.ca.shared.global
// CHECK: cp.async.commit_group;
// CHECK: fma.rn.f32
// CHECK: cp.async.wait_group {{.*}}0;
// CHECK-NOT: st.shared
// CHECK: st.global.v4.b32
// CHECK-NOT: .local
//
// RUN: dlc-opt %s --lower-to-nvvm='stop-after=schedule' | FileCheck %s --check-prefix=SCHED
// SCHED: #dlk.schedule<workgroup = [1, 16, {{[0-9]+}}, 0, 0, 0, 0], thread = [0, 16, 0, {{[0-9]+}}, 0, 0, 0], stages = 3>
// SCHED: dlc.conv = array<i64: 16, {{[0-9]+}}, 0, 1, 1, 1, 1, {{[0-9]+}}, 3>
//
// RUN: dlc-opt %s --lower-to-nvvm='stop-after=launch' | FileCheck %s --check-prefix=LAUNCH
// LAUNCH-COUNT-2: memref.global "private" @__dlc_conv_smem_{{[0-9]+}} : memref<3x16x20xf32, #gpu.address_space<workgroup>>
// LAUNCH-LABEL: func.func @main
// LAUNCH: nvgpu.device_async_copy {{.*}}, 1, {{.*}} : memref<{{.*}}xf32> to memref<3x16x20xf32, #gpu.address_space<workgroup>>
// LAUNCH: nvgpu.device_async_create_group
// LAUNCH: nvgpu.device_async_create_group
// LAUNCH: scf.for
// LAUNCH: nvgpu.device_async_wait {{.*}} {numGroups = 1 : i32}
// LAUNCH-NEXT: gpu.barrier
// LAUNCH: arith.minui
// LAUNCH: nvgpu.device_async_copy
// LAUNCH: nvgpu.device_async_create_group
// LAUNCH-NOT: gpu.barrier
// LAUNCH: scf.yield
// LAUNCH: nvgpu.device_async_wait {{.*}} {numGroups = 0 : i32}
func.func @main(%x: tensor<1x8x16x16xf32>, %w: tensor<16x8x3x3xf32>) -> tensor<1x16x16x16xf32> {
  %0 = dlg.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x16x16xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x16x16xf32>
  return %0 : tensor<1x16x16x16xf32>
}
