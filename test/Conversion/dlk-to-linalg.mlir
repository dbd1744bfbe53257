// RUN: dlc-opt %s --split-input-file --dlk-to-linalg --verify-diagnostics | FileCheck %s

// Broadcasting lives in the indexing maps; one generic per elementwise op.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @bias_relu
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK: arith.maximumf
func.func @bias_relu(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.add %x, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %1 = dlg.relu %0 : tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// A kernel becomes a private function called in its place, carrying the
// kernel's kind and schedule for the scheduler.
// CHECK-LABEL: func.func @kernel
// CHECK: %[[R:.*]] = call @kernel_kernel0(%arg0, %arg1)
// CHECK: return %[[R]]
// CHECK: func.func private @kernel_kernel0({{.*}}) -> tensor<4x16xf32> attributes {dlk.kind = "contraction", dlk.schedule = #dlk.schedule<tile = [4, 16, 8], vector = 8>}
// CHECK: linalg.fill
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: return
func.func @kernel(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<tile = [4, 16, 8], vector = 8> (%a, %b) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32> {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<8x16xf32>):
    %m = dlg.matmul %x, %y : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
    dlk.yield %m : tensor<4x16xf32>
  }
  return %0 : tensor<4x16xf32>
}

// -----

// Softmax: max and shifted-exp-sum reductions, 1/sum once per row (a
// linalg.map, which elementwise fusion keeps apart), then one parallel
// generic that multiplies.
// CHECK-LABEL: func.func @softmax
// CHECK: arith.constant 0xFF800000
// CHECK: linalg.generic {{.*}}["parallel", "reduction"]
// CHECK: arith.maximumf
// CHECK: linalg.generic {{.*}}["parallel", "reduction"]
// CHECK: math.exp
// CHECK: linalg.map ins(%{{.*}} : tensor<2xf32>) outs(%{{.*}} : tensor<2xf32>)
// CHECK: arith.divf
// CHECK: linalg.generic {{.*}}["parallel", "parallel"]
// CHECK: math.exp
// CHECK: arith.mulf
// CHECK-NOT: arith.divf
func.func @softmax(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = dlg.softmax %x : tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// RMS norm: the sum of squares, 1/sqrt(mean + eps) once per row, then x *
// that * gamma; no rsqrt per element.
// CHECK-LABEL: func.func @rms
// CHECK: linalg.generic {{.*}}["parallel", "reduction"]
// CHECK: linalg.map ins(%{{.*}} : tensor<4xf32>)
// CHECK: math.rsqrt
// CHECK: linalg.generic {{.*}}["parallel", "parallel"]
// CHECK-NOT: math.rsqrt
// CHECK: return
func.func @rms(%x: tensor<4x16xf32>, %g: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = dlg.rms_norm %x gamma %g : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Static reshapes are a collapse and an expand; slices with unit steps an
// extract_slice; concat a chain of insert_slices.
// CHECK-LABEL: func.func @movement
// CHECK: tensor.collapse_shape %arg0 {{\[\[}}0, 1]] : tensor<2x6xf32> into tensor<12xf32>
// CHECK: tensor.expand_shape {{.*}} output_shape [3, 4]
// CHECK: tensor.extract_slice %arg0[0, 1] [2, 4] [1, 1]
// CHECK: tensor.insert_slice %arg0 into {{.*}}[0, 0] [2, 6] [1, 1]
// CHECK: tensor.insert_slice %arg0 into {{.*}}[0, 6] [2, 6] [1, 1]
func.func @movement(%x: tensor<2x6xf32>) -> (tensor<3x4xf32>, tensor<2x4xf32>, tensor<2x12xf32>) {
  %0 = dlg.reshape %x : tensor<2x6xf32> -> tensor<3x4xf32>
  %1 = dlg.slice %x {starts = array<i64: 0, 1>, ends = array<i64: 2, 5>} : tensor<2x6xf32> -> tensor<2x4xf32>
  %2 = dlg.concat %x, %x {axis = 1 : i64} : (tensor<2x6xf32>, tensor<2x6xf32>) -> tensor<2x12xf32>
  return %0, %1, %2 : tensor<3x4xf32>, tensor<2x4xf32>, tensor<2x12xf32>
}

// -----

func.func @dynamic_reshape(%x: tensor<?x6xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{reshape with dynamic dimensions is not supported yet}}
  %0 = dlg.reshape %x : tensor<?x6xf32> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// A GEMM reads B from 16-column panels packed by a named linalg.transpose
// (which elementwise fusion leaves alone), computes C3[N/16][M][16] and
// copies it back into C; transpose_b packs the same way. A GEMV-like M
// (< 16) reads B in place.
// CHECK-LABEL: func @gemm_packed_b
// CHECK:       %[[X:.*]] = tensor.expand_shape %arg1 {{\[}}[0], [1, 2]] output_shape [128, 32, 16] : tensor<128x512xf32> into tensor<128x32x16xf32>
// CHECK:       %[[P:.*]] = linalg.transpose ins(%[[X]] : tensor<128x32x16xf32>) outs(%{{.*}} : tensor<32x128x16xf32>) permutation = [1, 0, 2]
// CHECK:       %[[F:.*]] = linalg.fill {{.*}} -> tensor<32x64x16xf32>
// CHECK:       %[[C3:.*]] = linalg.generic {indexing_maps = [#[[$A:.*]], #[[$B:.*]], #[[$C:.*]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %[[P]] : tensor<64x128xf32>, tensor<32x128x16xf32>) outs(%[[F]] : tensor<32x64x16xf32>)
// CHECK:       %[[C:.*]] = linalg.generic {{.*}} ins(%[[C3]] : tensor<32x64x16xf32>) outs(%{{.*}} : tensor<64x32x16xf32>)
// CHECK:       tensor.collapse_shape %[[C]] {{\[}}[0], [1, 2]] : tensor<64x32x16xf32> into tensor<64x512xf32>
// CHECK-LABEL: func @gemm_packed_bt
// CHECK:       tensor.expand_shape %arg1 {{\[}}[0, 1], [2]] output_shape [32, 16, 128] : tensor<512x128xf32> into tensor<32x16x128xf32>
// CHECK:       linalg.transpose {{.*}} permutation = [0, 2, 1]
// CHECK-LABEL: func @gemv_in_place
// CHECK-NOT:   linalg.transpose
func.func @gemm_packed_b(%a: tensor<64x128xf32>, %b: tensor<128x512xf32>) -> tensor<64x512xf32> {
  %0 = dlg.matmul %a, %b : tensor<64x128xf32>, tensor<128x512xf32> -> tensor<64x512xf32>
  return %0 : tensor<64x512xf32>
}
func.func @gemm_packed_bt(%a: tensor<64x128xf32>, %b: tensor<512x128xf32>) -> tensor<64x512xf32> {
  %0 = dlg.matmul %a, %b {transpose_b = true} : tensor<64x128xf32>, tensor<512x128xf32> -> tensor<64x512xf32>
  return %0 : tensor<64x512xf32>
}
func.func @gemv_in_place(%a: tensor<4x128xf32>, %b: tensor<128x512xf32>) -> tensor<4x512xf32> {
  %0 = dlg.matmul %a, %b : tensor<4x128xf32>, tensor<128x512xf32> -> tensor<4x512xf32>
  return %0 : tensor<4x512xf32>
}

// -----

// A conv2d the direct path does not take (horizontal stride 2) with 16+
// output channels and Ho*Wo a multiple of 16: im2col (a generic with the
// convolution's index map) into [N, C*kH*kW, Ho*Wo], packed into 16-column
// panels, W as [O, C*kH*kW], one GEMM over (image, panel, m, n, k), then
// the copy back to [N, O, Ho*Wo] with the bias.
// CHECK-LABEL: func.func @conv_gemm
// CHECK: %[[P:.*]] = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: linalg.generic {{.*}} ins(%[[P]] : tensor<1x8x18x18xf32>) outs(%{{.*}} : tensor<1x8x3x3x16x8xf32>)
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3], [4]] : tensor<1x8x3x3x128xf32> into tensor<1x72x128xf32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<1x72x8x16xf32>) outs(%{{.*}} : tensor<1x8x72x16xf32>) permutation = [0, 2, 1, 3]
// CHECK: %[[W:.*]] = tensor.collapse_shape %arg1 {{\[}}[0], [1, 2, 3]] : tensor<16x8x3x3xf32> into tensor<16x72xf32>
// CHECK: linalg.generic {{.*}} ins(%[[W]], %{{.*}} : tensor<16x72xf32>, tensor<1x8x72x16xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %arg2 : tensor<1x8x16x16xf32>, tensor<16xf32>)
// CHECK: arith.addf
// CHECK: return {{.*}} : tensor<1x16x16x8xf32>
func.func @conv_gemm(%x: tensor<1x8x16x16xf32>, %w: tensor<16x8x3x3xf32>, %b: tensor<16xf32>) -> tensor<1x16x16x8xf32> {
  %0 = dlg.conv2d %x, %w, %b {strides = array<i64: 1, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x16x16xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<1x16x16x8xf32>
  return %0 : tensor<1x16x16x8xf32>
}

// -----

// One image whose Ho*Wo (7x4) no panel width divides: Y^T = col^T x W^T,
// W packed into 16-channel panels, col transposed into [Ho*Wo, K] rows of
// A, one GEMM over (panel, m, n, k), and the copy back transposed to
// [O/16, 16, Ho*Wo] with the bias as [O/16, 16].
// CHECK-LABEL: func.func @conv_channels
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x8x3x3x7x4xf32>)
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x16x72xf32>) outs(%{{.*}} : tensor<2x72x16xf32>) permutation = [0, 2, 1]
// CHECK: linalg.transpose ins(%{{.*}} : tensor<72x28xf32>) outs(%{{.*}} : tensor<28x72xf32>) permutation = [1, 0]
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<28x72xf32>, tensor<2x72x16xf32>) outs(%{{.*}} : tensor<2x28x16xf32>)
// CHECK: %[[B:.*]] = tensor.expand_shape %arg2 {{\[}}[0, 1]] output_shape [2, 16] : tensor<32xf32> into tensor<2x16xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[B]] : tensor<2x28x16xf32>, tensor<2x16xf32>) outs(%{{.*}} : tensor<2x16x28xf32>)
// CHECK: return {{.*}} : tensor<1x32x7x4xf32>
func.func @conv_channels(%x: tensor<1x8x7x7xf32>, %w: tensor<32x8x3x3xf32>, %b: tensor<32xf32>) -> tensor<1x32x7x4xf32> {
  %0 = dlg.conv2d %x, %w, %b {strides = array<i64: 1, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x7x7xf32>, tensor<32x8x3x3xf32>, tensor<32xf32>) -> tensor<1x32x7x4xf32>
  return %0 : tensor<1x32x7x4xf32>
}

