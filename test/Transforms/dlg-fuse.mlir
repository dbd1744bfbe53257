// RUN: dlc-opt %s --split-input-file --dlg-fuse | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlg-fuse=max-ops=2 | FileCheck %s --check-prefix=MAX

// MLP layer: matmul takes the bias + relu epilogue.
// CHECK-LABEL: func.func @mlp
// CHECK: dlk.kernel "contraction"
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlg.matmul
// CHECK-NEXT: dlg.add
// CHECK-NEXT: dlg.relu
// CHECK-NEXT: dlk.yield
// CHECK-NOT: dlk.kernel
// MAX-LABEL: func.func @mlp
// MAX: dlk.kernel "contraction"
// MAX: dlg.matmul
// MAX-NEXT: dlg.add
// MAX-NEXT: dlk.yield
// MAX: dlk.kernel "elementwise"
// MAX-NEXT: ^bb0
// MAX-NEXT: dlg.relu
func.func @mlp(%x: tensor<32x784xf32>, %w: tensor<784x512xf32>, %b: tensor<512xf32>) -> tensor<32x512xf32> {
  %0 = dlg.matmul %x, %w : tensor<32x784xf32>, tensor<784x512xf32> -> tensor<32x512xf32>
  %1 = dlg.add %0, %b : tensor<32x512xf32>, tensor<512xf32> -> tensor<32x512xf32>
  %2 = dlg.relu %1 : tensor<32x512xf32>
  return %2 : tensor<32x512xf32>
}

// -----

// Attention: the transpose of K is absorbed into the QK^T contraction, the
// scale is its epilogue, softmax is a reduction and P·V a contraction.
// CHECK-LABEL: func.func @attention
// CHECK: dlk.kernel "contraction"
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlg.transpose
// CHECK-NEXT: dlg.matmul
// CHECK-NEXT: dlg.constant dense<1.250000e-01>
// CHECK-NEXT: dlg.mul
// CHECK-NEXT: dlk.yield
// CHECK: dlk.kernel "reduction"
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlg.softmax
// CHECK-NEXT: dlk.yield
// CHECK: dlk.kernel "contraction"
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlg.matmul
// CHECK-NEXT: dlk.yield
func.func @attention(%q: tensor<12x128x64xf32>, %k: tensor<12x128x64xf32>, %v: tensor<12x128x64xf32>) -> tensor<12x128x64xf32> {
  %c = dlg.constant dense<0.125> : tensor<f32>
  %kt = dlg.transpose %k perm = [0, 2, 1] : tensor<12x128x64xf32> -> tensor<12x64x128xf32>
  %s = dlg.matmul %q, %kt : tensor<12x128x64xf32>, tensor<12x64x128xf32> -> tensor<12x128x128xf32>
  %s2 = dlg.mul %s, %c : tensor<12x128x128xf32>, tensor<f32> -> tensor<12x128x128xf32>
  %p = dlg.softmax %s2 {axis = -1 : i64} : tensor<12x128x128xf32>
  %o = dlg.matmul %p, %v : tensor<12x128x128xf32>, tensor<12x128x64xf32> -> tensor<12x128x64xf32>
  return %o : tensor<12x128x64xf32>
}

// -----

// layer_norm(x + residual): the add is the reduction's prologue.
// CHECK-LABEL: func.func @residual_layer_norm
// CHECK: dlk.kernel "reduction"
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlg.add
// CHECK-NEXT: dlg.layer_norm
// CHECK-NEXT: dlk.yield
// CHECK-NOT: dlk.kernel
func.func @residual_layer_norm(%x: tensor<128x768xf32>, %r: tensor<128x768xf32>, %g: tensor<768xf32>, %b: tensor<768xf32>) -> tensor<128x768xf32> {
  %0 = dlg.add %x, %r : tensor<128x768xf32>, tensor<128x768xf32> -> tensor<128x768xf32>
  %1 = dlg.layer_norm %0 gamma %g beta %b : (tensor<128x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<128x768xf32>
  return %1 : tensor<128x768xf32>
}

// -----

// A softmax with an elementwise prologue and epilogue: one kernel.
// CHECK-LABEL: func.func @softmax
// CHECK: dlk.kernel "reduction"
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlg.exp
// CHECK-NEXT: dlg.softmax
// CHECK-NEXT: dlg.neg
// CHECK-NEXT: dlk.yield
func.func @softmax(%x: tensor<4x10xf32>) -> tensor<4x10xf32> {
  %0 = dlg.exp %x : tensor<4x10xf32>
  %1 = dlg.softmax %0 : tensor<4x10xf32>
  %2 = dlg.neg %1 : tensor<4x10xf32>
  return %2 : tensor<4x10xf32>
}

// -----

// Diamond: the shared producer (two users) stays its own kernel; both
// branches fuse into the join.
// CHECK-LABEL: func.func @diamond
// CHECK: %[[A:.*]] = dlk.kernel "elementwise"(%arg0)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlg.exp
// CHECK-NEXT: dlk.yield
// CHECK: dlk.kernel "elementwise"(%[[A]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlg.tanh
// CHECK-NEXT: dlg.sigmoid
// CHECK-NEXT: dlg.add
// CHECK-NEXT: dlk.yield
func.func @diamond(%x: tensor<8xf32>) -> tensor<8xf32> {
  %a = dlg.exp %x : tensor<8xf32>
  %b = dlg.tanh %a : tensor<8xf32>
  %c = dlg.sigmoid %a : tensor<8xf32>
  %d = dlg.add %b, %c : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  return %d : tensor<8xf32>
}

// -----

// A multi-use expensive producer (a matmul read by two consumers, one of
// them another matmul) is never duplicated.
// CHECK-LABEL: func.func @multi_use
// CHECK: %[[M:.*]] = dlk.kernel "contraction"(%arg0, %arg1)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlg.matmul
// CHECK-NEXT: dlk.yield
// CHECK: dlk.kernel "elementwise"(%[[M]])
// CHECK: dlk.kernel "contraction"(%[[M]], %arg1)
func.func @multi_use(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
  %m = dlg.matmul %x, %w : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %r = dlg.relu %m : tensor<16x16xf32>
  %n = dlg.matmul %m, %w : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  return %r, %n : tensor<16x16xf32>, tensor<16x16xf32>
}

// -----

// Fusion stops: an elementwise prologue never enters a contraction, two
// contractions never share a kernel, and a gather stays alone.
// CHECK-LABEL: func.func @stops
// CHECK: dlk.kernel "opaque"
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlg.gather
// CHECK: dlk.kernel "elementwise"
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlg.gelu
// CHECK-NEXT: dlk.yield
// CHECK: dlk.kernel "contraction"
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlg.matmul
// CHECK-NEXT: dlk.yield
// CHECK: dlk.kernel "contraction"
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlg.matmul
// CHECK-NEXT: dlk.yield
func.func @stops(%t: tensor<100x16xf32>, %ids: tensor<8xi64>, %w: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %e = dlg.gather %t[%ids] : (tensor<100x16xf32>, tensor<8xi64>) -> tensor<8x16xf32>
  %g = dlg.gelu %e : tensor<8x16xf32>
  %m = dlg.matmul %g, %w : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %n = dlg.matmul %m, %w : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  return %n : tensor<8x16xf32>
}
