// The passes between dlg and linalg on dlg.if / dlg.while:
//  - dlg-fuse fuses inside each region on its own, never across a region
//    boundary, and never puts a control op in a kernel;
//  - dlc-memory-order leaves a control op where it is (its regions read
//    values that are not its operands);
//  - dlg-simplify and dlg-fold-constants work inside the regions;
//  - dlc-profile times the kernels inside regions, numbered as
//    dlk-outline-kernels numbers them (post-order).
// RUN: dlc-opt %s --split-input-file --dlg-fuse | FileCheck %s
// RUN: dlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(dlg-fuse,dlc-memory-order))' | FileCheck %s --check-prefix=ORDER
// RUN: dlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(dlg-fuse),dlc-profile)' | FileCheck %s --check-prefix=PROF
// RUN: dlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(dlg-simplify,dlg-fold-constants,dlg-simplify))' | FileCheck %s --check-prefix=SIMP

// The relu outside and the exp inside read one value but stay apart; the
// relu -> exp chain inside the then region is one kernel; the splat
// constant is cloned into the region's kernel and the outer one goes.
// CHECK-LABEL: func.func @if
// CHECK: %[[K0:.*]] = dlk.kernel "elementwise"(%arg0)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlg.relu
// CHECK-NEXT: dlk.yield
// CHECK: %[[K1:.*]] = dlk.kernel "reduction"
// CHECK: dlg.reduce_sum
// CHECK: dlg.greater
// CHECK: dlg.if %[[K1]] : tensor<i1> -> tensor<4xf32> {
// CHECK-NEXT: %[[T:.*]] = dlk.kernel "elementwise"(%[[K0]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlg.exp
// CHECK-NEXT: dlg.constant dense<2.0
// CHECK-NEXT: dlg.mul
// CHECK-NEXT: dlk.yield
// CHECK-NEXT: }
// CHECK-NEXT: dlg.yield %[[T]]
// CHECK-NEXT: } else {
// CHECK-NEXT: dlg.yield %[[K0]]
// CHECK-NEXT: }
// CHECK-NOT: dlg.constant
// CHECK: return
// PROF: dlc.profile = [{{.*}}name = "if_kernel0"{{.*}}name = "if_kernel1"{{.*}}name = "if_kernel2", root = "mul 4"
// PROF-LABEL: func.func @if
// PROF: call @dlcProfileEnter(%{{.*}})
// PROF-NEXT: dlk.kernel "elementwise"
// PROF: dlg.if
// PROF: call @dlcProfileEnter
// PROF-NEXT: dlk.kernel "elementwise"
func.func @if(%x: tensor<4xf32>) -> tensor<4xf32> {
  %two = dlg.constant dense<2.0> : tensor<f32>
  %r0 = dlg.relu %x : tensor<4xf32>
  %s = dlg.reduce_sum %x {axes = array<i64>} : tensor<4xf32> -> tensor<f32>
  %z = dlg.constant dense<0.0> : tensor<f32>
  %c = dlg.greater %s, %z : tensor<f32>, tensor<f32> -> tensor<i1>
  %r = dlg.if %c : tensor<i1> -> tensor<4xf32> {
    %e = dlg.exp %r0 : tensor<4xf32>
    %m = dlg.mul %e, %two : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
    dlg.yield %m : tensor<4xf32>
  } else {
    dlg.yield %r0 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// A loop: the condition's reduction and the body's chain are kernels of
// their regions; the add after the loop is a kernel of its own (not fused
// with the body's, whose result it reads through the loop).
// CHECK-LABEL: func.func @while
// CHECK: %[[W:.*]] = dlg.while(%arg0) : (tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<4xf32>):
// CHECK-NEXT: %[[C:.*]] = dlk.kernel "reduction"(%[[A]], %arg1)
// CHECK: dlg.condition(%[[C]] : tensor<i1>) %[[A]]
// CHECK-NEXT: } do {
// CHECK-NEXT: ^bb0(%[[B:.*]]: tensor<4xf32>):
// CHECK-NEXT: %[[N:.*]] = dlk.kernel "elementwise"(%[[B]])
// CHECK: dlg.neg
// CHECK-NEXT: dlg.abs
// CHECK-NEXT: dlk.yield
// CHECK: dlg.yield %[[N]]
// CHECK: dlk.kernel "elementwise"(%[[W]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlg.add
func.func @while(%x: tensor<4xf32>, %limit: tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %early = dlg.sigmoid %x : tensor<4xf32>
  %w = dlg.while (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %s = dlg.reduce_sum %a {axes = array<i64>} : tensor<4xf32> -> tensor<f32>
    %c = dlg.less %s, %limit : tensor<f32>, tensor<f32> -> tensor<i1>
    dlg.condition(%c : tensor<i1>) %a : tensor<4xf32>
  } do {
  ^bb0(%a: tensor<4xf32>):
    %n = dlg.neg %a : tensor<4xf32>
    %b = dlg.abs %n : tensor<4xf32>
    dlg.yield %b : tensor<4xf32>
  }
  %o = dlg.add %w, %w : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %o, %early : tensor<4xf32>, tensor<4xf32>
}

// -----

// memory-order would move the dlg.if (its one operand an argument) down to
// its first user, past the gather; it stays, since its regions read %x,
// whose lifetime the move would lengthen unseen.
// ORDER-LABEL: func.func @if_stays
// ORDER: dlg.if
// ORDER: dlk.kernel "opaque"
// ORDER-NEXT: ^bb0
// ORDER-NEXT: dlg.gather
// ORDER: dlk.kernel "elementwise"
// ORDER-NEXT: ^bb0
// ORDER-NEXT: dlg.add
func.func @if_stays(%c: tensor<i1>, %x: tensor<4xf32>, %i: tensor<4xi64>) -> tensor<4xf32> {
  %r = dlg.if %c : tensor<i1> -> tensor<4xf32> {
    %e = dlg.exp %x : tensor<4xf32>
    dlg.yield %e : tensor<4xf32>
  } else {
    dlg.yield %x : tensor<4xf32>
  }
  %g = dlg.gather %x[%i] : (tensor<4xf32>, tensor<4xi64>) -> tensor<4xf32>
  %v = dlg.add %r, %g : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %v : tensor<4xf32>
}

// -----

// SIMP-LABEL: func.func @fold
// SIMP: %[[TWO:.*]] = dlg.constant dense<2.000000e+00> : tensor<4xf32>
// SIMP: dlg.if %arg0
// SIMP-NEXT: %[[M:.*]] = dlg.mul %arg1, %[[TWO]]
// SIMP-NEXT: dlg.yield %[[M]]
// SIMP-NEXT: } else {
// SIMP-NEXT: %[[R:.*]] = dlg.relu %arg1
// SIMP-NEXT: dlg.yield %[[R]]
func.func @fold(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %one = dlg.constant dense<1.0> : tensor<4xf32>
  %r = dlg.if %c : tensor<i1> -> tensor<4xf32> {
    %two = dlg.add %one, %one : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %y = dlg.mul %x, %two : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    dlg.yield %y : tensor<4xf32>
  } else {
    %z = dlg.relu %x : tensor<4xf32>
    %zz = dlg.relu %z : tensor<4xf32>
    dlg.yield %zz : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
