// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(func.func(dlc-hoist-scratch))' %s | FileCheck %s
// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(func.func(dlc-hoist-scratch{max-stack-bytes=4096}))' %s | FileCheck %s --check-prefix=SMALL
// RUN: not dlc-opt --pass-pipeline='builtin.module(func.func(dlc-hoist-scratch{max-stack-bytes=-1}))' %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: dlc-hoist-scratch: max-stack-bytes must be >= 0, got -1
// RUN: dlc-opt --lower-to-llvm=target=avx2 %S/Inputs/hoist-scratch-gemm.mlir | FileCheck %s --check-prefix=PIPE

// A parallel tile's scratch: the buffer a Kc loop allocates per block
// and the one the tile allocates itself go to the stack at the start of
// the tile, inside an alloca scope (freed per tile); with a 4 KiB budget
// the first (4 KiB) fits and the second stays on the heap, allocated once
// per tile.

// CHECK-LABEL: func.func @tile
// CHECK: scf.forall
// CHECK-NEXT: memref.alloca_scope {
// CHECK-NEXT: %[[C:.*]] = memref.alloca() {alignment = 64 : i64} : memref<1024xf32>
// CHECK-NEXT: %[[B:.*]] = memref.alloca() {alignment = 64 : i64} : memref<4x256xf32>
// CHECK-NOT: memref.alloc()
// CHECK-NOT: memref.dealloc
// CHECK: scf.for
// CHECK: memref.store {{.*}}, %[[B]]
// CHECK: memref.store {{.*}}, %[[C]]

// SMALL-LABEL: func.func @tile
// SMALL: scf.forall
// SMALL-NEXT: memref.alloca_scope {
// SMALL-NEXT: %[[C:.*]] = memref.alloca() {alignment = 64 : i64} : memref<1024xf32>
// SMALL-NEXT: %[[B:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4x256xf32>
// SMALL: scf.for
// SMALL-NOT: memref.dealloc
// SMALL: memref.store {{.*}}, %[[B]]
// SMALL: }
// SMALL: memref.store {{.*}}, %[[C]]
// SMALL-NEXT: memref.dealloc %[[B]]
func.func @tile(%v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.forall (%t) in (8) {
    %c = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
    scf.for %k = %c0 to %c4 step %c1 {
      %b = memref.alloc() {alignment = 64 : i64} : memref<4x256xf32>
      memref.store %v, %b[%k, %c0] : memref<4x256xf32>
      memref.dealloc %b : memref<4x256xf32>
    }
    memref.store %v, %c[%c0] : memref<1024xf32>
    memref.dealloc %c : memref<1024xf32>
  }
  return
}

// -----

// Serial loops at a function's top: the buffer moves to the function's
// start, on the stack, with no scope (the function's return frees it).
// CHECK-LABEL: func.func @serial
// CHECK-NEXT: %[[B:.*]] = memref.alloca() : memref<16xf32>
// CHECK-NOT: alloca_scope
// CHECK: scf.for
// CHECK-NEXT: scf.if
// CHECK-NEXT: memref.store {{.*}}, %[[B]]
// CHECK-NOT: memref.dealloc
func.func @serial(%v: f32, %p: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %k = %c0 to %c4 step %c1 {
    scf.if %p {
      %b = memref.alloc() : memref<16xf32>
      memref.store %v, %b[%k] : memref<16xf32>
      memref.dealloc %b : memref<16xf32>
    }
  }
  return
}

// -----

// Left alone: a top-level temporary (dlc-memory-plan's), a dynamic size,
// a buffer freed in another block than its own, one freed twice over, one
// inside a region that is neither a loop nor control flow.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: memref.alloca
// CHECK: memref.alloc() : memref<16xf32>
// CHECK: memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: memref.alloc() : memref<8xf32>
// CHECK: memref.alloc() : memref<4xf32>
// CHECK: memref.alloc() : memref<2xf32>
// CHECK-NOT: memref.alloca
func.func @kept(%n: index, %p: i1, %x: tensor<2xf32>) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %top = memref.alloc() : memref<16xf32>
  memref.dealloc %top : memref<16xf32>
  scf.for %k = %c0 to %c4 step %c1 {
    %d = memref.alloc(%n) : memref<?xf32>
    memref.dealloc %d : memref<?xf32>
    %e = memref.alloc() : memref<8xf32>
    scf.if %p {
      memref.dealloc %e : memref<8xf32>
    }
    %f = memref.alloc() : memref<4xf32>
    memref.dealloc %f : memref<4xf32>
    memref.dealloc %f : memref<4xf32>
  }
  %y = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]} ins(%x : tensor<2xf32>) outs(%x : tensor<2xf32>) {
  ^bb0(%a: f32, %o: f32):
    %g = memref.alloc() : memref<2xf32>
    memref.dealloc %g : memref<2xf32>
    linalg.yield %a : f32
  } -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// The whole CPU pipeline on BERT's FFN GEMM: no malloc left in its loop
// nest; each parallel tile saves the stack pointer, takes its buffers
// there and restores it at its end.
// PIPE-LABEL: llvm.func internal @ffn_nest0
// PIPE-NOT: llvm.call @malloc
// PIPE: omp.loop_nest
// PIPE: %[[SP:.*]] = llvm.intr.stacksave : !llvm.ptr
// PIPE: llvm.alloca {{.*}} x f32 {alignment = 64 : i64}
// PIPE-NOT: llvm.call @malloc
// PIPE: llvm.intr.stackrestore %[[SP]]
// PIPE-NOT: llvm.call @malloc
// PIPE: omp.yield
