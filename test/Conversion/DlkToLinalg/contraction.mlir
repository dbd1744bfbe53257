// RUN: dlc-opt %s --split-input-file --dlk-to-linalg | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlk-to-linalg=pack=false | FileCheck %s --check-prefix=NOPACK

// Contractions: generics with reduction loops accumulating into a zero-
// (or bias-) initialised output. The CPU packing policy (the default) packs
// B into column panels for GEMMs with enough rows and turns a conv2d into a
// GEMM (im2col); pack=false (the GPU's policy) keeps plain contractions.

// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK: %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<4x16xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<8x16xf32>) outs(%[[ACC]] : tensor<4x16xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[O:.*]]: f32):
// CHECK: %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK: arith.addf %[[O]], %[[P]] : f32
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = dlg.matmul %a, %b : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// 64 rows (matmuls pack from 64): B [64, 32] packed into 16-column panels [2, 64, 16] by a named
// transpose, the GEMM over (panel, m, n, k), then the copy back.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
// CHECK-DAG: #[[BP:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[C3:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @matmul_packed
// CHECK: %[[S:.*]] = tensor.expand_shape %arg1 {{\[}}[0], [1, 2]] output_shape [64, 2, 16]
// CHECK: %[[PANELS:.*]] = linalg.transpose ins(%[[S]] : tensor<64x2x16xf32>) outs(%{{.*}} : tensor<2x64x16xf32>) permutation = [1, 0, 2]
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[A]], #[[BP]], #[[C3]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %[[PANELS]] : tensor<64x64xf32>, tensor<2x64x16xf32>) outs(%{{.*}} : tensor<2x64x16xf32>)
// CHECK: %[[U:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[R]] : tensor<2x64x16xf32>) outs(%{{.*}} : tensor<64x2x16xf32>)
// CHECK: tensor.collapse_shape %[[U]] {{\[}}[0], [1, 2]] : tensor<64x2x16xf32> into tensor<64x32xf32>
// NOPACK-LABEL: func.func @matmul_packed
// NOPACK-NOT: linalg.transpose
// NOPACK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<64x64xf32>, tensor<64x32xf32>) outs(%{{.*}} : tensor<64x32xf32>)
// NOPACK-NOT: linalg.transpose
func.func @matmul_packed(%a: tensor<64x64xf32>, %b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %0 = dlg.matmul %a, %b : tensor<64x64xf32>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// -----

// A's rows 4 KiB apart (K = 1024 floats) would share their L1 sets: A is
// read through a copy whose rows are a cache line (16 floats) longer,
// sliced back to [64, 1024]; the padding is never read (poison, no stores). Not for K = 1000, a transposed A or a
// constant A (which would be copied on every call).
// CHECK-LABEL: func.func @matmul_rows_4k
// CHECK: %[[UNREAD:.*]] = ub.poison : f32
// CHECK: %[[PAD:.*]] = tensor.pad %arg0 low[0, 0] high[0, 16]
// CHECK: tensor.yield %[[UNREAD]]
// CHECK: } : tensor<64x1024xf32> to tensor<64x1040xf32>
// CHECK: %[[A:.*]] = tensor.extract_slice %[[PAD]][0, 0] [64, 1024] [1, 1] : tensor<64x1040xf32> to tensor<64x1024xf32>
// CHECK: linalg.generic {{.*}} ins(%[[A]], %{{.*}} : tensor<64x1024xf32>, tensor<2x1024x16xf32>)
// NOPACK-LABEL: func.func @matmul_rows_4k
// NOPACK-NOT: tensor.pad
// NOPACK: linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<64x1024xf32>, tensor<1024x32xf32>)
func.func @matmul_rows_4k(%a: tensor<64x1024xf32>, %b: tensor<1024x32xf32>) -> tensor<64x32xf32> {
  %0 = dlg.matmul %a, %b : tensor<64x1024xf32>, tensor<1024x32xf32> -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// CHECK-LABEL: func.func @matmul_rows_kept
// CHECK-NOT: tensor.pad
// CHECK: return
func.func @matmul_rows_kept(%a: tensor<64x1000xf32>, %at: tensor<1024x64xf32>, %b: tensor<1000x32xf32>,
                            %b2: tensor<1024x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) {
  %0 = dlg.matmul %a, %b : tensor<64x1000xf32>, tensor<1000x32xf32> -> tensor<64x32xf32>
  %1 = dlg.matmul %at, %b2 {transpose_a = true} : tensor<1024x64xf32>, tensor<1024x32xf32> -> tensor<64x32xf32>
  %c = dlg.constant dense<0.5> : tensor<64x1024xf32>
  %2 = dlg.matmul %c, %b2 : tensor<64x1024xf32>, tensor<1024x32xf32> -> tensor<64x32xf32>
  return %0, %1, %2 : tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>
}

// -----

// A 1x1 conv on 1024 channels at 7x7 (49 pixels, no panel width divides
// them) is the channel-panel GEMM Y^T = col^T x W^T, whose A, col^T
// [49, 1024], has rows 4 KiB apart: read through a copy with longer rows.
// CHECK-LABEL: func.func @conv2d_channel_panels_rows_4k
// CHECK: %[[T:.*]] = linalg.transpose ins(%{{.*}} : tensor<1024x49xf32>) outs(%{{.*}} : tensor<49x1024xf32>) permutation = [1, 0]
// CHECK: %[[PAD:.*]] = tensor.pad %[[T]] low[0, 0] high[0, 16]
// CHECK: %[[A:.*]] = tensor.extract_slice %[[PAD]][0, 0] [49, 1024] [1, 1] : tensor<49x1040xf32> to tensor<49x1024xf32>
// CHECK: linalg.generic {{.*}} ins(%[[A]], %{{.*}} : tensor<49x1024xf32>, tensor<2x1024x16xf32>)
func.func @conv2d_channel_panels_rows_4k(%x: tensor<1x1024x7x7xf32>, %w: tensor<32x1024x1x1xf32>) -> tensor<1x32x7x7xf32> {
  %0 = dlg.conv2d %x, %w : (tensor<1x1024x7x7xf32>, tensor<32x1024x1x1xf32>) -> tensor<1x32x7x7xf32>
  return %0 : tensor<1x32x7x7xf32>
}

// -----

// Batched with broadcasting: a's size-1 batch dim pinned to 0.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @matmul_batched
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<2x1x4x8xf32>, tensor<3x8x5xf32>) outs(%{{.*}} : tensor<2x3x4x5xf32>)
func.func @matmul_batched(%a: tensor<2x1x4x8xf32>, %b: tensor<3x8x5xf32>) -> tensor<2x3x4x5xf32> {
  %0 = dlg.matmul %a, %b : tensor<2x1x4x8xf32>, tensor<3x8x5xf32> -> tensor<2x3x4x5xf32>
  return %0 : tensor<2x3x4x5xf32>
}

// -----

// Integers multiply-add in the output's type; transpose_b swaps B's map.
// CHECK-DAG: #[[BT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @matmul_i32
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: linalg.fill ins(%[[ZERO]] : i32)
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[BT]], #{{.*}}], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: arith.muli
// CHECK: arith.addi
func.func @matmul_i32(%a: tensor<4x8xi32>, %b: tensor<16x8xi32>) -> tensor<4x16xi32> {
  %0 = dlg.matmul %a, %b {transpose_b = true} : tensor<4x8xi32>, tensor<16x8xi32> -> tensor<4x16xi32>
  return %0 : tensor<4x16xi32>
}

