// --dlc-streaming-stores: a write-only output of at least min-bytes gets a
// non-temporal vector.store wherever a store starts a cache line (checked at
// run time: the caller's buffer may sit anywhere), its plain store
// otherwise, and an sfence where the storing thread leaves; every other
// store is left as it was.
// RUN: dlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(dlc-streaming-stores{min-bytes=4096}))' | FileCheck %s
// The default threshold is the target's last-level cache (8 MiB in the
// AVX2 model): these 16 KiB outputs stay plain.
// RUN: dlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(dlc-streaming-stores{target=avx2}))' | FileCheck %s --check-prefix=SMALL
// SMALL-NOT: nontemporal
// SMALL-NOT: sfence

// A serial loop writing lines of 16 floats: address check, non-temporal
// store at a line start, the original store otherwise, a fence before the
// return.
// CHECK-LABEL: func.func @serial
// CHECK:         scf.for %[[I:.*]] =
// CHECK:           %[[V:.*]] = vector.transfer_read %arg0
// CHECK:           %[[P:.*]] = memref.extract_aligned_pointer_as_index %arg1
// CHECK:           %{{.*}}, %[[OFF:.*]], %{{.*}}, %[[STRIDE:.*]] = memref.extract_strided_metadata %arg1
// CHECK:           %[[X:.*]] = arith.muli %[[I]], %[[STRIDE]]
// CHECK:           %[[LIN:.*]] = arith.addi %[[OFF]], %[[X]]
// CHECK:           %[[BYTES:.*]] = arith.muli %[[LIN]], %c4
// CHECK:           %[[ADDR:.*]] = arith.addi %[[P]], %[[BYTES]]
// CHECK:           %[[LOW:.*]] = arith.andi %[[ADDR]], %c63
// CHECK:           %[[AT:.*]] = arith.cmpi eq, %[[LOW]], %c0
// CHECK:           scf.if %[[AT]] {
// CHECK-NEXT:        vector.store %[[V]], %arg1[%[[I]]] {alignment = 64 : i64, nontemporal = true}
// CHECK-NEXT:      } else {
// CHECK-NEXT:        vector.transfer_write %[[V]], %arg1[%[[I]]] {in_bounds = [true]}
// CHECK-NEXT:      }
// CHECK:         }
// CHECK-NEXT:    llvm.call_intrinsic "llvm.x86.sse.sfence"() : () -> ()
// CHECK-NEXT:    return
func.func @serial(%in: memref<4096xf32>, %out: memref<4096xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c4096 = arith.constant 4096 : index
  %pad = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c4096 step %c16 {
    %v = vector.transfer_read %in[%i], %pad {in_bounds = [true]} : memref<4096xf32>, vector<16xf32>
    vector.transfer_write %v, %out[%i] {in_bounds = [true]} : vector<16xf32>, memref<4096xf32>
  }
  return
}

// -----

// Half a line at a time into a 1-D buffer (an elementwise kernel whose
// extent no 16-float tile divides): consecutive stores fill the lines, so
// each store streams when it starts on 32 bytes.
// CHECK-LABEL: func.func @half_lines
// CHECK:         %[[LOW:.*]] = arith.andi %{{.*}}, %c31
// CHECK:         %[[AT:.*]] = arith.cmpi eq, %[[LOW]], %c0
// CHECK:         scf.if %[[AT]] {
// CHECK-NEXT:      vector.store {{.*}} {alignment = 32 : i64, nontemporal = true} : memref<4104xf32>, vector<8xf32>
// CHECK:         llvm.call_intrinsic "llvm.x86.sse.sfence"() : () -> ()
// CHECK-NEXT:    return
func.func @half_lines(%in: memref<4104xf32>, %out: memref<4104xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c4104 = arith.constant 4104 : index
  %pad = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c4104 step %c8 {
    %v = vector.transfer_read %in[%i], %pad {in_bounds = [true]} : memref<4104xf32>, vector<8xf32>
    vector.transfer_write %v, %out[%i] {in_bounds = [true]} : vector<8xf32>, memref<4104xf32>
  }
  return
}

// -----

// Through subviews, inside an OpenMP loop: each thread fences before it
// leaves the parallel region; the function's return has no fence.
// CHECK-LABEL: func.func @parallel
// CHECK:         omp.parallel {
// CHECK:           vector.store {{.*}}nontemporal = true
// CHECK:           omp.yield
// CHECK:         llvm.call_intrinsic "llvm.x86.sse.sfence"() : () -> ()
// CHECK-NEXT:    omp.terminator
// CHECK-NOT:     sfence
// CHECK:         return
func.func @parallel(%in: memref<64x64xf32>, %out: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%r) : index = (%c0) to (%c64) step (%c1) {
        %row = memref.subview %out[%r, 0] [1, 64] [1, 1] : memref<64x64xf32> to memref<64xf32, strided<[1], offset: ?>>
        scf.for %j = %c0 to %c64 step %c32 {
          %v = vector.transfer_read %in[%r, %j], %pad {in_bounds = [true]} : memref<64x64xf32>, vector<32xf32>
          vector.transfer_write %v, %row[%j] {in_bounds = [true]} : vector<32xf32>, memref<64xf32, strided<[1], offset: ?>>
        }
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// Left alone: an output the function reads back (accumulates into), a
// store of half a line into a matrix (other stores may fill the rest of
// its lines later), a masked store, one that may run out of bounds, a
// column (a transposing permutation map) and a buffer that escapes into a
// call.
// CHECK-LABEL: func.func @kept
// CHECK-NOT:     nontemporal
// CHECK-NOT:     sfence
// CHECK:         return
func.func private @use(memref<64x64xf32>)
func.func @kept(%in: memref<4096xf32>, %acc: memref<4096xf32>, %half: memref<64x64xf32>,
                %masked: memref<4096xf32>, %edge: memref<4096xf32>, %cols: memref<64x64xf32>,
                %escapes: memref<64x64xf32>, %m: vector<16xi1>, %n: index) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c4096 = arith.constant 4096 : index
  %pad = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c4096 step %c16 {
    %v = vector.transfer_read %in[%i], %pad {in_bounds = [true]} : memref<4096xf32>, vector<16xf32>
    %a = vector.transfer_read %acc[%i], %pad {in_bounds = [true]} : memref<4096xf32>, vector<16xf32>
    %s = arith.addf %a, %v : vector<16xf32>
    vector.transfer_write %s, %acc[%i] {in_bounds = [true]} : vector<16xf32>, memref<4096xf32>
    %h = vector.extract_strided_slice %v {offsets = [0], sizes = [8], strides = [1]} : vector<16xf32> to vector<8xf32>
    vector.transfer_write %h, %half[%c0, %c0] {in_bounds = [true]} : vector<8xf32>, memref<64x64xf32>
    vector.transfer_write %v, %masked[%i], %m {in_bounds = [true]} : vector<16xf32>, memref<4096xf32>
    vector.transfer_write %v, %edge[%n] : vector<16xf32>, memref<4096xf32>
  }
  scf.for %j = %c0 to %c16 step %c16 {
    %v = vector.transfer_read %in[%j], %pad {in_bounds = [true]} : memref<4096xf32>, vector<16xf32>
    vector.transfer_write %v, %cols[%c0, %j] {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : vector<16xf32>, memref<64x64xf32>
    vector.transfer_write %v, %escapes[%c0, %j] {in_bounds = [true]} : vector<16xf32>, memref<64x64xf32>
  }
  call @use(%escapes) : (memref<64x64xf32>) -> ()
  return
}
