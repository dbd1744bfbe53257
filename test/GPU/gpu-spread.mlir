// dlc-gpu-spread: dlc-gpu-map's one-thread launches of leftover work
// (dlc.leftover, from the linalg op), after convert-linalg-to-loops, spread
// over blocks and threads. Numerics: gpu_check.py emulate (--leftover) runs
// the rewrite's emulation on the CPU; ptxas.test assembles it, and
// ptx-leftover.mlir reads its PTX.
// RUN: dlc-opt %s --split-input-file --dlc-gpu-spread | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-gpu-spread=emulate=true | FileCheck %s --check-prefix=EMU

// A copy into a concat's subview: 2 x 300 elements, 256 threads a block,
// 3 blocks; the linear id split back into the loops' indices, innermost
// fastest, threads past the end idle.
// CHECK-LABEL: func.func @copy
// CHECK-DAG: %[[G:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[T:.*]] = arith.constant 256 : index
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[G]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[T]],
// CHECK: %[[M:.*]] = arith.muli %[[BX]], %{{.*}} : index
// CHECK: %[[L:.*]] = arith.addi %[[M]], %[[TX]] : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[L]], %{{.*}} : index
// CHECK: scf.if %[[IN]] {
// CHECK: %[[J:.*]] = arith.remui %[[L]], %{{.*}} : index
// CHECK: %[[I:.*]] = arith.divui %[[L]], %{{.*}} : index
// CHECK: %[[V:.*]] = memref.load %arg0[%[[I]], %[[J]]]
// CHECK: memref.store %[[V]], %{{.*}}[%[[I]], %[[J]]]
// CHECK-NOT: scf.for
// CHECK: gpu.barrier
// CHECK-NOT: dlc.leftover
// EMU-LABEL: func.func @copy
// EMU-NOT: gpu.
// EMU: scf.for %[[B:.*]] = %{{.*}} to %{{.*}} step
// EMU: scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step
// EMU: arith.muli %[[B]]
// EMU: memref.copy
func.func @copy(%a: memref<2x300xf32>, %out: memref<2x400xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c300 = arith.constant 300 : index
  %d = gpu.alloc () : memref<2x400xf32>
  %s = memref.subview %d[0, 100] [2, 300] [1, 1] : memref<2x400xf32> to memref<2x300xf32, strided<[400, 1], offset: 100>>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    scf.for %i = %c0 to %c2 step %c1 {
      scf.for %j = %c0 to %c300 step %c1 {
        %v = memref.load %a[%i, %j] : memref<2x300xf32>
        memref.store %v, %s[%i, %j] : memref<2x300xf32, strided<[400, 1], offset: 100>>
      }
    }
    gpu.barrier
    gpu.terminator
  } {dlc.leftover = "parallel"}
  gpu.memcpy %out, %d : memref<2x400xf32>, memref<2x400xf32>
  gpu.dealloc %d : memref<2x400xf32>
  return
}

// -----

// A sum to a scalar, 6 x 100 elements: one block of 256 threads, each
// combining iterations tid, tid + 256, ... from 0; five xor shuffles; the
// 8 warps' values through a shared slot each; thread 0 adds them to the
// output's value.
// CHECK-LABEL: func.func @sum
// CHECK-DAG: %[[T:.*]] = arith.constant 256 : index
// CHECK: gpu.launch {{.*}} threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[T]], {{.*}} workgroup(%[[SLOTS:.*]] : memref<8xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[P:.*]] = scf.for %[[L:.*]] = %[[TX]] to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32) {
// CHECK: %[[J:.*]] = arith.remui %[[L]]
// CHECK: %[[I:.*]] = arith.divui %[[L]]
// CHECK: %[[X:.*]] = memref.load %arg0[%[[I]], %[[J]]]
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %[[X]] : f32
// CHECK: scf.yield %[[S]] : f32
// CHECK: gpu.shuffle xor %[[P]], %c16_i32, %c32_i32 : f32
// CHECK-COUNT-4: gpu.shuffle xor
// CHECK: %[[W:.*]] = arith.divui %[[TX]], %{{.*}} : index
// CHECK: memref.store %{{.*}}, %[[SLOTS]][%[[W]]]
// CHECK: gpu.barrier
// CHECK-COUNT-8: memref.load %[[SLOTS]]
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TX]], %{{.*}} : index
// CHECK: scf.if %[[FIRST]] {
// CHECK: %[[OLD:.*]] = memref.load %arg1[] : memref<f32>
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]], %{{.*}} : f32
// CHECK: memref.store %[[NEW]], %arg1[] : memref<f32>
// EMU-LABEL: func.func @sum
// EMU-NOT: gpu.launch
// EMU: memref.alloca() : memref<256xf32>
// EMU: arith.xori
func.func @sum(%a: memref<6x100xf32>, %out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c100 = arith.constant 100 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    scf.for %i = %c0 to %c6 step %c1 {
      scf.for %j = %c0 to %c100 step %c1 {
        %x = memref.load %a[%i, %j] : memref<6x100xf32>
        %acc = memref.load %out[] : memref<f32>
        %s = arith.addf %acc, %x : f32
        memref.store %s, %out[] : memref<f32>
      }
    }
    gpu.barrier
    gpu.terminator
  } {dlc.leftover = "reduce"}
  return
}

// -----

// A loop stepping by 2 is not the shape the rewrite reads: kept on one
// thread (correct, slow), the mark dropped.
// CHECK-LABEL: func.func @kept
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c1, {{.*}} threads({{.*}}) in (%{{.*}} = %c1,
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c2
// CHECK-NOT: dlc.leftover
func.func @kept(%a: memref<8xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    scf.for %i = %c0 to %c8 step %c2 {
      %v = memref.load %a[%i] : memref<8xf32>
      memref.store %v, %out[%i] : memref<8xf32>
    }
    gpu.barrier
    gpu.terminator
  } {dlc.leftover = "parallel"}
  return
}
