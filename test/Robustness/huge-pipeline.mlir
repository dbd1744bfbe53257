// Shapes near the limits go through the whole CPU pipeline: the cost model's
// work products (M x N x K = 2^63 here) saturate and the buffer planner's
// sizes are checked, so nothing wraps (the sanitized suite runs this under
// UBSan, which aborts on any signed overflow).
// RUN: dlc-opt --lower-to-llvm %s | FileCheck %s

// CHECK: llvm.func @main
func.func @main(%a: tensor<2097152x2097152xf32>, %b: tensor<2097152x2097152xf32>) -> tensor<2097152x2097152xf32> {
  %0 = dlg.matmul %a, %b : tensor<2097152x2097152xf32>, tensor<2097152x2097152xf32> -> tensor<2097152x2097152xf32>
  %1 = dlg.relu %0 : tensor<2097152x2097152xf32>
  %s = dlg.reduce_sum %1 {axes = array<i64: 1>, keepdims = true} : tensor<2097152x2097152xf32> -> tensor<2097152x1xf32>
  %2 = dlg.add %1, %s : tensor<2097152x2097152xf32>, tensor<2097152x1xf32> -> tensor<2097152x2097152xf32>
  return %2 : tensor<2097152x2097152xf32>
}
