// --dlc-streaming-stores with the host target: the threshold is the level-3
// cache this core shares, as sysfs (and lscpu) give it, not sysconf's, which
// on AMD's multi-CCD parts is the whole package's (256 MiB on an EPYC whose
// core complex has 32 MiB) and kept this 64 MiB output out of the pass.
// REQUIRES: host-l3-below-64mib
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlc-streaming-stores))' | FileCheck %s

// CHECK-LABEL: func.func @beyond_l3
// CHECK:         vector.store %{{.*}} {alignment = 64 : i64, nontemporal = true}
// CHECK:       llvm.call_intrinsic "llvm.x86.sse.sfence"
func.func @beyond_l3(%in: memref<16777216xf32>, %out: memref<16777216xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %n = arith.constant 16777216 : index
  %pad = arith.constant 0.0 : f32
  scf.for %i = %c0 to %n step %c16 {
    %v = vector.transfer_read %in[%i], %pad {in_bounds = [true]} : memref<16777216xf32>, vector<16xf32>
    vector.transfer_write %v, %out[%i] {in_bounds = [true]} : vector<16xf32>, memref<16777216xf32>
  }
  return
}
