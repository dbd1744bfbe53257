// Runtime control flow on the GPU path: dlg.if / dlg.while stay on the host
// as scf.if / scf.while (dlk-to-linalg, as for the CPU); the kernels in
// their regions get the GPU strategy and become launches; the condition,
// an i1 a kernel (or the caller) left in device memory, is copied into a
// host slot allocated once in the function's entry block (dlc-gpu-map) and
// read from there. gpu-async-region makes the host wait for the stream
// before that read.
// RUN: dlc-opt %s --split-input-file --lower-to-nvvm=stop-after=schedule | FileCheck %s --check-prefix=SCHED
// RUN: dlc-opt %s --split-input-file --lower-to-nvvm=stop-after=launch | FileCheck %s --check-prefix=LAUNCH
// RUN: dlc-opt %s --split-input-file --lower-to-nvvm=stop-after=outline | FileCheck %s --check-prefix=ASYNC
// RUN: dlc-opt %s --split-input-file --lower-to-nvvm=format=isa | FileCheck %s --check-prefix=PTX

// SCHED-LABEL: func.func @if
// SCHED: %[[C:.*]] = tensor.extract %arg0[] : tensor<i1>
// SCHED-NEXT: scf.if %[[C]] -> (tensor<4x256xf32>) {
// SCHED-NEXT: func.call @if_kernel0(%arg1)
// SCHED: func.func private @if_kernel0
// SCHED: scf.forall
// SCHED: mapping = [#gpu.block

// LAUNCH-LABEL: func.func @if
// LAUNCH-NEXT: %[[H:.*]] = memref.alloca() : memref<i1>
// LAUNCH-NEXT: gpu.memcpy %[[H]], %arg0 : memref<i1>, memref<i1>
// LAUNCH-NEXT: %[[C:.*]] = memref.load %[[H]][] : memref<i1>
// LAUNCH-NEXT: scf.if %[[C]] -> (memref<4x256xf32>) {
// LAUNCH-NEXT: gpu.alloc
// LAUNCH-NEXT: func.call @if_kernel0
// LAUNCH: } else {
// LAUNCH-NEXT: scf.yield %arg1
// LAUNCH: func.func private @if_kernel0
// LAUNCH: gpu.launch

// ASYNC-LABEL: func.func @if
// ASYNC: %[[T:.*]] = gpu.memcpy async [%{{.*}}] %[[H:.*]], %arg0 : memref<i1>, memref<i1>
// ASYNC-NEXT: gpu.wait [%[[T]]]
// ASYNC-NEXT: memref.load %[[H]][] : memref<i1>

// PTX-LABEL: llvm.func @if(
// PTX: llvm.call @mgpuMemcpy
// PTX-NEXT: llvm.call @mgpuStreamSynchronize
// PTX-NEXT: llvm.call @mgpuStreamDestroy
// PTX-NEXT: llvm.load %{{.*}} : !llvm.ptr -> i1
// PTX-NEXT: llvm.cond_br
// PTX: gpu.binary @if_kernel0_kernel
func.func @if(%c: tensor<i1>, %x: tensor<4x256xf32>) -> tensor<4x256xf32> {
  %r = dlg.if %c : tensor<i1> -> tensor<4x256xf32> {
    %e = dlg.exp %x : tensor<4x256xf32>
    dlg.yield %e : tensor<4x256xf32>
  } else {
    dlg.yield %x : tensor<4x256xf32>
  }
  return %r : tensor<4x256xf32>
}

// -----

// The loop's condition is read back on every trip into the one slot of
// the entry block (not an alloca per trip); the body's kernels are launches,
// the next condition a kernel's result in device memory.
// SCHED-LABEL: func.func @while
// SCHED: scf.while
// SCHED: tensor.extract
// SCHED: scf.condition
// SCHED: } do {
// SCHED: func.call @while_kernel0
// SCHED: func.call @while_kernel1

// LAUNCH-LABEL: func.func @while
// LAUNCH: %[[H:.*]] = memref.alloca() : memref<i1>
// LAUNCH-NOT: memref.alloca
// LAUNCH: scf.while (%[[A:.*]] = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) : (memref<i1>, memref<4x256xf32>, i1)
// LAUNCH-NEXT: gpu.memcpy %[[H]], %[[A]] : memref<i1>, memref<i1>
// LAUNCH-NEXT: %[[C:.*]] = memref.load %[[H]][] : memref<i1>
// LAUNCH: scf.condition(%[[C]])
// LAUNCH: } do {
// LAUNCH: func.call @while_kernel0
// LAUNCH: func.call @while_kernel1
// LAUNCH: scf.yield
// LAUNCH: func.func private @while_kernel1
// LAUNCH: gpu.launch

// PTX-LABEL: llvm.func @while(
// PTX-DAG: gpu.binary @while_kernel0_kernel
// PTX-DAG: gpu.binary @while_kernel1_kernel
func.func @while(%c0: tensor<i1>, %x: tensor<4x256xf32>) -> tensor<4x256xf32> {
  %r:2 = dlg.while (%c0, %x) : (tensor<i1>, tensor<4x256xf32>) -> (tensor<i1>, tensor<4x256xf32>) {
  ^bb0(%c: tensor<i1>, %a: tensor<4x256xf32>):
    dlg.condition(%c : tensor<i1>) %c, %a : tensor<i1>, tensor<4x256xf32>
  } do {
  ^bb0(%c: tensor<i1>, %a: tensor<4x256xf32>):
    %e = dlg.exp %a : tensor<4x256xf32>
    %s = dlg.reduce_sum %e {axes = array<i64: 1>} : tensor<4x256xf32> -> tensor<4xf32>
    %m = dlg.reduce_min %s {axes = array<i64>} : tensor<4xf32> -> tensor<f32>
    %z = dlg.constant dense<0.0> : tensor<f32>
    %n = dlg.less %m, %z : tensor<f32>, tensor<f32> -> tensor<i1>
    dlg.yield %n, %e : tensor<i1>, tensor<4x256xf32>
  }
  return %r#1 : tensor<4x256xf32>
}