// -----

// Grouped, strided conv2d: a direct convolution over
// (n, o, oh, ow | c, kh, kw), the input channel offset by the group, the
// output initialised from the broadcast bias.
// CHECK-DAG: #[[BIAS:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-DAG: #[[ID4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, (d1 floordiv 8) * 4 + d4, d2 * 2 + d5, d3 * 2 + d6)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
// CHECK-DAG: #[[O:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv2d
// CHECK: %[[XP:.*]] = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: %[[INIT:.*]] = linalg.generic {indexing_maps = [#[[BIAS]], #[[ID4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg2 : tensor<16xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[X]], #[[W]], #[[O]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[XP]], %arg1 : tensor<1x8x34x34xf32>, tensor<16x4x3x3xf32>) outs(%[[INIT]] : tensor<1x16x16x16xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @conv2d(%x: tensor<1x8x32x32xf32>, %w: tensor<16x4x3x3xf32>, %b: tensor<16xf32>) -> tensor<1x16x16x16xf32> {
  %0 = dlg.conv2d %x, %w, %b {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, groups = 2}
      : (tensor<1x8x32x32xf32>, tensor<16x4x3x3xf32>, tensor<16xf32>) -> tensor<1x16x16x16xf32>
  return %0 : tensor<1x16x16x16xf32>
}

