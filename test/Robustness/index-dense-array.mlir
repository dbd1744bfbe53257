// A dense array of index elements is refused with a located error before
// parsing: MLIR 22's parser dereferences null on `array<index ...>` (as
// mlir-opt does; found by fuzz/fuzz_dlg.c, whose corpus keeps the input as
// regress-index-array). The same words in a string (past its escaped
// quotes) or a comment are text.
// RUN: not dlc-run %s --random-inputs 2>&1 | FileCheck %s
// CHECK: index-dense-array.mlir:[[@LINE+3]]:82: error: dense arrays of index elements (array<index ...>) are not supported: use array<i64: ...>
// CHECK-NOT: Stack dump
func.func @main(%a: tensor<4x16xf32>) -> tensor<2x2xf32> attributes {note = "\"array<index\" \\"} {
  %0 = dlg.slice %a {starts = array<i64: 0, 0>, ends = array<i64: 2, 2>, steps = array< index: 1, 1>} : tensor<4x16xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
