// Sizes that do not fit in int64 are verifier errors naming the op and the
// operand or result, never a wrapped count (issue 17).
// RUN: dlc-opt %s --split-input-file --verify-diagnostics

// 2^64 elements: the element count wraps to 0 without the check.
func.func @elements_2_64(%x: tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32> {
  // expected-error @+1 {{'dlg.relu' op operand #0 ('tensor<4294967296x4294967296xf32>') is too large: shape [4294967296, 4294967296] of 4-byte elements has more than 9223372036854775807 bytes}}
  %0 = dlg.relu %x : tensor<4294967296x4294967296xf32>
  return %0 : tensor<4294967296x4294967296xf32>
}

// -----

// INT64_MAX elements of 4 bytes.
func.func @elements_int64_max(%x: tensor<9223372036854775807xf32>) -> tensor<9223372036854775807xf32> {
  // expected-error @+1 {{'dlg.exp' op operand #0 ('tensor<9223372036854775807xf32>') is too large}}
  %0 = dlg.exp %x : tensor<9223372036854775807xf32>
  return %0 : tensor<9223372036854775807xf32>
}

// -----

// 4 elements reshaped to 4611686018427387905x4: the product wraps back to 4.
func.func @reshape_wraps(%x: tensor<4xf32>) -> tensor<4611686018427387905x4xf32> {
  // expected-error @+1 {{'dlg.reshape' op result #0 ('tensor<4611686018427387905x4xf32>') is too large: shape [4611686018427387905, 4] of 4-byte elements has more than 9223372036854775807 bytes}}
  %0 = dlg.reshape %x : tensor<4xf32> -> tensor<4611686018427387905x4xf32>
  return %0 : tensor<4611686018427387905x4xf32>
}

// -----

// The largest byte size that fits is accepted (i8: INT64_MAX bytes).
func.func @largest_fits(%x: tensor<9223372036854775807xi8>) -> tensor<9223372036854775807xi8> {
  %0 = dlg.relu %x : tensor<9223372036854775807xi8>
  return %0 : tensor<9223372036854775807xi8>
}

// -----

// Conv padding whose sum overflows: named, the values as written.
func.func @conv_padding_sum(%x: tensor<1x1x4x4xf32>, %w: tensor<1x1x1x1xf32>) -> tensor<1x1x?x?xf32> {
  // expected-error @+1 {{padding of dim 2 overflows: 9223372036854775807 + 1}}
  %0 = dlg.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 9223372036854775807, 0, 1, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x?x?xf32>
  return %0 : tensor<1x1x?x?xf32>
}

// -----

// Dilation x kernel extent overflows.
func.func @conv_dilation(%x: tensor<1x1x4x4xf32>, %w: tensor<1x1x3x1xf32>) -> tensor<1x1x?x?xf32> {
  // expected-error @+1 {{dilated kernel extent of dim 2 overflows: dilation 9223372036854775807 x (kernel 3 - 1) + 1}}
  %0 = dlg.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 9223372036854775807, 1>, groups = 1 : i64} : (tensor<1x1x4x4xf32>, tensor<1x1x3x1xf32>) -> tensor<1x1x?x?xf32>
  return %0 : tensor<1x1x?x?xf32>
}

// -----

// Input plus padding exceeds int64.
func.func @conv_span(%x: tensor<1x1x9223372036854775807x1xi8>, %w: tensor<1x1x1x1xi8>) -> tensor<1x1x?x?xi8> {
  // expected-error @+1 {{dilated kernel: dim 2 (9223372036854775807) plus padding exceeds the largest size (9223372036854775807)}}
  %0 = dlg.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x1x9223372036854775807x1xi8>, tensor<1x1x1x1xi8>) -> tensor<1x1x?x?xi8>
  return %0 : tensor<1x1x?x?xi8>
}

// -----

// Pool padding sum overflows (each pad is below a huge kernel).
func.func @pool_padding_sum(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x?x?xf32> {
  // expected-error @+1 {{padding of dim 2 overflows: 9223372036854775806 + 9223372036854775806}}
  %0 = dlg.max_pool2d %x {kernel = array<i64: 9223372036854775807, 1>, strides = array<i64: 1, 1>, padding = array<i64: 9223372036854775806, 0, 9223372036854775806, 0>} : tensor<1x1x4x4xf32> -> tensor<1x1x?x?xf32>
  return %0 : tensor<1x1x?x?xf32>
}

// -----

// Pad whose result dim overflows.
func.func @pad_overflow(%x: tensor<4xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{padded dim 0 exceeds 9223372036854775807: 4 + 9223372036854775807 + 0}}
  %0 = dlg.pad %x {pads = array<i64: 9223372036854775807, 0>} : tensor<4xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Concatenated dim overflows.
func.func @concat_overflow(%a: tensor<4611686018427387904xi8>, %b: tensor<4611686018427387904xi8>) -> tensor<?xi8> {
  // expected-error @+1 {{concatenated dim 0 exceeds 9223372036854775807 at operand 1}}
  %0 = dlg.concat %a, %b {axis = 0 : i64} : (tensor<4611686018427387904xi8>, tensor<4611686018427387904xi8>) -> tensor<?xi8>
  return %0 : tensor<?xi8>
}

// -----

// An empty tensor is 0 bytes whatever its other dims.
func.func @empty_huge(%x: tensor<9223372036854775807x2x0xf32>) -> tensor<9223372036854775807x2x0xf32> {
  %0 = dlg.relu %x : tensor<9223372036854775807x2x0xf32>
  return %0 : tensor<9223372036854775807x2x0xf32>
}
