// Found by the shape-rule fuzzer (fuzz/fuzz_shape.c): a negative-step slice
// of an empty dim took one element (the ONNX clamps assume dim >= 1), a
// read out of bounds at run time. Now empty.
// RUN: dlc-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @empty_negative_step
// CHECK: dlg.slice {{.*}} : tensor<0x3xf32> -> tensor<0x3xf32>
func.func @empty_negative_step(%a: tensor<0x3xf32>) -> tensor<0x3xf32> {
  %0 = dlg.slice %a {starts = array<i64: -23, 0>, ends = array<i64: 63, 3>, steps = array<i64: -23, 1>} : tensor<0x3xf32> -> tensor<0x3xf32>
  return %0 : tensor<0x3xf32>
}

// -----

func.func @empty_not_one(%a: tensor<0xf32>) -> tensor<1xf32> {
  // expected-error @+1 {{'dlg.slice' op declared result type 'tensor<1xf32>' does not match the inferred 'tensor<0xf32>'}}
  %0 = dlg.slice %a {starts = array<i64: -1>, ends = array<i64: -9223372036854775808>, steps = array<i64: -1>} : tensor<0xf32> -> tensor<1xf32>
  return %0 : tensor<1xf32>
}
