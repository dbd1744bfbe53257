// --dlc-memory-order: a graph op moves down to just before its first user
// when that lengthens no other lifetime.
// RUN: dlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(dlc-memory-order))' | FileCheck %s

// %v (only its inputs, both arguments) is needed last: computed there, it is
// not alive over relu and exp.
// CHECK-LABEL: func @late
// CHECK:       dlg.relu
// CHECK-NEXT:  dlg.exp
// CHECK-NEXT:  dlg.matmul
// CHECK-NEXT:  dlg.add
func.func @late(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %v = dlg.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %a = dlg.relu %x : tensor<4x8xf32>
  %b = dlg.exp %a : tensor<4x8xf32>
  %c = dlg.add %b, %v : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

// Moving %v would keep %t (used by %v only) alive longer: it stays. %u's
// operand %s is returned, alive anyway: %u moves down to the add, and then
// %s (of an argument) down to %u.
// CHECK-LABEL: func @kept
// CHECK:       %[[T:.*]] = dlg.relu %arg0
// CHECK-NEXT:  %[[V:.*]] = dlg.exp %[[T]]
// CHECK-NEXT:  %[[A:.*]] = dlg.abs %arg0
// CHECK-NEXT:  %[[S:.*]] = dlg.neg %arg0
// CHECK-NEXT:  %[[U:.*]] = dlg.tanh %[[S]]
// CHECK-NEXT:  dlg.add %[[A]], %[[U]]
func.func @kept(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %t = dlg.relu %x : tensor<4x8xf32>
  %v = dlg.exp %t : tensor<4x8xf32>
  %s = dlg.neg %x : tensor<4x8xf32>
  %u = dlg.tanh %s : tensor<4x8xf32>
  %a = dlg.abs %x : tensor<4x8xf32>
  %c = dlg.add %a, %u : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return %c, %v, %s : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// An op outside dlg/dlk (effects unknown): the order is kept.
// CHECK-LABEL: func @foreign
// CHECK:       dlg.matmul
// CHECK-NEXT:  arith.constant
// CHECK-NEXT:  dlg.relu
func.func @foreign(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %v = dlg.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %k = arith.constant 1.0 : f32
  %a = dlg.relu %x : tensor<4x8xf32>
  %c = dlg.add %a, %v : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}
