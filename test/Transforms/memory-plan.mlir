// --dlc-memory-plan: the static temporaries at the top of a public function
// get offsets in one workspace arena (greedy by size over their lifetimes),
// passed as a new last argument.
// RUN: dlc-opt %s --split-input-file --dlc-memory-plan | FileCheck %s

// A chain: t0 -> t1 -> t2 -> out. t1 (2 KiB, live over ops 2-3) is placed
// first at 0; t0 (live 0-2) overlaps it and goes after it at 2048; t2 (live
// 3-4) overlaps only t1 and takes the same 2048, free again once t0 died.
// CHECK-LABEL: func @chain
// CHECK-SAME:    %arg2: memref<3072xi8>
// CHECK-SAME:    dlc.memory_plan = {naive_bytes = 4096 : i64, peak_bytes = 3072 : i64, temporaries = 3 : i64, unplanned = 0 : i64, weights_bytes = 64 : i64}
// CHECK-SAME:    dlc.workspace_bytes = 3072 : i64
// CHECK:       %[[C0:.*]] = arith.constant 2048 : index
// CHECK:       %[[T0:.*]] = memref.view %arg2[%[[C0]]][] : memref<3072xi8> to memref<256xf32>
// CHECK:       %[[C1:.*]] = arith.constant 0 : index
// CHECK:       %[[T1:.*]] = memref.view %arg2[%[[C1]]][] : memref<3072xi8> to memref<2x256xf32>
// CHECK:       %[[C2:.*]] = arith.constant 2048 : index
// CHECK:       %[[T2:.*]] = memref.view %arg2[%[[C2]]][] : memref<3072xi8> to memref<256xf32>
// CHECK:       memref.copy %[[T2]], %arg1
// CHECK-NOT:   memref.alloc
// CHECK-NOT:   memref.dealloc
memref.global "private" constant @w : memref<16xf32> = dense<1.0>
func.func @chain(%x: f32, %out: memref<256xf32>) {
  %t0 = memref.alloc() : memref<256xf32>
  linalg.fill ins(%x : f32) outs(%t0 : memref<256xf32>)
  %t1 = memref.alloc() : memref<2x256xf32>
  %s = memref.subview %t1[0, 0] [1, 256] [1, 1] : memref<2x256xf32> to memref<256xf32, strided<[1]>>
  memref.copy %t0, %s : memref<256xf32> to memref<256xf32, strided<[1]>>
  memref.dealloc %t0 : memref<256xf32>
  %t2 = memref.alloc() : memref<256xf32>
  memref.copy %s, %t2 : memref<256xf32, strided<[1]>> to memref<256xf32>
  memref.dealloc %t1 : memref<2x256xf32>
  memref.copy %t2, %out : memref<256xf32> to memref<256xf32>
  memref.dealloc %t2 : memref<256xf32>
  return
}

// -----

// Best fit. Lifetimes (top-level op indices): big [0,4], a [1,7], b [2,5],
// d [3,8], c [6,9], e [12,12]. Largest first: big at 0, a after it at 4096,
// b at 5120, d at 5632. c (256 B) lives with a and d only: of the gaps
// [0,4096) (big is dead) and [5120,5632) (b is dead) it takes the smaller,
// at 5120. e (10 bytes, rounded to 64) lives alone: 0.
// CHECK-LABEL: func @best_fit
// CHECK-SAME:    %arg1: memref<6144xi8>
// CHECK-SAME:    naive_bytes = 6464 : i64, peak_bytes = 6144 : i64, temporaries = 6 : i64
// CHECK:       arith.constant 0 : index
// CHECK-NEXT:  memref.view {{.*}} to memref<1024xf32>
// CHECK:       arith.constant 4096 : index
// CHECK-NEXT:  memref.view {{.*}} to memref<256xf32>
// CHECK:       arith.constant 5120 : index
// CHECK-NEXT:  memref.view {{.*}} to memref<128xf32>
// CHECK:       arith.constant 5632 : index
// CHECK-NEXT:  memref.view {{.*}} to memref<128xf32>
// CHECK:       arith.constant 5120 : index
// CHECK-NEXT:  memref.view {{.*}} to memref<64xf32>
// CHECK:       arith.constant 0 : index
// CHECK-NEXT:  memref.view {{.*}} to memref<10xi8>
func.func @best_fit(%x: f32) {
  %big = memref.alloc() : memref<1024xf32>
  %a = memref.alloc() : memref<256xf32>
  %b = memref.alloc() : memref<128xf32>
  %d = memref.alloc() : memref<128xf32>
  %c = memref.alloc() : memref<64xf32>
  %e = memref.alloc() : memref<10xi8>
  linalg.fill ins(%x : f32) outs(%big : memref<1024xf32>)
  linalg.fill ins(%x : f32) outs(%a : memref<256xf32>)
  linalg.fill ins(%x : f32) outs(%b : memref<128xf32>)
  linalg.fill ins(%x : f32) outs(%d : memref<128xf32>)
  linalg.fill ins(%x : f32) outs(%big : memref<1024xf32>)
  linalg.fill ins(%x : f32) outs(%b : memref<128xf32>)
  linalg.fill ins(%x : f32) outs(%c : memref<64xf32>)
  linalg.fill ins(%x : f32) outs(%a : memref<256xf32>)
  linalg.fill ins(%x : f32) outs(%d : memref<128xf32>)
  linalg.fill ins(%x : f32) outs(%c : memref<64xf32>)
  %c0 = arith.constant 0 : index
  %i = arith.constant 7 : i8
  memref.store %i, %e[%c0] : memref<10xi8>
  return
}

// -----

// What stays an alloc: a dynamic one, one returned, one freed through a
// view, one aligned beyond the arena's 64 bytes, and one per loop
// iteration (not counted: not at the top level).
// Private functions are not planned (their callers would need the arena).
// CHECK-LABEL: func @kept
// CHECK-SAME:    %arg1: memref<256xi8>
// CHECK-SAME:    temporaries = 1 : i64, unplanned = 4 : i64
// CHECK:       memref.alloc(%arg0) : memref<?xf32>
// CHECK:       memref.alloc() : memref<8xf32>
// CHECK:       memref.alloc() : memref<16xf32>
// CHECK:       memref.alloc() {alignment = 128 : i64} : memref<32xf32>
// CHECK:       memref.view %arg1
// CHECK:       scf.for
// CHECK-NEXT:    memref.alloc() : memref<4xf32>
func.func @kept(%n: index) -> memref<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %dyn = memref.alloc(%n) : memref<?xf32>
  %ret = memref.alloc() : memref<8xf32>
  %v = memref.alloc() : memref<16xf32>
  %w = memref.subview %v[0] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1]>>
  memref.dealloc %w : memref<8xf32, strided<[1]>>
  %big = memref.alloc() {alignment = 128 : i64} : memref<32xf32>
  %ok = memref.alloc() : memref<64xf32>
  scf.for %i = %c0 to %n step %c1 {
    %l = memref.alloc() : memref<4xf32>
    memref.dealloc %l : memref<4xf32>
  }
  memref.dealloc %ok : memref<64xf32>
  memref.dealloc %dyn : memref<?xf32>
  return %ret : memref<8xf32>
}
// CHECK-LABEL: func private @helper
// CHECK-SAME:    (%arg0: f32)
// CHECK:       memref.alloc
func.func private @helper(%x: f32) {
  %t = memref.alloc() : memref<64xf32>
  linalg.fill ins(%x : f32) outs(%t : memref<64xf32>)
  memref.dealloc %t : memref<64xf32>
  return
}
