// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-fold-constants))' | FileCheck %s

// dlg.non_max_suppression on constants folds to its two constants (the C
// kernel fold/nms.c): ONNX's suppress_by_IOU case, boxes 0-5 stacked along
// y, class 0, limit 3, IoU 0.5: boxes 3, 0 and 5 kept (1 and 4 overlap 0
// and 3 too much), the padding rows -1 (here none: 3 of 3 rows kept).
// CHECK-LABEL: func.func @suppress_by_iou
// CHECK-DAG: dlg.constant dense<{{\[\[}}0, 0, 3], [0, 0, 0], [0, 0, 5]]> : tensor<3x3xi64>
// CHECK-DAG: dlg.constant dense<3> : tensor<i64>
// CHECK-NOT: dlg.non_max_suppression
func.func @suppress_by_iou() -> (tensor<3x3xi64>, tensor<i64>) {
  %b = dlg.constant dense<[[[0.0, 0.0, 1.0, 1.0], [0.0, 0.1, 1.0, 1.1], [0.0, -0.1, 1.0, 0.9], [0.0, 10.0, 1.0, 11.0], [0.0, 10.1, 1.0, 11.1], [0.0, 100.0, 1.0, 101.0]]]> : tensor<1x6x4xf32>
  %s = dlg.constant dense<[[[0.9, 0.75, 0.6, 0.95, 0.5, 0.3]]]> : tensor<1x1x6xf32>
  %sel, %n = dlg.non_max_suppression %b, %s {iou_threshold = 0.5, max_output_boxes_per_class = 3 : i64} : tensor<1x6x4xf32>, tensor<1x1x6xf32> -> tensor<3x3xi64>, tensor<i64>
  return %sel, %n : tensor<3x3xi64>, tensor<i64>
}

// Two classes, score threshold 0.4, limit 3: 2 x 3 padded rows. Class 0:
// 3 and 0 kept, 1, 2 and 4 overlap them by 0.82 (and 5 is below the
// threshold); class 1 (box 0 at 0.95, 3 at 0.5, 4 at 0.45 above it): 0 and
// 3 kept, 4 overlaps 3. Four rows, then the padding, -1.
// CHECK-LABEL: func.func @padded
// CHECK-DAG: dlg.constant dense<{{\[\[}}0, 0, 3], [0, 0, 0], [0, 1, 0], [0, 1, 3], [-1, -1, -1], [-1, -1, -1]]> : tensor<6x3xi64>
// CHECK-DAG: dlg.constant dense<4> : tensor<i64>
func.func @padded() -> (tensor<6x3xi64>, tensor<i64>) {
  %b = dlg.constant dense<[[[0.0, 0.0, 1.0, 1.0], [0.0, 0.1, 1.0, 1.1], [0.0, -0.1, 1.0, 0.9], [0.0, 10.0, 1.0, 11.0], [0.0, 10.1, 1.0, 11.1], [0.0, 100.0, 1.0, 101.0]]]> : tensor<1x6x4xf32>
  %s = dlg.constant dense<[[[0.9, 0.75, 0.6, 0.95, 0.5, 0.3], [0.95, 0.3, 0.2, 0.5, 0.45, 0.35]]]> : tensor<1x2x6xf32>
  %sel, %n = dlg.non_max_suppression %b, %s {iou_threshold = 0.5, max_output_boxes_per_class = 3 : i64, score_threshold = 0.4} : tensor<1x6x4xf32>, tensor<1x2x6xf32> -> tensor<6x3xi64>, tensor<i64>
  return %sel, %n : tensor<6x3xi64>, tensor<i64>
}
