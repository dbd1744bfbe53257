// RUN: dlc-opt %s --split-input-file --dlk-to-linalg | FileCheck %s

// Softmax and the normalisations: reductions into the kept dims, per-row
// values once per row by a linalg.map (which elementwise fusion keeps
// apart), then one parallel generic reading x, the row values and the
// parameters.

// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @softmax
// CHECK: %[[LOW:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[X]], #[[ROW]]], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<2x5xf32>)
// CHECK: arith.maximumf
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[X]], #[[ROW]], #[[ROW]]], iterator_types = ["parallel", "reduction"]} ins(%arg0, %[[MAX]] : tensor<2x5xf32>, tensor<2xf32>)
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: %[[INV:.*]] = linalg.map ins(%[[SUM]] : tensor<2xf32>) outs(%{{.*}} : tensor<2xf32>)
// CHECK: arith.divf
// CHECK: linalg.generic {indexing_maps = [#[[X]], #[[ROW]], #[[ROW]], #[[X]]], iterator_types = ["parallel", "parallel"]} ins(%arg0, %[[MAX]], %[[INV]] : tensor<2x5xf32>, tensor<2xf32>, tensor<2xf32>)
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: arith.mulf
func.func @softmax(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = dlg.softmax %x : tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// log_softmax over axis 0: x - max - log(sum).
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @log_softmax
// CHECK: %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[X]], #[[COL]]], iterator_types = ["reduction", "parallel"]}
// CHECK: arith.maximumf
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[X]], #[[COL]], #[[COL]]], iterator_types = ["reduction", "parallel"]}
// CHECK: math.exp
// CHECK: %[[LOG:.*]] = linalg.map { math.log } ins(%[[SUM]] : tensor<5xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[X]], #[[COL]], #[[COL]], #[[X]]], iterator_types = ["parallel", "parallel"]} ins(%arg0, %[[MAX]], %[[LOG]] :
// CHECK: %[[D:.*]] = arith.subf
// CHECK: arith.subf %[[D]]
// CHECK-NOT: math.exp
// CHECK: return
func.func @log_softmax(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = dlg.log_softmax %x {axis = 0} : tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// layer_norm: the sum, the centred sum of squares (reading the sum), the
// mean and 1/sqrt(var + eps) per row, then (x - mean) * inv * gamma + beta.
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[P:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @layer_norm
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[X]], #[[ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK: arith.addf
// CHECK: %[[SQ:.*]] = linalg.generic {indexing_maps = [#[[X]], #[[ROW]], #[[ROW]]], iterator_types = ["parallel", "reduction"]} ins(%arg0, %[[SUM]] :
// CHECK: arith.constant 6.250000e-02 : f32
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: %[[MEAN:.*]] = linalg.map ins(%[[SUM]] : tensor<4xf32>)
// CHECK: %[[INV:.*]] = linalg.map ins(%[[SQ]] : tensor<4xf32>)
// CHECK: arith.constant 9.99999974E-6 : f32
// CHECK: math.rsqrt
// CHECK: linalg.generic {indexing_maps = [#[[X]], #[[ROW]], #[[ROW]], #[[P]], #[[P]], #[[X]]], iterator_types = ["parallel", "parallel"]} ins(%arg0, %[[MEAN]], %[[INV]], %arg1, %arg2 :
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @layer_norm(%x: tensor<4x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = dlg.layer_norm %x gamma %g beta %b : (tensor<4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// rms_norm over the trailing dims from axis 1: sum of squares, 1/rms per
// row, x * inv * gamma; gamma indexed by the normalised (trailing) dims.
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-DAG: #[[TRAIL:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @rms_norm
// CHECK: %[[SQ:.*]] = linalg.generic {indexing_maps = [#[[X]], #[[ROW]]], iterator_types = ["parallel", "reduction", "reduction"]}
// CHECK: %[[M:.*]] = arith.mulf %[[IN:.*]], %[[IN]] : f32
// CHECK: arith.addf %{{.*}}, %[[M]] : f32
// CHECK: %[[INV:.*]] = linalg.map ins(%[[SQ]] : tensor<4xf32>)
// CHECK: arith.constant 1.562500e-02 : f32
// CHECK: math.rsqrt
// CHECK: linalg.generic {indexing_maps = [#[[X]], #[[ROW]], #[[TRAIL]], #[[X]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %[[INV]], %arg1 :
// CHECK: arith.mulf
// CHECK: arith.mulf
// CHECK-NOT: arith.addf
// CHECK: return
func.func @rms_norm(%x: tensor<4x8x8xf32>, %g: tensor<8x8xf32>) -> tensor<4x8x8xf32> {
  %0 = dlg.rms_norm %x gamma %g {axis = 1, epsilon = 1.0e-6} : (tensor<4x8x8xf32>, tensor<8x8xf32>) -> tensor<4x8x8xf32>
  return %0 : tensor<4x8x8xf32>
}

// -----

// batch_norm (inference): no reduction; the four vectors indexed by the
// channel dim, (x - mean) * scale / sqrt(var + eps) + bias.
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @batch_norm
// CHECK-NOT: "reduction"
// CHECK: linalg.generic {indexing_maps = [#[[X]], #[[C]], #[[C]], #[[C]], #[[C]], #[[X]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0, %arg1, %arg2, %arg3, %arg4 :
// CHECK: ^bb0(%[[IN:.*]]: f32, %[[SCALE:.*]]: f32, %[[BIAS:.*]]: f32, %[[MEAN:.*]]: f32, %[[VAR:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[EPS:.*]] = arith.constant 1.000000e-03 : f32
// CHECK: %[[V:.*]] = arith.addf %[[VAR]], %[[EPS]] : f32
// CHECK: %[[INV:.*]] = math.rsqrt %[[V]] : f32
// CHECK: %[[D:.*]] = arith.subf %[[IN]], %[[MEAN]] : f32
// CHECK: %[[S:.*]] = arith.mulf %[[SCALE]], %[[INV]] : f32
// CHECK: %[[Y:.*]] = arith.mulf %[[D]], %[[S]] : f32
// CHECK: arith.addf %[[Y]], %[[BIAS]] : f32
func.func @batch_norm(%x: tensor<2x16x5x5xf32>, %s: tensor<16xf32>, %b: tensor<16xf32>, %m: tensor<16xf32>, %v: tensor<16xf32>) -> tensor<2x16x5x5xf32> {
  %0 = dlg.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-3} : (tensor<2x16x5x5xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x16x5x5xf32>
  return %0 : tensor<2x16x5x5xf32>
}
