// Every dlg verifier error, one per split, at the offending op.
// RUN: dlc-opt %s --split-input-file --verify-diagnostics

// broadcast: incompatible dims
func.func @f0(%a: tensor<4x16xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{operands are not broadcast-compatible: lhs has 16 (dim 1) and rhs has 8 (dim 0), shapes [4, 16] and [8]}}
  %0 = dlg.add %a, %b : tensor<4x16xf32>, tensor<8xf32> -> tensor<4x16xf32>
  return
}
// -----

// broadcast: element types differ
func.func @f1(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{failed to verify that all of {lhs, rhs, result} have same element type}}
  %0 = "dlg.mul"(%a, %b) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}
// -----

// compare: operand element types differ
func.func @cmp_types(%a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error @+1 {{failed to verify that all of {lhs, rhs} have same element type}}
  %0 = "dlg.equal"(%a, %b) : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xi1>
  return
}
// -----

// compare: the result is a mask
func.func @cmp_result(%a: tensor<4xf32>) {
  // expected-error @+1 {{result #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = "dlg.less"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}
// -----

// compare: shapes do not broadcast
func.func @cmp_shape(%a: tensor<4x16xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'dlg.greater' op operands are not broadcast-compatible: lhs has 16 (dim 1) and rhs has 8 (dim 0)}}
  %0 = dlg.greater %a, %b : tensor<4x16xf32>, tensor<8xf32> -> tensor<4x16xi1>
  return
}
// -----

// declared result type disagrees
func.func @f2(%a: tensor<4x16xf32>) {
  // expected-error @+1 {{declared result type 'tensor<4x8xf32>' does not match the inferred 'tensor<4x16xf32>'}}
  %0 = "dlg.sub"(%a, %a) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x8xf32>
  return
}
// -----

// arithmetic on masks
func.func @f3(%a: tensor<4xi1>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of}}
  %0 = "dlg.add"(%a, %a) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return
}
// -----

// unsupported element type
func.func @f4(%a: tensor<4xi16>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of}}
  %0 = "dlg.relu"(%a) : (tensor<4xi16>) -> tensor<4xi16>
  return
}
// -----

// unranked operand
func.func @f5(%a: tensor<*xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of}}
  %0 = "dlg.relu"(%a) : (tensor<*xf32>) -> tensor<*xf32>
  return
}
// -----

// where: non-i1 condition
func.func @f6(%c: tensor<4xf32>, %a: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = "dlg.where"(%c, %a, %a) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}
// -----

// where: lhs and rhs clash
func.func @f7(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{operands are not broadcast-compatible: lhs has 4 (dim 0) and rhs has 3 (dim 0)}}
  %0 = dlg.where %c, %a, %b : tensor<4xi1>, tensor<4xf32>, tensor<3xf32> -> tensor<4xf32>
  return
}
// -----

// where: cond and lhs clash
func.func @f8(%c: tensor<5xi1>, %a: tensor<4xf32>) {
  // expected-error @+1 {{operands are not broadcast-compatible: cond has 5 (dim 0) and lhs has 4 (dim 0)}}
  %0 = dlg.where %c, %a, %a : tensor<5xi1>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return
}
// -----

// float-only op on integers
func.func @f9(%a: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type values}}
  %0 = "dlg.exp"(%a) : (tensor<4xi32>) -> tensor<4xi32>
  return
}
// -----

// gelu: unknown approximation
func.func @f10(%a: tensor<4xf32>) {
  // expected-error @+1 {{'approximate' must be "none" or "tanh", got "fast"}}
  %0 = dlg.gelu %a {approximate = "fast"} : tensor<4xf32>
  return
}
// -----

// clamp: min above max
func.func @f11(%a: tensor<4xf32>) {
  // expected-error @+1 {{'min' (6.000000e+00) is greater than 'max' (0.000000e+00)}}
  %0 = dlg.clamp %a {min = 6.0, max = 0.0} : tensor<4xf32>
  return
}
// -----

// cast: shape changes
func.func @f12(%a: tensor<4xf32>) {
  // expected-error @+1 {{shape of x 'tensor<4xf32>' differs from the result's 'tensor<5xf16>'; a cast keeps the shape}}
  %0 = dlg.cast %a : tensor<4xf32> -> tensor<5xf16>
  return
}
// -----

