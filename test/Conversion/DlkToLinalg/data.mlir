// RUN: dlc-opt %s --split-input-file --dlk-to-linalg | FileCheck %s

// Data movement: copies as generics (transpose, reversed slices, gather)
// or tensor ops (reshape, concat, forward slices, pad), constants as
// arith.constant.

// Result dim i reads input dim perm[i]: the input map is the inverse.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2) -> (d1, d2, d0)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @transpose
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x2x3xf32>
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<2x3x4xf32>) outs(%[[E]] : tensor<4x2x3xf32>)
// CHECK: ^bb0(%[[V:.*]]: f32, %{{.*}}: f32):
// CHECK: linalg.yield %[[V]] : f32
func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = dlg.transpose %x perm = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape
// CHECK: %[[F:.*]] = tensor.collapse_shape %arg0 {{\[}}[0, 1, 2]] : tensor<4x2x3xf32> into tensor<24xf32>
// CHECK: %[[R:.*]] = tensor.expand_shape %[[F]] {{\[}}[0, 1]] output_shape [8, 3] : tensor<24xf32> into tensor<8x3xf32>
// CHECK: return %[[R]]
func.func @reshape(%x: tensor<4x2x3xf32>) -> tensor<8x3xf32> {
  %0 = dlg.reshape %x : tensor<4x2x3xf32> -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}

// -----

// CHECK-LABEL: func.func @concat
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x8x4xf32>
// CHECK: %[[A:.*]] = tensor.insert_slice %arg0 into %[[E]][0, 0, 0] [2, 3, 4] [1, 1, 1] : tensor<2x3x4xf32> into tensor<2x8x4xf32>
// CHECK: %[[B:.*]] = tensor.insert_slice %arg1 into %[[A]][0, 3, 0] [2, 5, 4] [1, 1, 1] : tensor<2x5x4xf32> into tensor<2x8x4xf32>
// CHECK: return %[[B]]
func.func @concat(%x: tensor<2x3x4xf32>, %y: tensor<2x5x4xf32>) -> tensor<2x8x4xf32> {
  %0 = dlg.concat %x, %y {axis = -2} : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x8x4xf32>
  return %0 : tensor<2x8x4xf32>
}

// -----

// Forward steps: one extract_slice with strides.
// CHECK-LABEL: func.func @slice
// CHECK: tensor.extract_slice %arg0[1, 0, 0] [1, 3, 4] [1, 3, 1] : tensor<2x8x4xf32> to tensor<1x3x4xf32>
// CHECK-NOT: linalg.generic
func.func @slice(%x: tensor<2x8x4xf32>) -> tensor<1x3x4xf32> {
  %0 = dlg.slice %x {starts = array<i64: 1, 0, 0>, ends = array<i64: 2, 9223372036854775807, 4>, steps = array<i64: 1, 3, 1>} : tensor<2x8x4xf32> -> tensor<1x3x4xf32>
  return %0 : tensor<1x3x4xf32>
}

// -----

// A negative step: a copy reading index first + i * step.
// CHECK-DAG: #[[REV:.*]] = affine_map<(d0, d1) -> (d0, -d1 + 7)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @slice_reverse
// CHECK: linalg.generic {indexing_maps = [#[[REV]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<2x8xf32>) outs(%{{.*}} : tensor<2x8xf32>)
func.func @slice_reverse(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = dlg.slice %x {starts = array<i64: 0, -1>, ends = array<i64: 2, -9223372036854775807>, steps = array<i64: 1, -1>} : tensor<2x8xf32> -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// A generic over the result reads the indices; its body wraps negative
// indices and extracts from the data at the other dims' loop indices. An
// index still outside [0, 100) reads row 0 and yields NaN instead (never
// memory past the data).
// CHECK-DAG: #[[IDS:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @gather
// CHECK: linalg.generic {indexing_maps = [#[[IDS]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1 : tensor<4x7xi64>) outs(%{{.*}} : tensor<4x7x16xf32>)
// CHECK: ^bb0(%[[I:.*]]: i64, %{{.*}}: f32):
// CHECK: %[[IX:.*]] = arith.index_cast %[[I]] : i64 to index
// CHECK: %[[N:.*]] = arith.constant 100 : index
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[IX]], %{{.*}} : index
// CHECK: %[[W:.*]] = arith.addi %[[IX]], %[[N]] : index
// CHECK: %[[WR:.*]] = arith.select %[[NEG]], %[[W]], %[[IX]] : index
// CHECK: %[[NAN:.*]] = arith.constant 0x7FC00000 : f32
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[WR]], %[[N]] : index
// CHECK: %[[ROW:.*]] = arith.select %[[IN]], %[[WR]], %{{.*}} : index
// CHECK: %[[COL:.*]] = linalg.index 2 : index
// CHECK: %[[X:.*]] = tensor.extract %arg0[%[[ROW]], %[[COL]]] : tensor<100x16xf32>
// CHECK: %[[V:.*]] = arith.select %[[IN]], %[[X]], %[[NAN]] : f32
// CHECK: linalg.yield %[[V]] : f32
func.func @gather(%e: tensor<100x16xf32>, %ids: tensor<4x7xi64>) -> tensor<4x7x16xf32> {
  %0 = dlg.gather %e[%ids] : (tensor<100x16xf32>, tensor<4x7xi64>) -> tensor<4x7x16xf32>
  return %0 : tensor<4x7x16xf32>
}

// -----

// CHECK-LABEL: func.func @pad
// CHECK: %[[V:.*]] = arith.constant -1.000000e+00 : f32
// CHECK: tensor.pad %arg0 low[0, 1, 2] high[0, 0, 1]
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tensor.yield %[[V]] : f32
// CHECK: tensor<2x3x4xf32> to tensor<2x4x7xf32>
func.func @pad(%x: tensor<2x3x4xf32>) -> tensor<2x4x7xf32> {
  %0 = dlg.pad %x {pads = array<i64: 0, 1, 2, 0, 0, 1>, value = -1.0} : tensor<2x3x4xf32> -> tensor<2x4x7xf32>
  return %0 : tensor<2x4x7xf32>
}

// -----

// CHECK-LABEL: func.func @constant
// CHECK: %[[C:.*]] = arith.constant dense<1.500000e+00> : tensor<2x3xf32>
// CHECK: return %[[C]]
func.func @constant() -> tensor<2x3xf32> {
  %0 = dlg.constant dense<1.5> : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
