// RUN: dlc-opt --pass-pipeline='builtin.module(func.func(dlc-inline-alloca-scopes))' %s | FileCheck %s
// RUN: dlc-opt --pass-pipeline='builtin.module(func.func(dlc-inline-alloca-scopes),convert-scf-to-cf)' %s | FileCheck %s --check-prefix=CF

// A loop body's alloca scope, with a result and a scope nested in it:
// each becomes its ops between a stack save and a restore, inner ones
// included; the loops inside may then become branches.
// CHECK-LABEL: func.func @loop
// CHECK: scf.for
// CHECK-NEXT: %[[OUTER:.*]] = llvm.intr.stacksave : !llvm.ptr
// CHECK-NEXT: %[[A:.*]] = memref.alloca() : memref<64xf32>
// CHECK-NEXT: memref.store {{.*}}, %[[A]]
// CHECK-NEXT: %[[INNER:.*]] = llvm.intr.stacksave : !llvm.ptr
// CHECK-NEXT: %[[B:.*]] = memref.alloca() : memref<8xf32>
// CHECK-NEXT: scf.for
// CHECK-NEXT: memref.store {{.*}}, %[[B]]
// CHECK-NEXT: }
// CHECK-NEXT: llvm.intr.stackrestore %[[INNER]] : !llvm.ptr
// CHECK-NEXT: %[[V:.*]] = memref.load %[[A]]
// CHECK-NEXT: llvm.intr.stackrestore %[[OUTER]] : !llvm.ptr
// CHECK-NEXT: %[[S:.*]] = arith.addf %{{.*}}, %[[V]]
// CHECK-NEXT: scf.yield %[[S]]
// CHECK-NOT: alloca_scope
// CF-LABEL: func.func @loop
// CF-NOT: alloca_scope
// CF: llvm.intr.stackrestore
func.func @loop(%v: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %v) -> f32 {
    %x = memref.alloca_scope -> f32 {
      %a = memref.alloca() : memref<64xf32>
      memref.store %v, %a[%k] : memref<64xf32>
      memref.alloca_scope {
        %b = memref.alloca() : memref<8xf32>
        scf.for %j = %c0 to %c4 step %c1 {
          memref.store %v, %b[%j] : memref<8xf32>
        }
      }
      %l = memref.load %a[%c0] : memref<64xf32>
      memref.alloca_scope.return %l : f32
    }
    %s = arith.addf %acc, %x : f32
    scf.yield %s : f32
  }
  return %r : f32
}