// matmul: contracting dims
func.func @f13(%a: tensor<4x64xf32>, %b: tensor<32x8xf32>) {
  // expected-error @+1 {{contracting dimensions differ: a has 64 (dim 1), b has 32 (dim 0)}}
  %0 = dlg.matmul %a, %b : tensor<4x64xf32>, tensor<32x8xf32> -> tensor<4x8xf32>
  return
}
// -----

// matmul: contracting dims with transpose_b
func.func @f14(%a: tensor<4x64xf32>, %b: tensor<64x8xf32>) {
  // expected-error @+1 {{contracting dimensions differ: a has 64 (dim 1), b has 8 (dim 1)}}
  %0 = dlg.matmul %a, %b {transpose_b = true} : tensor<4x64xf32>, tensor<64x8xf32> -> tensor<4x64xf32>
  return
}
// -----

// matmul: rank 1
func.func @f15(%a: tensor<64xf32>, %b: tensor<64x8xf32>) {
  // expected-error @+1 {{operand a must have rank >= 2, got rank 1}}
  %0 = "dlg.matmul"(%a, %b) : (tensor<64xf32>, tensor<64x8xf32>) -> tensor<8xf32>
  return
}
// -----

// matmul: b rank 1
func.func @f16(%a: tensor<64xf32>, %b: tensor<8x64xf32>) {
  // expected-error @+1 {{operand b must have rank >= 2, got rank 1}}
  %0 = "dlg.matmul"(%b, %a) : (tensor<8x64xf32>, tensor<64xf32>) -> tensor<8xf32>
  return
}
// -----

// matmul: batch dims
func.func @f17(%a: tensor<3x4x8xf32>, %b: tensor<2x8x5xf32>) {
  // expected-error @+1 {{batch dimensions: operands are not broadcast-compatible: a has 3 (dim 0) and b has 2 (dim 0)}}
  %0 = dlg.matmul %a, %b : tensor<3x4x8xf32>, tensor<2x8x5xf32> -> tensor<3x4x5xf32>
  return
}
// -----

