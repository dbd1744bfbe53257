// RUN: dlc-opt %s --dlk-to-linalg | FileCheck %s
// RUN: dlc-opt %s --lower-to-llvm -o /dev/null

// dlg.non_max_suppression becomes a call of a private function of loops on
// tensors, one per distinct shape and attribute set (two equal ops share
// one); the pipeline's `inline` pass puts the loops back before
// bufferization (the second RUN line lowers it all the way).

// CHECK-LABEL: func.func @two
// CHECK: %[[A:.*]]:2 = call @[[F:dlc_nms_1x2x6_k3_corner_iou3F000000_all]](%arg0, %arg1) : (tensor<1x6x4xf32>, tensor<1x2x6xf32>) -> (tensor<6x3xi64>, tensor<i64>)
// CHECK: %[[B:.*]]:2 = call @[[F]](%arg0, %arg1)
// CHECK: %[[C:.*]]:2 = call @dlc_nms_1x2x6_k6_center_iou00000000_score3E800000(%arg0, %arg1) : (tensor<1x6x4xf32>, tensor<1x2x6xf32>) -> (tensor<12x3xi64>, tensor<i64>)
// CHECK: return %[[A]]#0, %[[A]]#1, %[[B]]#0, %[[C]]#0, %[[C]]#1

// The padding is -1; then per batch and class: the candidates (score
// above the threshold; none here: all) in index order, a bottom-up merge
// sort of them (ceil(log2 6) = 3 passes) by descending score, ties to the
// lower index (the right run goes first only on a strictly greater score,
// or a number over a NaN), corners by onnxruntime's MaxMin (a select on
// oge) in sorted order, then one greedy walk in that order: a live box
// is kept while the class has room and kills the live boxes after it that
// it overlaps by more than the threshold. The scratch tensors ride the
// batch and class loops, so they are allocated once per call.
// CHECK-LABEL: func.func private @dlc_nms_1x2x6_k3_corner_iou3F000000_all
// CHECK: linalg.fill ins(%c-1_i64 : i64) outs(%{{.*}} : tensor<6x3xi64>)
// CHECK: scf.for {{.*}} -> (tensor<6x3xi64>, index, tensor<2x6xindex>, tensor<5x6xf32>, tensor<6xi1>)
// CHECK: scf.for {{.*}} -> (tensor<6x3xi64>, index, tensor<2x6xindex>, tensor<5x6xf32>, tensor<6xi1>)
// CHECK: scf.for {{.*}} -> (tensor<2x6xindex>, index)
// CHECK-NOT: arith.cmpf ogt, %{{.*}}, %cst
// CHECK: tensor.insert %{{.*}} into %{{.*}}[%c0, %{{.*}}] : tensor<2x6xindex>
// CHECK: scf.for %{{.*}} = %c0 to %c3{{.*}} step %c1 iter_args({{.*}}) -> (tensor<2x6xindex>)
// CHECK: arith.shli
// CHECK: scf.for {{.*}} -> (tensor<2x6xindex>, index, index)
// CHECK: arith.cmpf ogt, %[[RIGHT:.*]], %[[LEFT:.*]] : f32
// CHECK: arith.cmpf uno, %[[LEFT]], %[[LEFT]] : f32
// CHECK: arith.cmpf ord, %[[RIGHT]], %[[RIGHT]] : f32
// CHECK: tensor.insert %{{.*}} into %{{.*}} : tensor<2x6xindex>
// CHECK: scf.for {{.*}} -> (tensor<5x6xf32>, tensor<6xi1>)
// CHECK: arith.cmpf oge
// CHECK: arith.select
// CHECK: arith.mulf
// CHECK: scf.for {{.*}} -> (tensor<6x3xi64>, index, index, tensor<6xi1>)
// CHECK: arith.cmpi ult
// CHECK: scf.if {{.*}} -> (tensor<6x3xi64>, index, index, tensor<6xi1>)
// CHECK: tensor.insert %{{.*}} into %{{.*}} : tensor<6x3xi64>
// CHECK: scf.for {{.*}} -> (tensor<6xi1>)
// CHECK: arith.divf
// CHECK: arith.cmpf ogt
// CHECK: tensor.from_elements %{{.*}} : tensor<i64>

// Center boxes: half the width and height each side; a score threshold
// filters the candidates before the sort.
// CHECK-LABEL: func.func private @dlc_nms_1x2x6_k6_center_iou00000000_score3E800000
// CHECK: scf.for {{.*}} -> (tensor<2x6xindex>, index)
// CHECK: arith.cmpf ogt, %{{.*}}, %cst
// CHECK: scf.if
// CHECK: arith.divf %{{.*}}, %cst{{.*}} : f32
// CHECK: arith.subf
// CHECK: arith.addf
func.func @two(%b: tensor<1x6x4xf32>, %s: tensor<1x2x6xf32>) -> (tensor<6x3xi64>, tensor<i64>, tensor<6x3xi64>, tensor<12x3xi64>, tensor<i64>) {
  %sel, %n = dlg.non_max_suppression %b, %s {iou_threshold = 0.5, max_output_boxes_per_class = 3 : i64} : tensor<1x6x4xf32>, tensor<1x2x6xf32> -> tensor<6x3xi64>, tensor<i64>
  %sel2, %n2 = dlg.non_max_suppression %b, %s {iou_threshold = 0.5, max_output_boxes_per_class = 3 : i64} : tensor<1x6x4xf32>, tensor<1x2x6xf32> -> tensor<6x3xi64>, tensor<i64>
  %sel3, %n3 = dlg.non_max_suppression %b, %s {center_point_box = true, max_output_boxes_per_class = 100 : i64, score_threshold = 0.25} : tensor<1x6x4xf32>, tensor<1x2x6xf32> -> tensor<12x3xi64>, tensor<i64>
  return %sel, %n, %sel2, %sel3, %n3 : tensor<6x3xi64>, tensor<i64>, tensor<6x3xi64>, tensor<12x3xi64>, tensor<i64>
}
