// What dlc-gpu-attention leaves to the three-kernel path (docs/gpu.md,
// "Attention"): each of these stays a matmul, a softmax and a matmul.
// RUN: dlc-opt %s --split-input-file --dlc-gpu-attention | FileCheck %s

// f16 operands: the fused kernel is f32 only.
// CHECK-LABEL: func.func @f16
// CHECK: dlg.softmax
// CHECK-NOT: call @dlc_attention
func.func @f16(%q: tensor<2x16x8xf16>, %k: tensor<2x8x16xf16>, %v: tensor<2x16x8xf16>) -> tensor<2x16x8xf16> {
  %s = dlg.matmul %q, %k : tensor<2x16x8xf16>, tensor<2x8x16xf16> -> tensor<2x16x16xf16>
  %p = dlg.softmax %s {axis = -1 : i64} : tensor<2x16x16xf16>
  %o = dlg.matmul %p, %v : tensor<2x16x16xf16>, tensor<2x16x8xf16> -> tensor<2x16x8xf16>
  return %o : tensor<2x16x8xf16>
}

// -----

// The scores are used twice (returned as well).
// CHECK-LABEL: func.func @scores_used
// CHECK: dlg.softmax
// CHECK-NOT: call @dlc_attention
func.func @scores_used(%q: tensor<2x16x8xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x16x8xf32>) -> (tensor<2x16x8xf32>, tensor<2x16x16xf32>) {
  %s = dlg.matmul %q, %k : tensor<2x16x8xf32>, tensor<2x8x16xf32> -> tensor<2x16x16xf32>
  %p = dlg.softmax %s {axis = -1 : i64} : tensor<2x16x16xf32>
  %o = dlg.matmul %p, %v : tensor<2x16x16xf32>, tensor<2x16x8xf32> -> tensor<2x16x8xf32>
  return %o, %s : tensor<2x16x8xf32>, tensor<2x16x16xf32>
}

// -----

// d = 96: q and the accumulator would not fit the registers.
// CHECK-LABEL: func.func @wide_head
// CHECK: dlg.softmax
// CHECK-NOT: call @dlc_attention
func.func @wide_head(%q: tensor<2x16x96xf32>, %k: tensor<2x96x16xf32>, %v: tensor<2x16x96xf32>) -> tensor<2x16x96xf32> {
  %s = dlg.matmul %q, %k : tensor<2x16x96xf32>, tensor<2x96x16xf32> -> tensor<2x16x16xf32>
  %p = dlg.softmax %s {axis = -1 : i64} : tensor<2x16x16xf32>
  %o = dlg.matmul %p, %v : tensor<2x16x16xf32>, tensor<2x16x96xf32> -> tensor<2x16x96xf32>
  return %o : tensor<2x16x96xf32>
}

// -----

// The softmax is over the queries (axis 1), not the keys.
// CHECK-LABEL: func.func @axis
// CHECK: dlg.softmax
// CHECK-NOT: call @dlc_attention
func.func @axis(%q: tensor<2x16x8xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  %s = dlg.matmul %q, %k : tensor<2x16x8xf32>, tensor<2x8x16xf32> -> tensor<2x16x16xf32>
  %p = dlg.softmax %s {axis = 1 : i64} : tensor<2x16x16xf32>
  %o = dlg.matmul %p, %v : tensor<2x16x16xf32>, tensor<2x16x8xf32> -> tensor<2x16x8xf32>
  return %o : tensor<2x16x8xf32>
}

// -----

// The scale is not a constant.
// CHECK-LABEL: func.func @scale_input
// CHECK: dlg.softmax
// CHECK-NOT: call @dlc_attention
func.func @scale_input(%q: tensor<2x16x8xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x16x8xf32>, %c: tensor<f32>) -> tensor<2x16x8xf32> {
  %s = dlg.matmul %q, %k : tensor<2x16x8xf32>, tensor<2x8x16xf32> -> tensor<2x16x16xf32>
  %t = dlg.mul %s, %c : tensor<2x16x16xf32>, tensor<f32> -> tensor<2x16x16xf32>
  %p = dlg.softmax %t {axis = -1 : i64} : tensor<2x16x16xf32>
  %o = dlg.matmul %p, %v : tensor<2x16x16xf32>, tensor<2x16x8xf32> -> tensor<2x16x8xf32>
  return %o : tensor<2x16x8xf32>
}

// -----

// A mask broadcast over the keys ([.., s, 1]) is not read by the kernel.
// CHECK-LABEL: func.func @mask_over_keys
// CHECK: dlg.softmax
// CHECK-NOT: call @dlc_attention
func.func @mask_over_keys(%q: tensor<2x16x8xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x16x8xf32>, %m: tensor<16x1xf32>) -> tensor<2x16x8xf32> {
  %s = dlg.matmul %q, %k : tensor<2x16x8xf32>, tensor<2x8x16xf32> -> tensor<2x16x16xf32>
  %t = dlg.add %s, %m : tensor<2x16x16xf32>, tensor<16x1xf32> -> tensor<2x16x16xf32>
  %p = dlg.softmax %t {axis = -1 : i64} : tensor<2x16x16xf32>
  %o = dlg.matmul %p, %v : tensor<2x16x16xf32>, tensor<2x16x8xf32> -> tensor<2x16x8xf32>
  return %o : tensor<2x16x8xf32>
}

// -----

// Batch dims broadcast between Q and K (one K for every head).
// CHECK-LABEL: func.func @broadcast_batch
// CHECK: dlg.softmax
// CHECK-NOT: call @dlc_attention
func.func @broadcast_batch(%q: tensor<2x16x8xf32>, %k: tensor<1x8x16xf32>, %v: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  %s = dlg.matmul %q, %k : tensor<2x16x8xf32>, tensor<1x8x16xf32> -> tensor<2x16x16xf32>
  %p = dlg.softmax %s {axis = -1 : i64} : tensor<2x16x16xf32>
  %o = dlg.matmul %p, %v : tensor<2x16x16xf32>, tensor<2x16x8xf32> -> tensor<2x16x8xf32>
  return %o : tensor<2x16x8xf32>
}

// -----

// The control: the same without any of the above is fused.
// CHECK-LABEL: func.func @fused
// CHECK-NOT: dlg.softmax
// CHECK: call @dlc_attention_0
func.func @fused(%q: tensor<2x16x8xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  %s = dlg.matmul %q, %k : tensor<2x16x8xf32>, tensor<2x8x16xf32> -> tensor<2x16x16xf32>
  %p = dlg.softmax %s {axis = -1 : i64} : tensor<2x16x16xf32>
  %o = dlg.matmul %p, %v : tensor<2x16x16xf32>, tensor<2x16x8xf32> -> tensor<2x16x8xf32>
  return %o : tensor<2x16x8xf32>
}

// -----

// 65536 batch*heads: more than the grid's y dimension takes.
// CHECK-LABEL: func.func @grid_y
// CHECK: dlg.softmax
// CHECK-NOT: call @dlc_attention
func.func @grid_y(%q: tensor<65536x1x8xf32>, %k: tensor<65536x8x1xf32>, %v: tensor<65536x1x8xf32>) -> tensor<65536x1x8xf32> {
  %s = dlg.matmul %q, %k : tensor<65536x1x8xf32>, tensor<65536x8x1xf32> -> tensor<65536x1x1xf32>
  %p = dlg.softmax %s {axis = -1 : i64} : tensor<65536x1x1xf32>
  %o = dlg.matmul %p, %v : tensor<65536x1x1xf32>, tensor<65536x1x8xf32> -> tensor<65536x1x8xf32>
  return %o : tensor<65536x1x8xf32>
}
