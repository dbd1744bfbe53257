// A dense array of index elements is refused with a located error before
// parsing: MLIR 22's parser dereferences null on `array<index ...>` (as
// mlir-opt does; found by fuzz/fuzz_dlg.c, whose corpus keeps the input as
// regress-index-array). The same words in a string (past its escaped
// quotes) or a comment are text.
// RUN: not dlc-run %s --random-inputs 2>&1 | FileCheck %s
// CHECK: index-dense-array.mlir:27:82: error: dense arrays of index elements (array<index ...>) are not supported: use array<i64: ...>
// CHECK-NOT: Stack dump
// dlc-opt reads its input first and refuses the same text:
// RUN: not dlc-opt %s 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not dlc-opt < %s 2>&1 | FileCheck %s --check-prefix=OPT
// OPT: :27:82: error: dense arrays of index elements
// OPT-NEXT: steps = array< index: 1, 1>
// OPT-NOT: Stack dump
// What MLIR's lexer skips between the tokens (NUL bytes, as the fuzzer
// found them: regress-index-array-nul; a comment), and an alias of index,
// even through another alias, reach the same crash:
// RUN: sed '/^  %0 = dlg.slice/s/array< index/array\x00\x00< index/' %s > %t.nul.mlir
// RUN: not dlc-run %t.nul.mlir --random-inputs 2>&1 | FileCheck %s --check-prefix=OTHER
// RUN: sed '/^  %0 = dlg.slice/s|array< index|array // c\n< index|' %s > %t.comment.mlir
// RUN: not dlc-opt %t.comment.mlir 2>&1 | FileCheck %s --check-prefix=OTHER
// RUN: sed -e '/^  %0 = dlg.slice/s/array< index/array<!j/' -e '1i !j = !i\n!i = index' %s > %t.alias.mlir
// RUN: not dlc-run %t.alias.mlir --random-inputs 2>&1 | FileCheck %s --check-prefix=ALIAS
// OTHER: :27:82: error: dense arrays of index elements
// ALIAS: :29:82: error: dense arrays of index elements
func.func @main(%a: tensor<4x16xf32>) -> tensor<2x2xf32> attributes {note = "\"array<index\" \\"} {
  %0 = dlg.slice %a {starts = array<i64: 0, 0>, ends = array<i64: 2, 2>, steps = array< index: 1, 1>} : tensor<4x16xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
