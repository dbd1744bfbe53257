// dlg.non_max_suppression: round trip (custom and generic form), the
// defaults, and the result types its shape rule infers (padded rows
// B * C * min(max_output_boxes_per_class, N), dynamic where a dim is).
// RUN: dlc-opt %s | dlc-opt | FileCheck %s
// RUN: dlc-opt %s --mlir-print-op-generic | dlc-opt | FileCheck %s

// CHECK-LABEL: func.func @all_attributes
// CHECK: dlg.non_max_suppression %{{.*}}, %{{.*}} {center_point_box = true, iou_threshold = 5.000000e-01 : f64, max_output_boxes_per_class = 3 : i64, score_threshold = 2.500000e-01 : f64} : tensor<2x6x4xf32>, tensor<2x3x6xf32> -> tensor<18x3xi64>, tensor<i64>
func.func @all_attributes(%b: tensor<2x6x4xf32>, %s: tensor<2x3x6xf32>) -> (tensor<18x3xi64>, tensor<i64>) {
  %sel, %n = dlg.non_max_suppression %b, %s {center_point_box = true, iou_threshold = 0.5, max_output_boxes_per_class = 3 : i64, score_threshold = 0.25} : tensor<2x6x4xf32>, tensor<2x3x6xf32> -> tensor<18x3xi64>, tensor<i64>
  return %sel, %n : tensor<18x3xi64>, tensor<i64>
}

// The defaults: corners, no limit given (0: nothing kept), IoU 0, no score
// threshold.
// CHECK-LABEL: func.func @defaults
// CHECK: dlg.non_max_suppression %{{.*}}, %{{.*}} : tensor<1x6x4xf32>, tensor<1x1x6xf32> -> tensor<0x3xi64>, tensor<i64>
func.func @defaults(%b: tensor<1x6x4xf32>, %s: tensor<1x1x6xf32>) -> (tensor<0x3xi64>, tensor<i64>) {
  %sel, %n = dlg.non_max_suppression %b, %s : tensor<1x6x4xf32>, tensor<1x1x6xf32> -> tensor<0x3xi64>, tensor<i64>
  return %sel, %n : tensor<0x3xi64>, tensor<i64>
}

// A limit above the box count (torchvision exports INT64_MAX) pads to N per
// class.
// CHECK-LABEL: func.func @huge_limit
// CHECK: -> tensor<12x3xi64>, tensor<i64>
func.func @huge_limit(%b: tensor<1x6x4xf32>, %s: tensor<1x2x6xf32>) -> (tensor<12x3xi64>, tensor<i64>) {
  %sel, %n = dlg.non_max_suppression %b, %s {max_output_boxes_per_class = 9223372036854775807 : i64} : tensor<1x6x4xf32>, tensor<1x2x6xf32> -> tensor<12x3xi64>, tensor<i64>
  return %sel, %n : tensor<12x3xi64>, tensor<i64>
}

// A dynamic dim: the padded size is dynamic; the other operand's static dim
// still checks it.
// CHECK-LABEL: func.func @dynamic
// CHECK: : tensor<?x?x4xf32>, tensor<1x2x?xf32> -> tensor<?x3xi64>, tensor<i64>
func.func @dynamic(%b: tensor<?x?x4xf32>, %s: tensor<1x2x?xf32>) -> (tensor<?x3xi64>, tensor<i64>) {
  %sel, %n = dlg.non_max_suppression %b, %s {max_output_boxes_per_class = 2 : i64} : tensor<?x?x4xf32>, tensor<1x2x?xf32> -> tensor<?x3xi64>, tensor<i64>
  return %sel, %n : tensor<?x3xi64>, tensor<i64>
}