// conv2d: input rank
func.func @f18(%a: tensor<8x32x32xf32>, %w: tensor<16x8x3x3xf32>) {
  // expected-error @+1 {{input must have rank 4 (N, C, H, W), got rank 3}}
  %0 = "dlg.conv2d"(%a, %w) : (tensor<8x32x32xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x30x30xf32>
  return
}
// -----

// conv2d: weight rank
func.func @f19(%a: tensor<1x8x32x32xf32>, %w: tensor<16x8x3xf32>) {
  // expected-error @+1 {{weight must have rank 4 (O, C/groups, kH, kW), got rank 3}}
  %0 = "dlg.conv2d"(%a, %w) : (tensor<1x8x32x32xf32>, tensor<16x8x3xf32>) -> tensor<1x16x30x30xf32>
  return
}
// -----

// conv2d: strides length
func.func @f20(%a: tensor<1x8x32x32xf32>, %w: tensor<16x8x3x3xf32>) {
  // expected-error @+1 {{'strides' must have 2 values, got 1}}
  %0 = "dlg.conv2d"(%a, %w) <{strides = array<i64: 1>}> : (tensor<1x8x32x32xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x30x30xf32>
  return
}
// -----

// conv2d: zero stride
func.func @f21(%a: tensor<1x8x32x32xf32>, %w: tensor<16x8x3x3xf32>) {
  // expected-error @+1 {{'strides' value 0 at index 1 must be >= 1}}
  %0 = "dlg.conv2d"(%a, %w) <{strides = array<i64: 1, 0>}> : (tensor<1x8x32x32xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x30x30xf32>
  return
}
// -----

// conv2d: negative padding
func.func @f22(%a: tensor<1x8x32x32xf32>, %w: tensor<16x8x3x3xf32>) {
  // expected-error @+1 {{'padding' value -1 at index 1 must be >= 0}}
  %0 = "dlg.conv2d"(%a, %w) <{padding = array<i64: 0, -1, 0, 0>}> : (tensor<1x8x32x32xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x30x30xf32>
  return
}
// -----

// conv2d: padding length
func.func @f23(%a: tensor<1x8x32x32xf32>, %w: tensor<16x8x3x3xf32>) {
  // expected-error @+1 {{'padding' must have 4 values, got 2}}
  %0 = "dlg.conv2d"(%a, %w) <{padding = array<i64: 1, 1>}> : (tensor<1x8x32x32xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x30x30xf32>
  return
}
// -----

// conv2d: zero dilation
func.func @f24(%a: tensor<1x8x32x32xf32>, %w: tensor<16x8x3x3xf32>) {
  // expected-error @+1 {{'dilations' value 0 at index 0 must be >= 1}}
  %0 = "dlg.conv2d"(%a, %w) <{dilations = array<i64: 0, 1>}> : (tensor<1x8x32x32xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x30x30xf32>
  return
}
// -----

// conv2d: zero groups
func.func @f25(%a: tensor<1x8x32x32xf32>, %w: tensor<16x8x3x3xf32>) {
  // expected-error @+1 {{'groups' must be >= 1, got 0}}
  %0 = "dlg.conv2d"(%a, %w) <{groups = 0 : i64}> : (tensor<1x8x32x32xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x30x30xf32>
  return
}
// -----

// conv2d: channels vs groups
func.func @f26(%a: tensor<1x8x32x32xf32>, %w: tensor<15x8x3x3xf32>) {
  // expected-error @+1 {{input channels 8 (dim 1) are not divisible by groups 3}}
  %0 = "dlg.conv2d"(%a, %w) <{groups = 3 : i64}> : (tensor<1x8x32x32xf32>, tensor<15x8x3x3xf32>) -> tensor<1x15x30x30xf32>
  return
}
// -----

// conv2d: output channels vs groups
func.func @f27(%a: tensor<1x8x32x32xf32>, %w: tensor<15x4x3x3xf32>) {
  // expected-error @+1 {{weight output channels 15 (dim 0) are not divisible by groups 2}}
  %0 = "dlg.conv2d"(%a, %w) <{groups = 2 : i64}> : (tensor<1x8x32x32xf32>, tensor<15x4x3x3xf32>) -> tensor<1x15x30x30xf32>
  return
}
// -----

// conv2d: weight channels
func.func @f28(%a: tensor<1x8x32x32xf32>, %w: tensor<16x4x3x3xf32>) {
  // expected-error @+1 {{channel mismatch: input has 8 channels (dim 1) and groups 1, so weight dim 1 must be 8, got 4}}
  %0 = dlg.conv2d %a, %w : (tensor<1x8x32x32xf32>, tensor<16x4x3x3xf32>) -> tensor<1x16x30x30xf32>
  return
}
// -----

// conv2d: bias size
func.func @f29(%a: tensor<1x8x32x32xf32>, %w: tensor<16x8x3x3xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{bias has 8 values (dim 0), weight has 16 output channels (dim 0)}}
  %0 = dlg.conv2d %a, %w, %b : (tensor<1x8x32x32xf32>, tensor<16x8x3x3xf32>, tensor<8xf32>) -> tensor<1x16x30x30xf32>
  return
}
// -----

// conv2d: bias rank
func.func @f30(%a: tensor<1x8x32x32xf32>, %w: tensor<16x8x3x3xf32>, %b: tensor<1x16xf32>) {
  // expected-error @+1 {{bias must have rank 1, got rank 2}}
  %0 = dlg.conv2d %a, %w, %b : (tensor<1x8x32x32xf32>, tensor<16x8x3x3xf32>, tensor<1x16xf32>) -> tensor<1x16x30x30xf32>
  return
}
// -----

// conv2d: kernel larger than input
func.func @f31(%a: tensor<1x8x2x32xf32>, %w: tensor<16x8x3x3xf32>) {
  // expected-error @+1 {{dilated kernel extent 3 exceeds the padded input: dim 2 is 2 with padding 0}}
  %0 = "dlg.conv2d"(%a, %w) : (tensor<1x8x2x32xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x1x30xf32>
  return
}
// -----

// pool: kernel length
func.func @f32(%a: tensor<1x8x32x32xf32>) {
  // expected-error @+1 {{'kernel' must have 2 values, got 1}}
  %0 = "dlg.max_pool2d"(%a) <{kernel = array<i64: 2>}> : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
  return
}
// -----

// pool: zero kernel
func.func @f33(%a: tensor<1x8x32x32xf32>) {
  // expected-error @+1 {{'kernel' value 0 at index 0 must be >= 1}}
  %0 = "dlg.avg_pool2d"(%a) <{kernel = array<i64: 0, 2>}> : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
  return
}
// -----

// pool: padding not smaller than kernel
func.func @f34(%a: tensor<1x8x32x32xf32>) {
  // expected-error @+1 {{padding 2 at index 2 must be smaller than the kernel size 2}}
  %0 = "dlg.max_pool2d"(%a) <{kernel = array<i64: 2, 2>, padding = array<i64: 0, 0, 2, 0>}> : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
  return
}
// -----

// pool: input rank
func.func @f35(%a: tensor<8x32x32xf32>) {
  // expected-error @+1 {{input must have rank 4 (N, C, H, W), got rank 3}}
  %0 = "dlg.max_pool2d"(%a) <{kernel = array<i64: 2, 2>}> : (tensor<8x32x32xf32>) -> tensor<8x16x16xf32>
  return
}
// -----

// pool: missing kernel
func.func @f36(%a: tensor<1x8x32x32xf32>) {
  // expected-error @+1 {{requires attribute 'kernel'}}
  %0 = "dlg.max_pool2d"(%a) : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
  return
}
// -----

// batch_norm: axis
func.func @f37(%a: tensor<2x16x5x5xf32>, %c: tensor<16xf32>) {
  // expected-error @+1 {{axis 4 is out of range for rank 4 (expected [-4, 3])}}
  %0 = dlg.batch_norm %a, %c, %c, %c, %c {axis = 4} : (tensor<2x16x5x5xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x16x5x5xf32>
  return
}
// -----

// batch_norm: parameter size
func.func @f38(%a: tensor<2x16x5x5xf32>, %c: tensor<16xf32>, %d: tensor<8xf32>) {
  // expected-error @+1 {{mean has 8 values (dim 0), x has 16 channels (dim 1)}}
  %0 = dlg.batch_norm %a, %c, %c, %d, %c : (tensor<2x16x5x5xf32>, tensor<16xf32>, tensor<16xf32>, tensor<8xf32>, tensor<16xf32>) -> tensor<2x16x5x5xf32>
  return
}
// -----

// batch_norm: parameter rank
func.func @f39(%a: tensor<2x16x5x5xf32>, %c: tensor<16xf32>, %d: tensor<1x16xf32>) {
  // expected-error @+1 {{scale must have rank 1, got rank 2}}
  %0 = dlg.batch_norm %a, %d, %c, %c, %c : (tensor<2x16x5x5xf32>, tensor<1x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x16x5x5xf32>
  return
}
// -----

// batch_norm: epsilon
func.func @f40(%a: tensor<2x16x5x5xf32>, %c: tensor<16xf32>) {
  // expected-error @+1 {{'epsilon' must be positive, got 0.000000e+00}}
  %0 = dlg.batch_norm %a, %c, %c, %c, %c {epsilon = 0.0} : (tensor<2x16x5x5xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x16x5x5xf32>
  return
}
// -----

// layer_norm: axis
func.func @f41(%a: tensor<4x16xf32>) {
  // expected-error @+1 {{axis -3 is out of range for rank 2 (expected [-2, 1])}}
  %0 = dlg.layer_norm %a {axis = -3} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return
}
// -----

// layer_norm: gamma shape
func.func @f42(%a: tensor<4x16xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{gamma has 8 (dim 0), x has 16 (dim 1)}}
  %0 = dlg.layer_norm %a gamma %g : (tensor<4x16xf32>, tensor<8xf32>) -> tensor<4x16xf32>
  return
}
// -----

// layer_norm: beta rank
func.func @f43(%a: tensor<4x16xf32>, %g: tensor<4x16xf32>) {
  // expected-error @+1 {{beta must have rank 1 (the normalized dims of x, 1..1), got rank 2}}
  %0 = dlg.layer_norm %a beta %g : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  return
}
// -----

// layer_norm: epsilon
func.func @f44(%a: tensor<4x16xf32>) {
  // expected-error @+1 {{'epsilon' must be positive, got -1.000000e+00}}
  %0 = dlg.layer_norm %a {epsilon = -1.0} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return
}
// -----

// rms_norm: gamma over two dims
func.func @f45(%a: tensor<4x16x16xf32>, %g: tensor<16x8xf32>) {
  // expected-error @+1 {{gamma has 8 (dim 1), x has 16 (dim 2)}}
  %0 = dlg.rms_norm %a gamma %g {axis = 1} : (tensor<4x16x16xf32>, tensor<16x8xf32>) -> tensor<4x16x16xf32>
  return
}
// -----

// rms_norm: integer input
func.func @f46(%a: tensor<4x16xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float}}
  %0 = "dlg.rms_norm"(%a) : (tensor<4x16xi32>) -> tensor<4x16xi32>
  return
}
// -----

// softmax: axis
func.func @f47(%a: tensor<4x16xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2 (expected [-2, 1])}}
  %0 = dlg.softmax %a {axis = 2} : tensor<4x16xf32>
  return
}
// -----

// log_softmax: axis
func.func @f48(%a: tensor<4x16xf32>) {
  // expected-error @+1 {{axis -3 is out of range for rank 2 (expected [-2, 1])}}
  %0 = dlg.log_softmax %a {axis = -3} : tensor<4x16xf32>
  return
}
// -----

// reduce: axis
func.func @f49(%a: tensor<4x16xf32>) {
  // expected-error @+1 {{axes value 2 is out of range for rank 2 (expected [-2, 1])}}
  %0 = dlg.reduce_sum %a {axes = array<i64: 2>} : tensor<4x16xf32> -> tensor<4xf32>
  return
}
// -----

// reduce: repeated axis
func.func @f50(%a: tensor<4x16xf32>) {
  // expected-error @+1 {{axes value -1 repeats dim 1}}
  %0 = dlg.reduce_max %a {axes = array<i64: 1, -1>} : tensor<4x16xf32> -> tensor<4xf32>
  return
}
// -----

// reduce: keepdims result
func.func @f51(%a: tensor<4x16xf32>) {
  // expected-error @+1 {{declared result type 'tensor<4xf32>' does not match the inferred 'tensor<4x1xf32>'}}
  %0 = dlg.reduce_mean %a {axes = array<i64: 1>, keepdims = true} : tensor<4x16xf32> -> tensor<4xf32>
  return
}
// -----

// transpose: perm length
func.func @f52(%a: tensor<4x16xf32>) {
  // expected-error @+1 {{'perm' must have 2 values (the rank of x), got 1}}
  %0 = dlg.transpose %a perm = [1] : tensor<4x16xf32> -> tensor<16x4xf32>
  return
}
// -----

// transpose: perm range
func.func @f53(%a: tensor<4x16xf32>) {
  // expected-error @+1 {{'perm' value 2 at index 0 is out of range [0, 2)}}
  %0 = dlg.transpose %a perm = [2, 0] : tensor<4x16xf32> -> tensor<16x4xf32>
  return
}
// -----

// transpose: not a permutation
func.func @f54(%a: tensor<4x16xf32>) {
  // expected-error @+1 {{'perm' is not a permutation: 0 appears twice}}
  %0 = dlg.transpose %a perm = [0, 0] : tensor<4x16xf32> -> tensor<4x4xf32>
  return
}
// -----

// reshape: element count
func.func @f55(%a: tensor<4x16xf32>) {
  // expected-error @+1 {{element count differs: x [4, 16] has 64, result [8, 9] has 72}}
  %0 = dlg.reshape %a : tensor<4x16xf32> -> tensor<8x9xf32>
  return
}
// -----

// reshape: element type
func.func @f56(%a: tensor<4x16xf32>) {
  // expected-error @+1 {{failed to verify that all of {x, result} have same element type}}
  %0 = "dlg.reshape"(%a) : (tensor<4x16xf32>) -> tensor<64xf16>
  return
}
// -----

// concat: rank
func.func @f57(%a: tensor<4x16xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{operand 1 has rank 1, operand 0 has rank 2}}
  %0 = dlg.concat %a, %b {axis = 0} : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<5x16xf32>
  return
}
// -----

// concat: other dim
func.func @f58(%a: tensor<4x16xf32>, %b: tensor<2x8xf32>) {
  // expected-error @+1 {{operand 1 has 8 (dim 1), operand 0 has 16}}
  %0 = dlg.concat %a, %b {axis = 0} : (tensor<4x16xf32>, tensor<2x8xf32>) -> tensor<6x16xf32>
  return
}
// -----

// concat: axis
func.func @f59(%a: tensor<4x16xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2 (expected [-2, 1])}}
  %0 = dlg.concat %a, %a {axis = 2} : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x32xf32>
  return
}
// -----

// concat: element type
func.func @f60(%a: tensor<4x16xf32>, %b: tensor<4x16xf16>) {
  // expected-error @+1 {{operand #1 has element type 'f16', operand #0 has 'f32'}}
  %0 = dlg.concat %a, %b {axis = 0} : (tensor<4x16xf32>, tensor<4x16xf16>) -> tensor<8x16xf32>
  return
}
// -----

// concat: no operand
func.func @f61() {
  // expected-error @+1 {{needs at least one operand}}
  %0 = "dlg.concat"() <{axis = 0 : i64}> : () -> tensor<4xf32>
  return
}
// -----

// slice: starts length
func.func @f62(%a: tensor<4x16xf32>) {
  // expected-error @+1 {{'starts' must have 2 values (the rank of x), got 1}}
  %0 = dlg.slice %a {starts = array<i64: 0>, ends = array<i64: 2, 2>} : tensor<4x16xf32> -> tensor<2x2xf32>
  return
}
// -----

// slice: ends length
func.func @f63(%a: tensor<4x16xf32>) {
  // expected-error @+1 {{'ends' must have 2 values (the rank of x), got 1}}
  %0 = dlg.slice %a {starts = array<i64: 0, 0>, ends = array<i64: 2>} : tensor<4x16xf32> -> tensor<2x2xf32>
  return
}
// -----

// slice: steps length
func.func @f64(%a: tensor<4x16xf32>) {
  // expected-error @+1 {{'steps' must have 2 values (the rank of x), got 1}}
  %0 = dlg.slice %a {starts = array<i64: 0, 0>, ends = array<i64: 2, 2>, steps = array<i64: 1>} : tensor<4x16xf32> -> tensor<2x2xf32>
  return
}
// -----

// slice: zero step
func.func @f65(%a: tensor<4x16xf32>) {
  // expected-error @+1 {{'steps' value at index 1 must not be 0}}
  %0 = dlg.slice %a {starts = array<i64: 0, 0>, ends = array<i64: 2, 2>, steps = array<i64: 1, 0>} : tensor<4x16xf32> -> tensor<2x2xf32>
  return
}
// -----

// gather: float indices
func.func @f66(%a: tensor<4x16xf32>, %i: tensor<3xf32>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = "dlg.gather"(%a, %i) : (tensor<4x16xf32>, tensor<3xf32>) -> tensor<3x16xf32>
  return
}
// -----

// gather: axis
func.func @f67(%a: tensor<4x16xf32>, %i: tensor<3xi32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2 (expected [-2, 1])}}
  %0 = dlg.gather %a[%i] {axis = 2} : (tensor<4x16xf32>, tensor<3xi32>) -> tensor<3x16xf32>
  return
}
// -----