// -----

// conv2d as a GEMM where the direct conv does not apply (horizontal
// stride 2): the im2col copy [1, C, kH, kW, Ho, Wo], merged to [1, 72, 32],
// packed into pixel panels [1, 2, 72, 16], then the panel GEMM with
// W [16, 72]. pack=false: the direct convolution.
// CHECK-DAG: #[[WIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4, d5 * 2 + d3)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d2, d4)>
// CHECK-DAG: #[[BP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
// CHECK-LABEL: func.func @conv2d_gemm
// CHECK: %[[COL:.*]] = linalg.generic {indexing_maps = [#[[WIN]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%{{.*}} : tensor<1x8x10x10xf32>) outs(%{{.*}} : tensor<1x8x3x3x8x4xf32>)
// CHECK: tensor.collapse_shape %[[COL]]
// CHECK: %[[PANELS:.*]] = linalg.transpose ins(%{{.*}} : tensor<1x72x2x16xf32>) outs(%{{.*}} : tensor<1x2x72x16xf32>) permutation = [0, 2, 1, 3]
// CHECK: %[[W2:.*]] = tensor.collapse_shape %arg1 {{\[}}[0], [1, 2, 3]] : tensor<16x8x3x3xf32> into tensor<16x72xf32>
// CHECK: linalg.generic {indexing_maps = [#[[W]], #[[BP]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[W2]], %[[PANELS]] : tensor<16x72xf32>, tensor<1x2x72x16xf32>) outs(%{{.*}} : tensor<1x2x16x16xf32>)
// CHECK: tensor.expand_shape {{.*}} into tensor<1x16x8x4xf32>
// NOPACK-LABEL: func.func @conv2d_gemm
// NOPACK-NOT: linalg.transpose
// NOPACK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%{{.*}}, %arg1 : tensor<1x8x10x10xf32>, tensor<16x8x3x3xf32>) outs(%{{.*}} : tensor<1x16x8x4xf32>)
func.func @conv2d_gemm(%x: tensor<1x8x8x8xf32>, %w: tensor<16x8x3x3xf32>) -> tensor<1x16x8x4xf32> {
  %0 = dlg.conv2d %x, %w {strides = array<i64: 1, 2>, padding = array<i64: 1, 1, 1, 1>}
      : (tensor<1x8x8x8xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x8x4xf32>
  return %0 : tensor<1x16x8x4xf32>
}

// -----

// Stride-1 rows: the direct conv (no im2col); pack=false (the GPU's
// policy) keeps the plain direct nest.
// CHECK-LABEL: func.func @conv2d_direct
// CHECK-NOT: tensor<1x8x3x3x8x8xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<1x8x10x10xf32>, tensor<1x8x3x3x16xf32>) outs(%{{.*}} : tensor<1x1x8x8x16xf32>)
// NOPACK-LABEL: func.func @conv2d_direct
// NOPACK-NOT: linalg.transpose
// NOPACK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%{{.*}}, %arg1 : tensor<1x8x10x10xf32>, tensor<16x8x3x3xf32>) outs(%{{.*}} : tensor<1x16x8x8xf32>)
func.func @conv2d_direct(%x: tensor<1x8x8x8xf32>, %w: tensor<16x8x3x3xf32>) -> tensor<1x16x8x8xf32> {
  %0 = dlg.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>}
      : (tensor<1x8x8x8xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x8x8xf32>
  return %0 : tensor<1x16x8x8xf32>
}