// -----

// Several images: the same GEMM, W shared.
// CHECK-LABEL: func.func @conv_batch
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x8x3x3x16x8xf32>)
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x72x8x16xf32>) outs(%{{.*}} : tensor<2x8x72x16xf32>) permutation = [0, 2, 1, 3]
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]{{.*}} ins(%{{.*}}, %{{.*}} : tensor<16x72xf32>, tensor<2x8x72x16xf32>) outs(%{{.*}} : tensor<2x8x16x16xf32>)
// CHECK: return {{.*}} : tensor<2x16x16x8xf32>
func.func @conv_batch(%x: tensor<2x8x16x16xf32>, %w: tensor<16x8x3x3xf32>) -> tensor<2x16x16x8xf32> {
  %0 = dlg.conv2d %x, %w {strides = array<i64: 1, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<2x8x16x16xf32>, tensor<16x8x3x3xf32>) -> tensor<2x16x16x8xf32>
  return %0 : tensor<2x16x16x8xf32>
}

// -----

// Horizontal stride 1 (conv_direct.h): W packed into 16-channel panels
// [O/16, C, kH, kW, 16], the taps accumulated into [N, O/16, Ho, Wo, 16]
// reading x in place (vertical stride 2 in its map), then the copy back to
// [N, O/16, 16, Ho, Wo] with the bias as [O/16, 16]. No im2col.
// CHECK-DAG: #[[DX:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d5, d2 * 2 + d6, d3 + d7)>
// CHECK-DAG: #[[DW:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d5, d6, d7, d4)>
// CHECK-DAG: #[[DY:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-DAG: #[[BACK:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4, d2)>
// CHECK-LABEL: func.func @conv_direct
// CHECK: %[[P:.*]] = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: %[[WP:.*]] = linalg.transpose ins(%{{.*}} : tensor<2x16x8x3x3xf32>) outs(%{{.*}} : tensor<2x8x3x3x16xf32>) permutation = [0, 2, 3, 4, 1]
// CHECK: %[[Y3:.*]] = linalg.generic {indexing_maps = [#[[DX]], #[[DW]], #[[DY]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[P]], %[[WP]] : tensor<1x8x18x18xf32>, tensor<2x8x3x3x16xf32>) outs(%{{.*}} : tensor<1x2x8x16x16xf32>)
// CHECK-NOT: tensor<1x8x3x3x8x16xf32>
// CHECK: linalg.generic {indexing_maps = [#[[BACK]], {{.*}}]{{.*}} ins(%[[Y3]], %{{.*}} : tensor<1x2x8x16x16xf32>, tensor<2x16xf32>) outs(%{{.*}} : tensor<1x2x16x8x16xf32>)
// CHECK: return {{.*}} : tensor<1x32x8x16xf32>
func.func @conv_direct(%x: tensor<1x8x16x16xf32>, %w: tensor<32x8x3x3xf32>, %b: tensor<32xf32>) -> tensor<1x32x8x16xf32> {
  %0 = dlg.conv2d %x, %w, %b {strides = array<i64: 2, 1>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x16x16xf32>, tensor<32x8x3x3xf32>, tensor<32xf32>) -> tensor<1x32x8x16xf32>
  return %0 : tensor<1x32x8x16xf32>
}