// gather: scalar data
func.func @f68(%a: tensor<f32>, %i: tensor<3xi32>) {
  // expected-error @+1 {{data must have rank >= 1}}
  %0 = dlg.gather %a[%i] : (tensor<f32>, tensor<3xi32>) -> tensor<3xf32>
  return
}
// -----

// pad: pads length
func.func @f69(%a: tensor<4x16xf32>) {
  // expected-error @+1 {{'pads' must have 4 values (2 x rank: all begins, then all ends), got 2}}
  %0 = dlg.pad %a {pads = array<i64: 1, 1>} : tensor<4x16xf32> -> tensor<6x16xf32>
  return
}
// -----

// pad: negative
func.func @f70(%a: tensor<4x16xf32>) {
  // expected-error @+1 {{'pads' value -1 at index 1 is negative (crop with dlg.slice)}}
  %0 = dlg.pad %a {pads = array<i64: 0, -1, 0, 0>} : tensor<4x16xf32> -> tensor<4x15xf32>
  return
}
// -----

// constant: result disagrees with value
func.func @f71() {
  // expected-error @+1 {{declared result type 'tensor<8xf32>' does not match the inferred 'tensor<4xf32>'}}
  %0 = "dlg.constant"() <{value = dense<1.0> : tensor<4xf32>}> : () -> tensor<8xf32>
  return
}
// -----

// constant: unsupported element type
func.func @f72() {
  // expected-error @+1 {{result #0 must be ranked tensor of}}
  %0 = dlg.constant dense<1> : tensor<4xi16>
  return
}
// -----

// rank beyond the maximum
func.func @f73(%a: tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32>) {
  // expected-error @+1 {{operand x has rank 17, more than dlc's maximum of 16}}
  %0 = "dlg.softmax"(%a) : (tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32>) -> tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32>
  return
}

// -----

// A misspelt attribute is an error, not an ignored one (keepdims stays false).
func.func @misspelt_attribute(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'dlg.reduce_sum' op has no attribute 'keep_dims' (its attributes: axes, keepdims)}}
  %0 = dlg.reduce_sum %a {axes = array<i64: 1>, keep_dims = true} : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Other dialects' attributes (dlc.sid, dlk.kind, ...) pass through.
func.func @prefixed_attribute(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = dlg.reduce_sum %a {axes = array<i64: 1>, dlc.note = "kept"} : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// the trigonometric functions take float tensors only
func.func @trig_int(%a: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %0 = dlg.sin %a : tensor<4xi32>
  return
}