// -----

// Depthwise (groups = C = O): loops (n, c, oh, ow | kh, kw), w read at
// (c, 0, kh, kw), the bias broadcast into the initial value.
// CHECK-DAG: #[[WX:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4 * 2, d3 + d5 * 2)>
// CHECK-DAG: #[[WW:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, 0, d4, d5)>
// CHECK-DAG: #[[WY:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv_depthwise
// CHECK: linalg.generic {indexing_maps = [#[[WX]], #[[WW]], #[[WY]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%{{.*}}, %arg1 : tensor<1x24x14x14xf32>, tensor<24x1x3x3xf32>) outs(%{{.*}} : tensor<1x24x10x10xf32>)
func.func @conv_depthwise(%x: tensor<1x24x10x10xf32>, %w: tensor<24x1x3x3xf32>, %b: tensor<24xf32>) -> tensor<1x24x10x10xf32> {
  %0 = dlg.conv2d %x, %w, %b {padding = array<i64: 2, 2, 2, 2>, dilations = array<i64: 2, 2>, groups = 24} : (tensor<1x24x10x10xf32>, tensor<24x1x3x3xf32>, tensor<24xf32>) -> tensor<1x24x10x10xf32>
  return %0 : tensor<1x24x10x10xf32>
}

// -----

// A reduction over every axis with keepdims: the 0-d result expands to
// all-ones dims directly (it used to be "collapsed" to rank 1, invalid IR).
// CHECK-LABEL: func.func @reduce_all_keepdims
// CHECK: %[[R:.*]] = linalg.generic
// CHECK: tensor.expand_shape %[[R]] [] output_shape [1, 1, 1] : tensor<f32> into tensor<1x1x1xf32>
func.func @reduce_all_keepdims(%x: tensor<3x2x2xf32>) -> tensor<1x1x1xf32> {
  %0 = dlg.reduce_max %x {axes = array<i64>, keepdims = true} : tensor<3x2x2xf32> -> tensor<1x1x1xf32>
  return %0 : tensor<1x1x1xf32>
}

// -----

// An i64 min-reduction starts from INT64_MAX (the double 2^63 used to be
// converted to INT64_MIN: every result was INT64_MIN).
// CHECK-LABEL: func.func @reduce_min_i64
// CHECK: arith.constant 9223372036854775807 : i64
// CHECK: arith.minsi
func.func @reduce_min_i64(%x: tensor<3x4xi64>) -> tensor<3xi64> {
  %0 = dlg.reduce_min %x {axes = array<i64: 1>, keepdims = false} : tensor<3x4xi64> -> tensor<3xi64>
  return %0 : tensor<3xi64>
}
